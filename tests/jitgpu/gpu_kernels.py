"""@gpu kernels for the GPU-path tests (tests/jitgpu): each outermost prange nest runs through
OpenCL (PoCL in the tests) and is compared with this same file run by the interpreter.

Sizes come from the arrays' shapes or from scalar parameters, so that one OpenCL build serves
every call (the kernel sources take size-dependent values as arguments)."""
import math

import numpy as np
import unpython
from unpython import prange


# --- element-wise nests: 1, 2 and 3 collapsed prange levels ------------------------------------

@unpython.gpu
@unpython.type('ndarray[float64,1]', 'ndarray[float64,1]', 'float64', None)
def axpy(x, y, alpha):
    for i in prange(x.shape[0]):
        y[i] = alpha * x[i] + y[i]


@unpython.gpu
@unpython.type('ndarray[float32,1]', 'ndarray[float32,1]', 'float32', None)
def axpy_f32(x, y, alpha):
    for i in prange(x.shape[0]):
        y[i] = alpha * x[i] + y[i]


@unpython.gpu
@unpython.type('ndarray[float64,2]', 'ndarray[float64,2]', 'ndarray[float64,2]', None)
def add2(a, b, out):
    n, m = out.shape
    for i in prange(n):
        for j in prange(m):
            out[i, j] = a[i, j] + 2.0 * b[i, j]


@unpython.gpu
@unpython.type('ndarray[int32,3]', 'ndarray[int32,3]', None)
def add3(a, out):
    n, m, p = out.shape
    for i in prange(n):
        for j in prange(m):
            for k in prange(p):
                out[i, j, k] = a[i, j, k] * (i + 1) - j + 3 * k


@unpython.gpu
@unpython.type('ndarray[int64,1]', 'int64', 'int64', 'int64', None)
def fill_range(out, start, stop, step):
    for i in prange(start, stop, step):
        out[i] = 3 * i + 1


@unpython.gpu
@unpython.type('ndarray[float64,2]', 'ndarray[float64,2]', 'int64', 'int64', 'int64', 'int64',
               'int64', 'int64', None)
def fill_block(a, out, r0, r1, rs, c0, c1, cs):
    for i in prange(r0, r1, rs):
        for j in prange(c0, c1, cs):
            out[i, j] = a[i, j] * 0.5 + i - 2 * j


@unpython.gpu
@unpython.type('ndarray[float64,2]', 'ndarray[float64,2]', 'ndarray[float64,2]', None)
def matmul(a, b, c):
    m = a.shape[0]
    n = b.shape[1]
    p = a.shape[1]
    for i in prange(m):
        for j in prange(n):
            s = 0.0
            for k in range(p):
                s += a[i, k] * b[k, j]
            c[i, j] = s


@unpython.gpu
@unpython.type('ndarray[float32,2]', 'ndarray[float32,2]', 'ndarray[float32,2]', None)
def matmul_f32(a, b, c):
    for i in prange(a.shape[0]):
        for j in prange(b.shape[1]):
            s = np.float32(0)
            for k in range(a.shape[1]):
                s += a[i, k] * b[k, j]
            c[i, j] = s


@unpython.gpu
@unpython.type('ndarray[float64,2]', 'ndarray[float64,2]', 'int64', 'ndarray[float64,2]', None)
def matmul_step(a, b, step, c):
    for i in prange(a.shape[0]):
        for j in prange(b.shape[1]):
            s = 0.0
            for k in range(0, a.shape[1], step):   # a step known only at run time: a flag
                s += a[i, k] * b[k, j]
            c[i, j] = s


@unpython.gpu
@unpython.type('ndarray[float64,2]', 'int64', 'ndarray[float64,1]', None)
def strided_row_sum(x, step, out):
    for i in prange(x.shape[0]):
        s = 0.0
        for j in range(0, x.shape[1], step):   # a step known only at run time
            s += x[i, j]
        out[i] = s


