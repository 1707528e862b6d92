"""A GPU kernel module of the tests beside tests/jitgpu/gpu_kernels.py (a test folder's own),
built once per session and worker (through the build cache) and loaded compiled and
interpreted."""
from pathlib import Path

import diffcheck
from gpucheck import GpuPair, load_module


def gpu_pair(path: Path, out_dir: Path, fastmath: bool = False) -> GpuPair:
    from unpy.cpp_emit.build import BuildOptions, build
    import testdevice
    testdevice.tested_device()
    with diffcheck.build_lock(path.stem):
        so = build(str(path), str(out_dir), BuildOptions(fastmath=fastmath)).output
    return GpuPair(load_module(path.stem, so), load_module(f"interpreted_{path.stem}", path))
