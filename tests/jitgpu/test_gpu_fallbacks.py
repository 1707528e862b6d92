"""Every reason a @gpu nest runs its OpenMP code instead, with the result still the interpreter's
(errors included): no device, the analysis refuses, a compiled call, the kernel's error flag,
not profitable, over the memory limit even in 64 tiles, no iterations. Also tiling under a small
UNPY_GPU_MEM_LIMIT, zero-size arrays, explain() and UNPY_LOG=info."""
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import testdevice
from gpucheck import assert_ran


RNG = np.random.default_rng(7)
REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_no_device(gpu, device_env):
    device_env.setenv("UNPY_DEVICE", "none")
    gpu.check("axpy", RNG.random(50), RNG.random(50), 2.0, ran_on="openmp",
              reason="no OpenCL device: UNPY_DEVICE=none")
    gpu.check("red_sum_i64", np.arange(10), np.int64(3), ran_on="openmp",
              reason="no OpenCL device")


def test_no_matching_device(gpu, device_env):
    device_env.setenv("UNPY_DEVICE", "no-such-platform-anywhere")
    gpu.check("axpy", RNG.random(5), RNG.random(5), 2.0, ran_on="openmp",
              reason="no OpenCL device matches")


def test_device_switch_within_process(gpu, device_env):
    gpu.check("axpy", RNG.random(20), RNG.random(20), 2.0, ran_on="opencl:")
    device_env.setenv("UNPY_DEVICE", "none")
    gpu.check("axpy", RNG.random(20), RNG.random(20), 2.0, ran_on="openmp")
    device_env.setenv("UNPY_DEVICE", testdevice.SPEC)
    gpu.check("axpy", RNG.random(20), RNG.random(20), 2.0, ran_on="opencl:")


def test_index_that_may_wrap_is_wrapped_in_the_kernel(gpu):
    """x[i - 1] reaches x[-1]: its sign changes over the loop, so the kernel wraps it as
    Python does (and as the CPU path does)."""
    x = RNG.random(50)
    gpu.check("roll_right", x, np.zeros(50), ran_on="opencl:")


def test_index_out_of_bounds_raises(gpu_checked):
    """x[i + 1] over the full range: the kernel's checked index sets the error flag, and the
    CPU path raises IndexError."""
    gpu_checked.check("shift_left", RNG.random(20), np.zeros(20), ran_on="openmp",
                      reason="the kernel met a case the CPU path raises")
    # Shorter outputs keep the index inside: then the nest runs on the device.
    gpu_checked.check("shift_left", RNG.random(20), np.zeros(19), ran_on="opencl:")


def test_non_affine_index_out_of_range_raises(gpu_checked):
    """The kernel guards non-affine indices: out of range sets the error flag, the OpenMP code
    reruns the nest and raises IndexError as the interpreter does."""
    x = RNG.random(10)
    gpu_checked.check("gather_checked", x, np.array([0, -10, 9, 3]), np.zeros(4))
    gpu_checked.check("gather_checked", x, np.array([0, 1, 10, 3]), np.zeros(4),
                      ran_on="openmp", reason="the kernel met a case the CPU path raises")
    gpu_checked.check("gather_checked", x, np.array([0, -11]), np.zeros(2), ran_on="openmp")


def test_a_helper_of_scalars_runs_in_the_kernel(gpu):
    gpu.check("uses_helper", RNG.random(30), np.zeros(30), ran_on="opencl:")


def test_a_call_of_an_array_helper_falls_back(gpu):
    gpu.check("uses_array_helper", RNG.random(30), np.zeros(30), ran_on="openmp",
              reason="calls compiled function array_helper()")


