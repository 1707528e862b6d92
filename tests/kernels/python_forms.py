"""Python forms the frontend desugars (SPEC section 3): module-level numeric constants, chained
assignment, `for x in arr`, and defaults of compiled functions. Reference: the same functions
under the interpreter (tests/differential/test_python_forms.py)."""
import itertools
import math

import numpy as np
import unpython
from unpython import prange

# --- module-level numeric constants: read as literals -------------------------------------------

N_BINS = 4
EPS = 1e-9
HALF = 0.5
OFFSET = -3
SCALE = 2 * N_BINS + OFFSET         # arithmetic of constants: 5
TWO_PI = 2 * math.pi
KT = 2 / math.log(1 + math.sqrt(2), math.e)   # numba-benchmark's Ising: math of constants
EPS32 = np.float32(1e-6)                      # numba-benchmark's n-body: typed constants
ONE32 = np.float32(1.0)
INT_DTYPE = np.int32
ZERO32 = INT_DTYPE(0)                          # numba-benchmark's iterating: dtype(0)
CHECKED = True
BIG = 2 ** 40


@unpython.type('float64', 'float64')
def constants_float(x):
    return x * SCALE + EPS + HALF + TWO_PI + OFFSET


@unpython.type('int64', 'int64')
def constants_int(n):
    total = 0
    for i in range(N_BINS):
        total += n * i + OFFSET + BIG
    if CHECKED:
        total = total // SCALE
    return total


@unpython.type('float64', 'float64')
def constant_of_math_functions(d):
    return math.exp(-d / KT)


@unpython.type('ndarray[float64, 1]', 'ndarray[float32, 1]',
               ('float64', 'float64', 'float32', 'bool'))
def float_of_strings(a, x32):
    """float('inf'), float('-inf'), float('nan'): the Python floats (weak in NEP 50: x32 minus
    infinity stays float32), as the running minimum's start."""
    best, worst = float('inf'), float('-inf')
    for v in a:
        if v < best:
            best = v
        worst = max(worst, v)
    return best, worst, np.max(x32 - float('Infinity') * a.size), math.isnan(float('nan'))


@unpython.type('ndarray[float32, 1]', 'float32')
def typed_constants_float32(x):
    # EPS32 is a float32 as in the interpreter: `s` sums in float32, and ONE32 / s stays float32
    s = EPS32
    for v in x:
        s += v
    return ONE32 / s


@unpython.type('ndarray[int32, 1]', 'int32')
def typed_constant_int32(a):
    total = ZERO32
    for v in a:
        total += v
    return total


@unpython.type('float32', 'float32')
def constants_keep_float32(x):
    # A Python float constant is weak (NEP 50), like a literal: float32 stays float32.
    return x * HALF + TWO_PI


@unpython.type('ndarray[float64, 1]', 'ndarray[float64, 1]')
def constants_as_sizes(a):
    out = np.zeros(N_BINS)
    for i in range(a.shape[0]):
        out[i % N_BINS] += a[i]
    return out


@unpython.type('float64', 'float64')
def constant_assigned_later(x):
    # The interpreter reads the name when the function runs: after the module has assigned it.
    return x + LATER


LATER = 10.0


@unpython.type('int64', 'int64')
def constant_hidden_by_a_parameter(N_BINS):
    return N_BINS + 1


# --- chained assignment -------------------------------------------------------------------------

@unpython.type('float64', 'float64')
def chained_scalars(x):
    a = b = x * 3.0
    i = j = 0
    a += 1.0
    i += 2
    return a + b + i + j


@unpython.type('ndarray[float64, 1]', 'int64', None)
def chained_elements(a, k):
    # Python assigns the targets from left to right: `k` is rebound before `a[k]` is written.
    k = a[k] = int(a[0]) + 1
    a[1] = a[2] = a[0] * 0.5


@unpython.type('int64', 'ndarray[float64, 1]')
def chained_arrays(n):
    # Both names are one array, as in Python.
    a = b = np.zeros(n)
    a[0] = 7.0
    b[1] = a[0] + 1.0
    return a


@unpython.locals(s='float32', t='float32')
@unpython.type('float32', 'float32')
def chained_literal_into_float32(x):
    s = t = 0.25
    return s * x + t


# --- for x in arr -------------------------------------------------------------------------------

@unpython.type('ndarray[float64, 1]', 'float64')
def iterate_sum(a):
    s = 0.0
    for x in a:
        s += x * x
    return s


@unpython.type('ndarray[int64, 1]', 'int64')
def iterate_ints_with_break(a):
    count = 0
    last = -1
    for v in a:
        if v < 0:
            continue
        if v > 100:
            break
        count += v
        last = v
    return count * 1000 + last


@unpython.type('ndarray[float64, 2]', 'ndarray[float64, 1]', None)
def iterate_rows(m, out):
    k = 0
    for row in m:
        out[k] = row.sum() + row[0]
        row[1] = -row[1]            # a row is a view: the write reaches m
        k += 1


@unpython.type('ndarray[float64, 1]', 'ndarray[float64, 1]', 'ndarray[float64, 1]', None)
def horner_prange(coeffs, x, out):
    for i in prange(x.shape[0]):
        acc = 0.0
        for c in coeffs:
            acc = acc * x[i] + c
        out[i] = acc


