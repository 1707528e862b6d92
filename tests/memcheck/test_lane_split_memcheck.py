"""Lane splits (jitgpu/loopopt/lane_split.py) on Oclgrind: kernels of
tests/jitgpu/loopopt/lane_kernels.py split over 4 lanes on groups of 8 work-items (rows and
loops cut by the trip counts, a 2-level nest, a prange reduction beside the lanes' combination),
through every pass of UNPY_GPU_OPT=all, read and write only what the interpreter does, read no
local slot nothing wrote, and every work-item reaches every barrier (Oclgrind reports a
divergent barrier)."""
import numpy as np
import pytest

pytestmark = pytest.mark.memcheck

F = np.float32
RNG = np.random.default_rng(37)


def rand(*shape, dtype=np.float64):
    return RNG.uniform(-2, 2, shape).astype(dtype)


CASES = {
    "nbody_f64": (lambda n: tuple(rand(n) for _ in range(3)) + (np.zeros(n),), 1e-12),
    "grid_potential": (lambda n: (rand(n, 3, dtype=F), F(0.3), np.zeros((3, 5), F)), 1e-4),
    "total_and_rows": (lambda n: (rand(7, n), np.zeros(7)), 1e-12),
    "strided_dot": (lambda n: (rand(n + 3), rand(5), np.zeros(5)), 1e-12),
}


@pytest.fixture(scope="session")
def lanes_pair(tmp_path_factory, oclgrind_device):
    from modulepair import gpu_pair
    from gpucheck import HERE
    return gpu_pair(HERE / "loopopt" / "lane_kernels.py",
                    tmp_path_factory.mktemp("build-lane_kernels"), fastmath=True)


@pytest.fixture
def four_lanes(oclgrind_env, monkeypatch):
    """4 lanes on groups of 8 work-items, loops of any length (every device's model),
    fresh preparations; returns `use(fn)`, which makes `fn` ((KernelNest, GpuModel) ->
    KernelNest) the only pass of UNPY_GPU_OPT=all."""
    from jitgpu import bind, loopopt, session
    from jitgpu.loopopt import cost
    monkeypatch.setattr(cost, "DEFAULT", cost.DEFAULT.replace(max_lanes=4,
                                                              min_iterations_per_lane=0))
    monkeypatch.setattr(bind, "LOCAL_SIZES", {1: (8,), 2: (4, 2), 3: (2, 2, 2)})
    session.forget()
    oclgrind_env.setenv("UNPY_GPU_OPT", "all")

    def use(fn):
        monkeypatch.setattr(loopopt, "PASSES", (("forced", ("all",), fn),))
    return use


def every_pass():
    """UNPY_GPU_OPT=all's passes as one, on a nest that a device of no end of work-items
    would run (the passes as they are now: `four_lanes` replaces them by this)."""
    from jitgpu import loopopt
    passes = loopopt.PASSES

    def run(kernel, model):
        model = model.replace(fill_items=1 << 40)
        for _, levels, fn in passes:
            if "all" in levels:
                kernel = fn(kernel, model)
        return kernel
    return run


@pytest.mark.parametrize("n", [3, 11])
@pytest.mark.parametrize("func", list(CASES))
def test_lane_split_on_oclgrind(memcheck, lanes_pair, four_lanes, func, n):
    four_lanes(every_pass())
    make, rtol = CASES[func]
    report = memcheck.check(lanes_pair, func, *make(n), rtol=rtol)
    assert all("lane_split(" in nest.reason and "4 lanes" in nest.reason
               for nest in report.nests), str(report)


@pytest.mark.parametrize("n", [3, 11])
def test_lane_split_in_tiles_on_oclgrind(memcheck, lanes_pair, four_lanes, monkeypatch, n):
    """lane_split left out: nbody's loop staged in tiles of 8 iterations (the group's 8
    work-items load them), then its lanes split each tile (lane_split_tiles)."""
    four_lanes(every_pass())
    from jitgpu.loopopt import cost
    monkeypatch.setattr(cost, "DEFAULT", cost.DEFAULT.replace(underfill=1 << 41))
    make, rtol = CASES["nbody_f64"]
    report = memcheck.check(lanes_pair, "nbody_f64", *make(n), rtol=rtol)
    assert "lane_split(j, 4 lanes, in tiles)" in report.nests[0].reason, str(report)


def test_barrier_in_the_guard_is_reported(memcheck, lanes_pair, four_lanes):
    """With the combination moved inside the guard of real iterations, the work-items of the
    row past the trip count skip its barriers: Oclgrind sees it, so the clean runs above mean
    something."""
    import dataclasses

    from jitgpu.loopopt.lane_split import lane_split
    from jitgpu.loopopt.nodes import LaneCombine

    def guarded_combination(kernel, model):
        kernel = lane_split(kernel, model.replace(fill_items=1 << 40))
        guard, combine, *after = kernel.body
        assert isinstance(combine, LaneCombine)
        guard = dataclasses.replace(guard, body=guard.body + [combine])
        return kernel.replace(body=(guard, *after))
    four_lanes(guarded_combination)
    make, _ = CASES["nbody_f64"]
    args = make(3)                        # 3 bodies: the second group's second row is past
    memcheck.reports()
    lanes_pair.run("nbody_f64", lambda: (args, [args[3]]))
    reports = memcheck.reports()
    report = lanes_pair.explain("nbody_f64")
    assert report.nests[0].ran_on == memcheck.device.label, str(report)
    assert any(r.startswith("Work-group divergence detected (barrier)") for r in reports), reports
