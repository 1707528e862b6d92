"""Nests in the dot-product order users write (matrix products, Gram and distance matrices,
syrk-like triangles): the C++ path runs them register-blocked (unpy/loopopt/register_blocks)
and must give the interpreter's results bit for bit. Reference: the interpreter
(tests/differential/test_register_blocks.py). Some forms are near misses the pass must leave
alone (a sum reading the array the nest writes, a bound read from the nest)."""
import math

import numpy as np
import unpython
from unpython import prange

F2 = 'ndarray[float64, 2]'
S2 = 'ndarray[float32, 2]'
I2 = 'ndarray[int64, 2]'


@unpython.type(F2, F2, F2, None)
def matmul(a, b, c):
    for i in prange(a.shape[0]):
        for j in prange(b.shape[1]):
            s = 0.0
            for k in range(a.shape[1]):
                s += a[i, k] * b[k, j]
            c[i, j] = s


@unpython.type(S2, S2, S2, None)
def matmul_f32(a, b, c):
    for i in prange(a.shape[0]):
        for j in range(b.shape[1]):
            s = np.float32(0.0)
            for k in range(a.shape[1]):
                s += a[i, k] * b[k, j]
            c[i, j] = s


@unpython.type(I2, I2, I2, None)
def matmul_int(a, b, c):
    for i in prange(a.shape[0]):
        for j in prange(b.shape[1]):
            s = 0
            for k in range(a.shape[1]):
                s += a[i, k] * b[k, j]
            c[i, j] = s


@unpython.type('float64', F2, F2, 'float64', F2, None)
def gemm_epilogue(alpha, a, b, beta, c):
    """An epilogue reading the element it writes, and an accumulator that starts non-zero."""
    for i in prange(a.shape[0]):
        for j in prange(b.shape[1]):
            s = a[i, 0] * 0.5
            for k in range(1, a.shape[1]):
                s = s + alpha * a[i, k] * b[k, j]
            c[i, j] = beta * c[i, j] + s


@unpython.type('float64', F2, 'float64', F2, None)
def syrk_lower(alpha, a, beta, c):
    for i in prange(c.shape[0]):
        for j in prange(i + 1):
            s = 0.0
            for k in range(a.shape[1]):
                s += a[i, k] * a[j, k]
            c[i, j] = beta * c[i, j] + alpha * s


@unpython.type(F2, F2, None)
def gram_upper(x, g):
    """Upper triangle: the first column depends on the row."""
    for i in prange(x.shape[1]):
        for j in range(i, x.shape[1]):
            s = 0.0
            for k in range(x.shape[0]):
                s += x[k, i] * x[k, j]
            g[i, j] = s


@unpython.type(F2, F2, F2, None)
def distances(x, y, d):
    """Two accumulators, a math.* call after the sums (it checks its domain there)."""
    for i in prange(x.shape[0]):
        for j in prange(y.shape[0]):
            s = 0.0
            t = 0.0
            for k in range(x.shape[1]):
                e = x[i, k] - y[j, k]
                s += e * e
                t = t + abs(e)
            d[i, j] = math.sqrt(s) + t


@unpython.type(F2, F2, F2, None)
def distances_direct(x, y, d):
    for i in prange(x.shape[0]):
        for j in prange(y.shape[0]):
            s = 0.0
            for k in range(x.shape[1]):
                s += (x[i, k] - y[j, k]) * (x[i, k] - y[j, k])
            d[i, j] = math.sqrt(s)


@unpython.type(F2, F2, F2, 'int64', None)
def stepped_sum(a, b, c, step):
    """The sum's loop runs backwards with a step: the order of the additions is kept."""
    for i in prange(a.shape[0]):
        for j in prange(b.shape[1]):
            s = 0.0
            for k in range(a.shape[1] - 1, -1, -2):
                s += a[i, k] * b[k, j]
            c[i, j] = s * step


@unpython.type(F2, F2, None)
def reads_what_it_writes(a, c):
    """Near miss: the sum reads c, which the nest writes (the rows to the left are already
    stored): left as written."""
    for i in prange(a.shape[0]):
        for j in range(1, a.shape[1]):
            s = 0.0
            for k in range(a.shape[1]):
                s += a[i, k] * c[i, j - 1]
            c[i, j] = s


@unpython.type(F2, F2, F2, None)
def bound_from_column(a, b, c):
    """Near miss: the sum's bound depends on the column."""
    for i in prange(a.shape[0]):
        for j in prange(b.shape[1]):
            s = 0.0
            for k in range(min(j, a.shape[1])):
                s += a[i, k] * b[k, j]
            c[i, j] = s


