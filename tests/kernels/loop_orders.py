"""Nests written in the order that walks row-major arrays down their columns (column sums, a
prange over columns, the k-outermost matrix product) or that reads one matrix along rows and
another along columns (a matrix plus its transpose): the C++ path runs them interchanged
(unpy/loopopt/interchange) or in cache tiles (unpy/loopopt/cache_tiles) and must give the
interpreter's results bit for bit. Reference: the interpreter
(tests/differential/test_interchange.py). The near misses at the end are nests the passes
must leave as written."""
import numpy as np
import unpython
from unpython import prange

F1 = 'ndarray[float64, 1]'
F2 = 'ndarray[float64, 2]'
S1 = 'ndarray[float32, 1]'
S2 = 'ndarray[float32, 2]'
I1 = 'ndarray[int64, 1]'
I2 = 'ndarray[int64, 2]'


# --- strips of a prange over columns, the loop over rows outside them -------------------------

@unpython.type(F2, F1, None)
def column_sums(a, out):
    for j in prange(a.shape[1]):
        s = 0.0
        for i in range(a.shape[0]):
            s += a[i, j]
        out[j] = s


@unpython.type(S2, S1, None)
def column_sums_f32(a, out):
    for j in prange(a.shape[1]):
        s = np.float32(0.0)
        for i in range(a.shape[0]):
            s += a[i, j]
        out[j] = s


@unpython.type(I2, I1, None)
def column_sums_int(a, out):
    for j in prange(a.shape[1]):
        s = 0
        for i in range(a.shape[0]):
            s += a[i, j]
        out[j] = s


@unpython.type(F2, F1, F1, 'int64', None)
def column_moments(a, mean, var, first):
    """Two sums per column, a temporary, a stepped loop over rows and statements after it."""
    for j in prange(a.shape[1]):
        s = a[0, j] * 0.0
        q = 0.0
        count = 0
        for i in range(first, a.shape[0], 2):
            x = a[i, j]
            s = s + x
            q += x * x
            count += 1
        if count > 0:
            m = s / count
            mean[j] = m
            var[j] = q / count - m * m


@unpython.type(F2, F1, F2, None)
def scale_columns(a, c, b):
    """No scalar carried: each row's strip of b from a's."""
    for j in prange(a.shape[1]):
        cj = c[j] * 2.0
        for i in range(a.shape[0] - 1, -1, -1):
            b[i, j] = a[i, j] * cj + 1.0


@unpython.type(F2, None)
def column_recurrence(a):
    """Each column reads the element its earlier row wrote: the order of i kept per column."""
    for j in prange(a.shape[1]):
        for i in range(1, a.shape[0]):
            a[i, j] = a[i - 1, j] * 0.5 + a[i, j]


@unpython.type(F2, F1, None)
def column_max(a, out):
    for j in prange(a.shape[1]):
        best = a[0, j]
        for i in range(1, a.shape[0]):
            if a[i, j] > best:
                best = a[i, j]
        out[j] = best


# --- cache tiles: rows and columns in one nest --------------------------------------------------

@unpython.type(F2, F2, None)
def transpose_add(a, b):
    n = a.shape[0]
    for i in prange(n):
        for j in range(n):
            b[i, j] = a[i, j] + a[j, i]


@unpython.type(F2, F2, None)
def transpose_add_prange(a, b):
    for i in prange(a.shape[0]):
        for j in prange(a.shape[1]):
            b[i, j] = a[i, j] + a[j, i]


@unpython.type(F2, F2, None)
def transpose(a, b):
    for i in prange(b.shape[0]):
        for j in range(b.shape[1]):
            b[i, j] = a[j, i]


@unpython.type(S2, S2, None)
def transpose_scaled_f32(a, b):
    for i in prange(b.shape[0]):
        for j in range(b.shape[1]):
            t = a[j, i] * np.float32(0.5)
            b[i, j] = t + b[i, j]


@unpython.type(F2, F2, None)
def lower_antisymmetric(a, b):
    """A triangle: the columns of row i end at i."""
    for i in prange(a.shape[0]):
        for j in range(i):
            b[i, j] = a[i, j] - a[j, i]


