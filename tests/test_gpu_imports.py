"""What a call of a compiled @gpu function imports when the GPU path cannot or must not run:
with UNPY_DEVICE=none nothing of the GPU stack (pyopencl, gpurts, the transfer analysis and its
ILP solver); installed without the extra `gpu`, the nest runs on OpenMP and `explain` says
which extra to install, with no warning at each call."""
import json
import os
import shutil
import subprocess
import sys
import textwrap

import pytest

import diffcheck

GPU_STACK = ("pyopencl", "gpurts", "pulp", "highspy")
# jitgpu's modules that the hook may import when a device can be used (jitgpu.hook and
# jitgpu.report are the light part every @gpu call imports).
JITGPU_HEAVY = ("jitgpu.offload", "jitgpu.decide", "jitgpu.multi", "jitgpu.nest", "jitgpu.lmad",
                "jitgpu.loopopt", "jitgpu.opencl_emit")


@pytest.fixture(scope="module")
def dropin_dir(tmp_path_factory):
    """tests/kernels/dropin.py compiled, beside its .py (`scale` is a @gpu function)."""
    out = tmp_path_factory.mktemp("gpu-imports")
    from unpy.cpp_emit.build import build
    with diffcheck.build_lock("dropin"):
        build(str(diffcheck.KERNELS / "dropin.py"), str(out))
    shutil.copy(diffcheck.KERNELS / "dropin.py", out / "dropin.py")
    return out


CALL = """
    import json, sys
    {before}
    import numpy as np
    import unpython
    import dropin
    a = np.arange(4.0)
    dropin.scale(a, 2.0)            # its prange nest is offered to the GPU hook
    dropin.scale(a, 2.0)
    dropin.scale_steps(a, 1.0, 2)   # a call that keeps data: the call's choice is asked too
    loaded = sorted(sys.modules)
    print(json.dumps({{"modules": loaded, "scaled": a.tolist(),
                      "explain": str(unpython.explain(dropin.scale))}}))
    """


def run_call(folder, before="", **env):
    full_env = {k: v for k, v in os.environ.items()
                if k not in ("UNPY_DISABLE", "UNPY_DEVICE", "UNPY_LOG")}
    full_env.update(PYTHONPATH=f"{folder}{os.pathsep}{diffcheck.REPO}", **env)
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(CALL.format(before=before))],
                          cwd=folder, env=full_env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1]), done.stderr


def gpu_modules(modules, stack=GPU_STACK):
    return [m for m in modules if m.split(".")[0] in stack or m.startswith(JITGPU_HEAVY)]


def test_device_none_imports_nothing_of_the_gpu_stack(dropin_dir):
    got, stderr = run_call(dropin_dir, UNPY_DEVICE="none")
    assert got["scaled"] == [0.0, 4.0, 8.0, 12.0]
    assert "jitgpu.hook" in got["modules"]          # the nest did ask the hook
    assert "UNPY_DEVICE=none" in got["explain"]
    # gpurts itself: test_device_none_leaves_gpurts_out
    assert gpu_modules(got["modules"], ("pyopencl", "pulp", "highspy")) == []
    assert stderr == ""


def test_device_none_leaves_gpurts_out(dropin_dir):
    got, _ = run_call(dropin_dir, UNPY_DEVICE="none")
    assert "jitgpu.hook" in got["modules"]
    assert [m for m in got["modules"] if m.split(".")[0] == "gpurts"] == []


def test_without_the_gpu_extra_a_call_runs_on_openmp_and_says_why(dropin_dir):
    # pulp and pyopencl missing, as after `pip install unpy` without `[gpu]`.
    got, stderr = run_call(dropin_dir, before="sys.modules.update(pulp=None, pyopencl=None)")
    assert got["scaled"] == [0.0, 4.0, 8.0, 12.0]
    assert "pip install 'unpy[gpu]'" in got["explain"]
    assert "openmp" in got["explain"]
    assert stderr == ""         # no warning, no traceback, at any call
