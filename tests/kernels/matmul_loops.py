"""Matrix products written as loops, built with --fastmath (tests/diffcheck.FASTMATH): the
forms unpy/loopopt/matmul_loops.py gives to the BLAS, and near misses it must leave as loops
(tests/differential/test_matmul_loops.py)."""
import numpy as np

import unpython
from unpython import prange

F2 = 'ndarray[float64, 2]'
S2 = 'ndarray[float32, 2]'
F1 = 'ndarray[float64, 1]'


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


@unpython.type(F2, F2, F2, None)
def scaled_store(a, b, c):
    for i in prange(a.shape[0]):
        for j in range(b.shape[1]):
            s = 0.0
            for k in range(a.shape[1]):
                s += a[i, k] * b[k, j]
            c[i, j] = 2.0 * s


# Covariance as users write it: the columns centred inside the product.

@unpython.type(F2, F1, F2, None)
def covariance(data, mean, cov):
    n = data.shape[0]
    m = data.shape[1]
    for i in prange(m):
        for j in range(i, m):
            s = 0.0
            for k in range(n):
                s += (data[k, i] - mean[i]) * (data[k, j] - mean[j])
            cov[i, j] = s / (n - 1)
            cov[j, i] = cov[i, j]


@unpython.type(F2, F1, F2, None)
def covariance_full(data, mean, cov):
    n = data.shape[0]
    m = data.shape[1]
    for i in prange(m):
        for j in range(m):
            s = 0.0
            for k in range(n):
                s += (data[k, j] - mean[j]) * (data[k, i] - mean[i])
            cov[i, j] = s / (n - 1)


@unpython.type(S2, 'ndarray[float32, 1]', S2, S2, 'float32', None)
def centred_cross(x, mx, y, c, w):
    """Different operands, one centred by rows, one plain; the sum scaled, then stored."""
    for i in prange(x.shape[0]):
        for j in range(y.shape[1]):
            s = np.float32(0.0)
            for k in range(x.shape[1]):
                s += (x[i, k] - mx[i]) * y[k, j]
            t = s * w
            c[i, j] = t


@unpython.type(F2, F1, F2, F1, F2, None)
def centred_both(x, mx, y, my, c):
    """Two operands, each centred by its own vector; the triangle, no mirror."""
    for i in prange(x.shape[1]):
        for j in range(i, y.shape[1]):
            s = 0.0
            for k in range(x.shape[0]):
                s += (x[k, i] - mx[i]) * (y[k, j] - my[j])
            c[i, j] = s / 4.0


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



@unpython.type(F2, F1, F2, None)
def centred_by_k(data, mean, cov):
    for i in prange(data.shape[1]):
        for j in range(data.shape[1]):
            s = 0.0
            for k in range(data.shape[0]):
                s += (data[k, i] - mean[k]) * (data[k, j] - mean[k])
            cov[i, j] = s


@unpython.type(F2, F1, F2, None)
def centred_by_the_other_loop(data, mean, cov):
    for i in prange(data.shape[1]):
        for j in range(data.shape[1]):
            s = 0.0
            for k in range(data.shape[0]):
                s += (data[k, i] - mean[j]) * (data[k, j] - mean[i])
            cov[i, j] = s


@unpython.type(F2, F1, F2, None)
def centre_first(data, mean, cov):
    for i in prange(data.shape[1]):
        for j in range(data.shape[1]):
            s = 0.0
            for k in range(data.shape[0]):
                s += (mean[i] - data[k, i]) * (data[k, j] - mean[j])
            cov[i, j] = s


@unpython.type(S2, F1, F2, None)
def centred_by_wider(data, mean, cov):
    """float32 columns less a float64 mean: the product in float64, the copy would be float32."""
    for i in prange(data.shape[1]):
        for j in range(data.shape[1]):
            s = 0.0
            for k in range(data.shape[0]):
                s += (data[k, i] - mean[i]) * (data[k, j] - mean[j])
            cov[i, j] = s