@unpython.type(F2, F2, 'int64', None)
def upper_band(a, b, w):
    """A triangle starting at the diagonal, clipped at the side."""
    n = a.shape[0]
    for i in prange(n):
        for j in range(i + 1, min(i + w, n)):
            b[i, j] = a[j, i] * 2.0 - a[i, j]


@unpython.type(F2, None)
def symmetrise_upper(a):
    """The element a row writes is read by no other row: rows below the diagonal are read,
    the upper triangle written."""
    n = a.shape[0]
    for i in prange(n):
        for j in range(i + 1, n):
            a[i, j] = a[j, i] + a[i, j] * 0.0


# --- the prange moved outward past a serial loop -----------------------------------------------

@unpython.type(F2, F2, F2, None)
def kij_matmul(a, b, c):
    for k in range(a.shape[1]):
        for i in prange(a.shape[0]):
            for j in range(b.shape[1]):
                c[i, j] += a[i, k] * b[k, j]


@unpython.type(S2, S2, S2, None)
def kij_matmul_f32(a, b, c):
    for k in range(a.shape[1]):
        for i in prange(a.shape[0]):
            for j in range(b.shape[1]):
                c[i, j] = c[i, j] + a[i, k] * b[k, j]


@unpython.type(F1, F1, 'int64', None)
def relax_steps(x, y, steps):
    """A time loop around a prange of one element per iteration."""
    for t in range(steps):
        for i in prange(x.shape[0]):
            x[i] = x[i] * 0.5 + y[i] * t


@unpython.type(F2, F2, None)
def k_outer_rows(a, c):
    """Each row's element sums a row of a in k's order."""
    for k in range(a.shape[1]):
        for i in prange(a.shape[0]):
            d = a[i, k] - 0.5
            c[i, 0] = c[i, 0] + d * d


# --- near misses: left as written ---------------------------------------------------------------

@unpython.type(I2, I1, None)
def times_last_column(a, out):
    """`a[i, -1]`, Python's wrap (a fuzz finding, as `a.T @ a[:, -1]`): the strips copy the
    index as written, so the nest runs as written where the proof wraps it."""
    for j in prange(a.shape[1]):
        s = 0
        for i in range(a.shape[0]):
            s += a[i, j] * a[i, -1]
        out[j] = s


@unpython.type(F2, None)
def shifted_wavefront(a):
    """(k, i) reads a[i + 1, k], which (k - 1, i + 1) wrote: moving i outward would read it
    before the write."""
    for k in range(a.shape[1] - 1):
        for i in prange(a.shape[0] - 1):
            a[i, k + 1] = a[i + 1, k] + 1.0


@unpython.type(F2, None)
def serial_wavefront(a):
    """Serial loops, a dependence that interchange would reverse."""
    for j in range(a.shape[1] - 1):
        for i in range(1, a.shape[0]):
            a[i, j] = a[i - 1, j + 1] + 1.0


@unpython.type(F2, 'float64')
def total_by_columns(a):
    """A reduction over the prange: its order is OpenMP's already."""
    total = 0.0
    for j in prange(a.shape[1]):
        for i in range(a.shape[0]):
            total += a[i, j]
    return total


@unpython.type(F2, F1, None)
def triangular_columns(a, out):
    """The rows of column j depend on j."""
    for j in prange(a.shape[1]):
        s = 0.0
        for i in range(min(j, a.shape[0])):
            s += a[i, j]
        out[j] = s


@unpython.type(F2, F1, None)
def row_sums(a, out):
    """Already along the rows."""
    for i in prange(a.shape[0]):
        s = 0.0
        for j in range(a.shape[1]):
            s += a[i, j]
        out[i] = s


@unpython.type(F2, F1, None)
def crossed_sums(a, out):
    """A sum carried along j across rows and columns: tiles would interleave it."""
    for i in prange(a.shape[0]):
        s = 0.0
        for j in range(a.shape[0]):
            s += a[i, j] * a[j, i]
        out[i] = s


@unpython.type(F2, F2, 'int64')
def k_outer_reads_k(a, c):
    """The serial loop's variable read after the nest."""
    k = -1
    for k in range(a.shape[1]):
        for i in prange(a.shape[0]):
            c[i, 0] = c[i, 0] + a[i, k]
    return k
