"""One-dimensional groups: sections 4.3.1 and 4.3.2, figures 4, 5 and 7."""
import numpy as np

from jitgpu.lmad import Access, AffineForm, LoopDim, analyse
from jitgpu.lmad.cslmad import Cslmad
from jitgpu.lmad.solve_1d import solve_equal_stride_1d, solve_single_1d

from .oracle import check_plan, live

F = AffineForm


def test_figure_4_one_1d_cslmad_packs_in_order():
    # 3i + 2 over [0, 5): CPU 2, 5, 8, 11, 14 -> GPU 0, 1, 2, 3, 4
    layout = solve_single_1d([Cslmad(2, ((3, 5),))])
    assert layout.size == 5
    [(device, addr, shape, strides)] = layout.pieces(0, 100)
    assert (device, addr, shape, strides) == (0, 2, (5,), (3,))


def test_a_fixed_address_is_a_1d_cslmad_of_extent_1():
    layout = solve_single_1d([Cslmad(7, ())])
    assert layout.size == 1 and layout.pieces(0, 100) == [(0, 7, (1,), (1,))]


def test_figure_7_three_cslmads_of_stride_4_compact_to_their_residues():
    # bases b, b+5, b+15, s = 4, u = 5: v = (0, 1, 3), r = (0, 1, 3), q = 3, q * (u + v_n) = 24
    members = [Cslmad(0, ((4, 5),)), Cslmad(5, ((4, 5),)), Cslmad(15, ((4, 5),))]
    layout = solve_equal_stride_1d(members)
    assert (layout.residues, layout.strides, layout.extents, layout.size) == \
        ((0, 1, 3), (4,), (8,), 24)
    assert [(p.rank, p.shifts) for p in map(layout.place, members)] == \
        [(0, (0,)), (1, (1,)), (2, (3,))]
    # the stretched CSLMADs run from b to b_C + 4 * (u - 1) = b + 31
    assert layout.count_covered([layout.place(m) for m in members]) == 15


def test_figure_7_through_analyse_maps_each_access_by_its_rank():
    a = np.zeros(40)
    loops = [LoopDim("i", 5, True)]
    accesses = [Access(k, "a", [F(b, {"i": 4})], True, False) for k, b in enumerate((0, 5, 15))]
    plan = analyse(loops, [live("a", a)], accesses)
    (group,) = plan.groups
    assert group.case == "1d-equal-stride" and group.touched_elems == 15
    check_plan(plan, loops, [live("a", a)], accesses)


def test_figure_5_interleaved_cslmads_become_one_contiguous_copy():
    # 2i and 2i + 1 over [0, 5): disjoint sets whose union is the interval [0, 9]
    a = np.zeros(10)
    loops = [LoopDim("i", 5, True)]
    accesses = [Access(0, "a", [F(0, {"i": 2})], True, False),
                Access(1, "a", [F(1, {"i": 2})], False, True)]
    plan = analyse(loops, [live("a", a)], accesses)
    (group,) = plan.groups
    assert group.case == "1d-equal-stride" and group.device_elems == 10
    (box,) = group.boxes
    assert box.is_packed(8) and box.size == 10
    assert plan.device_map(1).loop_coeffs == (("i", 2),) and plan.device_map(1).offset == 1
    check_plan(plan, loops, [live("a", a)], accesses)


def test_fixed_addresses_join_a_group_of_any_stride_or_of_none():
    layout = solve_equal_stride_1d([Cslmad(0, ((3, 4),)), Cslmad(4, ())])
    assert layout.residues == (0, 1) and layout.extents == (4,)
    layout = solve_equal_stride_1d([Cslmad(2, ()), Cslmad(9, ())])
    assert layout.size == 2 and layout.residues == (0, 7)


def test_different_strides_are_not_this_case():
    assert solve_equal_stride_1d([Cslmad(0, ((3, 4),)), Cslmad(1, ((2, 4),))]) is None
    assert solve_single_1d([Cslmad(0, ((3, 4),)), Cslmad(1, ((3, 4),))]) is None
