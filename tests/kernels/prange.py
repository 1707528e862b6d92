"""Parallel loops (SPEC section 3): prange with reductions, private temporaries, collapsed and
triangular nests, steps, errors raised inside a parallel region. Reference: the interpreter,
where prange is range (tests/differential/test_prange.py)."""
import math

import numpy as np
import unpython
from unpython import prange


@unpython.type('ndarray[float64, 1]', 'float64')
def sum_plus_equals(a):
    s = 0.0
    for i in prange(a.shape[0]):
        s += a[i]
    return s


@unpython.type('ndarray[float64, 1]', 'float64')
def sum_minus_equals(a):
    s = 100.0
    for i in prange(a.shape[0]):
        s -= a[i]
    return s


@unpython.type('ndarray[float64, 1]', 'float64')
def product_times_equals(a):
    p = 1.0
    for i in prange(a.shape[0]):
        p *= a[i]
    return p


@unpython.type('ndarray[float64, 1]', 'float64')
def sum_x_equals_x_plus(a):
    s = 0.0
    for i in prange(a.shape[0]):
        s = s + a[i] * 2.0
    return s


@unpython.type('ndarray[float64, 1]', 'float64')
def sum_x_equals_e_plus_x(a):
    s = 0.0
    for i in prange(a.shape[0]):
        s = a[i] + s
    return s


@unpython.type('ndarray[int64, 1]', 'int64')
def int_sum(a):
    s = 0
    for i in prange(a.shape[0]):
        s += a[i] * (i + 1)
    return s


@unpython.type('ndarray[int64, 1]', 'int64')
def int_product_wraps(a):
    p = np.int64(1)
    for i in prange(a.shape[0]):
        p *= a[i]
    return p


@unpython.type('ndarray[float64, 1]', 'float64')
def minimum(a):
    m = np.inf
    for i in prange(a.shape[0]):
        m = min(m, a[i])
    return m


@unpython.type('ndarray[float64, 1]', 'float64')
def maximum(a):
    m = -np.inf
    for i in prange(a.shape[0]):
        m = max(a[i], m)
    return m


@unpython.type('ndarray[int32, 1]', 'int32')
def int_min(a):
    m = np.int32(2147483647)
    for i in prange(a.shape[0]):
        m = min(m, a[i])
    return m


@unpython.type('ndarray[int64, 1]', 'int64')
def bit_or(a):
    x = 0
    for i in prange(a.shape[0]):
        x |= a[i]
    return x


@unpython.type('ndarray[int64, 1]', 'int64')
def bit_and(a):
    x = -1
    for i in prange(a.shape[0]):
        x &= a[i]
    return x


@unpython.type('ndarray[int64, 1]', 'int64')
def bit_xor(a):
    x = 0
    for i in prange(a.shape[0]):
        x ^= a[i]
    return x


@unpython.type('ndarray[float64, 1]', 'ndarray[int64, 1]', 'float64')
def several_reductions(a, b):
    s = 0.0
    hi = -np.inf
    count = 0
    bits = 0
    for i in prange(a.shape[0]):
        s += a[i]
        hi = max(hi, a[i])
        if a[i] > 0.0:
            count += 1
        bits ^= b[i]
    return s + hi * 1000.0 + count * 1e6 + bits * 1e9


@unpython.type('ndarray[float32, 2]', 'float32')
def float32_sum_2d(a):
    s = np.float32(0.0)
    for i in prange(a.shape[0]):
        for j in range(a.shape[1]):
            s += a[i, j]
    return s


@unpython.type('ndarray[float64, 2]', 'ndarray[float64, 2]', None)
def private_temporaries(a, out):
    for i in prange(a.shape[0]):
        t = 0.0
        for j in range(a.shape[1]):
            u = a[i, j] * 2.0
            t += u
        out[i, 0] = t
        for j in range(1, a.shape[1]):
            out[i, j] = a[i, j] - t


@unpython.type('ndarray[float64, 2]', 'ndarray[float64, 2]', 'ndarray[float64, 2]', None)
def matmul_collapsed(a, b, c):
    m = a.shape[0]
    n = b.shape[1]
    p = a.shape[1]
    for i in prange(m):
        for j in prange(n):
            s = 0.0
            for k in range(p):
                s += a[i, k] * b[k, j]
            c[i, j] = s


@unpython.type('ndarray[int64, 3]', None)
def collapse3(a):
    for i in prange(a.shape[0]):
        for j in prange(a.shape[1]):
            for k in prange(a.shape[2]):
                a[i, j, k] = i * 10000 + j * 100 + k


@unpython.type('ndarray[float64, 2]', 'float64')
def collapsed_reduction(a):
    s = 0.0
    for i in prange(a.shape[0]):
        for j in prange(a.shape[1]):
            s += a[i, j] * (i + 1)
    return s