@unpython.gpu
@unpython.type('ndarray[float64,1]', 'ndarray[float64,1]', 'int64', None)
def shifted_sum(x, out, w):
    for i in prange(out.shape[0]):
        out[i] = x[i] + x[i + w]


# --- aliasing: two views of one buffer as two parameters --------------------------------------

@unpython.gpu
@unpython.type('ndarray[float64,1]', 'ndarray[float64,1]', 'int64', None)
def even_to_odd(dst, src, n):
    # Called as even_to_odd(a[1:], a[:-1], ...): reads a[i], writes a[i + 1], i even.
    for i in prange(0, n, 2):
        dst[i] = src[i] * 2.0 + 1.0


@unpython.gpu
@unpython.type('ndarray[float64,1]', 'ndarray[float64,1]', None)
def scale_into(dst, src):
    # Called as scale_into(a, a): each iteration reads and writes its own element.
    for i in prange(dst.shape[0]):
        dst[i] = src[i] * 0.5 + dst[i]


@unpython.gpu
@unpython.type('ndarray[float64,2]', 'ndarray[float64,2]', None)
def copy_plus_one(dst, src):
    # Called with the two column halves of one matrix.
    for i in prange(dst.shape[0]):
        for j in prange(dst.shape[1]):
            dst[i, j] = src[i, j] + 1.0


@unpython.gpu
@unpython.type('ndarray[float32,1]', 'ndarray[int32,1]', None)
def truncate_into(src, dst):
    # Called with a float32 view and an int32 view interleaved in one buffer.
    for i in prange(src.shape[0]):
        dst[i] = int(src[i])


# --- reductions ---------------------------------------------------------------------------------

@unpython.gpu
@unpython.type('ndarray[int64,1]', 'int64', 'int64')
def red_sum_i64(x, init):
    t = init
    for i in prange(x.shape[0]):
        t += x[i]
    return t


@unpython.gpu
@unpython.type('ndarray[int64,1]', 'int64', 'int64')
def red_sub_i64(x, init):
    t = init
    for i in prange(x.shape[0]):
        t -= x[i]
    return t


@unpython.gpu
@unpython.type('ndarray[int64,1]', 'int64', 'int64')
def red_prod_i64(x, init):
    t = init
    for i in prange(x.shape[0]):
        t *= x[i]
    return t


@unpython.gpu
@unpython.type('ndarray[int64,1]', 'int64', 'int64')
def red_min_i64(x, init):
    t = init
    for i in prange(x.shape[0]):
        t = min(t, x[i])
    return t


@unpython.gpu
@unpython.type('ndarray[int64,1]', 'int64', 'int64')
def red_max_i64(x, init):
    t = init
    for i in prange(x.shape[0]):
        t = max(x[i], t)
    return t


@unpython.gpu
@unpython.type('ndarray[int64,1]', 'int64', 'int64')
def red_or_i64(x, init):
    t = init
    for i in prange(x.shape[0]):
        t |= x[i]
    return t


@unpython.gpu
@unpython.type('ndarray[int64,1]', 'int64', 'int64')
def red_and_i64(x, init):
    t = init
    for i in prange(x.shape[0]):
        t &= x[i]
    return t


@unpython.gpu
@unpython.type('ndarray[int64,1]', 'int64', 'int64')
def red_xor_i64(x, init):
    t = init
    for i in prange(x.shape[0]):
        t ^= x[i]
    return t


@unpython.gpu
@unpython.type('ndarray[int32,1]', 'int32', 'int32')
def red_sum_i32(x, init):
    t = init
    for i in prange(x.shape[0]):
        t += x[i]
    return t


@unpython.gpu
@unpython.type('ndarray[uint8,1]', 'uint8', 'uint8')
def red_max_u8(x, init):
    t = init
    for i in prange(x.shape[0]):
        t = max(t, x[i])
    return t


@unpython.gpu
@unpython.type('ndarray[float64,1]', 'float64', 'float64')
def red_sum_f64(x, init):
    t = init
    for i in prange(x.shape[0]):
        t += x[i] * x[i]
    return t


