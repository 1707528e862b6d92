"""Kernels built with `unpy build --boundscheck` (tests/differential/test_boundscheck.py): every
out-of-range index raises IndexError naming the array, the axis and the index, also inside a
prange; in-range negative indices still wrap."""
import numpy as np
import unpython
from unpython import prange


@unpython.type('ndarray[float64, 1]', 'int64', 'float64')
def read1(a, i):
    return a[i]


@unpython.type('ndarray[float64, 2]', 'int64', 'int64', 'float64')
def read2(a, i, j):
    return a[i][j]


@unpython.type('ndarray[int32, 3]', 'int64', 'int64', 'int64', 'int32', None)
def write3(grid, i, j, k, value):
    grid[i, j, k] = value


@unpython.type('ndarray[float64, 1]', 'int64', None)
def parallel_overrun(values, extra):
    for i in prange(values.shape[0] + extra):
        values[i] = values[i] * 2.0


@unpython.type('ndarray[float64, 2]', 'ndarray[float64, 2]', 'float64')
def parallel_sum_wrong_axis(a, b):
    s = 0.0
    for i in prange(a.shape[0]):
        for j in range(a.shape[1]):
            s += a[i, j] * b[j, i]
    return s


@unpython.type('int64', 'int64', 'float64')
def local_overrun(n, k):
    tmp = np.zeros(n, np.float64)
    return tmp[k]


@unpython.type('ndarray[float64, 1]', 'float64')
def in_range_sum(a):
    s = 0.0
    for i in range(-a.shape[0], a.shape[0]):
        s += a[i]
    return s
