"""@gpu functions with arrays whose copies the code shows are needless (unpy/cpp_emit/
nest_contents.py), and the near misses that must still copy: for tests/jitgpu/
test_needless_copies.py."""
import numpy as np

import unpython
from unpython import prange

F1 = 'ndarray[float64, 1]'
F2 = 'ndarray[float64, 2]'


@unpython.gpu
@unpython.type(F2, F2, None)
def softmax_rows(a, out):
    """Array expressions: lowering's temporaries (the row maxima, `e`) are fresh np.empty."""
    e = np.exp(a - a.max(axis=1, keepdims=True))
    out[:] = e / e.sum(axis=1, keepdims=True)


@unpython.gpu
@unpython.type(F2, F2, None)
def lone_temporary(a, out):
    """One nest writes and reads its own temporary (another element than it wrote, so it stays
    an array): nothing of `tmp` moves either way."""
    n, m = a.shape
    tmp = np.empty((n, m), np.float64)
    for i in prange(n):
        for j in range(m):
            tmp[i, j] = a[i, j] * 2.0
        for j in range(m):
            out[i, j] = tmp[i, m - 1 - j] + 1.0


@unpython.gpu
@unpython.type(F1, F1, None)
def half_written_then_read(a, out):
    """Fresh, written at even places only, read on the host after: not copied in, copied
    back (its odd places are garbage in the interpreter too; only even ones are read)."""
    n = a.shape[0]
    tmp = np.empty(n, np.float64)
    for i in prange(n):
        if i % 2 == 0:
            tmp[i] = a[i] + 1.0
    for i in range(0, n, 2):
        out[i] = tmp[n - 1 - i] if n % 2 == 1 else tmp[i]


@unpython.gpu
@unpython.type(F1, F1, 'int64', None)
def carried_by_a_loop(a, out, steps):
    """Allocated before a time loop: its second sweep reads what the first wrote, so it is
    copied in like any array."""
    n = a.shape[0]
    acc = np.empty(n, np.float64)
    for t in range(steps):
        for i in prange(n):
            if t == 0:
                acc[i] = a[i]
            else:
                acc[i] = acc[i] * 0.5 + a[i]
        out[0] += acc[0]
    for i in range(n):
        out[i] += acc[i]


@unpython.gpu
@unpython.type(F1, F1, None)
def zeros_are_defined(a, out):
    """np.zeros holds zeros: the nest adds to them, so they are copied in."""
    n = a.shape[0]
    tmp = np.zeros(n, np.float64)
    for i in prange(n):
        tmp[i] += a[i]
    for i in range(n):
        out[i] = tmp[n - 1 - i]


@unpython.gpu
@unpython.type(F1, F1, 'bool', None)
def one_nest_per_branch(a, out, twice):
    """Each branch's nest runs alone in its call: copied back at once, replayed from C++."""
    n = a.shape[0]
    if twice:
        for i in prange(n):
            out[i] = a[i] * 2.0
    else:
        for i in prange(n):
            out[i] = a[i] + 1.0