@unpython.type('ndarray[float64, 2]', 'float64')
def iterate_nested(m):
    s = 0.0
    for row in m:
        for v in row:
            s = s * 0.5 + v
    return s


@unpython.type('ndarray[float64, 1]', 'float64')
def loop_variable_after_the_loop(a):
    x = -1.0
    for x in a:
        pass
    return x


# --- builtin sum, any, all of a 1-D array --------------------------------------------------------

@unpython.type('ndarray[float64, 1]', 'float64')
def builtin_sum(a):
    return sum(a) + sum(a * a, 1.5)


@unpython.type('ndarray[int64, 1]', 'int64')
def builtin_sum_ints(a):
    return sum(a) + sum(a > 0, 10)


@unpython.type('ndarray[float64, 1]', 'bool')
def builtin_any_all(a):
    return any(a > 0.5) or all(a < 0.0)


@unpython.gpu
@unpython.type('ndarray[float64, 2]', 'ndarray[float64, 1]', None)
def builtin_sum_of_rows(m, out):
    for i in prange(m.shape[0]):
        out[i] = sum(m[i]) if any(m[i] > 0.0) else -1.0


@unpython.type('ndarray[float64, 1]', 'ndarray[int64, 1]', 'float64')
def generator_sums(a, k):
    x = 5.0                                 # the generators' x is their own
    s = sum(x * x for x in a) + sum((v for v, j in zip(a, k) if j > 0), 1.5)
    n = sum(1 for x in a if x > 0.5)
    big = any(x > 3.0 for x in a)
    small = all(j >= -5 for j in k)
    return s + n + x + (10.0 if big else 0.0) + (100.0 if small else 0.0)


@unpython.type('ndarray[float64, 1]', 'float64')
def generator_min_max(a):
    lo = min(v * v - v for v in a)          # ValueError when a is empty, as in Python
    hi = max(abs(v) for i, v in enumerate(a) if i % 2 == 0)
    return lo + hi


@unpython.type('ndarray[float64, 1]', 'float64')
def builtin_min_max_of_arrays(a):
    return max(a) - min(a[::-1]) + min(a * 2.0)


@unpython.gpu
@unpython.type('ndarray[float64, 2]', 'ndarray[float64, 1]', None)
def generator_in_a_prange(m, out):
    for i in prange(m.shape[0]):
        out[i] = sum(m[i, j] * j for j in range(m.shape[1])) + max(
            m[i, j] for j in range(m.shape[1] - 1, -1, -1) if j != 2)


@unpython.type('float64', 'int64', 'int64', 'float64')
def pow_and_divmod(x, i, j):
    q, r = divmod(i, j)                     # ZeroDivisionError where j == 0, as in Python
    fq, fr = divmod(x, 0.75)
    return pow(x, 2) + pow(abs(x), 0.5) + q * 1000 + r + fq + fr + pow(i, 2)


@unpython.type('float64', 'float32', 'int64', 'int64')
def builtin_round(x, y, i):
    # Python's int, halves to even; OverflowError / ValueError for inf / nan, as in Python
    return round(x) * 1000 + round(y) + round(i) + round(True)


@unpython.gpu
@unpython.type('ndarray[float64, 1]', 'ndarray[int64, 1]', None)
def rounded_in_a_prange(a, out):
    for i in prange(a.shape[0]):
        out[i] = round(a[i] * 2.5) - round(a[i])


@unpython.type('ndarray[float64, 1]', 'int64', 'int64', 'float64')
def reversed_ranges(a, lo, hi):
    i = j = k = -100
    s = 0.0
    for i in reversed(range(a.shape[0])):
        s = s * 0.5 + a[i]
    for j in reversed(range(lo, hi, 3)):
        s = s * 0.25 + j
    for k in reversed(range(hi, lo, -2)):
        s = s * 0.75 - k
    return s + i + 10 * j + 100 * k


# --- defaults -----------------------------------------------------------------------------------

@unpython.type('float64', 'float64', 'int64', 'bool', 'float64')
def with_defaults(x, alpha=1.5, n=OFFSET, negate=False):
    y = alpha * x + n
    return -y if negate else y


@unpython.type('float32', 'float32', 'uint8', 'float32')
def with_typed_defaults(x, scale=0.1, shift=200):
    return x * scale + shift


@unpython.type('float64', 'float64')
def calls_with_defaults(x):
    return (with_defaults(x) + with_defaults(x, 2.0) + with_defaults(x, n=7)
            + with_defaults(x, negate=True, alpha=-1.0) + with_defaults(x, 0.0, 1, True))


@unpython.type('ndarray[float64, 1]', 'float64', 'ndarray[float64, 1]')
def array_then_default(a, factor=2.0):
    out = np.empty_like(a)
    for i in range(a.shape[0]):
        out[i] = a[i] * factor
    return out


# --- raise, assert, string statements, imports in the function ----------------------------------