def test_division_by_zero_in_kernel(gpu):
    """The kernel sets its error flag; the OpenMP code reruns the nest and raises
    ZeroDivisionError (SPEC section 3; the interpreter's NumPy scalars only warn)."""
    a = np.arange(-5, 5, dtype=np.int64)
    b = np.array([3, 2, 1, -1, -2, 0, 1, 2, 3, 4], np.int64)
    q, r = np.full(10, 99, np.int64), np.full(10, 99, np.int64)
    with pytest.raises(ZeroDivisionError):
        gpu.compiled.divmod_i64(a, b, q, r)
    assert_ran(gpu.explain("divmod_i64"), "openmp", "division by zero")
    b[5] = 7
    gpu.check("divmod_i64", a, b, q, r)


def test_math_domain_error_in_kernel(gpu):
    gpu.check("math_log", np.array([1.0, 2.0, 0.5]), np.zeros(3), rtol=1e-14)
    error, _ = gpu.check("math_log", np.array([1.0, -2.0, 0.5]), np.zeros(3), ran_on="openmp",
                         reason="math domain")
    assert isinstance(error, ValueError)


def test_not_profitable_on_a_cpu_device(gpu, device_env):
    device_env.delenv("UNPY_FORCE_GPU")
    gpu.check("axpy", RNG.random(1000), RNG.random(1000), 3.0, ran_on="openmp",
              reason="not profitable: estimated")


@pytest.mark.parametrize("limit", ["64", "1000"])
def test_over_memory_even_in_64_tiles(gpu, device_env, limit):
    device_env.setenv("UNPY_GPU_MEM_LIMIT", limit)
    _, report = gpu.check("matmul", RNG.random((64, 64)), RNG.random((64, 64)),
                          np.zeros((64, 64)), ran_on="openmp", rtol=1e-12)
    reason = report.nests[0].reason
    assert "64 tiles" in reason or "single iterations" in reason, str(report)


def test_over_memory_single_iterations(gpu, device_env):
    device_env.setenv("UNPY_GPU_MEM_LIMIT", "8")
    gpu.check("axpy", RNG.random(6), RNG.random(6), 3.0, ran_on="openmp",
              reason="even with every parallel loop split to single iterations")


def test_group_larger_than_one_device_buffer(gpu, device):
    """A whole-extent group over the device's largest buffer (max_alloc, 1 GiB on PoCL) is
    tiled against that size, and refused when tiles cannot shrink it; never a failed
    allocation."""
    n = device.max_alloc // 8 + 1000
    if n * 8 > 0.8 * device.global_mem_size:
        pytest.skip("the device's largest buffer is most of its memory")
    x = np.zeros(n)                 # calloc'd: only the pages written here are ever touched
    x[-1] = 5.0
    out = np.zeros(3)
    gpu.compiled.gather(x, np.array([0, -1, 7]), out)
    assert out.tolist() == [0.0, 5.0, 0.0]
    assert_ran(gpu.explain("gather"), "openmp",
               "even with every parallel loop split to single iterations")


def tiles_of(report):
    return report.nests[0].details["ndrange"]


@pytest.mark.parametrize("func, args, limit, rtol", [
    ("matmul", lambda: (RNG.random((64, 48)), RNG.random((48, 40)), np.zeros((64, 40))),
     40_000, 1e-12),
    ("axpy", lambda: (RNG.random(1000)[::-1], RNG.random(3000)[::3], 0.5), 4000, 1e-12),
    ("add3", lambda: (RNG.integers(0, 9, (20, 9, 10)).astype(np.int32),
                      np.zeros((20, 9, 10), np.int32, order="F")), 4000, 0),
    ("red_sum_f64", lambda: (RNG.random(5000), 2.0), 8000, 1e-12),
    ("red_min_i64", lambda: (RNG.integers(-10 ** 9, 10 ** 9, 5000), np.int64(0)), 8000, 0),
    ("syrk", lambda: (RNG.random((40, 8)), np.zeros((40, 40))), 6000, 1e-12),
    ("gather", lambda: (RNG.random(100), RNG.integers(-100, 100, 2000), np.zeros(2000)), 3000,
     0),
])
def test_tiling_under_a_memory_limit(gpu, device_env, func, args, limit, rtol):
    device_env.setenv("UNPY_GPU_MEM_LIMIT", str(limit))
    _, report = gpu.check(func, *args(), rtol=rtol)
    timings = report.nests[0].timings
    assert timings["tiles"] > 1 and "tiles" in tiles_of(report), str(report)
    # Every tile runs the same kernel (the tile bounds are arguments): one build at most; but
    # syrk's two levels (its loop over j is independent, a level) read a's rows i and j
    # through one buffer in a tile where they overlap, through two elsewhere: two builds.
    builds = len(report.nests[0].sources)
    assert builds == (2 if func == "syrk" else 1), str(report)
    assert timings["cache_hits"] >= timings["tiles"] - builds, str(report)


