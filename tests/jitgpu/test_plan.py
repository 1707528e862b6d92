"""plan_call: one frozen, printable GpuPlan per call (parts x device x transfers, the verdict),
computed without OpenCL from a nest instance and a device's facts."""
import dataclasses

import numpy as np
import pytest

from jitgpu.nest import NotOffloadable, instantiate, load_nest
from jitgpu.plan import DeviceFacts, GpuPlan, plan_call

FAST_GPU = DeviceFacts("opencl:test", True, 1 << 30, 1 << 28, 50e9, 50e9)


def _plan(function, values, facts=FAST_GPU, **kw):
    instance = instantiate(load_nest("gpu_kernels", function, 0), values)
    return plan_call(instance, values, facts, nest=f"gpu_kernels.{function} nest 0", **kw)


def test_one_part_printable_and_frozen(gpu):
    x, y = np.ones(1000), np.zeros(1000)
    plan = _plan("axpy", {"x": x, "y": y, "alpha": 2.0}, forced=True)
    assert isinstance(plan, GpuPlan) and len(plan.parts) == 1
    part = plan.parts[0]
    assert part.bounds is None and part.device == "opencl:test"
    assert sorted(g.arrays for g in part.transfers.groups) == [("x",), ("y",)]
    text = str(plan)
    assert "gpu_kernels.axpy nest 0" in text and "part 0: whole iteration space" in text
    assert "UNPY_FORCE_GPU=1" in plan.verdict and plan.runs_on_device
    with pytest.raises(dataclasses.FrozenInstanceError):
        plan.opt = "all"


def test_small_problem_is_not_profitable(gpu):
    """Launch and set-up cost count: a tiny nest stays on OpenMP unless forced."""
    plan = _plan("axpy", {"x": np.ones(64), "y": np.zeros(64), "alpha": 2.0})
    assert not plan.profitable and not plan.runs_on_device
    assert plan.verdict.startswith("not profitable: estimated")
    assert plan.estimate.bytes_moved == 64 * 8 * 3


def test_memory_limit_tiles_into_parts(gpu):
    """Parts cover the parallel iteration space in order, each within the memory limit."""
    a, b, c = np.ones((64, 64)), np.ones((64, 64)), np.zeros((64, 64))
    facts = dataclasses.replace(FAST_GPU, mem_limit=64 * 64 * 8)
    plan = _plan("matmul", {"a": a, "b": b, "c": c, "m": 64, "n": 64, "p": 64}, facts, forced=True)
    assert len(plan.parts) > 1
    covered = set()
    for part in plan.parts:
        assert part.transfers.device_bytes <= facts.mem_limit
        bounds = dict((v, (lo, hi)) for v, lo, hi in part.bounds)
        assert set(bounds) == {"i", "j"}
        covered |= {(i, j) for i in range(*bounds["i"]) for j in range(*bounds["j"])}
    assert covered == {(i, j) for i in range(64) for j in range(64)}
    assert "part 1: tile i in [" in str(plan)


def test_refusals(gpu):
    with pytest.raises(NotOffloadable, match="no iterations"):
        _plan("axpy", {"x": np.ones(0), "y": np.zeros(0), "alpha": 2.0})
    with pytest.raises(NotOffloadable, match="x has no element"):
        _plan("gather", {"x": np.ones(0), "idx": np.zeros(2, np.int64), "out": np.zeros(2)})