@unpython.gpu
@unpython.type('ndarray[float32,1]', 'float32', 'float32')
def red_sum_f32(x, init):
    t = init
    for i in prange(x.shape[0]):
        t += x[i] * 2.0
    return t


@unpython.gpu
@unpython.type('ndarray[float64,1]', 'float64', 'float64')
def red_min_f64(x, init):
    t = init
    for i in prange(x.shape[0]):
        t = min(t, x[i])
    return t


@unpython.gpu
@unpython.type('ndarray[float32,1]', 'float32', 'float32')
def red_max_f32(x, init):
    t = init
    for i in prange(x.shape[0]):
        t = max(t, x[i])
    return t


@unpython.gpu
@unpython.type('ndarray[float64,2]', 'float64')
def red_sum_2d(a):
    t = 0.0
    for i in prange(a.shape[0]):
        for j in prange(a.shape[1]):
            t += a[i, j]
    return t


@unpython.gpu
@unpython.type('ndarray[int64,3]', 'int64')
def red_sum_3d(a):
    t = 7
    for i in prange(a.shape[0]):
        for j in prange(a.shape[1]):
            for k in prange(a.shape[2]):
                t += a[i, j, k] * (i - j + k)
    return t


@unpython.gpu
@unpython.type('ndarray[float64,1]', 'float64')
def red_several(x):
    total = 1.5
    biggest = -1e300
    positives = 0
    for i in prange(x.shape[0]):
        total += x[i]
        biggest = max(biggest, x[i])
        if x[i] > 0:
            positives += 1
    return total + biggest + positives


@unpython.gpu
@unpython.type('ndarray[float64,1]', 'bool')
def red_any_negative(x):
    found = False
    for i in prange(x.shape[0]):
        found |= x[i] < 0
    return found


# --- triangular nests ------------------------------------------------------------------------

@unpython.gpu
@unpython.type('ndarray[float64,2]', 'ndarray[float64,2]', None)
def syrk(a, c):
    n = a.shape[0]
    p = a.shape[1]
    for i in prange(n):
        for j in range(i + 1):
            s = 0.0
            for k in range(p):
                s += a[i, k] * a[j, k]
            c[i, j] = s


@unpython.gpu
@unpython.type('ndarray[float64,2]', 'ndarray[float64,2]', None)
def upper_scale(a, out):
    n = a.shape[0]
    for i in prange(n):
        for j in prange(i, n):
            out[i, j] = a[i, j] * 2.0 - a[j, i]


# --- control flow inside the kernel ---------------------------------------------------------

@unpython.gpu
@unpython.type('ndarray[int64,1]', 'ndarray[int64,1]', None)
def collatz(x, out):
    for i in prange(x.shape[0]):
        v = x[i]
        steps = 0
        while v != 1 and steps < 1000:
            if v % 2 == 0:
                v = v // 2
            else:
                v = 3 * v + 1
            steps += 1
        out[i] = steps


@unpython.gpu
@unpython.type('ndarray[float64,2]', 'ndarray[int64,1]', None)
def first_negative(a, out):
    for i in prange(a.shape[0]):
        out[i] = -1
        for j in range(a.shape[1]):
            if a[i, j] == 0.0:
                continue
            if a[i, j] < 0.0:
                out[i] = j
                break


@unpython.gpu
@unpython.type('ndarray[float64,1]', 'ndarray[float64,1]', None)
def branches(x, out):
    for i in prange(x.shape[0]):
        v = x[i]
        if v > 1.0:
            out[i] = v * v
        elif v < -1.0:
            out[i] = -v if i % 3 == 0 else v - 1.0
        else:
            w = 0.0
            k = 0
            while True:
                k += 1
                w += v / k
                if k >= 4:
                    break
            out[i] = w


# --- math functions ---------------------------------------------------------------------------

