"""@gpu nests the GPU path once refused although they can run on the device (issue 24): loop
variables reused by sibling loops, accesses safe only under their guard, loop bounds read from
arrays (CSR), negative indices with Python's wrap-around, helper functions, empty loops. Each
is compared with this same file run by the interpreter (tests/jitgpu/test_gpu_refusals.py)."""
import numpy as np
import unpython
from unpython import prange


# --- 1. a loop variable reused by sibling loops --------------------------------------------

@unpython.gpu
@unpython.type('ndarray[float64,2]', 'ndarray[float64,2]', None)
def reused_name(a, b):
    for i in prange(a.shape[0]):
        for j in range(2, a.shape[1]):
            b[i, j] = a[i, j - 1] + a[i, j - 2]
        for j in range(a.shape[1] - 3, -1, -1):
            b[i, j] = a[i, j + 1] + a[i, j + 2]


# --- 2. guards ---------------------------------------------------------------------------

@unpython.gpu
@unpython.type('ndarray[float64,2]', 'ndarray[float64,2]', 'int64', None)
def guarded_shift(g, out, w):
    for k in prange(g.shape[0]):
        for e in range(g.shape[1]):
            if e - w >= 0:
                out[k, e] = g[k, e - w]
            else:
                out[k, e] = 0.0


@unpython.gpu
@unpython.type('ndarray[float64,2]', 'ndarray[float64,2]', None)
def guarded_rows(a, out):
    # A guard on the parallel variable, in a statement and in an expression.
    n, m = a.shape
    for i in prange(n):
        for j in range(m):
            if i > 0 and i < n - 1:
                out[i, j] = a[i - 1, j] + a[i + 1, j]
            else:
                out[i, j] = a[i, j - 1] if j >= 1 else a[i, j]


@unpython.gpu
@unpython.type('ndarray[float64,1]', 'ndarray[float64,1]', 'int64', None)
def while_guard(a, out, w):
    # `while` tests narrow the body; `k` is computed in the nest, so its index is checked.
    n = a.shape[0]
    for i in prange(n):
        s = 0.0
        k = i
        while k - w >= 0:
            s += a[k - w]
            k -= w + 1
        out[i] = s


@unpython.gpu
@unpython.type('ndarray[float64,1]', 'ndarray[float64,1]', None)
def clamped_stencil(a, out):
    n = a.shape[0]
    for i in prange(n):
        out[i] = a[max(i - 1, 0)] + a[i] + a[min(i + 1, n - 1)]


# --- 3. loop bounds read from arrays -----------------------------------------------------

@unpython.gpu
@unpython.type('ndarray[int64,1]', 'ndarray[int64,1]', 'ndarray[float64,1]',
               'ndarray[float64,1]', 'ndarray[float64,1]', None)
def csr_matvec(indptr, indices, data, x, y):
    for i in prange(y.shape[0]):
        s = 0.0
        for p in range(indptr[i], indptr[i + 1]):
            s += data[p] * x[indices[p]]
        y[i] = s


# --- 4. negative indices -----------------------------------------------------------------

@unpython.gpu
@unpython.type('ndarray[float64,1]', 'ndarray[float64,1]', None)
def last_minus(a, out):
    for i in prange(out.shape[0]):
        out[i] = a[i] - a[-1]


@unpython.gpu
@unpython.type('ndarray[float64,2]', 'ndarray[float64,2]', None)
def reversed_rows(a, out):
    # a[-1 - i, -1 - j]: negative all over the loop, the wrap folds into the address.
    for i in prange(out.shape[0]):
        for j in range(out.shape[1]):
            out[i, j] = a[-1 - i, -1 - j]


@unpython.gpu
@unpython.type('ndarray[float64,1]', 'ndarray[float64,1]', 'int64', None)
def rotate(a, out, n):
    for i in prange(out.shape[0]):
        out[i] = a[i - n]


# --- 6. empty loops ----------------------------------------------------------------------

@unpython.gpu
@unpython.type('ndarray[float64,2]', None)
def empty_inner(a):
    # Each row's iterations read its first element, which the first writes: the loop over j
    # stays a loop of the work-item (an independent one would be an NDRange level, unpy/
    # typeinfer/independent_loops.py, and a level of no iteration is not run on the device).
    for i in prange(a.shape[0]):
        for j in range(a.shape[1]):
            a[i, j] = 2.0 * a[i, j] + a[i, 0]


@unpython.gpu
@unpython.type('ndarray[float64,2]', 'ndarray[float64,1]', None)
def triangle_under_empty(a, out):
    # When a.shape[1] == 0 the loop over j has no iteration, and the loop over k, whose start
    # reads j, never runs.
    n, m = a.shape
    for i in prange(out.shape[0]):
        s = 0.0
        for j in range(m):
            for k in range(j, m):
                s += a[i % n, k]
        out[i] = s


# --- 5. helpers of scalars ---------------------------------------------------------------

@unpython.type('float64', 'float64', 'float64')
def blend(x, y):
    return 0.25 * x + 0.75 * y


@unpython.gpu
@unpython.type('ndarray[float64,1]', 'ndarray[float64,1]', None)
def smooth(a, out):
    n = a.shape[0]
    for i in prange(n):
        out[i] = blend(a[i - 1], a[i])
