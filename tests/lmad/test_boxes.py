"""Box index arithmetic: C-order ranges, clipping monotone boxes, simplifying boxes."""
import math

import numpy as np
from hypothesis import given, settings, strategies as st

from jitgpu.lmad.boxes import clip_monotone, make_box, split_c_range, unravel

shapes = st.lists(st.integers(1, 5), min_size=1, max_size=4).map(tuple)


def positions(shape, pieces):
    out = []
    for first, dim, count in pieces:
        index = unravel(first, shape)
        sub = (count,) + shape[dim + 1:]
        for rel in np.ndindex(*sub):
            full = index[:dim] + (index[dim] + rel[0],) + tuple(rel[1:])
            out.append(int(np.ravel_multi_index(full, shape)))
    return out


@settings(max_examples=150, deadline=None)
@given(shapes, st.data())
def test_split_c_range_covers_the_range_in_order_with_few_boxes(shape, data):
    n = math.prod(shape)
    start = data.draw(st.integers(0, n))
    stop = data.draw(st.integers(start, n))
    pieces = split_c_range(shape, start, stop)
    assert positions(shape, pieces) == list(range(start, stop))
    assert len(pieces) <= max(1, 2 * len(shape) - 1)


@settings(max_examples=150, deadline=None)
@given(shapes, st.data())
def test_clip_monotone_keeps_exactly_the_addresses_in_range(shape, data):
    # strides of an RCSLMAD: each larger than the whole span of the dimensions after it
    strides, inner = [], 0
    for n in reversed(shape):
        stride = inner + 1 + data.draw(st.integers(0, 3))
        strides.insert(0, stride)
        inner += stride * (n - 1)
    base = data.draw(st.integers(0, 10))
    addrs = [base + sum(i * s for i, s in zip(idx, strides)) for idx in np.ndindex(*shape)]
    lo = data.draw(st.integers(addrs[0] - 2, addrs[-1] + 2))
    hi = data.draw(st.integers(lo, addrs[-1] + 3))
    kept = []
    for first, addr, sub_shape, sub_strides in clip_monotone(base, shape, tuple(strides), lo, hi):
        for pos, idx in enumerate(np.ndindex(*sub_shape)):
            a = addr + sum(i * s for i, s in zip(idx, sub_strides))
            assert a == addrs[first + pos]
            kept.append(a)
    assert kept == [a for a in addrs if lo <= a < hi]


def test_make_box_drops_unit_dimensions_and_merges_contiguous_ones():
    box = make_box(1000, (1, 4, 3, 1), (999, 24, 8, 5), 7, 8)
    assert (box.shape, box.strides, box.device_offset) == ((12,), (8,), 7)
    assert box.is_packed(8)
    box = make_box(1000, (4, 3), (32, 8), 0, 8)
    assert (box.shape, box.strides) == ((4, 3), (32, 8)) and not box.is_packed(8)
    assert make_box(1000, (1, 1), (8, 8), 0, 8).shape == (1,)
