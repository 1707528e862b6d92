"""Loops as Numba users write them (bench/results/numba-code-probe-2026-11-28.md): over `a.flat`
and its elements by position, over a tuple or list written out, over `np.ndindex`. Reference: the
same functions under the interpreter (tests/differential/test_iteration.py)."""
import numpy as np
import unpython
from unpython import prange

# --- a.flat ------------------------------------------------------------------------------------


@unpython.type('ndarray[float64, 2]', 'float64')
def flat_sum(a):
    s = 0.0
    for v in a.flat:
        s += v
    return s


@unpython.type('ndarray[float64, 3]', 'ndarray[float64, 3]', 'float64')
def flat_zip_enumerate(a, b):
    """zip of two arrays' flat iterators (the shorter's length), enumerate of one."""
    s = 0.0
    for x, y in zip(a.flat, b.flat):
        s += x * y
    for k, v in enumerate(a.flat):
        s += k * v
    return s + np.sum(a.flat)


@unpython.type('ndarray[float64, 2]', None)
def flat_running_sum(a):
    """Writes ahead of the loop: the iterator reads each element when it gets there."""
    for k, v in enumerate(a.flat):
        if k + 1 < a.size:
            a.flat[k + 1] += v


@unpython.type('ndarray[float64, 3]', 'int64', 'float64')
def flat_item(a, i):
    return a.flat[i] + a.flat[-1] * 0.5


@unpython.type('ndarray[int32, 2]', 'int64', 'int32', None)
def flat_store(a, i, v):
    a.flat[i] = v
    a.flat[i - 1] += v


@unpython.type('ndarray[float64, 2]', 'int32', 'float64')
def flat_name(a, n):
    """A name bound to a.flat, indexed (an int32 position) and looped over."""
    f = a.flat
    s = 0.0
    for i in range(n):
        s += f[i] * (i + 1)
    for v in f:
        s += v
    return s


@unpython.type('ndarray[float64, 2]', 'ndarray[float64, 1]')
def flat_slice(a):
    """A slice of a.flat read is a copy of those elements."""
    b = a.flat[1:5]
    b[0] = 100.0
    return b


@unpython.gpu
@unpython.type('ndarray[float64, 2]', 'ndarray[float64, 2]', 'ndarray[float64, 1]',
               'ndarray[float64, 1]', None)
def flat_in_a_prange(a, w, doubled, out):
    """a.flat[i] read by position, and w's flat iterator, in GPU nests."""
    for i in prange(a.size):
        doubled[i] = 2.0 * a.flat[i] + a.flat[-1]
    for i in prange(out.shape[0]):
        s = 0.0
        for k, v in enumerate(w.flat):
            s += v * (i + k)
        out[i] = s
