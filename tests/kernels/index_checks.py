"""Kernels built by default (no --boundscheck, no --unchecked): an index that
unpy/loopopt/index_proof proves in range runs unchecked, any other is checked and raises
IndexError as the interpreter does, also inside a prange; negative indices wrap as Python's.
Reference: the interpreter (tests/differential/test_index_checks.py)."""
import numpy as np
import unpython
from unpython import prange

F1 = 'ndarray[float64, 1]'
F2 = 'ndarray[float64, 2]'
I1 = 'ndarray[int64, 1]'


@unpython.type(F1, F1, 'int64', 'int64', None)
def stencil(a, out, lo, hi):
    """Proved at run time where 1 <= lo and hi < a.shape[0]; lo = 0 wraps a[i - 1]."""
    for i in range(lo, hi):
        out[i] = a[i - 1] + 2.0 * a[i] + a[i + 1]


@unpython.type(F1, F1, None)
def stencil_inside(a, out):
    """Proved while compiling: out's length is not known, so out[i] waits for run time."""
    n = a.shape[0]
    for i in prange(1, n - 1):
        out[i] = a[i - 1] + a[i + 1]


@unpython.type(F2, F2, F2, None)
def matmul(a, b, c):
    for i in prange(a.shape[0]):
        for j in prange(b.shape[1]):
            s = 0.0
            for k in range(a.shape[1]):
                s += a[i, k] * b[k, j]
            c[i, j] = s


@unpython.type(F1, I1, F1, None)
def gather(a, idx, out):
    for i in prange(idx.shape[0]):
        out[i] = a[idx[i]]


@unpython.type(F1, I1, 'float64')
def gather_sum(a, idx):
    s = 0.0
    for i in range(idx.shape[0]):
        s += a[idx[i]]
    return s


@unpython.type(F1, I1, None)
def histogram(hist, bins):
    for i in prange(bins.shape[0]):
        hist[bins[i]] += 1.0


@unpython.type(F2, 'int64', 'float64')
def triangle(a, shift):
    s = 0.0
    for i in range(a.shape[0]):
        for j in range(i + shift):
            s += a[i, j]
    return s


@unpython.type(F2, 'int64', 'int64', None)
def fill_rows(c, m, n):
    """Writes out of range in a prange nest where m or n exceed c's shape."""
    for i in prange(m):
        for j in range(n):
            c[i, j] = i * 100.0 + j


@unpython.type(F1, 'int64', 'float64', None)
def shifted_write(a, k, v):
    for i in range(a.shape[0]):
        a[i + k] = v + i


@unpython.type(F1, F1, 'int64', None)
def reversed_copy(a, out, k):
    """a[-1 - i - k]: negative for k >= 0, out of range where k + n > a's length."""
    for i in range(out.shape[0]):
        out[i] = a[-1 - i - k]


@unpython.type(F1, 'int64', 'int64', 'float64')
def flat_blocks(a, m, n):
    """a[i * n + j]: proved at run time where m * n <= a's length."""
    s = 0.0
    for i in prange(m):
        for j in range(n):
            s += a[i * n + j]
    return s


@unpython.type(F1, 'int64', 'float64')
def guarded(a, k):
    """a[i - 1] under `if i > 0` (proved); a[i + k] checked where k is not known."""
    s = 0.0
    for i in range(a.shape[0]):
        if i > 0:
            s += a[i - 1]
        if i + k < a.shape[0]:
            s += a[i + k]
    return s


@unpython.type(F1, 'int64', 'float64')
def periodic(a, k):
    """Python's wrap at i = 0 (a[-1]), then out of range past the end by k."""
    s = 0.0
    for i in range(a.shape[0] + k):
        s += a[i - 1]
    return s


@unpython.type(F2, 'int64', 'int64', 'float64')
def while_reads(a, i, j):
    s = 0.0
    while i < a.shape[0]:
        s += a[i, j]
        i += 1
    return s


@unpython.type('int64', 'int64', 'float64')
def local_array(n, k):
    t = np.zeros(n)
    for i in range(n):
        t[i] = i
    return t[k]


@unpython.type(F2, F2, 'int64', None)
def time_steps(a, b, steps):
    """A sequential loop around prange nests: one run-time proof for both (b's shape)."""
    m, n = a.shape
    for t in range(steps):
        for i in prange(1, m - 1):
            for j in range(1, n - 1):
                b[i, j] = 0.25 * (a[i - 1, j] + a[i + 1, j] + a[i, j - 1] + a[i, j + 1])
        for i in prange(1, m - 1):
            for j in range(1, n - 1):
                a[i, j] = b[i, j]


@unpython.type(F1, 'int64', 'int64')
def first_nonzero_after(a, i):
    """A while loop that an out-of-range read (0 once checked) would keep going."""
    k = i
    while a[k] == 0.0:
        k += 1
    return k


@unpython.type(F1, I1, I1, None)
def searches(a, starts, found):
    """The while loop inside a prange: its iteration stops after the error, no hang."""
    for i in prange(starts.shape[0]):
        found[i] = first_nonzero_after(a, starts[i])


@unpython.type(F1, I1, I1, None)
def searches_inline(a, starts, found):
    for i in prange(starts.shape[0]):
        k = starts[i]
        while a[k] == 0.0:
            k += 1
        found[i] = k


@unpython.type(F2, I1, F1, None)
def nested_prange_rows(a, idx, out):
    """A compiled function with a prange called inside a prange (a nested region)."""
    for i in prange(out.shape[0]):
        out[i] = row_gather(a, i, idx)


@unpython.type(F2, 'int64', I1, 'float64')
def row_gather(a, i, idx):
    s = 0.0
    for j in prange(idx.shape[0]):
        s += a[i, idx[j]]
    return s


@unpython.type(F1, 'int64', 'float64')
def around(a, i):
    """One `return` of an expression: inlined where called with names and constants
    (unpy/loopopt/inline_calls.py); i read three times, a[i - 1] wrapping at i = 0."""
    return a[i - 1] + 2.0 * a[i] + a[i + 1]


@unpython.type(F1, 'float64', 'float64')
def size_over(a, d):
    """ZeroDivisionError for d = 0."""
    return a.shape[0] / d


@unpython.type(F1, F1, 'int64', 'float64', 'float64')
def inlined_calls(a, out, k, d):
    for i in prange(1, a.shape[0] - 1):
        out[i] = around(a, i)           # a[i - 1], a[i], a[i + 1] proved by the caller's range
    s = size_over(a, d) + around(a, 0)  # a constant argument
    for j in range(k):
        s += around(out, j)             # out of range where k >= out.shape[0]
    return s + around(a, k % 3)         # an expression argument: called


@unpython.type(F1, 'int64', 'float64')
def local_arrays_in_loops(a, m):
    """Arrays allocated in loops, each assigned once, of constant extents: `t[k]` for k in
    range(3) proved by t's extent; `w[k]` for k in range(m) checked (IndexError for m > 3)."""
    s = 0.0
    for i in prange(a.shape[0]):
        t = np.zeros(3)
        for k in range(3):
            t[k] = a[i] * k
        s += t[0] + t[1] + t[2]
    u = 0.0
    for j in range(a.shape[0]):
        w = np.ones(3)
        for k in range(m):
            u += w[k] * a[j]
    return s + u


@unpython.type(F1, 'int64', 'float64')
def local_array_maybe_unassigned(a, m):
    """z[1] proved by z's extent; where z was not assigned, UnboundLocalError first."""
    if m > 2:
        z = np.full(2, 1.5)
    return a.shape[0] + z[1]
