"""Scalar kernels for the differential tests: arithmetic, comparisons, boolean operators, casts
and calls between compiled functions. Every function also runs under the interpreter, which is
the reference (tests/differential/test_arith.py)."""
import numpy as np
import unpython


# --- int64 (also what Python ints become) -----------------------------------------------------

@unpython.type('int64', 'int64', 'int64')
def add_i64(a, b):
    return a + b


@unpython.type('int64', 'int64', 'int64')
def sub_i64(a, b):
    return a - b


@unpython.type('int64', 'int64', 'int64')
def mul_i64(a, b):
    return a * b


@unpython.type('int64', 'int64', 'float64')
def truediv_i64(a, b):
    return a / b


@unpython.type('int64', 'int64', 'int64')
def floordiv_i64(a, b):
    return a // b


@unpython.type('int64', 'int64', 'int64')
def mod_i64(a, b):
    return a % b


@unpython.type('int64', 'int64', 'int64')
def pow_i64(a, b):
    return a ** b


@unpython.type('int64', 'int64')
def neg_i64(a):
    return -a


@unpython.type('int64', 'int64')
def pos_i64(a):
    return +a


@unpython.type('int64', 'int64')
def invert_i64(a):
    return ~a


@unpython.type('int64', 'int64', 'int64')
def bitops_i64(a, b):
    return (a & b) ^ (a | 12345)


@unpython.type('int64', 'int64', 'int64')
def shifts_i64(a, b):
    return (a << b) + (a >> b)


@unpython.type('int64', 'int64')
def literal_mix_i64(a):
    return 3 * a - 7 // 2 + a % 5 - 2 ** 3


@unpython.type('int64', 'int64')
def const_pow_i64(a):
    return a ** 2 + 2 ** a


# --- float64 ----------------------------------------------------------------------------------

@unpython.type('float64', 'float64', 'float64')
def add_f64(a, b):
    return a + b


@unpython.type('float64', 'float64', 'float64')
def sub_f64(a, b):
    return a - b


@unpython.type('float64', 'float64', 'float64')
def mul_f64(a, b):
    return a * b


@unpython.type('float64', 'float64', 'float64')
def truediv_f64(a, b):
    return a / b


@unpython.type('float64', 'float64', 'float64')
def floordiv_f64(a, b):
    return a // b


@unpython.type('float64', 'float64', 'float64')
def mod_f64(a, b):
    return a % b


@unpython.type('float64', 'float64', 'float64')
def pow_f64(a, b):
    return a ** b


@unpython.type('float64', 'float64')
def neg_f64(a):
    return -a


@unpython.type('float64', 'float64')
def pos_f64(a):
    return +a


@unpython.type('float64', 'int64', 'float64')
def pow_f64_i64(a, b):
    return a ** b


# --- float32: stays float32, also against Python float literals (NEP 50) -----------------------

@unpython.type('float32', 'float32', 'float32')
def add_f32(a, b):
    return a + b


@unpython.type('float32', 'float32', 'float32')
def truediv_f32(a, b):
    return a / b


@unpython.type('float32', 'float32', 'float32')
def floordiv_f32(a, b):
    return a // b


@unpython.type('float32', 'float32', 'float32')
def mod_f32(a, b):
    return a % b


@unpython.type('float32', 'float32', 'float32')
def pow_f32(a, b):
    return a ** b


@unpython.type('float32', 'float32')
def literal_f32(a):
    return a * 0.1 + 1.5 - a / 3.0


@unpython.type('float32', 'float32')
def int_literal_f32(a):
    return a * 3 + 1


@unpython.type('float32', 'float32')
def local_literal_f32(a):
    x = a * 2.5
    x = x - 0.25
    return x


@unpython.type('float32', 'float32', 'float32')
def f32_times_f32_literal(a, b):
    return a * b + np.float32(0.1)


# --- other integer widths: they wrap --------------------------------------------------------

@unpython.type('int32', 'int32', 'int32')
def add_i32(a, b):
    return a + b


@unpython.type('int32', 'int32', 'int32')
def mul_i32(a, b):
    return a * b


@unpython.type('int32', 'int32', 'int32')
def floordiv_i32(a, b):
    return a // b


@unpython.type('int32', 'int32', 'int32')
def mod_i32(a, b):
    return a % b


@unpython.type('int32', 'int32', 'float64')
def truediv_i32(a, b):
    return a / b


@unpython.type('uint8', 'uint8', 'uint8')
def add_u8(a, b):
    return a + b


@unpython.type('uint8', 'uint8', 'uint8')
def sub_u8(a, b):
    return a - b


@unpython.type('uint8', 'uint8', 'uint8')
def mul_u8(a, b):
    return a * b


@unpython.type('int8', 'int8', 'int8')
def floordiv_i8(a, b):
    return a // b


@unpython.type('int8', 'int8')
def neg_i8(a):
    return -a


@unpython.type('uint64', 'uint64', 'uint64')
def sub_u64(a, b):
    return a - b


@unpython.type('uint64', 'uint64', 'uint64')
def floordiv_u64(a, b):
    return a // b