@unpython.gpu
@unpython.type('ndarray[float64,1]', 'ndarray[float64,2]', None)
def math_f64(x, out):
    for i in prange(x.shape[0]):
        v = x[i]
        a = abs(v)
        out[i, 0] = math.sqrt(a)
        out[i, 1] = math.exp(v / 8.0)
        out[i, 2] = math.log(a + 1.0)
        out[i, 3] = math.log10(a + 1.0)
        out[i, 4] = math.sin(v) + math.cos(v) + math.tan(v / 4.0)
        out[i, 5] = math.asin(v / (a + 1.0)) + math.acos(v / (a + 2.0))
        out[i, 6] = math.atan(v) + math.atan2(v, 3.0)
        out[i, 7] = math.sinh(v / 8.0) + math.cosh(v / 8.0) + math.tanh(v)
        out[i, 8] = math.floor(v) + 10 * math.ceil(v)
        out[i, 9] = math.fabs(v) + math.pow(a, 1.5) + math.hypot(v, 2.0)
        out[i, 10] = min(v, 0.5) + max(v, -0.5, a / 3.0)


@unpython.gpu
@unpython.type('ndarray[float64,1]', 'ndarray[float64,2]', None)
def math_special(x, out):
    # erf and erfc never raise; gamma and lgamma raise at their poles and on overflow.
    for i in prange(x.shape[0]):
        v = x[i]
        out[i, 0] = math.erf(v)
        out[i, 1] = math.erfc(v)
        out[i, 2] = math.gamma(v)
        out[i, 3] = math.lgamma(v)


POLY_SCALE = 0.5      # a module-level constant, read as a literal


@unpython.gpu
@unpython.type('ndarray[float64,1]', 'ndarray[float64,1]', 'ndarray[float64,1]', 'float64',
               None)
def poly_eval(coeffs, x, out, shift=1.0):
    # `for c in coeffs` (an index loop), chained assignment and a default inside a GPU nest.
    for i in prange(x.shape[0]):
        acc = low = 0.0
        for c in coeffs:
            acc = acc * x[i] + c * POLY_SCALE
            low = min(low, acc)
        out[i] = acc + low + shift


@unpython.gpu
@unpython.type('ndarray[float32,1]', 'ndarray[float32,2]', None)
def math_f32(x, out):
    for i in prange(x.shape[0]):
        v = x[i]
        a = abs(v)
        out[i, 0] = np.sqrt(a)
        out[i, 1] = np.exp(v / np.float32(8))
        out[i, 2] = np.log(a + np.float32(1))
        out[i, 3] = np.sin(v) + np.cos(v)
        out[i, 4] = np.tanh(v) + np.arctan2(v, np.float32(3))
        out[i, 5] = np.floor(v) + np.ceil(v)


@unpython.gpu
@unpython.type('ndarray[float64,1]', 'ndarray[float64,1]', None)
def math_log(x, out):
    for i in prange(x.shape[0]):
        out[i] = math.log(x[i])


# --- integer and float division ---------------------------------------------------------------

@unpython.gpu
@unpython.type('ndarray[int64,1]', 'ndarray[int64,1]', 'ndarray[int64,1]', 'ndarray[int64,1]',
               None)
def divmod_i64(a, b, q, r):
    for i in prange(a.shape[0]):
        q[i] = a[i] // b[i]
        r[i] = a[i] % b[i]


@unpython.gpu
@unpython.type('ndarray[int32,1]', 'int32', 'ndarray[int32,2]', None)
def divmod_i32(a, d, out):
    for i in prange(a.shape[0]):
        out[i, 0] = a[i] // d
        out[i, 1] = a[i] % d
        out[i, 2] = (a[i] - 7) // 3
        out[i, 3] = (-a[i]) % 5


@unpython.gpu
@unpython.type('ndarray[float64,1]', 'ndarray[float64,1]', 'ndarray[float64,2]', None)
def divmod_f64(a, b, out):
    for i in prange(a.shape[0]):
        out[i, 0] = a[i] // b[i]
        out[i, 1] = a[i] % b[i]
        out[i, 2] = a[i] / b[i]


