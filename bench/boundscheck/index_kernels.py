"""Kernels of bench/boundscheck.py: nests whose indices unpy proves in range (while compiling,
or once before the nest) and one it cannot prove (a gather)."""
import numpy as np
import unpython
from unpython import prange


@unpython.type('ndarray[float64, 1]', 'ndarray[float64, 1]', 'int64', None)
def stencil(a, out, steps):
    """A 1-D three-point stencil, sequential: a[i - 1], a[i + 1] proved while compiling, out[i]
    before the nest (out's length is not a's)."""
    n = a.shape[0]
    for t in range(steps):
        for i in range(1, n - 1):
            out[i] = 0.25 * a[i - 1] + 0.5 * a[i] + 0.25 * a[i + 1]


@unpython.type('ndarray[float64, 2]', 'ndarray[float64, 2]', None)
def jacobi(a, b):
    """A 2-D five-point stencil in a prange: b's indices proved before the nest."""
    m, n = a.shape
    for i in prange(1, m - 1):
        for j in range(1, n - 1):
            b[i, j] = 0.2 * (a[i, j] + a[i - 1, j] + a[i + 1, j] + a[i, j - 1] + a[i, j + 1])


@unpython.type('ndarray[float64, 2]', 'ndarray[float64, 2]', 'ndarray[float64, 2]', None)
def matmul(a, b, c):
    """The register-blocked product: b's and c's indices proved before the nest."""
    for i in prange(a.shape[0]):
        for j in range(b.shape[1]):
            s = 0.0
            for k in range(a.shape[1]):
                s += a[i, k] * b[k, j]
            c[i, j] = s


@unpython.type('ndarray[float64, 1]', 'ndarray[int64, 1]', 'ndarray[float64, 1]', None)
def gather(a, idx, out):
    """a[idx[i]]: never proved, checked by default."""
    for i in prange(idx.shape[0]):
        out[i] = a[idx[i]] * 2.0


@unpython.type('ndarray[float64, 2]', 'ndarray[float64, 1]', 'ndarray[float64, 1]', None)
def triangular(a, x, y):
    """A lower-triangular matrix-vector product: j in range(i + 1), x[j] and y[i] proved before
    the nest."""
    for i in prange(a.shape[0]):
        s = 0.0
        for j in range(i + 1):
            s += a[i, j] * x[j]
        y[i] = s
