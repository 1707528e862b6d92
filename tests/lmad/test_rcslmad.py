"""RCSLMADs (section 4.3.3, Definition 1) and Theorem 2 (section 4.3.4, first case)."""
import numpy as np

from jitgpu.lmad import Access, AffineForm, LoopDim, analyse
from jitgpu.lmad.cslmad import Cslmad
from jitgpu.lmad.rcslmad import solve_rcslmad, solve_theorem2

from .oracle import check_plan, live

F = AffineForm


def test_figure_8_row_inside_its_stride_is_an_rcslmad():
    # A[i][j] with N = 10: RCSLMAD iff u2 <= N (s_2 * (u_2 - 1) < s_1)
    assert solve_rcslmad([Cslmad(0, ((10, 4), (1, 10)))]).size == 40
    assert solve_rcslmad([Cslmad(0, ((10, 4), (1, 11)))]) is None


def test_rcslmad_of_a_strided_transposed_view_is_one_box():
    a = np.zeros((12, 10))[1::2, ::3].T          # shape (4, 6), strides (24, 160) bytes
    loops = [LoopDim("i", 4, True), LoopDim("j", 6, True)]
    accesses = [Access(0, "a", [F(0, {"i": 1}), F(0, {"j": 1})], True, True)]
    plan = analyse(loops, [live("a", a)], accesses)
    (group,) = plan.groups
    assert group.case == "rcslmad" and group.device_elems == group.touched_elems == 24
    (box,) = group.boxes
    assert box.shape == (6, 4) and box.strides == (160, 24)   # sorted strides: j outside
    assert plan.device_map(0).loop_coeffs == (("i", 1), ("j", 4))
    check_plan(plan, loops, [live("a", a)], accesses)


def test_theorem_2_interleaved_copies_count_n_times_d():
    # 20i + 5j + {0, 1, 3} over i < 4, j < 3: 20 > 3 + 5 * 2 and 3 < 5
    members = [Cslmad(b, ((20, 4), (5, 3))) for b in (7, 8, 10)]
    layout = solve_theorem2(members)
    assert layout.size == 3 * 12 and layout.residues == (0, 1, 3)
    assert layout.count_covered([layout.place(m) for m in members]) == 36


def test_theorem_2_fails_for_16i_5j_and_16i_5j_plus_1():
    # f_1(i+1, 0) = f_2(i, 3): inequality 14 fails, so the group is not n * |D| = 64
    members = [Cslmad(0, ((16, 8), (5, 4))), Cslmad(1, ((16, 8), (5, 4)))]
    assert all(m.is_restricted() for m in members)
    assert solve_theorem2(members) is None


def test_16i_5j_pair_still_gets_a_correct_plan_with_the_true_count():
    a = np.zeros(16 * 7 + 5 * 3 + 2)
    loops = [LoopDim("i", 8, True), LoopDim("j", 4, True)]
    accesses = [Access(0, "a", [F(0, {"i": 16, "j": 5})], True, False),
                Access(1, "a", [F(1, {"i": 16, "j": 5})], False, True)]
    plan = analyse(loops, [live("a", a)], accesses)
    (group,) = plan.groups
    assert group.case in ("ilp", "span")
    assert group.touched_exact and group.touched_elems == 64 - 7   # 7 shared addresses
    check_plan(plan, loops, [live("a", a)], accesses)


def test_theorem_2_through_analyse_on_a_strided_view():
    # a[2i, 2j] and a[2i, 2j + 1] of a 10x10 array: strides (20, 2), bases 0 and 1
    a = np.zeros((10, 10))
    loops = [LoopDim("i", 5, True), LoopDim("j", 4, True)]
    accesses = [Access(0, "a", [F(0, {"i": 2}), F(0, {"j": 2})], True, False),
                Access(1, "a", [F(0, {"i": 2}), F(1, {"j": 2})], True, True)]
    plan = analyse(loops, [live("a", a)], accesses)
    (group,) = plan.groups
    assert group.case == "theorem2" and group.device_elems == group.touched_elems == 40
    (box,) = group.boxes     # interleaved: rows of 8 contiguous elements, every other row
    assert box.shape == (5, 8) and box.strides == (160, 8)
    check_plan(plan, loops, [live("a", a)], accesses)
