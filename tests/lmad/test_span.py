"""The whole-span group: 'span' and 'extent' (beyond the paper, SPEC section 5)."""
import numpy as np

from jitgpu.lmad import Access, AffineForm, LoopDim, analyse
from jitgpu.lmad.span import MirrorLayout, mirror_unit

from .oracle import check_plan, live

F = AffineForm


def test_mirror_unit_is_the_itemsize_unless_views_disagree():
    a = np.zeros((4, 5))
    assert mirror_unit([live("a", a)], live("a", a).data_addr) == 8
    raw = np.zeros(100, dtype=np.uint8)
    shifted = raw[4:84].view(np.float64)
    assert mirror_unit([live("s", shifted), live("r", raw[:80].view(np.float64))],
                       raw.__array_interface__["data"][0]) == 4


def test_device_map_rescales_host_strides_and_ignores_a_dimension_that_never_moves():
    a = np.zeros((6, 1, 4))[::-2]
    arr = live("a", a)
    layout = MirrorLayout(arr.data_addr - 2 * 64, arr.data_addr + 32, 8)
    dmap = layout.device_map(3, arr)
    assert (dmap.group, dmap.offset, dmap.loop_coeffs) == (3, 16, None)
    assert dmap.dim_strides == (-8, arr.strides[1] // 8, 1)
    assert layout.box().is_packed(8) and layout.size == 20


def test_sparse_span_is_the_last_resort_and_says_so():
    # a[3i + 3j]: not an RCSLMAD (equal strides), touched 7 of a span of 19
    a = np.zeros(30)
    loops = [LoopDim("i", 4, True), LoopDim("j", 4, True)]
    accesses = [Access(0, "a", [F(0, {"i": 3, "j": 3})], True, False)]
    plan = analyse(loops, [live("a", a)], accesses)
    (group,) = plan.groups
    assert group.case == "span" and group.touched_elems == 7 and group.device_elems == 19
    assert "last resort" in group.note
    check_plan(plan, loops, [live("a", a)], accesses)


def test_dense_span_is_within_the_factor():
    a = np.zeros(30)
    loops = [LoopDim("i", 4, True), LoopDim("j", 4, True)]
    accesses = [Access(0, "a", [F(0, {"i": 1, "j": 1})], True, False)]
    (group,) = analyse(loops, [live("a", a)], accesses).groups
    assert group.case == "span" and group.touched_elems == group.device_elems == 7
    assert "within 2.0x" in group.note


def test_one_unconditional_writer_of_the_whole_span_skips_copy_in():
    # a[2i] and a[j] do not share a layout (strides 2 and 1 too close); a[j] covers the span
    a = np.zeros(10)
    loops = [LoopDim("i", 5, True), LoopDim("j", 10, False)]
    accesses = [Access(0, "a", [F(0, {"i": 2})], False, True, unconditional=True),
                Access(1, "a", [F(0, {"j": 1})], False, True, unconditional=True)]
    plan = analyse(loops, [live("a", a)], accesses)
    (group,) = plan.groups
    assert group.case == "span" and not group.copy_in
    check_plan(plan, loops, [live("a", a)], accesses)
    accesses[1].read = True
    assert analyse(loops, [live("a", a)], accesses).groups[0].copy_in
