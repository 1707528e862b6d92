"""analyse(): property tests against the brute-force oracle, and the plan's decisions."""
import dataclasses

import numpy as np
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from jitgpu.lmad import Access, AffineForm, LoopDim, Refusal, TransferPlan, analyse

from .oracle import check_plan, live
from .strategies import nests, stencil_nests

F = AffineForm


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(nests())
def test_plan_covers_and_maps_every_touched_element(nest):
    plan = analyse(nest.loops, nest.arrays, nest.accesses)
    assert isinstance(plan, TransferPlan), plan
    for group in plan.groups:
        event(group.case)
    check_plan(plan, nest.loops, nest.arrays, nest.accesses)


@st.composite
def guarded_nests(draw):
    """A nest whose accesses each run on a random sub-box of the sequential loops (the
    `Access.domain` of the guards around them)."""
    nest = draw(nests())
    sequential = [loop for loop in nest.loops if not loop.parallel and loop.extent > 0]
    accesses = []
    for acc in nest.accesses:
        domain = []
        for loop in sequential:
            if draw(st.booleans()):
                lo = draw(st.integers(0, loop.extent - 1))
                domain.append((loop.var, lo, draw(st.integers(lo + 1, loop.extent))))
        accesses.append(dataclasses.replace(acc, domain=tuple(domain)))
    return dataclasses.replace(nest, accesses=accesses)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(guarded_nests())
def test_guarded_plan_covers_and_maps_every_touched_element(nest):
    """Footprints of the sub-boxes alone, device maps over the whole loops."""
    plan = analyse(nest.loops, nest.arrays, nest.accesses)
    assert isinstance(plan, TransferPlan), plan
    check_plan(plan, nest.loops, nest.arrays, nest.accesses)


def test_guard_keeps_a_shifted_read_inside_its_array():
    """g[k, e - 3] under `if e - 3 >= 0`: refused over the whole loop, planned over e >= 3."""
    loops = [LoopDim("k", 4, True), LoopDim("e", 9, False)]
    arrays = [live("g", np.zeros((4, 9)))]
    read = Access(0, "g", [F(0, {"k": 1}), F(-3, {"e": 1})], True, False)
    assert isinstance(analyse(loops, arrays, [read]), Refusal)
    guarded = dataclasses.replace(read, domain=(("e", 3, 9),))
    plan = analyse(loops, arrays, [guarded])
    assert isinstance(plan, TransferPlan) and plan.groups[0].touched_elems == 4 * 6
    check_plan(plan, loops, arrays, [guarded])


@settings(max_examples=150, deadline=None)
@given(stencil_nests())
def test_stencil_plan_covers_and_maps_every_touched_element(nest):
    plan = analyse(nest.loops, nest.arrays, nest.accesses)
    assert isinstance(plan, TransferPlan), plan
    for group in plan.groups:
        event(group.case)
    check_plan(plan, nest.loops, nest.arrays, nest.accesses)


@settings(max_examples=60, deadline=None)
@given(nests(max_extent=12))
def test_plan_on_larger_loops(nest):
    plan = analyse(nest.loops, nest.arrays, nest.accesses)
    assert isinstance(plan, TransferPlan), plan
    check_plan(plan, nest.loops, nest.arrays, nest.accesses)


def nest_1d(n, forms, extent, *, read=True, write=False, unconditional=True, dtype=np.float64):
    a = np.zeros(n, dtype=dtype)
    loops = [LoopDim("i", extent, True)]
    accesses = [Access(k, "a", [f], read, write, unconditional) for k, f in enumerate(forms)]
    return a, loops, [live("a", a)], accesses


def test_paper_figure_4_is_one_1d_group():
    a, loops, arrays, accesses = nest_1d(20, [F(2, {"i": 3})], 5)
    plan = analyse(loops, arrays, accesses)
    (group,) = plan.groups
    assert (group.case, group.device_elems, group.touched_elems) == ("1d", 5, 5)
    assert plan.device_map(0).loop_coeffs == (("i", 1),) and plan.device_map(0).offset == 0
    check_plan(plan, loops, arrays, accesses)


def test_paper_figure_7_is_compacted_to_q_residues():
    # stride 4, bases b, b+5, b+15, u = 5: residues {0, 1, 3}, v_n = 3, q * (u + v_n) = 24
    a, loops, arrays, accesses = nest_1d(40, [F(0, {"i": 4}), F(5, {"i": 4}), F(15, {"i": 4})], 5)
    plan = analyse(loops, arrays, accesses)
    (group,) = plan.groups
    assert group.case == "1d-equal-stride"
    assert group.touched_elems == 15 and group.touched_exact
    assert group.device_elems <= 24
    check_plan(plan, loops, arrays, accesses)


def test_identical_read_and_write_are_one_member():
    c = np.zeros((4, 5))
    loops = [LoopDim("i", 4, True), LoopDim("j", 5, True)]
    ij = [F(0, {"i": 1}), F(0, {"j": 1})]
    accesses = [Access(0, "c", ij, True, False), Access(1, "c", ij, False, True)]
    plan = analyse(loops, [live("c", c)], accesses)
    (group,) = plan.groups
    assert group.case in ("rcslmad", "1d")   # contiguous rows merge into one dimension
    assert group.device_elems == group.touched_elems == 20
    assert plan.device_map(0) == plan.device_map(1)
    assert group.copy_in and group.copy_back


def test_write_only_full_overwrite_skips_copy_in():
    a, loops, arrays, accesses = nest_1d(10, [F(0, {"i": 1})], 10, read=False, write=True)
    (group,) = analyse(loops, arrays, accesses).groups
    assert not group.copy_in and group.copy_back


