from setuptools import find_packages, setup

setup(
    name="unpy",
    version="0.1.0",
    description="Compile annotated Python/NumPy loops to C++/OpenMP and OpenCL",
    py_modules=["unpython"],
    packages=find_packages(include=["unpy", "unpy.*", "jitgpu", "jitgpu.*", "gpurts", "gpurts.*"]),
    package_data={"unpy.cpp_emit": ["*.hpp"]},
    python_requires=">=3.10",
    install_requires=["numpy>=2.0", "gast>=0.5", "pybind11>=2.11", "pyopencl>=2024.1",
                      "pulp>=2.8", "highspy>=1.7"],
    extras_require={"test": ["pytest", "pytest-xdist", "hypothesis", "pocl-binary-distribution"],
                    "bench": ["numba", "pythran", "matplotlib"]},
    entry_points={"console_scripts": ["unpy=unpy.cli:main"]},
)