# --- bool arrays ------------------------------------------------------------------------------

@unpython.gpu
@unpython.type('ndarray[bool,1]', 'ndarray[bool,1]', 'ndarray[bool,1]', None)
def bool_ops(a, b, out):
    for i in prange(a.shape[0]):
        out[i] = (a[i] and not b[i]) or (a[i] == b[i] and i % 2 == 0)


@unpython.gpu
@unpython.type('ndarray[float64,1]', 'float64', 'ndarray[bool,1]', 'int64')
def threshold_count(x, limit, out):
    count = 0
    for i in prange(x.shape[0]):
        out[i] = x[i] > limit
        if out[i]:
            count += 1
    return count


# --- non-affine indices -----------------------------------------------------------------------

@unpython.gpu
@unpython.type('ndarray[float64,1]', 'ndarray[int64,1]', 'ndarray[float64,1]', None)
def gather(x, idx, out):
    for i in prange(idx.shape[0]):
        out[i] = x[idx[i]]


@unpython.gpu
@unpython.type('ndarray[float64,1]', 'ndarray[int64,1]', 'ndarray[float64,1]', None)
def scatter(x, idx, out):
    # An update: the compiler cannot know that idx holds distinct indices (a plain store
    # `out[idx[i]] = ...` is refused as a race), so it is atomic.
    for i in prange(idx.shape[0]):
        out[idx[i]] += x[i] + 1.0


@unpython.gpu
@unpython.type('ndarray[int64,1]', 'ndarray[int64,1]', None)
def squares_mod(x, out):
    n = x.shape[0]
    for i in prange(out.shape[0]):
        out[i] = x[(i * i) % n]


# --- cases that fall back to OpenMP -----------------------------------------------------------

@unpython.type('float64', 'float64')
def helper(v):
    return v * 2.0 + 1.0


@unpython.gpu
@unpython.type('ndarray[float64,1]', 'ndarray[float64,1]', None)
def uses_helper(x, out):
    """A helper of scalars: an OpenCL function of the kernel."""
    for i in prange(x.shape[0]):
        out[i] = helper(x[i])


@unpython.type('ndarray[float64,1]', 'int64', 'float64')
def array_helper(x, i):
    return x[i] * 2.0 + x[0]


@unpython.gpu
@unpython.type('ndarray[float64,1]', 'ndarray[float64,1]', None)
def uses_array_helper(x, out):
    """A helper of an array: the kernel cannot call it."""
    for i in prange(x.shape[0]):
        out[i] = array_helper(x, i)


@unpython.gpu
@unpython.type('ndarray[float64,1]', 'ndarray[float64,1]', None)
def roll_right(x, out):
    # x[i - 1] reaches x[-1] at i == 0: Python wraps it, and so does the kernel.
    for i in prange(x.shape[0]):
        out[i] = x[i - 1]


@unpython.gpu
@unpython.type('ndarray[float64,1]', 'ndarray[float64,1]', 'float64')
def two_nests(x, out):
    s = 0.0
    for i in prange(x.shape[0]):
        out[i] = x[i] * 2.0
    for i in prange(x.shape[0]):
        s += out[i]
    return s


@unpython.type('ndarray[float64,1]', 'ndarray[float64,1]', None)
def not_gpu(x, out):
    for i in prange(x.shape[0]):
        out[i] = x[i] + 1.0


@unpython.gpu
@unpython.type('ndarray[float64,1]', 'ndarray[float64,2]', None)
def math_errors(x, out):
    # Each column raises in CPython's math module for some arguments.
    for i in prange(x.shape[0]):
        v = x[i]
        out[i, 0] = math.exp(v)
        out[i, 1] = math.sqrt(v)
        out[i, 2] = math.pow(v, 0.5)
        out[i, 3] = math.cosh(v)
        out[i, 4] = math.floor(v)
        out[i, 5] = int(v)
        out[i, 6] = abs(v)