@unpython.type('ndarray[float64, 2]', None)
def triangular(a):
    n = a.shape[0]
    for i in prange(n):
        for j in range(i, n):
            a[i, j] = i * 100.0 + j
            a[j, i] = -(i * 100.0 + j)


@unpython.type('ndarray[float64, 2]', None)
def triangular_inner_prange(a):
    n = a.shape[0]
    for i in prange(n):
        for j in prange(i + 1):
            a[i, j] = i + j * 0.5


@unpython.type('ndarray[int64, 1]', 'int64', 'int64', 'int64', None)
def stepped(a, start, stop, step):
    for i in prange(start, stop, step):
        a[i] = a[i] * 2 + i


@unpython.type('ndarray[int64, 1]', None)
def reversed_prange(a):
    for i in prange(a.shape[0] - 1, -1, -1):
        a[i] += i


@unpython.type('ndarray[int64, 1]', 'int64', None)
def zero_division_in_parallel(a, d):
    for i in prange(a.shape[0]):
        a[i] = a[i] // (d - i)


@unpython.type('ndarray[float64, 2]', 'ndarray[float64, 2]', None)
def prange_inside_sequential(a, b):
    for step in range(3):
        for i in prange(a.shape[0]):
            for j in range(a.shape[1]):
                b[i, j] = b[i, j] + a[i, j] * step


@unpython.type('ndarray[float64, 1]', 'float64', 'float64')
def shared_read_only_scalar(a, x):
    scale = x * 2.0
    s = 0.0
    for i in prange(a.shape[0]):
        s += a[i] * scale
    return s


@unpython.type('ndarray[float64, 1]', 'float64')
def reduction_then_sequential_use(a):
    s = 0.0
    for i in prange(a.shape[0]):
        s += a[i]
    t = s
    for i in range(a.shape[0]):
        t = t * 0.5 + a[i]
    return t


@unpython.type('ndarray[float64, 1]', 'ndarray[float64, 1]', None)
def calls_in_parallel(a, out):
    for i in prange(a.shape[0]):
        out[i] = helper(a[i])


@unpython.type('float64', 'float64')
def helper(x):
    if x < 0.0:
        return -x * 0.5
    return x * x


@unpython.type('ndarray[float64, 1]', 'ndarray[float64, 1]', None)
def local_array_in_parallel(a, out):
    for i in prange(a.shape[0]):
        tmp = np.zeros(3, np.float64)
        for k in range(3):
            tmp[k] = a[i] * k
        out[i] = tmp[0] + tmp[1] + tmp[2]


@unpython.type('int64', 'int64')
def count_in_parallel(n):
    c = 0
    for i in prange(n):
        if i % 3 == 0:
            c += 1
    return c


@unpython.type('ndarray[int64, 1]', 'int64')
def loop_var_after_prange(a):
    # After a prange, the loop variable is the last value of the sequential loop (as in Python).
    i = -1
    for i in prange(a.shape[0]):
        a[i] = i
    return i


@unpython.type('ndarray[float64, 1]', 'bool')
def any_positive(a):
    found = False
    for i in prange(a.shape[0]):
        found |= a[i] > 0.0
    return found

@unpython.type('ndarray[float64, 1]', 'bool')
def all_positive(a):
    ok = True
    for i in prange(a.shape[0]):
        ok &= a[i] > 0.0
    return ok

@unpython.type('ndarray[float64, 1]', None)
def skip_negative(a):
    for i in prange(a.shape[0]):
        if a[i] < 0.0:
            continue
        a[i] = a[i] * 2.0

@unpython.type('ndarray[int8, 1]', 'int8')
def small_sum(a):
    s = np.int8(0)
    for i in prange(a.shape[0]):
        s += a[i]
    return s


@unpython.type('ndarray[float64, 1]', 'ndarray[float64, 1]')
def passed_back(v):
    return v


@unpython.type('ndarray[float64, 2]', 'ndarray[complex128, 1]', 'ndarray[float64, 1]', None)
def small_arrays_in_parallel(a, z, out):
    """Arrays of a constant shape made once per iteration (on its stack) of every fill and
    dtype, one given to a compiled function and back, one made on a condition; one made in a
    loop of the iteration (on the heap)."""
    for i in prange(a.shape[0]):
        ones = np.ones((2, 3))
        acc = np.zeros(4)
        scratch = np.empty(2, np.int32)
        c = np.zeros(2, np.complex128)
        for k in range(a.shape[1]):
            acc[k % 4] += a[i, k]
        w = passed_back(acc)
        w[0] += 1.0
        scratch[0] = i
        scratch[1] = 2 * i
        c[0] = z[i]
        c[1] = z[i] * 2.0
        extra = 0.0
        if a.shape[1] > 0 and a[i, 0] > 0.5:
            e = np.zeros(2)
            e[1] = a[i, 0]
            extra = e.sum()
        total = 0.0
        for k in range(3):
            row = np.zeros(3)
            row[k] = k + i
            total += row.sum()
        out[i] = acc.sum() + ones.sum() + scratch[1] + c.sum().real + extra + total