@unpython.type(F2, F2, F2, None)
def textbook(a, b, c):
    """The textbook order, accumulating into the output element itself."""
    for i in prange(a.shape[0]):
        for j in range(b.shape[1]):
            for k in range(a.shape[1]):
                c[i, j] += a[i, k] * b[k, j]


@unpython.type(S2, S2, S2, 'float32', None)
def textbook_scaled(a, b, c, beta):
    for i in prange(a.shape[0]):
        for j in prange(b.shape[1]):
            for k in range(a.shape[1]):
                c[i, j] = c[i, j] * beta + a[i, k] * b[k, j]
            c[i, j] = c[i, j] * 2


@unpython.type(F2, F2, F2, None)
def accumulates_along_k(a, b, c):
    """The element written changes with the inner variable: each c[i, k] sums over j, which
    the blocked code runs as the dot-product order with k and j exchanged."""
    for i in prange(a.shape[0]):
        for j in range(b.shape[1]):
            for k in range(min(a.shape[1], c.shape[1])):
                c[i, k] += a[i, k] * b[k, j]


@unpython.type('float64', F2, F2, 'float64', F2, None)
def textbook_beta(alpha, a, b, beta, c):
    """Scaled before the sum, in the element itself (PolyBench's gemm in the dot order)."""
    for i in prange(a.shape[0]):
        for j in range(b.shape[1]):
            c[i, j] *= beta
            for k in range(a.shape[1]):
                c[i, j] += alpha * a[i, k] * b[k, j]


@unpython.type('float64', F2, F2, 'float64', F2, None)
def ikj_gemm(alpha, a, b, beta, c):
    """The i-k-j order of tuned loops: the blocked code runs it in the dot-product order."""
    for i in prange(a.shape[0]):
        for j in range(b.shape[1]):
            c[i, j] *= beta
        for k in range(a.shape[1]):
            aik = alpha * a[i, k]
            for j in range(b.shape[1]):
                c[i, j] += aik * b[k, j]


@unpython.type(S2, S2, S2, None)
def ikj_plain(a, b, c):
    for i in prange(a.shape[0]):
        for k in range(a.shape[1]):
            for j in range(b.shape[1]):
                c[i, j] = c[i, j] + a[i, k] * b[k, j]


@unpython.type(F2, F2, F2, None)
def ikj_prefix(a, b, c):
    """Near miss: each element reads its left neighbour, so the order over j matters."""
    for i in prange(a.shape[0]):
        for k in range(a.shape[1]):
            for j in range(1, b.shape[1]):
                c[i, j] += a[i, k] * b[k, j] + c[i, j - 1]


@unpython.type(F2, F2, 'ndarray[int64, 1]', F2, None)
def ragged_rows(a, b, lens, c):
    """Near miss: each row's columns are read from an array (not blocked: the common columns
    of a block come from its end rows)."""
    for i in prange(a.shape[0]):
        for j in range(lens[i]):
            s = 0.0
            for k in range(a.shape[1]):
                s += a[i, k] * b[k, j]
            c[i, j] = s


@unpython.type(F2, 'ndarray[float64, 1]', F2, None)
def centred_gram(data, mean, cov):
    """Covariance's form: each factor reads k and one of i and j (packed as values)."""
    for i in prange(data.shape[1]):
        for j in range(data.shape[1]):
            s = 0.0
            for k in range(data.shape[0]):
                s += (data[k, i] - mean[i]) * (data[k, j] - mean[j])
            cov[i, j] = s / (data.shape[0] - 1)


@unpython.type(F2, F2, F2, None)
def stepped_forward(a, b, c):
    """The sum's loop steps forward by 3 from 1: k blocks of 3 x k_block values of k."""
    for i in prange(a.shape[0]):
        for j in range(b.shape[1]):
            s = 0.0
            for k in range(1, a.shape[1], 3):
                s += a[i, k] * b[k, j]
            c[i, j] = s


@unpython.type('float64', F2, F2, 'float64', F2, None)
def scaled_from_output(alpha, a, b, beta, c):
    """The sum starts from the element the nest writes (no other iteration writes it: the
    middle loop's iterations are independent)."""
    for i in prange(a.shape[0]):
        for j in range(b.shape[1]):
            s = beta * c[i, j]
            for k in range(a.shape[1]):
                s += alpha * a[i, k] * b[k, j]
            c[i, j] = s


@unpython.type(F2, F2, 'ndarray[float64, 1]', None)
def row_maxima(a, b, best):
    """Each column's sum updates the row's maximum, so a value flows from one column to the
    next (the middle loop's iterations are not independent), but the sums read nothing the
    nest writes: blocked, the updates in column order."""
    for i in prange(a.shape[0]):
        for j in range(b.shape[1]):
            s = 0.0
            for k in range(a.shape[1]):
                s += a[i, k] * b[k, j]
            best[i] = max(best[i], s)
