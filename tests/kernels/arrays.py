"""Array kernels (SPEC section 3): element reads and writes through live strides, `a[i][j]`,
shape, len, ndim, size, negative indices, local arrays, returning arrays, array arguments of
calls between compiled functions. Reference: the interpreter
(tests/differential/test_arrays.py), for arrays in every layout."""
import math

import numpy as np
from numpy import shape

import unpython


@unpython.type('ndarray[float64, 1]', 'float64')
def sum1(a):
    s = 0.0
    for i in range(a.shape[0]):
        s += a[i]
    return s


@unpython.type('ndarray[float64, 2]', 'float64')
def sum2(a):
    s = 0.0
    m, n = a.shape
    for i in range(m):
        for j in range(n):
            s += a[i, j] * (i + 1) - j
    return s


@unpython.type('ndarray[float64, 3]', 'float64')
def sum3(a):
    s = 0.0
    for i in range(a.shape[0]):
        for j in range(a.shape[1]):
            for k in range(a.shape[2]):
                s += a[i, j, k] * (i * 100 + j * 10 + k + 1)
    return s


@unpython.type('ndarray[int32, 2]', 'int64')
def sum2_i32(a):
    s = np.int64(0)     # an int64 accumulator; with `s = 0` the sum would be int32, as in NumPy
    for i in range(a.shape[0]):
        for j in range(a.shape[1]):
            s += a[i, j]
    return s


@unpython.type('ndarray[uint8, 1]', 'int64')
def sum1_u8(a):
    s = np.int64(0)
    for i in range(len(a)):
        s += a[i]
    return s


@unpython.type('ndarray[bool, 1]', 'int64')
def count_true(a):
    count = 0
    for i in range(len(a)):
        if a[i]:
            count += 1
    return count


@unpython.type('ndarray[bool, 2]', 'tuple[int64, int64, int64]')
def mask_counts(m):
    """A mask's elements counted, added up as integers and summed by NumPy (C++ reads each as
    its byte, unpy::bool_value: a byte other than 0 and 1 is True, as NumPy's)."""
    n = 0
    t = 0
    for i in range(m.shape[0]):
        for j in range(m.shape[1]):
            if m[i, j]:
                n += 1
            t += m[i, j] * (j + 1)
    return n, t, np.sum(m)


@unpython.type('ndarray[float32, 2]', 'float32')
def sum2_f32(a):
    s = np.float32(0.0)
    for i in range(a.shape[0]):
        for j in range(a.shape[1]):
            s += a[i, j]
    return s


@unpython.type('ndarray[float64, 2]', 'ndarray[float64, 2]', None)
def copy2(a, b):
    for i in range(a.shape[0]):
        for j in range(a.shape[1]):
            b[i, j] = a[i, j] * 2.0 + 1.0


@unpython.type('ndarray[int64, 3]', 'int64', None)
def add3_inplace(a, x):
    for i in range(a.shape[0]):
        for j in range(a.shape[1]):
            for k in range(a.shape[2]):
                a[i, j, k] += x * (i - j + k)


@unpython.type('ndarray[float32, 1]', 'float32', None)
def scale1_f32(a, x):
    for i in range(a.shape[0]):
        a[i] *= x
        a[i] = a[i] + 0.5


@unpython.type('ndarray[float64, 2]', 'float64')
def chained_index(a):
    s = 0.0
    for i in range(a.shape[0]):
        for j in range(a.shape[1]):
            s += a[i][j] * (j + 1)
    return s


@unpython.type('ndarray[float64, 2]', 'float64')
def tuple_index(a):
    s = 0.0
    for i in range(a.shape[0]):
        for j in range(a.shape[1]):
            s += a[i, j] * (j + 1)
    return s


@unpython.type('ndarray[float64, 2]', None)
def chained_index_write(a):
    for i in range(a.shape[0]):
        for j in range(a.shape[1]):
            a[i][j] = i * 10.0 + j


@unpython.type('ndarray[float64, 3]', 'int64')
def shape_facts(a):
    p, q, r = a.shape
    return (p * 1000000 + q * 10000 + r * 100 + len(a) * 10 + a.ndim + a.size * 100000000
            + shape(a)[2] * 7 + a.shape[-1] * 3 + shape(a)[-3])


@unpython.type('ndarray[int32, 1]', 'int64', 'int32')
def get1(a, i):
    return a[i]


@unpython.type('ndarray[float64, 2]', 'int64', 'int64', 'float64')
def get2(a, i, j):
    return a[i, j]


@unpython.type('ndarray[float64, 2]', 'int64', 'int64', 'float64', None)
def set2(a, i, j, value):
    a[i, j] = value


@unpython.type('ndarray[float64, 1]', 'float64')
def negative_literal_indices(a):
    return a[-1] * 100.0 + a[-2] * 10.0 + a[0]


