"""jitgpu/rebase.py: a call's layout up to its addresses, and a plan moved to other memory. A
plan moved from one call's arrays to another's of the same layout is the plan the analysis
makes for the other call itself (kernels: tests/jitgpu/gpu_kernels.py)."""
import dataclasses

import numpy as np
import pytest

from jitgpu.nest import instantiate, load_nest
from jitgpu.plan import DeviceFacts, plan_call
from jitgpu.rebase import rebased, relative_layout

FAST_GPU = DeviceFacts("opencl:test", True, 1 << 30, 1 << 28, 50e9, 50e9)


def _plan(function, values, facts=FAST_GPU):
    instance = instantiate(load_nest("gpu_kernels", function, 0), values)
    return plan_call(instance, values, facts, nest=f"gpu_kernels.{function} nest 0",
                     forced=True)


def _same_plans(moved, made) -> bool:
    """Whether two plans are one up to the order of their groups (the analysis numbers them in
    address order; a moved plan keeps the numbers its kernels were bound with)."""
    def canonical(plan):
        parts = []
        for part in plan.parts:
            groups = part.transfers.groups
            maps = {ref: (groups[m.group].arrays, dataclasses.replace(m, group=0))
                    for ref, m in part.transfers.maps.items()}
            parts.append((part.bounds, part.device, sorted(groups, key=lambda g: g.arrays),
                          maps))
        return dataclasses.replace(plan, parts=()), parts
    return canonical(moved) == canonical(made)


def _axpy_in(n, together):
    """x and y of axpy: arrays of their own, or two views of one allocation, y after x."""
    if together:
        memory = np.arange(3 * n, dtype=np.float64)
        return {"x": memory[:2 * n:2], "y": memory[2 * n:], "alpha": 2.0}
    return {"x": np.arange(2 * n, dtype=np.float64)[::2], "y": np.zeros(n), "alpha": 2.0}


@pytest.mark.parametrize("together", [False, True])
def test_a_moved_plan_is_the_plan_made_there(gpu, together):
    first, second = _axpy_in(100, together), _axpy_in(100, together)
    old, new = relative_layout(first), relative_layout(second)
    assert old.key == new.key and old.roots != new.roots
    assert not _same_plans(_plan("axpy", first), _plan("axpy", second))
    assert len(set(new.root_of.values())) == (1 if together else 2)
    moved = rebased(_plan("axpy", first), old, new)
    assert _same_plans(moved, _plan("axpy", second))


def test_tiles_move_too(gpu):
    """A plan in parts (tiles within the memory limit): every part's boxes move."""
    facts = dataclasses.replace(FAST_GPU, mem_limit=64 * 64 * 8)

    def values():
        return {"a": np.ones((64, 64)), "b": np.ones((64, 64)), "c": np.zeros((64, 64)),
                "m": 64, "n": 64, "p": 64}
    first, second = values(), values()
    plan = _plan("matmul", first, facts)
    assert len(plan.parts) > 1
    moved = rebased(plan, relative_layout(first), relative_layout(second))
    assert _same_plans(moved, _plan("matmul", second, facts))
    assert not _same_plans(plan, _plan("matmul", second, facts))


def test_what_the_layout_tells_apart():
    n = 50
    base = relative_layout({"x": np.ones(n), "y": np.ones(n), "alpha": 2.0})
    # another offset in the root, another root size, another scalar: other layouts
    assert relative_layout({"x": np.ones(n + 1)[1:], "y": np.ones(n), "alpha": 2.0}).key \
        != base.key
    assert relative_layout({"x": np.ones(n + 1)[:n], "y": np.ones(n), "alpha": 2.0}).key \
        != base.key
    assert relative_layout({"x": np.ones(n), "y": np.ones(n), "alpha": 3.0}).key != base.key
    # x and y in one allocation is not x and y in two
    memory = np.ones(2 * n)
    assert relative_layout({"x": memory[:n], "y": memory[n:], "alpha": 2.0}).key != base.key
    # the same array twice: one root
    x = np.ones(n)
    assert relative_layout({"x": x, "y": x, "alpha": 2.0}).root_of == {"x": 0, "y": 0}


def test_overlapping_foreign_roots_have_no_layout():
    """Two arrays over one buffer through different roots (np.frombuffer twice) that overlap
    without being one: the analysis may join them, so no layout moves them."""
    buffer = bytearray(8 * 100)
    x = np.frombuffer(buffer, np.float64)
    y = np.frombuffer(memoryview(buffer)[8 * 10:], np.float64)
    assert relative_layout({"x": x, "y": y, "alpha": 2.0}) is None
    z = np.frombuffer(buffer, np.float64)          # the same bytes: one root's range
    assert relative_layout({"x": x, "y": z, "alpha": 2.0}).root_of == {"x": 0, "y": 0}


def test_a_group_over_two_roots_does_not_move(gpu):
    first, second = _axpy_in(10, False), _axpy_in(10, False)
    plan = _plan("axpy", first)
    part = plan.parts[0]
    joined = dataclasses.replace(part.transfers.groups[0], arrays=("x", "y"))
    plan = dataclasses.replace(plan, parts=(dataclasses.replace(part, transfers=dataclasses.replace(
        part.transfers, groups=[joined, *part.transfers.groups[1:]])),))
    assert rebased(plan, relative_layout(first), relative_layout(second)) is None