def test_conditional_write_is_copied_in():
    a, loops, arrays, accesses = nest_1d(10, [F(0, {"i": 1})], 10, read=False, write=True,
                                         unconditional=False)
    (group,) = analyse(loops, arrays, accesses).groups
    assert group.copy_in


def test_interleaved_writes_that_cover_every_residue_skip_copy_in():
    # a[2i] and a[2i+1]: each residue block of the device buffer has a writer equal to it
    a, loops, arrays, accesses = nest_1d(10, [F(0, {"i": 2}), F(1, {"i": 2})], 5,
                                         read=False, write=True)
    plan = analyse(loops, arrays, accesses)
    assert plan.groups[0].case == "1d-equal-stride" and not plan.groups[0].copy_in
    check_plan(plan, loops, arrays, accesses)


def test_partial_overwrite_is_copied_in():
    # a[2i] is written on every iteration, a[2i+1] only under a condition
    a, loops, arrays, accesses = nest_1d(10, [F(0, {"i": 2}), F(1, {"i": 2})], 5,
                                         read=False, write=True)
    accesses[1].unconditional = False
    plan = analyse(loops, arrays, accesses)
    assert plan.groups[0].copy_in
    check_plan(plan, loops, arrays, accesses)


def test_overlapping_views_share_a_group_and_disjoint_ones_do_not():
    buf = np.zeros(30)
    x, y, z = buf[0:10], buf[5:15], buf[20:30]
    loops = [LoopDim("i", 10, True)]
    accesses = [Access(k, key, [F(0, {"i": 1})], True, False) for k, key in enumerate("xyz")]
    arrays = [live("x", x), live("y", y), live("z", z)]
    plan = analyse(loops, arrays, accesses)
    assert [g.arrays for g in plan.groups] == [("x", "y"), ("z",)]
    check_plan(plan, loops, arrays, accesses)


def test_non_affine_index_uses_the_whole_view():
    a = np.zeros((6, 8))[::2, 1::3]
    loops = [LoopDim("i", 3, True)]
    accesses = [Access(0, "a", [F(0, {"i": 1}), None], True, False)]
    plan = analyse(loops, [live("a", a)], accesses)
    (group,) = plan.groups
    assert group.case == "extent" and not group.touched_exact
    dmap = plan.device_map(0)
    # every other row of 8 elements, every third column
    assert dmap.loop_coeffs is None and dmap.dim_strides == (16, 3)
    check_plan(plan, loops, [live("a", a)], accesses)


def test_mixed_item_sizes_fall_back_to_the_span_in_common_units():
    raw = np.zeros(64, dtype=np.uint8)
    d, w = raw.view(np.float64), raw.view(np.int32)
    loops = [LoopDim("i", 8, True)]
    accesses = [Access(0, "d", [F(0, {"i": 1})], True, False),
                Access(1, "w", [F(0, {"i": 2})], False, True)]
    arrays = [live("d", d), live("w", w)]
    plan = analyse(loops, arrays, accesses)
    (group,) = plan.groups
    assert group.case == "span" and group.itemsize == 4
    check_plan(plan, loops, arrays, accesses)


def test_empty_iteration_space_needs_no_transfer():
    a, loops, arrays, accesses = nest_1d(3, [F(5, {"i": 1})], 0)
    plan = analyse(loops, arrays, accesses)
    assert plan.groups == [] and plan.describe() == "no transfers"


def test_bounds_refusal_names_the_array():
    a, loops, arrays, accesses = nest_1d(10, [F(1, {"i": 1})], 10)
    result = analyse(loops, arrays, accesses)
    assert isinstance(result, Refusal) and not result.over_memory
    assert "a[i + 1]" in result.reason and "10" in result.reason


def test_memory_limit_refuses_with_the_group_and_sizes():
    a, loops, arrays, accesses = nest_1d(1000, [F(0, {"i": 1})], 1000)
    result = analyse(loops, arrays, accesses, mem_limit=4000)
    assert isinstance(result, Refusal) and result.over_memory
    assert "group of a needs 8.0 kB" in result.reason and "4.0 kB" in result.reason


def test_describe_reads_like_an_explanation():
    a, loops, arrays, accesses = nest_1d(20, [F(2, {"i": 3})], 5)
    text = analyse(loops, arrays, accesses).describe()
    assert text.startswith("group 0: a: 1d, 40 B (5 elements for 5 touched)")


@pytest.mark.parametrize("step", [1, -1, 3, -2])
def test_negative_and_positive_steps_map_to_the_same_layout(step):
    a = np.zeros(40)[::step]
    loops = [LoopDim("i", 5, True)]
    accesses = [Access(0, "a", [F(1, {"i": 2})], True, True)]
    plan = analyse(loops, [live("a", a)], accesses)
    (group,) = plan.groups
    assert group.case == "1d" and group.device_elems == 5
    check_plan(plan, loops, [live("a", a)], accesses)


def test_many_scattered_residues_are_one_span_copy_not_many_boxes():
    # a[200i + r] for the 100 quadratic residues r mod 199: not evenly spaced, 100 blocks
    a = np.zeros(2200)
    loops = [LoopDim("i", 10, True)]
    bases = sorted({k * k % 199 for k in range(199)})
    accesses = [Access(k, "a", [F(b, {"i": 200})], True, False) for k, b in enumerate(bases)]
    plan = analyse(loops, [live("a", a)], accesses)
    (group,) = plan.groups
    assert group.case == "span" and len(group.boxes) == 1
    assert "boxes" in group.note
    check_plan(plan, loops, [live("a", a)], accesses)
