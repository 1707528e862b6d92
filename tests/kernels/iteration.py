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


@unpython.gpu
@unpython.type('ndarray[float64, 3]', 'ndarray[float64, 3]', None)
def flat_written_in_a_prange(a, b):
    """a.flat[i] = ... by each iteration of its own position (distinct elements)."""
    for i in prange(a.size):
        a.flat[i] = b.flat[a.size - 1 - i] * 2.0 + i


# --- a tuple or list written out ----------------------------------------------------------------


@unpython.type('int64', 'int64')
def tuple_of_ints(i):
    s = 0
    for d in (-1, 0, 1):
        s += i + d
    for k, d in enumerate([3, -2]):
        s = s * 10 + k * d
    return s


@unpython.type('ndarray[float64, 2]', 'int64', 'int64', 'float64')
def neighbours(a, i, j):
    """Tuples unpacked; continue, break and the loop's else."""
    s = 0.0
    for dx, dy in ((0, 1), (1, 0), (0, -1), (-1, 0)):
        if dx == 1:
            continue
        s += a[i + dx, j + dy]
    else:
        s += 100.0
    for w in [0.25, 0.5, i * 0.25, 2.0]:
        if w > 1.0:
            break
        s += w
    else:
        s -= 1000.0
    return s


@unpython.type('int64', 'int64')
def tuple_items_named(i):
    """Items that are tuples, bound to one name (a tuple variable) and indexed."""
    s = 0
    for t in ((0, 1), (i, 2 * i), (-1, 0)):
        s = 3 * s + t[0] - t[1]
    return s


@unpython.type('float64', 'float64')
def items_evaluated_once(x):
    """The items are read before the loop: rebinding x in it does not change them."""
    s = 0.0
    for v, w in zip((x, x + 1.0, -x), [1, 2, 3]):
        x = 10.0 * w
        s += v * w + x
    return s


@unpython.gpu
@unpython.type('ndarray[float64, 2]', 'ndarray[float64, 2]', None)
def stencil_of_offsets(a, out):
    """Neighbour offsets and weights written out, in a GPU nest."""
    for i in prange(1, a.shape[0] - 1):
        for j in range(1, a.shape[1] - 1):
            s = 0.0
            for w, di, dj in ((0.5, 0, 0), (0.25, 1, 0), (0.25, -1, 0), (0.125, 0, 1)):
                s += w * a[i + di, j + dj]
            for d in (-1, 1):
                if a[i, j + d] > 3.0:
                    break
                s += a[i, j + d]
            out[i, j] = s


# --- np.ndindex ---------------------------------------------------------------------------------


@unpython.type('ndarray[float64, 3]', 'float64')
def ndindex_of_a_shape(a):
    """The tuple of indices indexes the array; idx[0] is its first."""
    s = 0.0
    for idx in np.ndindex(a.shape):
        s += a[idx] * (idx[0] + 1)
    for i, j, k in np.ndindex(*a.shape):
        s += a[i, j, k] * (k - j)
    return s


@unpython.type('int64', 'int64', 'int64')
def ndindex_of_lengths(n, m):
    """Lengths written out: continue, a tuple variable, break and the loop's else."""
    s = 0
    for i, j in np.ndindex(n, m):
        if j == 2:
            continue
        s = s * 3 + i - j
    for t in np.ndindex((n, 2)):
        s += t[0] * t[1] + 1
    for i, j in np.ndindex(n, m):
        if i * j > 6:
            break
        s += 1
    else:
        s += 1000
    return s


@unpython.gpu
@unpython.type('ndarray[float64, 3]', 'ndarray[float64, 2]', 'ndarray[float64, 1]', None)
def ndindex_in_a_prange(a, w, out):
    """np.ndindex of lengths (a nest of loops) and of a shape unpacked, in a GPU nest."""
    for i in prange(a.shape[0]):
        s = 0.0
        for j, k in np.ndindex(a.shape[1], a.shape[2]):
            s += a[i, j, k] * (j + 1)
        for p, q in np.ndindex(*w.shape):
            s += w[p, q] * (i - q)
        out[i] = s


@unpython.type('ndarray[float64, 2]', 'int64', 'ndarray[float64, 1]')
def enumerated_pairs(arr, k):
    # a tuple of arrays zipped and counted, nested unpacking (np.triu_indices_from's pairs)
    rows, cols = np.triu_indices_from(arr, k=k)
    out = np.zeros(len(rows), arr.dtype)
    for n, (i, j) in enumerate(zip(rows, cols), 1):
        out[n - 1] = arr[i, j] * n
    return out


# --- positions unravelled by hand ---------------------------------------------------------------


@unpython.type('ndarray[float64, 2]', 'int64', 'int64', 'int64', 'float64')
def positions_unravelled(a, start, stop, m):
    """`k // m`, `k % m`, `k // m // 2 % 3` of a loop's variable from any start, with a
    continue and a break, m of any sign (the compiled loop counts them up, where every divisor
    is positive: unpy/cpp_emit/odometer.py), and a's element at position k written out."""
    s = 0.0
    for k in range(start, stop):
        if k % 7 == 3:
            continue
        s += (k // m) * 1.5 + (k % m) - (k // m // 2 % 3) * 0.25
        if 0 <= k < a.size:
            s += a[k // a.shape[1], k % a.shape[1]] * k
        if s > 1e4:
            break
    return s


@unpython.type('ndarray[float64, 3]', 'int64', 'float64')
def position_written_out(a, k):
    """a.flat[k] as the indices it unravels to, any k: a negative k counts rows from the end
    (not a.flat's), past the end IndexError (C++ reads data[k] only where a is C-contiguous and
    0 <= k < a.size: emit.py flat_position)."""
    return a[k // (a.shape[1] * a.shape[2]), k // a.shape[2] % a.shape[1], k % a.shape[2]]
