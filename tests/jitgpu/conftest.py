"""Fixtures for the GPU-path tests: the kernel modules of tests/jitgpu, compiled and interpreted,
run through OpenCL for real (no mocks) on the tested device (tests/testdevice.py: the probed
CPU device by default).

Every test runs with UNPY_DEVICE=$UNPY_TEST_DEVICE and UNPY_FORCE_GPU=1 unless it changes them
itself (the `device_env` monkeypatch); a compiled result is compared with the interpreter's (the
reference) and `unpython.explain` says where each nest ran."""
from pathlib import Path

import pytest

import testdevice
from gpucheck import GpuPair, build_module, load_module, module_path

ENV_SWITCHES = ("UNPY_DEVICE", "UNPY_FORCE_GPU", "UNPY_GPU_MEM_LIMIT", "UNPY_GPU_OPT",
                "UNPY_DISABLE", "UNPY_GPU_SEARCH", "UNPY_REPLAY", "UNPY_REPLAY_PIN_BYTES")


@pytest.fixture(autouse=True)
def device_env(monkeypatch):
    """UNPY_DEVICE=$UNPY_TEST_DEVICE and UNPY_FORCE_GPU=1, no memory limit, every
    optimisation."""
    for name in ENV_SWITCHES:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("UNPY_DEVICE", testdevice.SPEC)
    monkeypatch.setenv("UNPY_FORCE_GPU", "1")
    return monkeypatch


@pytest.fixture(scope="session")
def device():
    return testdevice.tested_device()


def _pair(name, tmp_path_factory):
    testdevice.tested_device()
    so = build_module(name, tmp_path_factory.mktemp(f"build-{name}"))
    return GpuPair(load_module(name, so),
                   load_module(f"interpreted_{name}", module_path(name)))


@pytest.fixture(scope="session")
def gpu(tmp_path_factory) -> GpuPair:
    """tests/jitgpu/gpu_kernels.py, compiled and interpreted."""
    return _pair("gpu_kernels", tmp_path_factory)


@pytest.fixture(scope="session")
def gpu_checked(tmp_path_factory) -> GpuPair:
    """tests/jitgpu/gpu_checked.py, compiled with --boundscheck and interpreted."""
    return _pair("gpu_checked", tmp_path_factory)


@pytest.fixture(scope="session")
def numpy_gpu(tmp_path_factory) -> GpuPair:
    """tests/kernels/numpy_exprs.py, compiled and interpreted."""
    return _pair("numpy_exprs", tmp_path_factory)


@pytest.fixture(scope="session")
def complex_gpu(tmp_path_factory) -> GpuPair:
    """tests/kernels/complex_numbers.py, compiled and interpreted."""
    return _pair("complex_numbers", tmp_path_factory)


@pytest.fixture(scope="session")
def signatures_gpu(tmp_path_factory) -> GpuPair:
    """tests/kernels/signatures.py, compiled and interpreted."""
    return _pair("signatures", tmp_path_factory)


@pytest.fixture(scope="session")
def loops(tmp_path_factory) -> GpuPair:
    """tests/kernels/time_loops.py, compiled and interpreted."""
    return _pair("time_loops", tmp_path_factory)


@pytest.fixture(scope="session")
def res(tmp_path_factory) -> GpuPair:
    """tests/jitgpu/resident_kernels.py, compiled and interpreted."""
    return _pair("resident_kernels", tmp_path_factory)


@pytest.fixture(scope="session")
def built_dir(gpu) -> Path:
    """The folder of the compiled gpu_kernels module (for subprocess tests)."""
    return Path(gpu.compiled.__file__).parent