@unpython.gpu
@unpython.type('ndarray[int64,1]', 'ndarray[int64,1]', None)
def divide_in_place(a, d):
    for i in prange(a.shape[0]):
        a[i] = a[i] // d[i]


@unpython.gpu
@unpython.type('ndarray[float64,1]', 'ndarray[float64,1]', 'float64', 'bool', 'float64')
def reserved_names(kernel, half, local, constant):
    # Names that are OpenCL keywords, types or built-in functions, with capitals, or unpy_.
    private = 0.0
    for uint in prange(kernel.shape[0]):
        float2 = kernel[uint] * local
        N = 1
        unpy_flag = 2.0
        if constant:
            for floor in range(3):
                float2 += floor * unpy_flag * N
        half[uint] = math.floor(float2) + 0.5
        private += float2
    return private


# --- triangular prange levels (guarded NDRange dimensions) --------------------------------------

@unpython.gpu
@unpython.type('ndarray[float64,2]', 'ndarray[float64,2]', None)
def tri_lower(a, out):
    for i in prange(a.shape[0]):
        for j in prange(i + 1):
            out[i, j] = a[i, j] + a[j, i]


@unpython.gpu
@unpython.type('ndarray[int64,3]', 'int64', 'int64', 'int64', 'int64')
def tri_three_levels(out, n, s, init):
    total = init
    for i in prange(n):
        for j in prange(i, n, s):
            for k in prange(n - 1, j - 1, -1):
                out[i, j, k] = 100 * i + 10 * j + k
                total += i * j - k
    return total


@unpython.gpu
@unpython.type('ndarray[float64,2]', 'float64')
def tri_sum(a):
    t = 0.0
    for i in prange(a.shape[0]):
        for j in prange(i + 1, a.shape[1]):
            t += a[i, j]
    return t


@unpython.gpu
@unpython.type('ndarray[float64,1]', 'ndarray[float64,1]', None)
def skip_negative(x, out):
    for i in prange(x.shape[0]):
        if x[i] < 0.0:
            continue
        out[i] = math.sqrt(x[i])


@unpython.gpu
@unpython.type('ndarray[float32,1]', 'ndarray[float32,2]', None)
def f32_literals(x, out):
    # Python float literals are weak: NumPy rounds them to float32 (1e300 to inf).
    for i in prange(x.shape[0]):
        out[i, 0] = x[i] * 1e300
        out[i, 1] = x[i] + 0.1
        out[i, 2] = x[i] - 16777217.0
        out[i, 3] = x[i] * 3.4028235677973366e38


@unpython.gpu
@unpython.type('ndarray[int64,1]', 'ndarray[int64,1]', 'ndarray[float64,2]', None)
def shifts_and_true_division(a, b, out):
    for i in prange(a.shape[0]):
        out[i, 0] = a[i] << b[i]
        out[i, 1] = a[i] >> b[i]
        out[i, 2] = a[i] / b[i]


@unpython.gpu
@unpython.type('ndarray[float64,1]', 'ndarray[float64,1]', 'int64', 'float64')
def jacobi(a, b, steps):
    # Two nests inside a sequential loop: each nest runs once per step, reading the outer
    # loop's variable; the second reads what the first wrote on the previous call.
    n = a.shape[0]
    for t in range(steps):
        for i in prange(1, n - 1):
            b[i] = (a[i - 1] + a[i] + a[i + 1]) / 3.0 + 0.001 * t
        for i in prange(1, n - 1):
            a[i] = b[i]
    total = 0.0
    for i in prange(n):
        total += a[i]
    return total


@unpython.gpu
@unpython.type('ndarray[float64,2]', 'ndarray[float64,2]', 'int64', None)
def inner_steps(a, out, s):
    # Inner loops with negative and non-unit steps, and a start that moves with i.
    n, m = a.shape
    for i in prange(n):
        back = 0.0
        for k in range(m - 1, -1, -s):
            back = back * 0.5 + a[i, k]
        forth = 0.0
        for k in range(i % m, m, s + 1):
            forth += a[i, k] * k
        out[i, 0] = back
        out[i, 1] = forth


