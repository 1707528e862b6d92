"""A device that allows fewer work-items per group than unpy's default local sizes (Oclgrind with
OCLGRIND_MAX_WGSIZE=16): bind caps the local size by the device's limits, the reductions' tree
follows it, and every nest runs on the device with the interpreter's results (before the fix,
each failed with INVALID_WORK_GROUP_SIZE and fell back to OpenMP).

Oclgrind reads OCLGRIND_MAX_WGSIZE when its platform loads, so the check runs in a subprocess."""
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent.parent
EXAMPLES = TESTS.parent / "examples"

pytestmark = pytest.mark.memcheck

SCRIPT = textwrap.dedent("""
    import sys, tempfile
    from pathlib import Path
    import numpy as np
    sys.path[:0] = [{tests!r}, {jitgpu!r}, {examples!r}]
    from gpucheck import GpuPair, HERE, build_module, load_module
    from gpurts import device_selection
    device = device_selection("oclgrind").device
    assert device is not None and device.max_work_group_size == 16, device
    out = Path(tempfile.mkdtemp())
    gpu = GpuPair(load_module("gpu_kernels", build_module("gpu_kernels", out)),
                  load_module("interpreted_gpu_kernels", HERE / "gpu_kernels.py"))
    rng = np.random.default_rng(5)
    for n in (3, 17):
        gpu.check("axpy", rng.uniform(-1, 1, n), np.zeros(n), 2.0, rtol=1e-12)
        gpu.check("matmul", rng.uniform(-1, 1, (n, 5)), rng.uniform(-1, 1, (5, n + 2)),
                  np.zeros((n, n + 2)), rtol=1e-12)
        gpu.check("red_sum_2d", rng.uniform(-1, 1, (n, n + 1)), rtol=1e-12)
        gpu.check("red_several", rng.uniform(-1, 1, 4 * n), rtol=1e-12)
        gpu.check("tri_three_levels", np.zeros((n, n, n), np.int64), n, 2, np.int64(5))
    print("SMALL-WORK-GROUPS-OK")
""")


@pytest.mark.parametrize("opt", ["none", "all"])
def test_work_groups_fit_the_device(oclgrind_device, opt):
    env = dict(os.environ, OCLGRIND_MAX_WGSIZE="16", UNPY_DEVICE="oclgrind", UNPY_FORCE_GPU="1",
               UNPY_GPU_OPT=opt, UNPY_LOG="warning")
    script = SCRIPT.format(tests=str(TESTS), jitgpu=str(TESTS / "jitgpu"), examples=str(EXAMPLES))
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True,
                          text=True, timeout=600, cwd=str(TESTS.parent))
    assert done.returncode == 0 and "SMALL-WORK-GROUPS-OK" in done.stdout, (
        done.stdout[-4000:] + done.stderr[-4000:])
    assert "INVALID_WORK_GROUP_SIZE" not in done.stderr, done.stderr[-4000:]