@unpython.type('ndarray[float64, 1]', 'int64', 'float64')
def raises_and_asserts(a, n):
    "omp parallel for (a string as a comment, as Pythran's OpenMP annotations)"
    import numpy as np
    from math import sqrt
    if n < 0:
        raise ValueError("n must be \"non-negative\"\nnot {}")
    assert n <= a.shape[0], "n is past the end"
    assert a.shape[0] < 100
    "another string statement"
    if n == 7:
        raise TypeError
    if n == 8:
        raise RuntimeError("eight")
    out = np.zeros(a.shape[0])
    np.copyto(out, a * 2)
    return sqrt(np.sum(out[:n]) + 1.0)


@unpython.gpu
@unpython.type('ndarray[float64, 1]', 'ndarray[float64, 1]', None)
def raises_in_a_prange(a, b):
    for i in prange(a.shape[0]):
        if a[i] < 0:
            raise ValueError("negative")
        b[i] = a[i] * 2


@unpython.type('int64', 'ndarray[float64, 1]', 'float64')
def list_comprehension_sums(n, a):
    """sum(), min() and max() of a list comprehension: as of the generator expression."""
    return (sum([i * i for i in range(n) if i % 3 != 0]) + max([x * 2.0 for x in a])
            - min([a[i] for i in range(a.shape[0]) if i > 0]))


@unpython.type('ndarray[float64, 2]', 'ndarray[float64, 2]', 'ndarray[float64, 2]')
def tuple_as_an_index(x, weights):
    """`x[idx]` of a tuple of integers, as `x[idx[0], idx[1]]` (Pythran's deuxd_convolution)."""
    result = np.zeros((x.shape[0] - 2, x.shape[1] - 2))
    for i in range(result.shape[0]):
        for j in range(result.shape[1]):
            for ii in range(3):
                for jj in range(3):
                    idx = (i + ii, j + jj)
                    result[i, j] += x[idx] * weights[ii, jj]
            result[(i, j)] *= 0.5
    return result


@unpython.type('ndarray[float64, 2]', 'float64')
def unpack_rows_of_differences(cpos):
    """`dx, dy = cpos[i] - cpos[i - 1]`: an array unpacked along its first dimension, its
    length checked as Python's (ValueError: too many / not enough values to unpack)."""
    total = 0.0
    for i in range(1, cpos.shape[0]):
        dx, dy = cpos[i] - cpos[i - 1]
        total += (dx * dx + dy * dy) ** 0.5
    return total


@unpython.gpu
@unpython.type('ndarray[float64, 2]', 'ndarray[float64, 1]', None)
def unpack_in_a_prange(p, out):
    for i in prange(p.shape[0]):
        x, y, z = p[i]
        out[i] = x * x + y * y - z


@unpython.type('ndarray[float64, 2]', 'ndarray[float64, 1]')
def unpack_a_matrix(m):
    a, b = m
    q, r = divmod(7, 3)
    return a + b * q + r


@unpython.type('ndarray[float64, 2]', 'float64', 'ndarray[float64, 2]')
def store_tuples(pos, x):
    """A tuple of scalars stored into a slice, as the 1-D array NumPy makes of it: written out,
    chained (`force[0] = force[-1] = 0, 0`), with a float and an int."""
    force = pos.copy()
    force[0] = force[-1] = 0, 0
    for i in range(1, force.shape[0] - 1):
        force[i] = x * i, 1
    force[:, 1] = 7
    return force


@unpython.type('ndarray[float64, 1]', None)
def returns_none(a):
    """`return None` in a function of no result, as a bare `return`."""
    if a.shape[0] == 0:
        return None
    a[0] = 1.0
    return None


@unpython.type('ndarray[float64, 2]', 'int64', 'ndarray[float64, 1]')
def lists_as_indices(x, k):
    """A list in an index, as NumPy reads it: an index array of its values (rows, points, a
    boolean mask), also stored through and updated in place."""
    rows = x[[2, 0], 1:]
    points = x[[0, 1, 2], [2, 1, -1]]
    kept = x[0][[True, False, True, False]]
    y = x[0].copy()
    y[[0, k, -1]] = 7.5
    y[[1, 2]] += np.array([1.0, 2.0])
    swapped = x.copy()
    swapped[[0, k]] = swapped[[k, 0]]           # rows swapped in place (Pythran's lu)
    return np.concatenate((rows.ravel(), points, kept, y, swapped.ravel()))


@unpython.type('int64', 'ndarray[float64, 2]', 'ndarray[float64, 2]', 'ndarray[float64, 1]')
def comprehension_arrays(n, X, Y):
    """np.array() of list comprehensions, as users write them: over ranges (a negative step
    too), over an array's elements and rows, nested (Pythran's allpairs_distances), with a
    dtype, filtered; each item cast to the array's dtype."""
    halves = np.array([i * i * 0.5 for i in range(n)])
    odd = np.asarray([k % 2 == 1 for k in range(n + 3, -1, -2)])
    tripled = np.array([3 * i for i in range(1, n + 2, 2)])
    dists = np.array([[np.sum((x - y) ** 2) for x in X] for y in Y])
    rounded = np.array([v * 2.5 for v in X[0]], dtype=np.int32)
    kept = np.array([v - 0.5 for v in X[:, 0] if v > 0.3 if v < 0.9])
    return np.concatenate((halves, odd, tripled, dists.ravel(), rounded, kept))