def test_tiling_with_aliased_views(gpu, device_env):
    device_env.setenv("UNPY_GPU_MEM_LIMIT", "2000")
    base = RNG.random(1001)

    def make():
        a = base.copy()
        return (a[1:], a[:-1], len(a) - 1), [a]
    _, report = gpu.check_fresh("even_to_odd", make, rtol=1e-12)
    assert report.nests[0].timings["tiles"] > 1, str(report)


def test_tiled_scatter_keeps_every_tile(gpu, device_env):
    """A whole-extent output group is copied back by every tile: each tile must carry the
    earlier tiles' results."""
    device_env.setenv("UNPY_GPU_MEM_LIMIT", "8000")
    _, report = gpu.check("scatter", RNG.random(400), RNG.permutation(400), np.zeros(400),
                          rtol=1e-12)
    assert report.nests[0].timings["tiles"] > 1, str(report)


def test_failed_tile_restores_earlier_tiles(gpu, device_env):
    """The error flag in a later tile: the earlier tiles' write-back is undone, so the OpenMP
    rerun starts from the caller's data and leaves what the OpenMP code alone leaves."""
    a = RNG.integers(-1000, 1000, 600)
    d = RNG.integers(1, 9, 600)
    d[500] = 0
    device_env.setenv("UNPY_DEVICE", "none")
    alone = a.copy()
    with pytest.raises(ZeroDivisionError):
        gpu.compiled.divide_in_place(alone, d)
    device_env.setenv("UNPY_DEVICE", testdevice.SPEC)
    device_env.setenv("UNPY_GPU_MEM_LIMIT", "4000")
    tiled = a.copy()
    with pytest.raises(ZeroDivisionError):
        gpu.compiled.divide_in_place(tiled, d)
    assert_ran(gpu.explain("divide_in_place"), "openmp", "division by zero")
    np.testing.assert_array_equal(tiled, alone)
    d[500] = 3
    _, report = gpu.check("divide_in_place", a, d)
    device_env.delenv("UNPY_GPU_MEM_LIMIT")
    gpu.check("divide_in_place", a, d)


# --- zero-size arrays ---------------------------------------------------------------------------

@pytest.mark.parametrize("func, args", [
    ("axpy", lambda: (np.zeros(0), np.zeros(0), 2.0)),
    ("add2", lambda: (np.zeros((0, 5)), np.zeros((0, 5)), np.zeros((0, 5)))),
    ("add2", lambda: (np.zeros((5, 0)), np.zeros((5, 0)), np.zeros((5, 0)))),
    ("red_sum_i64", lambda: (np.zeros(0, np.int64), np.int64(5))),
    ("red_min_f64", lambda: (np.zeros(0), 1.5)),
    ("gather", lambda: (np.zeros(0), np.zeros(0, np.int64), np.zeros(0))),
    ("two_nests", lambda: (np.zeros(0), np.zeros(0))),
])
def test_zero_size_no_iterations(gpu, func, args):
    gpu.check(func, *args(), ran_on="openmp", reason="the parallel loop has no iterations")