@unpython.type('ndarray[int64, 1]', None)
def reverse_by_negative_index(a):
    n = a.shape[0]
    for i in range(n // 2):
        t = a[i]
        a[i] = a[-1 - i]
        a[-1 - i] = t


@unpython.type('ndarray[float64, 2]', 'float64')
def negative_computed_indices(a):
    s = 0.0
    m, n = a.shape
    for i in range(m):
        for j in range(n):
            s += a[i - m, j - n] * (i + 2 * j + 1)
    return s


@unpython.type('int64', 'int64', 'ndarray[int32, 2]')
def make_zeros(m, n):
    a = np.zeros((m, n), np.int32)
    for i in range(m):
        a[i, i % n] = i + 1
    return a


@unpython.type('int64', 'ndarray[float64, 1]')
def make_ones(n):
    return np.ones(n)


@unpython.type('int64', 'ndarray[float32, 2]')
def make_empty_filled(n):
    a = np.empty((n, 2), dtype='float32')
    for i in range(n):
        a[i, 0] = i * 0.5
        a[i, 1] = -1.0
    return a


@unpython.type('int64', 'int64', 'int64', 'ndarray[uint8, 3]')
def make_ones_3d(p, q, r):
    return np.ones((p, q, r), dtype=np.uint8)


@unpython.type('ndarray[float64, 1]', 'ndarray[float64, 1]')
def cumsum(a):
    out = np.empty(a.shape[0], np.float64)
    s = 0.0
    for i in range(a.shape[0]):
        s += a[i]
        out[i] = s
    return out


@unpython.type('ndarray[float64, 2]', 'ndarray[float64, 2]')
def identity(a):
    return a


@unpython.type('ndarray[float64, 2]', 'ndarray[float64, 2]', 'bool', 'ndarray[float64, 2]')
def choose(a, b, first):
    return a if first else b


@unpython.type('ndarray[float64, 2]', 'ndarray[float64, 2]')
def transpose_copy(a):
    m, n = a.shape
    out = np.zeros((n, m), np.float64)
    for i in range(m):
        for j in range(n):
            out[j, i] = a[i, j]
    return out


@unpython.type('ndarray[int64, 1]', 'float64', None)
def store_float_into_int(a, x):
    # NumPy converts the stored value to the array's dtype (truncation toward zero).
    for i in range(a.shape[0]):
        a[i] = x * i


@unpython.type('ndarray[int8, 1]', 'int64', None)
def store_wrapping(a, x):
    for i in range(a.shape[0]):
        a[i] = np.int8(x + i)


# --- calls with arrays --------------------------------------------------------------------------

@unpython.type('ndarray[float64, 2]', 'int64', 'float64', None)
def fill_row(a, i, value):
    for j in range(a.shape[1]):
        a[i, j] = value + j


@unpython.type('ndarray[float64, 2]', None)
def fill_all_rows(a):
    for i in range(a.shape[0]):
        fill_row(a, i, i * 10.0)


@unpython.type('ndarray[float64, 1]', 'float64')
def sum_of_cumsum(a):
    c = cumsum(a)
    return sum1(c)


@unpython.type('int64', 'int64')
def local_array_round_trip(n):
    a = make_zeros(n, 3)
    s = np.int64(0)
    for i in range(n):
        for j in range(3):
            s += a[i, j] * (j + 1)
    return s


@unpython.type('ndarray[float64, 1]', 'ndarray[float64, 1]', 'float64')
def dot_by_call(a, b):
    s = 0.0
    for i in range(a.shape[0]):
        s += a[i] * b[i]
    return s + sum1(a) * 0.0


@unpython.type('ndarray[float64, 1]', 'float64')
def read_only_sum(a):
    return sum1(a)


@unpython.type('ndarray[int32, 1]', 'int64')
def sum1_i32_python_int(a):
    # `s` holds a Python int, so `s + a[i]` is int32 in NumPy 2: it wraps at 32 bits there too.
    s = 0
    for i in range(a.shape[0]):
        s += a[i]
    return s


@unpython.type('ndarray[float32, 1]', 'float64')
def sum1_f32_python_float(a):
    # `s` holds a Python float until `s += a[i]` makes it an np.float32 (NEP 50): the
    # interpreter sums in float32, and so does the compiled code.
    s = 0.0
    for i in range(a.shape[0]):
        s += a[i]
    return s


@unpython.type('ndarray[float32, 1]', 'ndarray[float64, 1]', 'float64')
def python_float_then_float64(a, b):
    # float32 then float64 values: the interpreter's `t` ends as float64, the compiled one is
    # float64 throughout (adding a float32 to a float64 zero first is exact either way).
    t = 0.0
    for i in range(a.shape[0]):
        t += a[i]
        t += b[i]
    return t


@unpython.type('ndarray[float32, 1]', 'ndarray[float64, 1]', None)
def python_float_local_stays_weak(a, out):
    # `c` only ever holds Python floats, weak in NEP 50: `a[i] + c` is float32 (tests/fuzz
    # finding 3).
    for i in unpython.prange(out.shape[0]):
        c = 3.0
        c = c * 0.5
        out[i] = math.cos((5 + a[i]) + c)


@unpython.type('ndarray[float64, 2]', None)
def write_through_alias(a):
    b = a
    b[0, 0] = -1.0


@unpython.type('ndarray[float64, 2]', 'ndarray[float64, 2]', 'bool', None)
def write_through_chosen_alias(a, c, first):
    b = a if first else c
    d = b
    d[0, 0] = -2.0


@unpython.type('ndarray[float64, 2]', None)
def write_through_returned_alias(a):
    b = identity(a)
    b[0, 0] = -3.0


@unpython.type('ndarray[float64, 2]', None)
def write_through_view(a):
    b = a[1:, ::-1]
    b[0, 0] = -4.0


@unpython.type('ndarray[float64, 2]', 'ndarray[float64, 1]')
def last_column(x):
    return x[:, -1]


@unpython.type('ndarray[float64, 2]', None)
def write_through_returned_view(a):
    b = last_column(a)
    b[0] = -5.0


@unpython.type('ndarray[float64, 2]', 'tuple[float64, ndarray[float64, 2]]')
def total_and_self(x):
    return x.sum(), x


@unpython.type('ndarray[float64, 2]', None)
def write_through_returned_tuple(a):
    total, b = total_and_self(a)
    b[0, 0] = total


@unpython.type('ndarray[float64, 2]', 'ndarray[float64, 2]')
def absolute_plus_one(x):
    return np.abs(x) + 1.0


@unpython.type('ndarray[float64, 2]', 'float64')
def write_a_new_result(a):
    b = absolute_plus_one(a)
    b[0, 0] = 0.0
    return b.sum()


@unpython.type('ndarray[float64, 2]', 'float64')
def local_copy_of_shape_is_not_an_alias(a):
    b = np.zeros((a.shape[0], a.shape[1]), np.float64)
    for i in range(a.shape[0]):
        for j in range(a.shape[1]):
            b[i, j] = a[i, j]
    return sum2(b)


# Function names that are also names in C++ and in unpy's runtime.

@unpython.type('ndarray[float64, 1]', 'float64')
def mean(a):
    return sum1(a) / a.shape[0]


@unpython.type('ndarray[float64, 1]', 'float64')
def std(a):
    m = mean(a)
    s = 0.0
    for i in range(a.shape[0]):
        s += (a[i] - m) ** 2
    return np.sqrt(s / a.shape[0])


@unpython.type('int64', 'int64', 'int64')
def floordiv(a, b):
    return a // b + allocate(b)


@unpython.type('int64', 'int64')
def allocate(n):
    a = np.zeros(n, np.int64)
    return len(a)


@unpython.type('int64', 'int64', 'tuple[ndarray[float64, 1], ndarray[int32, 2], ndarray[float32, 1]]')
def made_filled(n, k):
    """np.zeros, np.full and np.ones of any size (from 4 MiB the team fills them; np.zeros a
    block kept from an earlier call zeroed, else calloc's: unpy_runtime.hpp allocate)."""
    z = np.zeros(n)
    z[k] += 1.0
    return z, np.full((n, 3), 7, np.int32), np.ones(n, np.float32)


@unpython.type('ndarray[float64, 2]', 'int64', ('ndarray[float64, 1]', 'ndarray[float64, 1]'))
def row_of_maybe_empty(a, i):
    """A row by an integer index, read as a value: IndexError out of range, also where the
    row has no element (a of shape (0, 0): NumPy checks the index, not the elements)."""
    return a[i] * 2, a[-1 - i] + a[i]


@unpython.type('int64', 'int64', 'ndarray[float64, 2]')
def arrays_made_again(n, steps):
    """A new array at every step into the same local: its block is taken again only where
    nothing else holds it (unpy::allocate_again): an alias, a view or a shape change gets a new
    one, and np.zeros/np.ones fill the block taken again."""
    out = np.zeros((steps, 4 * n))
    kept = np.ones(n)
    view = kept[1:]
    for t in range(steps):
        x = np.zeros(n)
        x[t % n] += t + 1.0
        y = np.ones(n)
        y[0] = -t
        if t % 3 == 1:
            kept = y            # y's block is kept's now: the next y takes a new one
        view = x[1:]            # holds x's block while the next x is made
        z = np.empty(t % 2 + n)
        z[:] = t
        out[t, :n] = x + kept
        out[t, n:2 * n] = y
        out[t, 2 * n:3 * n - 1] = view
        out[t, 3 * n:3 * n + z.shape[0] - 1] = z[1:]
    out[0, :n - 1] += view
    return out