@unpython.type('int64', 'int64', 'ndarray[float64, 2]', 'ndarray[float64, 1]')
def comprehension_counters(lo, hi, X):
    """The counters that place np.array([...])'s items store unchecked (in range by
    construction): ranges of either sign and step, empty ones, filters, rows of an array."""
    down = np.array([k * 0.5 for k in range(hi, lo, -3)])
    up = np.array([k for k in range(lo, hi) if k % 3 != 1], dtype=np.float64)
    grid = np.array([[x * k for x in X[:, 0]] for k in range(lo, hi, 2)])
    rows = np.array([np.sum(r) for r in X if r[0] > 0.5])
    return np.concatenate((down, up, grid.ravel(), rows))


@unpython.type('int64', 'ndarray[bool, 1]')
def comprehension_of_bools(n):
    return np.array([k > 2 for k in range(n)])


@unpython.type('ndarray[float64, 1]', 'float64', 'ndarray[float64, 1]')
def lambdas(a, c):
    """Lambdas bound to names and called (Pythran's slowparts): inlined where called, reading
    the function's other names when called, as Python's do; an argument the body reads twice
    is computed once."""
    fprime = lambda x: 1 - np.power(np.tanh(x), 2)
    scale = 2.0
    scaled = lambda x, k: x * scale + k
    both = lambda x: scaled(x, c) * x
    out = fprime(a) + scaled(a[::-1], 1.0)
    scale = 3.0                                 # read when called: 3.0 from here
    out += both(a * 0.5 + c)
    total = 0.0
    for i in range(a.shape[0]):
        total += scaled(a[i], i)
    return out + total