@pytest.mark.parametrize("func, args", [
    ("matmul", lambda: (np.zeros((3, 0)), np.zeros((0, 4)), np.ones((3, 4)))),
    ("syrk", lambda: (np.ones((4, 0)), np.ones((4, 4)))),
    ("first_negative", lambda: (np.ones((6, 0)), np.ones(6, np.int64))),
])
def test_zero_size_inner_loop_runs_on_device(gpu, func, args):
    """An inner loop with no iteration: the nest still writes its outputs."""
    gpu.check(func, *args(), ran_on="opencl:")


def test_zero_size_indexed_array(gpu_checked):
    """Any index of an empty array is out of range: the CPU path raises IndexError."""
    gpu_checked.check("gather_checked", np.zeros(0), np.array([0, 1]), np.zeros(2),
                      ran_on="openmp", reason="has no element")


# --- explain() and UNPY_LOG ---------------------------------------------------------------------

def test_explain_before_and_after(gpu):
    report = gpu.explain("not_gpu")
    assert report.compiled and not report.gpu
    assert report.nests[0].ran_on == "openmp" and "not marked" in report.nests[0].reason
    assert report.nests[0].timings == {}
    x = RNG.random(40)
    _, report = gpu.check("two_nests", x, np.zeros(40), rtol=1e-12)
    assert len(report.nests) == 2
    for k, nest in enumerate(report.nests):
        assert nest.nest_id == k and nest.ran_on.startswith("opencl:")
        assert "profitability not checked" in nest.reason
        assert {"groups", "ndrange", "bytes", "time"} <= set(nest.details)
        assert nest.timings["total"] >= nest.timings["kernel"] >= 0
    text = str(report)
    assert "nest 0: opencl:" in text and "nest 1: opencl:" in text
    import unpython
    assert not unpython.explain(gpu.interpreted.two_nests).compiled


def test_log_info_one_line_per_nest_per_call(built_dir, tmp_path):
    script = textwrap.dedent("""
        import numpy as np
        import gpu_kernels as g
        x = np.arange(30.0)
        for _ in range(3):
            g.two_nests(x, np.zeros(30))
        g.uses_array_helper(x, np.zeros(30))
        g.not_gpu(x, np.zeros(30))
    """)
    env = dict(os.environ, UNPY_DEVICE=testdevice.SPEC, UNPY_FORCE_GPU="1", UNPY_LOG="info",
               PYTHONPATH=os.pathsep.join([str(built_dir), REPO, os.environ.get("PYTHONPATH", "")]))
    env.pop("UNPY_GPU_MEM_LIMIT", None)
    done = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    lines = [l for l in done.stderr.splitlines() if l.startswith("unpy: gpu_kernels.")]
    assert len([l for l in lines if "two_nests nest 0: ran on opencl:" in l]) == 3, done.stderr
    assert len([l for l in lines if "two_nests nest 1: ran on opencl:" in l]) == 3, done.stderr
    assert len([l for l in lines if "uses_array_helper nest 0: OpenMP (the nest calls compiled "
                "function array_helper()" in l]) == 1, done.stderr
    assert len(lines) == 7, done.stderr


def test_log_default_is_quiet(built_dir, tmp_path):
    script = "import numpy as np, gpu_kernels as g; g.roll_right(np.ones(5), np.zeros(5))"
    env = dict(os.environ, UNPY_DEVICE=testdevice.SPEC, UNPY_FORCE_GPU="1",
               PYTHONPATH=os.pathsep.join([str(built_dir), REPO, os.environ.get("PYTHONPATH", "")]))
    env.pop("UNPY_LOG", None)
    done = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and "unpy:" not in done.stderr, done.stderr


