"""`unpy build --boundscheck`: IndexError naming the array, the axis and the index, as NumPy
would raise it, in sequential and parallel code; valid negative indices still wrap."""
import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from npstrategies import arrays

SETTINGS = settings(max_examples=30, deadline=None)


@SETTINGS
@given(st.data())
def test_every_index_checked_like_numpy(checked_kernels, data):
    """In range (negative too): the element; out of range: IndexError, as in the interpreter."""
    a = data.draw(arrays(np.float64, 1))
    i = data.draw(st.integers(-a.shape[0] - 3, a.shape[0] + 3))
    checked_kernels.check("read1", a, i)
    b = data.draw(arrays(np.float64, 2))
    i = data.draw(st.integers(-b.shape[0] - 2, b.shape[0] + 2))
    j = data.draw(st.integers(-b.shape[1] - 2, b.shape[1] + 2))
    checked_kernels.check("read2", b, i, j)


@pytest.mark.parametrize("index, axis, value, size", [
    ((5, 0, 0), 0, 5, 3), ((0, 4, 0), 1, 4, 4), ((0, 0, 7), 2, 7, 5), ((0, 0, -6), 2, -6, 5),
    ((-4, 0, 0), 0, -4, 3)])
def test_message_names_array_axis_and_index(checked_kernels, index, axis, value, size):
    grid = np.zeros((3, 4, 5), np.int32)
    with pytest.raises(IndexError) as info:
        checked_kernels.compiled.write3(grid, *index, 1)
    message = str(info.value)
    assert "'grid'" in message
    assert re.search(rf"\bindex {value}\b", message), message
    assert re.search(rf"\baxis {axis}\b", message), message
    assert re.search(rf"\bsize {size}\b", message), message
    assert not grid.any()


def test_in_range_negative_indices_wrap(checked_kernels):
    a = np.arange(5.0)
    assert checked_kernels.compiled.read1(a, -1) == 4.0
    checked_kernels.check("in_range_sum", a)


def test_parallel_loop_overrun(checked_kernels):
    values = np.ones(100)
    with pytest.raises(IndexError, match="'values'") as info:
        checked_kernels.compiled.parallel_overrun(values, 8)
    assert "axis 0" in str(info.value) and "size 100" in str(info.value)
    checked_kernels.check("parallel_overrun", np.ones(100), 0)


def test_parallel_reduction_overrun(checked_kernels):
    a, b = np.ones((6, 3)), np.ones((6, 3))
    with pytest.raises(IndexError) as info:
        checked_kernels.compiled.parallel_sum_wrong_axis(a, b)
    assert "'b'" in str(info.value) and "axis 1" in str(info.value)
    checked_kernels.check("parallel_sum_wrong_axis", np.ones((3, 3)), np.ones((3, 3)))


def test_local_array_checked(checked_kernels):
    with pytest.raises(IndexError, match="'tmp'"):
        checked_kernels.compiled.local_overrun(3, 3)
    assert checked_kernels.compiled.local_overrun(3, -3) == 0.0