@unpython.type('ndarray[float64, 1]', 'ndarray[float32, 1]', 'int64', 'float64')
def printing(a, b, n):
    """print() as Python's: the values as the interpreter holds them (a Python float, a NumPy
    float32, a bool, a complex, an array), text, sep=, end=, flush=, nothing at all."""
    total = 0.0
    for i in range(n):
        total += a[i]
        print("step", i, total, b[i], a[i] > 0.5, sep=", ", end=";\n")
    print(a[:3] * 2, b.sum(), np.float32(1.5), 1 + 2j, n // 2, True)
    print()
    print("done", flush=True)
    return total


# --- lists: out = [], out.append(v) -------------------------------------------------------------

@unpython.type('ndarray[float64, 1]', 'ndarray[int64, 1]')
def list_peaks(x):
    """The indices of the local maxima, collected in a list (a count not known before)."""
    out = []
    for i in range(1, x.shape[0] - 1):
        if x[i] > x[i - 1] and x[i] > x[i + 1]:
            out.append(i)
    return np.array(out)


@unpython.type('ndarray[float64, 1]', 'float64',
               'tuple[ndarray[float64, 1], ndarray[float32, 1]]')
def list_of_values_above(a, t):
    """The values above t (NumPy float64 items), as np.array and np.asarray with dtype=."""
    kept = []
    for v in a:
        if v > t:
            kept.append(v)
    return np.array(kept), np.asarray(kept, dtype=np.float32)


@unpython.type('ndarray[float64, 1]', 'float64')
def list_reads(a):
    """len, items read and stored (negative indices), `+=` of an item, for, enumerate, zip,
    sum/min/max/any/all, and an array statement reading items."""
    out = [0.5]
    for i in range(a.shape[0]):
        out.append(a[i] * 2.0)
    out[0] = out[-1] + len(out)
    out[-1] += 1.0
    total = 0.0
    for v in out:
        total += v
    for k, v in enumerate(out):
        total += k * v
    for v, w in zip(out, a):
        total += v * w
    scaled = a * out[1] + out[-2]
    return (total + sum(out) + min(out) * max(out) + any(out) + all(out)
            + out[len(out) // 2] + np.sum(scaled))


@unpython.type('int64', 'int64', 'tuple[float64, int64]')
def list_index(n, k):
    """out[k] read, then stored, as Python's: from the end where k < 0, IndexError past either
    end."""
    out = []
    for i in range(n):
        out.append(i * 1.5)
    got = out[k]
    out[k] = 2.0
    return got + out[k], len(out)


@unpython.type('int64', 'int64', 'float64')
def list_store(n, k):
    """out[k] stored first: Python's IndexError of a store past either end."""
    out = []
    for i in range(n):
        out.append(i * 0.5)
    out[k] = 2.0
    return out[k] + len(out)


@unpython.type('int64', 'int64', 'ndarray[float64, 1]')
def list_mixed_ints_and_floats(n, m):
    """Python ints and floats appended: np.array makes float64 of them."""
    out = [1]
    for i in range(n):
        if i % m == 0:
            out.append(i)
        else:
            out.append(i / m)
    return np.array(out)


@unpython.type('ndarray[float64, 1]', 'list[float64]')
def list_returned(a):
    """The list itself: each item as the interpreter holds it (a Python float here)."""
    out = [0.0]
    for v in a:
        out.append(v + 1.0)
    return out


@unpython.type('ndarray[float32, 1]', 'list[float32]')
def list_of_float32(b):
    """np.float32 values: a list of NumPy float32 items."""
    out = []
    for v in b:
        out.append(v * np.float32(0.5))
    return out


@unpython.type('ndarray[int8, 1]', 'tuple[int8, list[int8]]')
@unpython.type('ndarray[uint8, 1]', 'tuple[uint8, list[uint8]]')
@unpython.type('ndarray[int16, 1]', 'tuple[int16, list[int16]]')
@unpython.type('ndarray[uint16, 1]', 'tuple[uint16, list[uint16]]')
@unpython.type('ndarray[int32, 1]', 'tuple[int32, list[int32]]')
@unpython.type('ndarray[uint32, 1]', 'tuple[uint32, list[uint32]]')
@unpython.type('ndarray[uint64, 1]', 'tuple[uint64, list[uint64]]')
@unpython.type('ndarray[float32, 1]', 'tuple[float32, list[float32]]')
@unpython.type('ndarray[complex64, 1]', 'tuple[complex64, list[complex64]]')
def numpy_scalars_returned(a):
    """A NumPy scalar of each type that is not a Python one, returned alone and in a list (the
    glue makes them as NumPy's PyArray_Scalar does: unpy_python.cpp numpy_scalar)."""
    out = []
    for v in a:
        out.append(v)
    return a[-1], out


@unpython.type('int64', 'list[int64]')
def list_of_ints(n):
    out = []
    for i in range(n):
        out.append(i * i - 3)
    return out


@unpython.type('ndarray[float64, 1]', 'list[bool]')
def list_of_bools(a):
    out = [True]
    for v in a:
        out.append(v > 0.5)
    out[0] = len(out) > 3
    return out


@unpython.type('int64', 'ndarray[int64, 1]')
def list_rebound_as_array(n):
    """`out = np.array(out)`: the name is an array from there on."""
    out = []
    k = 0
    while len(out) < n:
        if len(out) > 1:
            k = out[-1] + out[-2]      # read before the value appended below
        else:
            k = 1
        out.append(k)
    out = np.array(out)
    return out + len(out)


@unpython.gpu
@unpython.type('ndarray[float64, 1]', 'int64', 'ndarray[float64, 1]')
def list_items_in_an_array_statement(a, n):
    """A list's items in array statements: read once, on the host, before the nest (which the
    GPU path may run)."""
    w = [0.5]
    for i in range(n):
        w.append(w[-1] * 2.0)
    return np.clip(a * w[-1] + len(w), w[0], w[-2] * 3.0)


# --- shape tuples compared, itertools.repeat loops, np.empty(shape=) (Pythran's cases) -------

@unpython.type('ndarray[float64, 2]', 'ndarray[float64, 2]', 'ndarray[float64, 1]', 'int64')
def shapes_compared(a, b, v):
    if a.shape != b.shape:
        return -1
    same = a.shape == (b.shape[0], v.shape[0])
    return int(same) + 10 * int(a.shape == v.shape) + 100 * int(v.shape != (3,))


@unpython.type('ndarray[float64, 1]', 'int64', 'ndarray[float64, 1]')
def repeated_steps(w, n):
    out = np.empty(shape=w.shape, dtype=w.dtype)
    out[:] = w
    for _ in itertools.repeat(None, n):
        out = out * 0.5 + 1.0
    for c in itertools.repeat(w.shape[0] * 0.5, 2):
        out = out + c
    return out


@unpython.type('int64', 'list[int64]')
def factors(n):
    # Pythran's factorize_naive: `return []`, a list returned from a loop
    if n < 2:
        return []
    found = []
    p = 2
    while True:
        if n == 1:
            return found
        if n % p == 0:
            found.append(p)
            n = n // p
        elif p * p >= n:
            found.append(n)
            return found
        else:
            p += 1 if p == 2 else 2


@unpython.type('ndarray[float64, 1]', 'int64', 'ndarray[float64, 1]')
def built_lists(a, n):
    # list comprehensions and list() bound to names (Pythran's fft, fannkuch, primes_sieve)
    squares = [x * x for x in a if x > 0.3]
    count = list(range(1, n + 1))
    pairs = [i * 10 + j for i in range(3) for j in range(i)]
    halves = list()
    for v in count:
        halves.append(v * 0.5)
    x = 7                      # the comprehension's variable is its own
    rows = [x + k for k in count]
    return np.array(squares) + len(count) + sum(pairs) + sum(halves) + sum(rows) + x


@unpython.type('ndarray[int64, 1]', 'int64', 'int64')
def loops_with_else(a, n):
    # for/while ... else: the else where the loop ended without a break of its own
    found = -1
    for i in range(a.shape[0]):
        if a[i] == n:
            found = i
            break
    else:
        found = -2
    primes = 0
    for k in range(2, n):
        for d in range(2, k):
            if k % d == 0:
                break
        else:
            primes += 1
    w = 0
    while w < n:
        w += 3
        if w == 9:
            break
    else:
        w = -w
    return found * 10000 + primes * 100 + w


@unpython.type('int64', 'float64', 'float64')
def repeated_lists(n, x):
    # [v] * n (Pythran's primes_sieve: a = [True] * limit), n * [a, b]
    sieve = [True] * n
    pairs = 2 * [1.0, x]
    count = 0
    for i in range(2, n):
        if sieve[i]:
            count += 1
            for m in range(i * i, n, i):
                sieve[m] = False
    return count + sum(pairs) + len(sieve)


@unpython.type('ndarray[complex128, 1]', 'ndarray[complex128, 1]')
def recursive_fft(x):
    # Pythran's fft as written: lists of complex values joined with + (np.array(l + r))
    n = x.shape[0]
    if n == 1:
        return np.array(x)
    e = recursive_fft(x[::2])
    o = recursive_fft(x[1::2])
    m = n // 2
    left = [e[k] + o[k] * math.e ** (-2j * math.pi * k / n) for k in range(m)]
    right = [e[k] - o[k] * math.e ** (-2j * math.pi * k / n) for k in range(m)]
    return np.array(left + right)


@unpython.type('int64', 'ndarray[float64, 1]')
def joined_lists(n):
    out = [1.0]
    for i in range(n):
        out = out + [out[-1] * 2.0]        # the list read before it is bound anew
    both = out + [0.5] + out
    return np.array(both)


@unpython.type('int64', 'ndarray[int64, 1]')
def popped_and_inserted(n):
    # list.pop() / pop(i) / insert(i, v) as Python's (fannkuch's perm1.insert(r, perm1.pop(0)))
    perm = list(range(n))
    for r in range(1, n):
        perm.insert(r, perm.pop(0))
    last = perm.pop() if n > 0 else -1
    perm.insert(-100, last)
    perm.insert(100, 7)
    perm.pop(-2)
    if n > 3:
        perm.pop(n + 5)            # IndexError: pop index out of range
    return np.array(perm)


@unpython.type('int64', 'int64', 'ndarray[int64, 1]')
def list_slices(n, k):
    # slices of lists read (a new list) and assigned (replaced, growing or shrinking; an
    # extended slice item by item), as fannkuch's perm[:k + 1] = perm[k::-1]
    a = list(range(n))
    b = a[:]
    c = a[1:k]
    d = a[::-1]
    e = a[-3:]
    b[:k] = a[k::-1]
    d[1:2] = [7, 8, 9]
    e[::2] = e[::-2]
    tail = a[k:]
    head = a[:2]
    return np.array(b + c + d + e) + len(tail) + sum(head) + np.array(a[1:3]).size


@unpython.type('int64', 'list[int64]')
def list_slice_returned(n):
    out = [k * k for k in range(n)]
    return out[1::2]


@unpython.type('int64', 'int64')
def extended_slice_mismatch(n):
    a = list(range(n))
    a[::2] = [1, 2]        # ValueError where a[::2] has not 2 items, as Python
    return sum(a)


@unpython.type('int64', 'ndarray[float64, 1]', 'float64')
def product_loops(n, a):
    # for i, j in itertools.product(...): nested loops, the iterables' bounds read first
    total = 0.0
    for i, j in itertools.product(range(n), range(1, n, 2)):
        if i == j:
            continue
        total += i * 10 + j
    for i, x, k in itertools.product(range(2), a, range(n)):
        total += x * k + i
        n = 0                  # the product's range(n) was made before
    return total


# --- list parameters: the caller's list, its changes given back ---------------------------------

@unpython.type('list[float64]', None)
def insertion_sort(a):
    # Pythran's insertion_sort as written: the caller's list sorted in place
    for i in range(1, len(a)):
        key = a[i]
        j = i - 1
        while j >= 0 and a[j] > key:
            a[j + 1] = a[j]
            j -= 1
        a[j + 1] = key


@unpython.type('list[int64]', 'int64', 'int64', None)
def quicksort(a, lo, hi):
    # recursive, the list passed on to itself
    if lo < hi:
        pivot = a[hi]
        i = lo
        for j in range(lo, hi):
            if a[j] <= pivot:
                a[i], a[j] = a[j], a[i]
                i += 1
        a[i], a[hi] = a[hi], a[i]
        quicksort(a, lo, i - 1)
        quicksort(a, i + 1, hi)


@unpython.type('complex128', 'list[complex128]', 'list[complex128]', None)
def caxpy(ca, cx, cy):
    # the BLAS port as Pythran's tests write it: cy += ca * cx, item by item
    for i in range(min(len(cx), len(cy))):
        cy[i] = cy[i] + ca * cx[i]


@unpython.type('list[float64]', 'list[float64]', 'float64', 'list[float64]')
def black_scholes_lists(prices, strikes, rate):
    # lists read (also by value in a loop and through np.array), a new list returned
    out = []
    for i, p in enumerate(prices):
        out.append(max(p - strikes[i] * math.exp(-rate), 0.0))
    mean = 0.0
    if len(prices) > 0:
        mean = np.array(prices).mean()
    out.append(mean + sum(strikes))
    return out


@unpython.type('list[int64]', 'int64', 'int64')
def grown_and_shrunk(a, n):
    # appends, pops and inserts are the caller's; a list bound anew at the top level is not
    for k in range(n):
        a.append(k * k)
    if len(a) > 1:
        a.pop(0)
    a.insert(1, -5)
    total = sum(a)
    a = [v for v in a if v > 0]
    a.append(100)
    return total + len(a)


@unpython.type('list[float64]', 'int64', None)
def changed_then_raises(a, k):
    # the changes made before an IndexError stay the caller's, as the interpreter's
    a[0] = -1.0
    a.append(2.5)
    a[k] = 7.0


@unpython.type('list[float64]', None)
def sort_twice(a):
    # a list of this function and a parameter passed to a compiled function as themselves
    insertion_sort(a)
    b = [3.0, 1.0, 2.0]
    insertion_sort(b)
    a.append(b[0] + b[2])


@unpython.type('list[bool]', 'int64')
def count_true(flags):
    # read only: a tuple is taken too
    n = 0
    for f in flags:
        n += f
    return n


@unpython.gpu
@unpython.type('list[float64]', 'ndarray[float64, 1]', 'ndarray[float64, 1]')
def weighted_by_a_list(w, x):
    # a list parameter's items read on the host; the nest may run on the device
    out = np.empty_like(x)
    w0, w1 = w[0], w[-1]
    for i in prange(x.shape[0]):
        out[i] = w0 * x[i] + w1
    w.append(float(out[0]) if x.shape[0] > 0 else 0.0)
    return out


# --- lists of lists -----------------------------------------------------------------------------

@unpython.type('int64', 'int64', 'list[list[int64]]')
def zero_matrix(n, m):
    # Pythran's zero as written
    return [[0 for row in range(n)] for col in range(m)]


@unpython.type('list[list[float64]]', 'list[list[float64]]', 'list[list[float64]]')
def list_matmul(m0, m1):
    # Pythran's matmul as written (the inner list a repeated one)
    new_matrix = [[0.0] * len(m1[0]) for _ in range(len(m0))]
    for i in range(len(m0)):
        for j in range(len(m1[0])):
            r = 0.0
            for k in range(len(m1)):
                r += m0[i][k] * m1[k][j]
            new_matrix[i][j] = r
    return new_matrix


@unpython.type('list[list[float64]]', None)
def laplace_update(u):
    nx, ny = len(u), len(u[0])
    for i in range(1, nx - 1):
        for j in range(1, ny - 1):
            u[i][j] = (u[i + 1][j] + u[i - 1][j] + u[i][j + 1] + u[i][j - 1]) * 0.25


@unpython.type('int64', 'int64', 'list[list[float64]]')
def laplace(n, steps):
    # a list of lists passed on to a compiled function that changes it; a row replaced
    u = [[0.0] * n for _ in range(n)]
    if n > 0:
        u[0] = [1.0] * n
    for _ in range(steps):
        laplace_update(u)
    return u


@unpython.type('float64', 'list[list[float64]]', 'float64')
def weighted_rows(step, t):
    # rows read through a loop variable (hyantes_core): copies, as nothing changes them
    s = 0.0
    for k in t:
        s += k[0] * step + k[-1] + len(k)
    for i in range(len(t)):
        if len(t[i]) > 0:
            s += sum(t[i]) + max(t[i])
    return s


@unpython.type('int64', 'list[list[int64]]')
def ragged_rows(n):
    # rows built and appended; an item's own list changed; a row literal; pop and insert
    out = []
    for i in range(n):
        row = []
        for j in range(i):
            row.append(i * j)
        out.append(row)
    out.append([1, 2])
    out[0].append(7)
    out[-1][0] = -out[-1][1]
    out.insert(1, [n] * 2)
    if len(out) > 3:
        last = out.pop()
        out[2].append(sum(last))
    return out


@unpython.type('list[list[float64]]', 'list[float64]', 'tuple[list[list[float64]], list[float64]]')
def pivot_lists(a, b):
    # Pythran's pivot: the lists changed and returned as the caller's own
    i0 = 0
    amp0 = abs(a[0][0])
    for j in range(1, len(b)):
        if abs(a[0][j]) > amp0:
            i0 = j
            amp0 = abs(a[0][j])
    b[0], b[i0] = b[i0], b[0]
    for j in range(len(a)):
        a[j][0], a[j][i0] = a[j][i0], a[j][0]
    return a, b


@unpython.type('list[float64]', 'list[float64]', None)
def shift_into(src, dst):
    # one Python list given for both: one list, as in the interpreter
    for i in range(len(dst) - 1):
        dst[i + 1] = src[i]


@unpython.type('list[float64]', 'float64', 'list[float64]')
def scaled_in_place(a, f):
    for i in range(len(a)):
        a[i] *= f
    return a


# --- a bare return in a function that returns a value: None, as Python's -------------------------

@unpython.type('int64', 'complex128', 'list[complex128]', 'list[complex128]', 'list[complex128]')
def caxpy_early(n, ca, cx, cy):
    # the BLAS ports' `if N <= 0: return` (Pythran's caxpy)
    if n <= 0:
        return
    if abs(ca) == 0.0:
        return None
    for i in range(n):
        cy[i] = cy[i] + ca * cx[i]
    return cy


@unpython.type('int64', 'float64')
def half_or_none(n):
    if n < 0:
        return
    if n > 100:
        pass                # falls off the end: None
    else:
        return n / 2.0


@unpython.type('int64', 'float64')
def uses_half(n):
    half_or_none(n)             # a statement: its None is fine
    if not half_or_none(n):     # a test: None is false
        return -1.0
    return half_or_none(n) + 1.0      # TypeError where it is None, as Python's


@unpython.type('list[list[int64]]', 'int64', 'int64', 'bool')
def any_row(cc, x, y):
    for a in cc:
        if a:
            return True
        return False


@unpython.type('list[list[int64]]', 'list[tuple[int64, int64]]')
def pairs_where(cc):
    # Pythran's comp_unrolling: a call that returns None (cc empty) as a condition
    return [(x, y) for x in range(1) for y in range(2) if any_row(cc, x, y)]


@unpython.type('list[list[float64]]', 'ndarray[float64, 2]')
def rows_as_array(m):
    return np.array(m) * 2.0


@unpython.type('int64', 'ndarray[float32, 3]')
def built_cube(n):
    out = []
    for i in range(n):
        plane = []
        for j in range(2):
            plane.append([i * 1.0, j * 0.5, i - j])
        out.append(plane)
    return np.array(out, dtype=np.float32)


@unpython.type('list[list[float64]]', 'list[list[float64]]')
def pairwise_lists(x):
    # Pythran's pairwise: rows of ints made, floats stored later (the rows converted)
    m = len(x)
    d = [[0 for _ in range(m)] for _ in range(m)]
    for i in range(m):
        for j in range(m):
            s = 0
            for k in range(len(x[0])):
                s += (x[i][k] - x[j][k]) ** 2
            d[i][j] = math.sqrt(s)
    return d


@unpython.type('int64', 'list[float64]')
def ints_returned_as_floats(n):
    return [k * k for k in range(n)]


@unpython.type('list[list[int64]]', 'list[int64]', 'int64')
@unpython.type('list[list[float64]]', 'list[float64]', 'float64')
@unpython.type('list[list[complex128]]', 'list[complex128]', 'complex128')
def signatures_of_lists(a, b):
    # the signature chosen by the lists' items, as for scalars
    s = b[0] if len(b) > 0 else 0
    for row in a:
        for v in row:
            s = s + v.conjugate()
    return s


@unpython.type('float64', 'float64', 'int64', 'float64')
def nested_defs(xmin, xmax, n):
    # Pythran's monte_carlo: a function defined inside, of one `return expression`
    def f(x):
        """the integrand"""
        return math.sin(x) * scale

    def g(x, y):
        return f(x) + y

    scale = 2.0                 # read when f is called, as Python's closure reads it
    total = 0.0
    for i in range(n):
        x = xmin + (xmax - xmin) * i / max(n, 1)
        total += g(x, f(x))
    return total


# --- lists of tuples ----------------------------------------------------------------------------

@unpython.type('list[tuple[float64, float64]]', 'list[tuple[float64, float64]]',
               'list[list[float64]]')
def arc_distances(a, b):
    # Pythran's arc_distance_list as written: tuples unpacked by the loops, a comprehension
    # looped over
    distance_matrix = []
    for theta_1, phi_1 in a:
        temp_matrix = [2 * (math.atan2(math.sqrt(temp), math.sqrt(1 - temp))) for temp in [
            math.sin((theta_2 - theta_1) / 2) ** 2 + math.cos(theta_1) * math.cos(theta_2) *
            math.sin((phi_2 - phi_1) / 2) ** 2 for theta_2, phi_2 in b]]
        distance_matrix.append(temp_matrix)
    return distance_matrix


@unpython.type('int64', 'list[tuple[int64, float64]]')
def index_value_pairs(n):
    # tuples appended, read by item, unpacked, replaced, in a conditional expression
    out = []
    for i in range(n):
        out.append((i, i * 0.5))
    out.append((7, 1.5))
    s = out[0][1] + out[-1][0] + len(out[0])
    x, y = out[1] if n > 0 else (0, 0.0)
    out[0] = (int(s) + x, y)
    return out


@unpython.type('list[tuple[int64, int64]]', 'int64', 'list[tuple[int64, int64]]')
def edges_kept(edges, limit):
    kept = [(a, b) for a, b in edges if a + b < limit]
    edges.append((limit, -limit))
    return kept


@unpython.type('list[list[int64]]', 'int64')
def lists_as_conditions(cc):
    # a list is true where it has items (Pythran's comp_unrolling; `while stack:`)
    found = 0
    for a in cc:
        if a:
            found += 1
        if not a:
            found -= 10
    stack = [1, 2, 3]
    while stack:
        found += stack.pop()
    return found if cc else -1


@unpython.type('list[float64]', 'list[float64]', 'list[float64]')
def smoothed(u, um):
    # reads its lists only: a new list
    return [0.5 * (u[i] + um[i]) for i in range(len(u))]


@unpython.type('float64', 'list[float64]', 'list[float64]', 'list[float64]')
def rotating_lists(steps, u, um):
    # Pythran's calculate_u: lists rotated by names, the parameters bound again in the loop
    # (by value: the function changes neither, nor does the callee)
    t = 0.0
    while t < steps:
        t += 1.0
        new_u = smoothed(u, um)
        um = u
        u = new_u
    alias = u
    return [v + alias[0] for v in u]


@unpython.type('ndarray[float64, 2]', 'ndarray[float64, 2]')
def correlation_triangles(data):
    # npbench's correlation as its Numba version writes it: each iteration the column below
    # and the row beside the diagonal (slices starting at i + 1: no two iterations meet)
    m = data.shape[1]
    corr = np.eye(m)
    for i in prange(m - 1):
        corr[i + 1:m, i] = corr[i, i + 1:m] = data[:, i] @ data[:, i + 1:m]
    return corr
