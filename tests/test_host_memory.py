"""unpy/host_memory.py: a strided box's byte span against NumPy's own bounds of a view, a box's
size and packing, and a transfer group's span over its boxes."""
from types import SimpleNamespace as NS

import numpy as np
from hypothesis import given
from hypothesis import strategies as st
from numpy.lib.array_utils import byte_bounds

from npstrategies import arrays
from unpy.host_memory import (Box, address, byte_runs, byte_span, group_span, memory_root,
                             reused_groups)


@given(st.integers(1, 3).flatmap(lambda ndim: arrays(np.float32, ndim)))
def test_a_views_byte_span_is_numpys_bounds(view):
    span = Box.of_array(view).byte_span(view.itemsize)
    assert span == (byte_bounds(view) if view.size else (address(view), address(view)))


def test_byte_span_of_negative_and_zero_strides():
    assert byte_span(100, (3, 4), (-16, 0), 4) == (68, 104)
    assert byte_span(100, (3, 0), (8, 8), 4) == (100, 100)     # no element: no byte
    assert byte_span(100, (), (), 8) == (100, 108)             # one element


def test_box_size_and_packing():
    assert Box(0, (3, 4), (64, 8), 0).size == 12
    assert Box(0, (12,), (8,), 0).is_packed(8)
    assert not Box(0, (12,), (16,), 0).is_packed(8)
    assert Box(0, (1,), (16,), 0).is_packed(8)
    assert Box(0, (4, 3), (24, 8)).is_packed(8) and not Box(0, (4, 3), (32, 8)).is_packed(8)


def test_a_groups_span_covers_its_boxes_and_skips_empty_ones():
    group = NS(itemsize=8, boxes=[Box(1000, (4,), (8,)), Box(2000, (2,), (-64,), 4),
                                  Box(50, (0,), (8,))])
    assert group_span(group) == (1000, 2008)
    assert group_span(NS(itemsize=8, boxes=[])) == (0, 0)


def test_memory_root_is_the_bottom_of_the_views():
    root = np.arange(12.0)
    assert memory_root(root.reshape(3, 4)[1:, ::2].T) is root


def _element_bytes(view) -> set:
    base, itemsize = address(view), view.itemsize
    offsets = np.zeros(view.shape, np.int64)
    for d, (n, s) in enumerate(zip(view.shape, view.strides)):
        shape = [1] * view.ndim
        shape[d] = n
        offsets = offsets + (np.arange(n) * s).reshape(shape)
    return {base + int(o) + b for o in offsets.ravel() for b in range(itemsize)}


@given(st.integers(1, 3).flatmap(lambda ndim: arrays(np.float32, ndim)))
def test_byte_runs_are_the_bytes_of_the_elements(view):
    """Stepped, flipped and transposed views: the runs cover exactly the bytes of
    the elements, one run per line of a contiguous dimension."""
    runs = byte_runs(Box.of_array(view), view.itemsize)
    covered = {b for lo, hi in runs.tolist() for b in range(lo, hi)}
    assert covered == _element_bytes(view)
    if view.size and any(abs(s) == view.itemsize and n > 1
                         for n, s in zip(view.shape, view.strides)):
        assert len(runs) < view.size


def test_too_many_lines_are_covered_by_the_span(monkeypatch):
    box = Box(1000, (3, 4), (64, 4))
    assert byte_runs(box, 4).tolist() == [[1000, 1016], [1064, 1080], [1128, 1144]]
    monkeypatch.setattr("unpy.host_memory.MAX_RUNS", 2)
    assert byte_runs(box, 4).tolist() == [[1000, 1144]]
    assert byte_runs(Box(0, (0, 4), (64, 4)), 4).shape == (0, 2)
    assert byte_runs(Box(64, (3, 4), (0, -4)), 4).tolist() == [[52, 68]]     # broadcast rows


def test_a_group_an_earlier_part_copied_alike_is_reused():
    """Equal groups copied in and not back point at the first part that copies them; a group
    written, or moved differently, is each part's own."""
    def group(name, addr, copy_in=True, copy_back=False):
        return NS(arrays=(name,), itemsize=8, device_elems=4, boxes=[Box(addr, (4,), (8,))],
                  copy_in=copy_in, copy_back=copy_back)

    parts = [NS(transfers=NS(groups=groups)) for groups in (
        [group("a", 0), group("b", 100)],
        [group("b", 100), group("a", 32)],
        [group("a", 32), group("b", 100), group("c", 500, False, True)],
        [group("c", 500, False, True), group("b", 100, True, True)])]
    assert reused_groups(parts) == ({}, {0: (0, 1)}, {0: (1, 1), 1: (0, 1)}, {})
