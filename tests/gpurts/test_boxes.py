"""Strided boxes: views checked against the owner's memory, gather/scatter, and the choice of
plain or rectangular copies (pure NumPy, no device)."""
import itertools

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from gpurts.boxes import box_view, byte_window, gather_box, rect_of, scatter_box, split_box
from unpy.host_memory import Box, address, memory_root
from gpurts_strategies import arrays_and_views


@given(arrays_and_views())
def test_box_of_a_view_sees_the_view(pair):
    base, view = pair
    box = Box.of_array(view)
    assert np.array_equal(box_view(base, box), view)
    assert np.array_equal(box_view(view, Box.of_array(view)), view)


@given(arrays_and_views())
def test_box_seen_through_another_view_of_the_same_memory(pair):
    base, view = pair
    other = base[::-1] if base.shape[0] > 1 else base   # owner with a negative stride
    assert np.array_equal(box_view(other, Box.of_array(view)), view)


@given(arrays_and_views())
def test_gather_then_scatter_round_trip(pair):
    base, view = pair
    box = Box.of_array(view)
    packed = np.zeros(box.size + 3, base.dtype)
    got = gather_box(base, box, packed)
    assert np.array_equal(got, view) and np.array_equal(packed[:box.size], view.ravel())
    values = view.copy()
    base[...] = 0
    scatter_box(packed, base, box)
    assert np.array_equal(view, values)
    view[...] = 0                           # the box's elements were all it wrote
    assert not base.any()


def test_box_leaving_the_memory_is_refused():
    a = np.arange(10.0)
    at = address(a)
    with pytest.raises(ValueError, match="leaves the array's memory"):
        box_view(a, Box(at + 8, (10,), (8,)))
    with pytest.raises(ValueError, match="leaves the array's memory"):
        box_view(a, Box(at, (2,), (-8,)))
    with pytest.raises(ValueError, match="leaves the array's memory"):
        box_view(a, Box(at, (2,), (8,)), np.dtype("V80"))
    assert box_view(a, Box(at + 72, (10,), (-8,)))[-1] == 0.0
    assert box_view(a, Box(at + 1000, (0, 5), (8, 8))).shape == (0, 5)   # empty: touches nothing


def test_box_may_span_other_views_of_the_root():
    root = np.arange(100.0)
    part = root[10:20]
    assert memory_root(part) is root
    assert np.array_equal(box_view(part, Box(address(part) - 80, (30,), (8,))), root[:30])


def test_read_only_owner_reads_but_cannot_be_scattered_into():
    a = np.arange(12.0).reshape(3, 4)
    a.flags.writeable = False
    box = Box.of_array(a[:, 1])
    assert not box_view(a, box).flags.writeable
    with pytest.raises(ValueError, match="read-only"):
        scatter_box(np.zeros(3), a, box)


def test_byte_window():
    a = np.arange(4, dtype=np.uint32)
    assert byte_window(a, address(a) + 4, address(a) + 8).tolist() == [1, 0, 0, 0]


def _addresses_in_order(box: Box, itemsize: int):
    return [box.host_addr + sum(i * s for i, s in zip(index, box.strides))
            for index in itertools.product(*map(range, box.shape))]


@given(arrays_and_views())
def test_packed_and_rect_decisions_match_the_addresses(pair):
    base, view = pair
    box = Box.of_array(view)
    itemsize = base.itemsize
    order = _addresses_in_order(box, itemsize)
    if box.is_packed(itemsize) and order:
        assert order == list(range(order[0], order[0] + len(order) * itemsize, itemsize))
    rect = rect_of(box, itemsize)
    if rect is not None:
        row_bytes, rows, slices = rect.region
        row_pitch, slice_pitch = rect.host_pitches
        rect_order = [box.host_addr + z * slice_pitch + y * row_pitch + x
                      for z in range(slices) for y in range(rows)
                      for x in range(0, row_bytes, itemsize)]
        assert rect_order == order


@settings(max_examples=50)
@given(st.integers(2, 6), st.integers(2, 6), st.integers(1, 3))
def test_rect_found_for_sub_blocks(rows, cols, step):
    a = np.zeros((20, 30, 10), np.float32)
    assert rect_of(Box.of_array(a[1:1 + rows, 2:2 + cols:step, 3:8]), 4) is not None
    assert rect_of(Box.of_array(a[1:1 + rows, 5, 2:9]), 4) is not None
    assert rect_of(Box.of_array(a[::-1, :, 2:5]), 4) is None           # negative stride
    assert rect_of(Box.of_array(a[:, :, ::2]), 4) is None              # strided rows
    assert rect_of(Box.of_array(a.transpose(1, 0, 2)[:2, :2]), 4) is None  # slice % row


@given(arrays_and_views(), st.integers(1, 300))
def test_split_box_pieces_cover_the_box_in_order(pair, max_bytes):
    base, view = pair
    box = Box.of_array(view)
    pieces = split_box(box, base.itemsize, max_bytes)
    assert [start for start, _ in pieces] == list(
        np.cumsum([0] + [p.size for _, p in pieces])[:-1])
    for _, piece in pieces:
        assert piece.size * base.itemsize <= max_bytes or piece.size == 1
    got = [box_view(base, piece).ravel() for _, piece in pieces]
    assert np.array_equal(np.concatenate(got) if got else np.empty(0, base.dtype), view.ravel())


def test_large_copies_run_in_parallel_chunks():
    a = np.arange(3 * 1024 * 1024, dtype=np.float64).reshape(3, 1024, 1024)
    view = a[:, ::2, 1:]
    packed = np.empty(view.size)
    assert np.array_equal(gather_box(a, Box.of_array(view), packed), view)