# --- chained comparisons, short-circuits and value-returning and/or ----------------------------

@unpython.gpu
@unpython.type('ndarray[int64,1]', 'ndarray[float64,1]', 'ndarray[int64,2]',
               'ndarray[float64,2]', None)
def logic_ops(k, x, iout, fout):
    for i in prange(k.shape[0]):
        a = k[i]
        # The divisions are reached only where the divisor is not 0.
        iout[i, 0] = 1 if a != 0 and 10 // a > 1 else 0
        iout[i, 1] = 1 if a < 0 < 10 // a + 3 else 0
        iout[i, 2] = 1 if -3 < a <= 10 // (a + 4) != a else 0
        iout[i, 3] = a and 10 // a
        iout[i, 4] = (a or 7) and a - 1 or -a
        fout[i, 0] = x[i] or -1.5
        fout[i, 1] = x[i] and x[i] * 2.0
        fout[i, 2] = a or x[i]
        fout[i, 3] = 1.0 if -1.0 < x[i] < 1.0 < x[i] + 3 else 0.0
        fout[i, 4] = 1.0 if x[i] < a < x[i] * 4.0 and (a or x[i]) else 0.0


@unpython.gpu
@unpython.type('ndarray[float64,2]', 'ndarray[float64,1]', 'ndarray[float64,1]', 'int64', None)
def inner_dot(a, b, out, m):
    # An innermost loop of a parameter trip count (unroll_inner's remainder loop).
    for i in prange(a.shape[0]):
        s = 0.0
        for k in range(m):
            s += a[i, k] * b[k]
        out[i] = s


@unpython.gpu
@unpython.type('ndarray[float64,1]', 'ndarray[int64,1]', 'ndarray[float64,1]', None)
def inner_gather(x, idx, out):
    # An index read from an array in an unrolled loop: each copy reads its own idx[k + u].
    for i in prange(out.shape[0]):
        s = 0.0
        for k in range(idx.shape[0]):
            s += x[idx[k]] * x[i]
        out[i] = s


@unpython.gpu
@unpython.type('ndarray[float64,2]', 'ndarray[float64,2]', None)
def inner_backwards(a, out):
    # A negative step, an order-sensitive recurrence.
    for i in prange(a.shape[0]):
        s = 0.0
        for k in range(a.shape[1] - 1, -1, -1):
            s = s * 0.5 + a[i, k]
        out[i, 0] = s
        out[i, 1] = s * s


@unpython.gpu
@unpython.type('ndarray[float32,2]', 'ndarray[float32,1]', 'ndarray[float32,1]', None)
def aos_points(atoms, x, out):
    # An array of structures [k, 0..3] read in one block; one load behind a conditional.
    for i in prange(x.shape[0]):
        s = np.float32(0.0)
        for k in range(atoms.shape[0]):
            dx = x[i] - atoms[k, 0]
            dy = atoms[k, 1]
            dz = atoms[k, 2]
            r = dx * dx + dy * dy + dz * dz
            s += atoms[k, 3] / r if r > np.float32(0.5) else atoms[k, 3]
        out[i] = s


@unpython.gpu
@unpython.type('ndarray[float64,2]', None)
def rows_in_place(a):
    # Loads of a buffer the loop writes: no vector load.
    for i in prange(a.shape[0]):
        for k in range(a.shape[1] - 1):
            a[i, k] = a[i, k + 1] * 0.5 + a[i, k]


# --- inner range loops run as NDRange levels (unpy/typeinfer/independent_loops.py) --------

@unpython.gpu
@unpython.type('ndarray[float64,2]', 'ndarray[float64,2]', 'ndarray[float64,2]', None)
def matmul_range(a, b, c):
    for i in prange(a.shape[0]):
        for j in range(b.shape[1]):
            s = 0.0
            for k in range(a.shape[1]):
                s += a[i, k] * b[k, j]
            c[i, j] = s


