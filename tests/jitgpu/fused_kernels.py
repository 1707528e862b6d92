"""Consecutive prange nests, fused (unpy/typeinfer/fuse.py) or not, for tests/jitgpu/test_fusion.py."""
import numpy as np

import unpython
from unpython import prange


@unpython.gpu
@unpython.type('ndarray[float64,1]', 'ndarray[float64,1]', 'ndarray[float64,1]', None)
def producer_consumer(a, b, c):
    for i in prange(a.shape[0]):
        b[i] = a[i] * 2.0
    for i in prange(a.shape[0]):
        c[i] = b[i] + a[i]


@unpython.gpu
@unpython.type('ndarray[float32,2]', 'ndarray[float32,2]', 'ndarray[float32,2]', None)
def two_levels(a, b, c):
    for i in prange(a.shape[0]):
        for j in prange(a.shape[1]):
            t = a[i, j] * np.float32(2)
            b[i, j] = t
    for p in prange(a.shape[0]):
        for q in prange(a.shape[1]):
            t = b[p, q] + a[p, q]
            s = np.float32(0)
            for k in range(q + 1):
                s += t * np.float32(k)
            c[p, q] = t * s


@unpython.gpu
@unpython.type('ndarray[float64,1]', 'ndarray[float64,1]', 'ndarray[float64,1]', 'int64', None)
def steps(a, b, c, count):
    for t in range(count):
        for i in prange(a.shape[0]):
            b[i] = a[i] * 0.5 + c[i]
        for i in prange(a.shape[0]):
            c[i] = b[i] - a[i] * 0.25
        for i in prange(a.shape[0]):
            a[i] = a[i] * 0.5 + c[i] * 0.1


@unpython.gpu
@unpython.type('ndarray[float64,2]', 'ndarray[float64,2]', 'int64', None)
def jacobi(a, b, count):
    n = a.shape[0]
    for t in range(count):
        for i in prange(1, n - 1):
            for j in prange(1, n - 1):
                b[i, j] = 0.2 * (a[i, j] + a[i, j - 1] + a[i, j + 1] + a[i + 1, j] + a[i - 1, j])
        for i in prange(1, n - 1):
            for j in prange(1, n - 1):
                a[i, j] = 0.2 * (b[i, j] + b[i, j - 1] + b[i, j + 1] + b[i + 1, j] + b[i - 1, j])


@unpython.gpu
@unpython.type('ndarray[float64,1]', 'ndarray[float64,1]', 'float64')
def sum_then_scale(a, b):
    s = 0.0
    for i in prange(a.shape[0]):
        s += a[i]
    for i in prange(a.shape[0]):
        b[i] = a[i] * 2.0
    return s


@unpython.gpu
@unpython.type('ndarray[float64,1]', 'ndarray[float64,1]', None)
def shifted_bounds(a, b):
    for i in prange(a.shape[0]):
        b[i] = a[i] + 1.0
    for i in prange(1, a.shape[0]):
        a[i] = b[i - 1] * 2.0


@unpython.gpu
@unpython.type('ndarray[float64,1]', 'ndarray[float64,1]', None)
def host_between(a, b):
    for i in prange(a.shape[0]):
        b[i] = a[i] + 1.0
    b[0] = 7.0
    for i in prange(a.shape[0]):
        a[i] = b[i] * 2.0


@unpython.gpu
@unpython.type('ndarray[float64,1]', 'ndarray[float64,1]', 'ndarray[float64,1]', None)
def maybe_views(a, b, c):
    # c may view a's memory shifted: not fused.
    for i in prange(a.shape[0]):
        b[i] = a[i]
    for i in prange(a.shape[0]):
        c[i] = b[i] * 2.0