@unpython.type('ndarray[int64, 2]', 'ndarray[int64, 2]', 'ndarray[bool, 2]', None)
def int_and_bool_rows(a, out, odd):
    """Integer and bool arrays of 2 dimensions written in a prange (each thread takes its own
    copy of the arrays' shapes and strides: unpy/cpp_emit/emit.py region_arrays)."""
    for i in prange(a.shape[0]):
        for j in range(a.shape[1]):
            out[i, j] = a[i, j] * 3 + j
            odd[i, j] = out[i, j] % 2 == 1


@unpython.type('ndarray[int32, 2]', 'ndarray[int32, 2]')
def int_rows_of_a_local(a):
    """A local integer array written and read back in each row of a prange."""
    out = np.zeros((a.shape[0], a.shape[1] + 1), np.int32)
    for i in prange(a.shape[0]):
        for j in range(a.shape[1]):
            out[i, j + 1] = out[i, j] + a[i, j]
    return out


# Functions with prange nests called in a prange's iteration (the nests then run as plain loops
# on the iteration's thread: unpy::region_inactive) and from Python (in parallel): each form
# of a nest (a reduction, collapsed levels, a triangular nest, atomic updates, errors raised).
@unpython.type('ndarray[float64, 2]', 'ndarray[int64, 1]', 'ndarray[float64, 2]',
               'ndarray[float64, 3]', 'ndarray[int64, 2]', None)
def calls_in_a_prange(a, bins, out, blocks, hist):
    for i in prange(a.shape[0]):
        out[i, 0] = row_sum(a, i)
        out[i, 1] = positives(a, i)
        out[i, 2] = row_logs(a, i)
        fill_block(blocks, i, a[i, 0])
        row_histogram(hist, i, bins)
        out[i, 3] = triangle_of_row(a, i)


@unpython.type('ndarray[float64, 2]', 'int64', 'float64')
def row_sum(a, i):
    s = 0.0
    for j in prange(a.shape[1]):
        s += a[i, j] * 0.5
    return s


@unpython.type('ndarray[float64, 2]', 'int64', 'int64')
def positives(a, i):
    n = 0
    for j in prange(a.shape[1]):
        if a[i, j] > 0.0:
            n += 1
    return n


@unpython.type('ndarray[float64, 2]', 'int64', 'float64')
def row_logs(a, i):
    """math.log of a negative element: ValueError after the loop."""
    s = 0.0
    for j in prange(a.shape[1]):
        s += math.log(a[i, j] + 1.0)
    return s


@unpython.type('ndarray[float64, 3]', 'int64', 'float64', None)
def fill_block(blocks, i, x):
    for j in prange(blocks.shape[1]):
        for k in prange(blocks.shape[2]):
            blocks[i, j, k] = x * j + k


@unpython.type('ndarray[int64, 2]', 'int64', 'ndarray[int64, 1]', None)
def row_histogram(hist, i, bins):
    """An index read from an array: IndexError for a bin out of range."""
    for j in prange(bins.shape[0]):
        hist[i, bins[j]] += j


@unpython.type('ndarray[float64, 2]', 'int64', 'float64')
def triangle_of_row(a, i):
    s = 0.0
    for j in prange(a.shape[1]):
        for k in range(j + 1):
            s += a[i, k] * j
    return s


@unpython.type('ndarray[float64, 1]', 'ndarray[int64, 2]', None)
def conversions_in_a_prange(a, out):
    """int(), round(), math.floor and math.ceil of floats in a prange (vectorised): a nan
    raises ValueError, an infinity or a value outside int64 OverflowError, after the loop."""
    for i in prange(a.shape[0]):
        out[i, 0] = int(a[i])
        out[i, 1] = round(a[i] * 0.5)
        out[i, 2] = math.floor(a[i] * 0.25)
        out[i, 3] = math.ceil(a[i]) if a[i] > 0.0 else -1


@unpython.type('ndarray[float64, 2]', 'ndarray[int64, 2]', None)
def conversions_of_rows(a, out):
    for i in prange(a.shape[0]):
        convert_row(a, out, i)


@unpython.type('ndarray[float64, 2]', 'ndarray[int64, 2]', 'int64', None)
def convert_row(a, out, i):
    for j in prange(a.shape[1]):
        out[i, j] = round(a[i, j]) - math.floor(a[i, j] * 0.5)