def test_cpu_device_after_a_failed_probe_runs_the_nest(built_dir, tmp_path):
    """A machine whose PoCL cannot build (PoCL 3.0 on a Zen 5): UNPY_DEVICE=cpu passes over it
    and the nest runs, correctly, on the next CPU device that passes its probe (Intel's CPU
    runtime from the test extra); never a build failure per call."""
    from gpurts import device_selection
    from gpurts.icd import find_intel_cpu_library
    if find_intel_cpu_library(sys.prefix) is None:
        pytest.skip("intel-opencl-rt is not installed in this environment")
    script = textwrap.dedent("""
        import numpy as np, unpython, gpu_kernels as g
        x, y = np.arange(50.0), np.ones(50)
        for _ in range(2):
            g.axpy(x, y, 2.0)
        print(bool(np.array_equal(y, 1 + 4 * x)), unpython.explain(g.axpy).nests[0].ran_on)
    """)
    env = dict(os.environ, UNPY_DEVICE="cpu", UNPY_FORCE_GPU="1", UNPY_LOG="info",
               UNPY_PROBE_FAIL="pocl", UNPY_CACHE_DIR=str(tmp_path / "cache"),
               PYTHONPATH=os.pathsep.join([str(built_dir), REPO, os.environ.get("PYTHONPATH", "")]))
    env.pop("UNPY_GPU_MEM_LIMIT", None)
    env.pop("OCL_ICD_VENDORS", None)
    done = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    intel = device_selection("intel(r) opencl").device
    assert done.stdout.strip() == f"True opencl:{intel.name}", done.stdout + done.stderr
    assert done.stderr.count("fails its probe, not used") == 1, done.stderr
    assert "build failed" not in done.stderr.lower(), done.stderr


def test_gpu_opt_switch_is_reported(gpu, device_env):
    device_env.setenv("UNPY_GPU_OPT", "all")
    gpu.check("axpy", RNG.random(30), RNG.random(30), 2.0, rtol=1e-12, reason="UNPY_GPU_OPT=all")
    device_env.setenv("UNPY_GPU_OPT", "none")
    _, report = gpu.check("axpy", RNG.random(30), RNG.random(30), 2.0, rtol=1e-12)
    assert "UNPY_GPU_OPT" not in report.nests[0].reason


def test_loop_steps_and_the_error_flag(gpu):
    """A kernel whose inner loops have constant steps never sets its error flag (so its
    copies back need not wait for the flag); a step known only at run time is checked, and a
    zero step raises ValueError as the interpreter does."""
    from jitgpu.residency import may_flag
    _, report = gpu.check("matmul", RNG.random((9, 7)), RNG.random((7, 5)), np.zeros((9, 5)),
                          rtol=1e-12)
    assert not may_flag(report.nests[0].source), report.nests[0].source
    x = RNG.random((6, 11))
    _, report = gpu.check("strided_row_sum", x, np.int64(3), np.zeros(6), rtol=1e-12)
    assert may_flag(report.nests[0].source)
    error, _ = gpu.check("strided_row_sum", x, np.int64(0), np.zeros(6), ran_on=None)
    assert isinstance(error, ValueError) and "must not be zero" in str(error)


def test_what_no_kernel_can_do_is_asked_once(gpu, monkeypatch):
    """A nest no kernel can run whatever the inputs (it calls a compiled function of arrays)
    skips the hook after its first refusal, as with no device, also for other inputs: the
    refusal was asked for at every call where the inputs could not be remembered (a tuple,
    new arrays every call). Counted by the hook's reports."""
    from jitgpu import report
    asked = []
    record = report.record

    def counted(module, function, nest_id, nest_report):
        asked.append((function, nest_id))
        return record(module, function, nest_id, nest_report)
    monkeypatch.setattr(report, "record", counted)
    # Switches no earlier test ran under: a refusal remembered before is not in force here.
    monkeypatch.setenv("UNPY_GPU_MEM_LIMIT", str((1 << 40) + 4096))
    for n in (30, 31, 30, 40):        # other inputs too: the refusal does not depend on them
        gpu.check("uses_array_helper", RNG.random(n), np.zeros(n), ran_on="openmp",
                  reason="calls compiled function array_helper()")
    assert asked.count(("uses_array_helper", 0)) == 1, asked
