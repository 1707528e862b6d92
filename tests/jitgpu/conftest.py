"""Fixtures for the GPU-path tests: the kernel modules of tests/jitgpu, compiled and interpreted,
run through OpenCL on PoCL's CPU device for real (no mocks).

Every test runs with UNPY_DEVICE=pocl and UNPY_FORCE_GPU=1 unless it changes them itself (the
`pocl_env` monkeypatch); a compiled result is compared with the interpreter's (the reference) and
`unpython.explain` says where each nest ran."""
import os
from pathlib import Path

import pytest

from gpucheck import HERE, GpuPair, build_module, load_module, pocl_device

TEST_DEVICE = os.environ.get("UNPY_TEST_DEVICE", "pocl")
ENV_SWITCHES = ("UNPY_DEVICE", "UNPY_FORCE_GPU", "UNPY_GPU_MEM_LIMIT", "UNPY_GPU_OPT",
                "UNPY_DISABLE")


@pytest.fixture(autouse=True)
def pocl_env(monkeypatch):
    """UNPY_DEVICE=pocl and UNPY_FORCE_GPU=1, no memory limit, every optimisation."""
    for name in ENV_SWITCHES:
        monkeypatch.delenv(name, raising=False)
    # UNPY_TEST_DEVICE runs the suite on another device (e.g. 'gpu' on a machine with one).
    monkeypatch.setenv("UNPY_DEVICE", TEST_DEVICE)
    monkeypatch.setenv("UNPY_FORCE_GPU", "1")
    return monkeypatch


@pytest.fixture(scope="session")
def device():
    return pocl_device()


def _pair(name, tmp_path_factory):
    pocl_device()
    so = build_module(name, tmp_path_factory.mktemp(f"build-{name}"))
    return GpuPair(load_module(name, so),
                   load_module(f"interpreted_{name}", HERE / f"{name}.py"))


@pytest.fixture(scope="session")
def gpu(tmp_path_factory) -> GpuPair:
    """tests/jitgpu/gpu_kernels.py, compiled and interpreted."""
    return _pair("gpu_kernels", tmp_path_factory)


@pytest.fixture(scope="session")
def gpu_checked(tmp_path_factory) -> GpuPair:
    """tests/jitgpu/gpu_checked.py, compiled with --boundscheck and interpreted."""
    return _pair("gpu_checked", tmp_path_factory)


@pytest.fixture(scope="session")
def built_dir(gpu) -> Path:
    """The folder of the compiled gpu_kernels module (for subprocess tests)."""
    return Path(gpu.compiled.__file__).parent