@unpython.type('int16', 'int16', 'int16')
def mul_i16(a, b):
    return a * b


@unpython.type('int32', 'int32')
def literal_i32(a):
    return a * 3 + 100


@unpython.type('uint8', 'uint8')
def literal_u8(a):
    return a + 200


# --- mixed types (NEP 50) ---------------------------------------------------------------------

@unpython.type('int32', 'float32', 'float64')
def mix_i32_f32(a, b):
    return a + b


@unpython.type('int16', 'float32', 'float32')
def mix_i16_f32(a, b):
    return a * b


@unpython.type('int64', 'float32', 'float64')
def mix_i64_f32(a, b):
    return a - b


@unpython.type('uint64', 'int64', 'float64')
def mix_u64_i64(a, b):
    return a + b


@unpython.type('int32', 'int64', 'int64')
def mix_i32_i64(a, b):
    return a * b


@unpython.type('uint8', 'int8', 'int16')
def mix_u8_i8(a, b):
    return a + b


@unpython.type('float32', 'float64', 'float64')
def mix_f32_f64(a, b):
    return a + b


@unpython.type('int64', 'float64')
def int_plus_float_literal(a):
    return a + 0.5


@unpython.type('int32', 'float64')
def i32_truediv_literal(a):
    return a / 2


@unpython.type('bool', 'bool', 'int64')
def bool_arith(a, b):
    return a + b * 2


# --- a NumPy bool with a NumPy number takes the number's dtype (NEP 50: bool is the lowest) ---

@unpython.type('bool', 'int32', 'int32')
def sub_bool_i32(a, b):
    return a - b


@unpython.type('bool', 'float32', 'float32')
def mul_bool_f32(a, b):
    return a * b


@unpython.type('uint8', 'bool', 'uint8')
def add_u8_bool(a, b):
    return a + b


@unpython.type('int8', 'bool', 'int8')
def minmax_i8_bool(a, b):
    return max(a, b) + min(a, b) + (a if b else b)


@unpython.type('ndarray[bool, 1]', 'ndarray[int32, 1]', 'ndarray[int32, 1]', None)
def bool_i32_elements(a, b, out):
    """int32 arithmetic (wrapping), as NumPy does: not int64."""
    x = a[0] - b[0]
    out[0] = x * 65536 // 3
    out[1] = (b[1] * a[1]) * 65536


@unpython.type('ndarray[bool, 1]', 'ndarray[int64, 1]', None)
def two_bools(m, out):
    # Two NumPy bools: `+` is `or`, `*` is `and`, `//` gives int8 (NumPy's loops); two Python
    # bools (a local holding True) count as ints.
    flag = True
    out[0] = m[0] + m[1]
    out[1] = m[0] * m[1]
    out[2] = (m[0] + m[1]) * 5
    out[3] = flag + flag
    out[4] = m[0] // m[1] if m[1] else -1


@unpython.type('ndarray[bool, 1]', 'ndarray[float32, 1]', 'float32')
def bool_f32_elements(a, b):
    r = b[0] * a[0]
    for i in range(1, b.shape[0]):
        r *= a[i] * b[i] + (b[i] < 0.5)
    return r


# --- comparisons and boolean operators --------------------------------------------------------

@unpython.type('float64', 'float64', 'float64', 'bool')
def chain_lt(a, b, c):
    return a < b < c


@unpython.type('int64', 'int64', 'int64', 'bool')
def chain_mixed_ops(a, b, c):
    return a <= b != c > a


@unpython.type('int64', 'uint64', 'bool')
def cmp_i64_u64(a, b):
    return a < b


@unpython.type('int64', 'uint64', 'bool')
def eq_i64_u64(a, b):
    return a == b


@unpython.type('int64', 'float64', 'bool')
def cmp_int_float(a, b):
    return a >= b


@unpython.type('float64', 'float64', 'int64')
def all_compares(a, b):
    r = 0
    if a < b:
        r += 1
    if a <= b:
        r += 2
    if a > b:
        r += 4
    if a >= b:
        r += 8
    if a == b:
        r += 16
    if a != b:
        r += 32
    return r


@unpython.type('int64', 'int64', 'int64')
def and_ints(a, b):
    return a and b


@unpython.type('int64', 'int64', 'int64')
def or_ints(a, b):
    return a or b


@unpython.type('float64', 'float64', 'float64', 'float64')
def or_chain_floats(a, b, c):
    return a or b or c


@unpython.type('int64', 'int64', 'int64', 'int64')
def and_or_ints(a, b, c):
    return a and b or c


@unpython.type('bool', 'bool', 'bool')
def and_bools(a, b):
    return a and b


@unpython.type('int64', 'int64', 'bool')
def not_ops(a, b):
    return not a or not (b > 3)


@unpython.type('int64', 'float64', 'float64')
def or_int_float(a, b):
    return a or b


@unpython.type('int64', 'bool')
def shortcircuit(a):
    # The division is reached only when a != 0: a false first operand stops the evaluation.
    return a != 0 and 100 // a > 3