@unpython.gpu
@unpython.type('ndarray[float64,2]', 'ndarray[float64,2]', None)
def shift_right(a, out):
    for i in prange(a.shape[0]):
        for j in range(1, a.shape[1]):
            out[i, j] = a[i, j - 1] + 1.0


@unpython.gpu
@unpython.type('ndarray[float64,2]', None)
def running_sum(a):
    for i in prange(a.shape[0]):
        for j in range(1, a.shape[1]):
            a[i, j] += a[i, j - 1]


@unpython.gpu
@unpython.type('ndarray[float64,3]', 'ndarray[float64,3]', None)
def scale3_ranges(a, out):
    for i in prange(a.shape[0]):
        for j in range(a.shape[1]):
            for k in range(a.shape[2]):
                out[i, j, k] = 2.0 * a[i, j, k] - k


@unpython.gpu
@unpython.type('ndarray[float64,2]', 'ndarray[float64,2]', None)
def lower_triangle_range(a, b):
    for i in prange(a.shape[0]):
        for j in range(i + 1):
            a[i, j] = 0.5 * a[i, j] + b[j, i] + (i - j)


@unpython.gpu
@unpython.type('ndarray[float64,2]', 'int64', 'int64', 'ndarray[float64,2]', None)
def resize_rows(img, new_h, new_w, out):
    # Scalars of the row computed before the loop over columns: sunk into it as a level.
    h, w = img.shape
    sy = (h - 1) / max(new_h - 1, 1)
    sx = (w - 1) / max(new_w - 1, 1)
    for i in prange(new_h):
        y = i * sy
        y0 = int(math.floor(y))
        fy = y - y0
        for j in range(new_w):
            x0 = int(math.floor(j * sx))
            out[i, j] = (1.0 - fy) * img[y0, x0] + fy * img[min(y0 + 1, h - 1), x0]


@unpython.gpu
@unpython.type('ndarray[float64,1]', None)
def print_between_nests(a):
    """print() of an array the nest before wrote on the device: copied back first."""
    for i in prange(a.shape[0]):
        a[i] = a[i] * 2.0
    print("doubled:", a, a[0])
    for i in prange(a.shape[0]):
        a[i] = a[i] + 1.0


@unpython.gpu
@unpython.type('ndarray[float64,1]', 'int64', None)
def draws_between_nests(a, seed):
    """np.random.shuffle of an array the nest before wrote on the device: copied back first;
    the nest after reads the shuffled values and an array of draws."""
    for i in prange(a.shape[0]):
        a[i] = a[i] * 2.0 + i
    np.random.seed(seed)
    np.random.shuffle(a)
    noise = np.random.random(a.shape[0])
    for i in prange(a.shape[0]):
        a[i] = a[i] + noise[i]


@unpython.type('float64', 'float64')
def jittered(x):
    return x + np.random.random()


@unpython.gpu
@unpython.type('ndarray[float64,1]', 'ndarray[float64,1]', None)
def draws_in_a_helper(a, out):
    """A nest whose iterations call a function that draws: not offloaded (the draws are the
    host's: np.random's generator), its iterations drawing in any order on OpenMP's threads."""
    out[0] = np.random.random()
    for i in prange(1, a.shape[0]):
        out[i] = jittered(a[i])


@unpython.gpu
@unpython.type('ndarray[float64,2]', 'ndarray[float64,1]', 'ndarray[float64,2]', None)
def store_then_select(dat, w, out):
    """A work-item reads back the element it stored (a select keeping it): NVIDIA's OpenCL
    read it before the store had been made (the rows not selected came back 0 on an H100)."""
    for i in prange(out.shape[0]):
        for j in range(out.shape[1]):
            out[i, j] = dat[i, j]
            out[i, j] = w[i] if w[i] < 0.2 else out[i, j]
