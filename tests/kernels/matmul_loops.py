"""Matrix products written as loops, built with --fastmath (tests/diffcheck.FASTMATH): the
forms unpy/loopopt/matmul_loops.py gives to the BLAS, and near misses it must leave as loops
(tests/differential/test_matmul_loops.py)."""
import numpy as np

import unpython
from unpython import prange

F2 = 'ndarray[float64, 2]'
S2 = 'ndarray[float32, 2]'


@unpython.type(F2, F2, F2, None)
def dot_order(a, b, c):
    for i in prange(a.shape[0]):
        for j in range(b.shape[1]):
            s = 0.0
            for k in range(a.shape[1]):
                s += a[i, k] * b[k, j]
            c[i, j] = s


@unpython.type(S2, S2, S2, None)
def dot_order_f32(a, b, c):
    m = a.shape[0]
    n = b.shape[1]
    p = a.shape[1]
    for i in prange(m):
        for j in prange(n):
            s = np.float32(0.0)
            for k in range(p):
                s += a[i, k] * b[k, j]
            c[i, j] = s


@unpython.type(F2, F2, None)
def gram(x, g):
    for i in prange(x.shape[1]):
        for j in range(x.shape[1]):
            s = 0.0
            for k in range(x.shape[0]):
                s += x[k, i] * x[k, j]
            g[i, j] = s


@unpython.type(F2, F2, F2, None)
def times_transposed(a, b, c):
    for i in prange(a.shape[0]):
        for j in range(b.shape[0]):
            s = 0.0
            for k in range(a.shape[1]):
                s = s + b[j, k] * a[i, k]
            c[i, j] = s


@unpython.type(F2, F2, F2, None)
def both_transposed(a, b, c):
    for i in prange(a.shape[1]):
        for j in range(b.shape[0]):
            s = 0.0
            for k in range(a.shape[0]):
                s += a[k, i] * b[j, k]
            c[i, j] = s


@unpython.type(F2, F2, F2, F2, None)
def chained(a, b, c, d):
    tmp = np.empty((a.shape[0], b.shape[1]))
    for i in prange(a.shape[0]):
        for j in range(b.shape[1]):
            s = 0.0
            for k in range(a.shape[1]):
                s += a[i, k] * b[k, j]
            tmp[i, j] = s
    for i in prange(tmp.shape[0]):
        for j in range(c.shape[1]):
            s = 0.0
            for k in range(tmp.shape[1]):
                s += tmp[i, k] * c[k, j]
            d[i, j] = s


# --- near misses: loops as written --------------------------------------------------------

@unpython.type(F2, F2, F2, None)
def columns_reversed(a, b, c):
    n = b.shape[1]
    for i in prange(a.shape[0]):
        for j in range(n):
            s = 0.0
            for k in range(a.shape[1]):
                s += a[i, k] * b[k, n - 1 - j]
            c[i, j] = s


@unpython.type(F2, F2, F2, None)
def from_row_one(a, b, c):
    for i in prange(1, a.shape[0]):
        for j in range(b.shape[1]):
            s = 0.0
            for k in range(a.shape[1]):
                s += a[i, k] * b[k, j]
            c[i, j] = s


@unpython.type(F2, F2, F2, None)
def starts_at_one(a, b, c):
    for i in prange(a.shape[0]):
        for j in range(b.shape[1]):
            s = 1.0
            for k in range(a.shape[1]):
                s += a[i, k] * b[k, j]
            c[i, j] = s


@unpython.type('ndarray[int64, 2]', 'ndarray[int64, 2]', 'ndarray[int64, 2]', None)
def integers(a, b, c):
    for i in prange(a.shape[0]):
        for j in range(b.shape[1]):
            s = 0
            for k in range(a.shape[1]):
                s += a[i, k] * b[k, j]
            c[i, j] = s


@unpython.type(F2, F2, F2, None)
def scaled_store(a, b, c):
    for i in prange(a.shape[0]):
        for j in range(b.shape[1]):
            s = 0.0
            for k in range(a.shape[1]):
                s += a[i, k] * b[k, j]
            c[i, j] = 2.0 * s
