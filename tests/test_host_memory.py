"""unpy/host_memory.py: a strided box's byte span against NumPy's own bounds of a view, a box's
size and packing, and a transfer group's span over its boxes."""
from types import SimpleNamespace as NS

import numpy as np
from hypothesis import given
from hypothesis import strategies as st
from numpy.lib.array_utils import byte_bounds

from npstrategies import arrays
from unpy.host_memory import Box, address, byte_span, group_span, memory_root


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