@unpython.type('int64', 'int64', 'int64')
def ifexp(a, b):
    return a - b if a > b else b - a


@unpython.type('int64', 'float64', 'float64')
def ifexp_mixed(a, b):
    return a if a > b else b


@unpython.type('int64', 'int64')
def ifexp_nested(a):
    return -1 if a < 0 else (0 if a == 0 else 1)


# --- casts ---------------------------------------------------------------------------------

@unpython.type('float64', 'int64')
def int_of_float(a):
    return int(a)


@unpython.type('int64', 'float64')
def float_of_int(a):
    return float(a)


@unpython.type('float64', 'bool')
def bool_of_float(a):
    return bool(a)


@unpython.type('int64', 'bool')
def bool_of_int(a):
    return bool(a)


@unpython.type('float64', 'float32')
def f32_of_f64(a):
    return np.float32(a)


@unpython.type('int64', 'int32')
def i32_of_i64(a):
    return np.int32(a)


@unpython.type('int64', 'uint8')
def u8_of_i64(a):
    return np.uint8(a)


@unpython.type('float32', 'float64')
def f64_of_f32(a):
    return np.float64(a)


@unpython.type('bool', 'int64')
def int_of_bool(a):
    return int(a) + 1


# --- overflow wraps ---------------------------------------------------------------------------

@unpython.type('int64', 'int64')
def wrap_i64(a):
    return a * a * a + 9223372036854775807


@unpython.type('int32', 'int32')
def wrap_i32_loop(a):
    x = a
    for i in range(40):
        x = x * np.int32(3) + np.int32(1)
    return x


# --- calls between compiled functions ----------------------------------------------------------

@unpython.type('float64', 'float64')
def square(x):
    return x * x


@unpython.type('float64', 'float64', 'float64')
def hypot_by_calls(a, b):
    return np.sqrt(square(a) + square(b))


@unpython.type('int64', 'int64')
def fib(n):
    if n < 2:
        return n
    return fib(n - 1) + fib(n - 2)


@unpython.type('int32', 'float64')
def call_widens_argument(a):
    return square(a)


@unpython.type('int64', 'int64')
def collatz_steps(n):
    steps = 0
    while n != 1:
        if n % 2 == 0:
            n = n // 2
        else:
            n = 3 * n + 1
        steps += 1
    return steps


@unpython.type('int64', 'int64', 'int64')
def gcd(a, b):
    while b:
        a, b = b, a % b
    return a


@unpython.type('int64', 'int64', 'float64', 'float64')
def reserved_names(new, delete, C):
    # Python names that are C++ keywords or unpy's own names.
    auto = new + delete
    std = auto * 2
    unpy_x = std - 1
    py = C * unpy_x
    return py


# --- Python ints against sized integers compare values (NumPy 2) -----------------------------

@unpython.type('uint8', 'bool')
def u8_eq_300(a):
    return a == 300


@unpython.type('uint64', 'bool')
def u64_lt_minus_one(a):
    return a < -1 or -1 >= a


@unpython.type('int8', 'int64', 'bool')
def i8_lt_python_int(a, n):
    k = 0
    for i in range(n):
        k = i           # a Python int in the interpreter, beyond int8 for n > 128
    return a < k


# --- chained comparisons and value-returning and/or: each operand once, short-circuiting ------

@unpython.type('ndarray[int64,1]', 'int64', 'int64')
def counted(calls, v):
    calls[0] += 1
    return v


@unpython.type('ndarray[float64,1]', 'float64', 'float64')
def counted_f64(calls, v):
    calls[0] += 1.0
    return v


@unpython.type('ndarray[int64,1]', 'int64', 'int64', 'int64', 'bool')
def chain_calls_once(calls, a, b, c):
    # The middle call runs once; the last one only when the first comparison holds.
    return a < counted(calls, b) < counted(calls, c)


@unpython.type('ndarray[int64,1]', 'int64')
def bump_first(x):
    x[0] += 1
    return x[0]


@unpython.type('ndarray[int64,1]', 'int64', 'bool')
def chain_reads_before_call(x, a):
    # x[0] is read once, before bump_first changes it: always x[0] < x[0] + 1.
    return a <= x[0] < bump_first(x)


@unpython.type('int64', 'int64', 'int64', 'bool')
def chain_stops_before_division(a, b, c):
    return a < b < 100 // c


@unpython.type('int64', 'bool')
def chain_division_in_the_middle(i):
    return 0 < 10 // i <= 5 != i


@unpython.type('int64', 'int64')
def and_guards_division(a):
    return a and 10 // a


@unpython.type('ndarray[float64,1]', 'float64', 'float64', 'float64')
def or_calls_once(calls, a, b):
    return counted_f64(calls, a) or counted_f64(calls, b)


@unpython.type('ndarray[int64,1]', 'int64', 'int64', 'int64')
def and_calls_once(calls, a, b):
    return counted(calls, a) and counted(calls, b)


@unpython.type('int64', 'int64', 'float64', 'float64')
def nested_and_or(a, b, c):
    return (a and b) or (c and a) or -1.5
