"""Hypothesis strategies shared by the box and transfer tests: NumPy arrays and views of them
(slices with any step, negative too, transposes, integer indices), of several dtypes."""
import dataclasses
import math

import numpy as np
from hypothesis import strategies as st


@st.composite
def arrays_and_views(draw, max_dims=3, max_side=7):
    ndim = draw(st.integers(1, max_dims))
    shape = draw(st.lists(st.integers(1, max_side), min_size=ndim, max_size=ndim))
    dtype = draw(st.sampled_from([np.float64, np.float32, np.int16, np.uint8]))
    base = (np.arange(math.prod(shape)) % 251).astype(dtype).reshape(shape)
    if draw(st.booleans()):
        base = np.asfortranarray(base)
    index = []
    for n in shape:
        if draw(st.integers(0, 5)) == 0:
            index.append(draw(st.integers(0, n - 1)))
        else:
            step = draw(st.sampled_from([1, 1, 2, 3, -1, -2]))
            start = draw(st.integers(0, n - 1))
            stop = draw(st.integers(-1, n))
            index.append(slice(start, None if stop < 0 else stop, step))
    view = base[tuple(index) + (Ellipsis,)]   # a view, 0-d too
    if view.ndim > 1 and draw(st.booleans()):
        view = view.transpose(draw(st.permutations(range(view.ndim))))
    return base, view


def same_box_in(other, box, owner):
    """`box` of `owner`'s memory at the same place in `other`'s, an array of owner's layout (a
    box names host addresses, so a copy into a fresh target needs its own)."""
    shift = other.__array_interface__["data"][0] - owner.__array_interface__["data"][0]
    return dataclasses.replace(box, host_addr=box.host_addr + shift)
