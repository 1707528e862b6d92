"""Math functions of compiled code (SPEC section 3): math.* (double precision, Python's errors),
numpy.* (NumPy's dtypes), abs/min/max. Reference: the same functions under the interpreter
(tests/differential/test_math.py)."""
import math
from math import erf, sqrt

import numpy as np
import unpython
from unpython import prange


# --- math.*: float64 in, Python float out, ValueError/OverflowError as Python raises ----------

@unpython.type('float64', 'float64')
def math_sqrt(x):
    return math.sqrt(x)


@unpython.type('float64', 'float64')
def math_exp(x):
    return math.exp(x)


@unpython.type('float64', 'float64')
def math_log(x):
    return math.log(x)


@unpython.type('float64', 'float64')
def math_log10(x):
    return math.log10(x)


@unpython.type('float64', 'float64')
def math_sin(x):
    return math.sin(x)


@unpython.type('float64', 'float64')
def math_cos(x):
    return math.cos(x)


@unpython.type('float64', 'float64')
def math_tan(x):
    return math.tan(x)


@unpython.type('float64', 'float64')
def math_asin(x):
    return math.asin(x)


@unpython.type('float64', 'float64')
def math_acos(x):
    return math.acos(x)


@unpython.type('float64', 'float64')
def math_atan(x):
    return math.atan(x)


@unpython.type('float64', 'float64')
def math_sinh(x):
    return math.sinh(x)


@unpython.type('float64', 'float64')
def math_cosh(x):
    return math.cosh(x)


@unpython.type('float64', 'float64')
def math_tanh(x):
    return math.tanh(x)


@unpython.type('float64', 'float64')
def math_fabs(x):
    return math.fabs(x)


@unpython.type('float64', 'int64')
def math_floor(x):
    return math.floor(x)


@unpython.type('float64', 'int64')
def math_ceil(x):
    return math.ceil(x)


@unpython.type('float64', 'float64', 'float64')
def math_atan2(y, x):
    return math.atan2(y, x)


@unpython.type('float64', 'float64', 'float64')
def math_pow(x, y):
    return math.pow(x, y)


@unpython.type('float64', 'float64', 'float64')
def math_hypot(x, y):
    return math.hypot(x, y)


@unpython.type('int64', 'float64')
def math_sqrt_of_int(n):
    return math.sqrt(n)


@unpython.type('float32', 'float64')
def math_exp_of_f32(x):
    return math.exp(x)


@unpython.type('float64', 'float64')
def imported_sqrt(x):
    return sqrt(x) + sqrt(2.0)


@unpython.type('float64', 'float64')
def math_erf(x):
    return math.erf(x)


@unpython.type('float64', 'float64')
def math_erfc(x):
    return math.erfc(x)


@unpython.type('float64', 'float64')
def math_gamma(x):
    return math.gamma(x)


@unpython.type('float64', 'float64')
def math_lgamma(x):
    return math.lgamma(x)


@unpython.type('float64', 'float64')
def imported_erf(x):
    return erf(x) + erf(0.5)


@unpython.type('ndarray[float64, 1]', 'ndarray[float64, 1]', None)
def gamma_in_prange(x, out):
    for i in prange(x.shape[0]):
        out[i] = math.gamma(x[i]) + math.lgamma(x[i])


# --- math.* returns a Python float, weak in NEP 50: float32 stays float32 ------------------------

@unpython.type('float32', 'float32')
def math_sqrt_into_f32(x):
    return math.sqrt(x)


@unpython.type('float32', 'float32')
def f32_times_math(x):
    return x * math.sqrt(2.0) + math.erf(x)


@unpython.locals(y='float32')
@unpython.type('float32', 'float32')
def math_into_f32_local(x):
    y = math.exp(x)
    return y


# --- numpy.*: NumPy's result dtypes, IEEE results instead of exceptions ------------------------

@unpython.type('float64', 'float64')
def np_f64(x):
    return (np.sqrt(x) + np.exp(x) + np.log(x) + np.log10(x) + np.sin(x) + np.cos(x)
            + np.tan(x) + np.arcsin(x) + np.arccos(x) + np.arctan(x) + np.sinh(x) + np.cosh(x)
            + np.tanh(x))


@unpython.type('float32', 'float32')
def np_f32(x):
    return (np.sqrt(x) + np.exp(x) + np.log(x) + np.log10(x) + np.sin(x) + np.cos(x)
            + np.tan(x) + np.arcsin(x) + np.arccos(x) + np.arctan(x) + np.sinh(x) + np.cosh(x)
            + np.tanh(x))


@unpython.type('float64', 'float64')
def np_sqrt_f64(x):
    return np.sqrt(x)


@unpython.type('float64', 'float64')
def np_exp_f64(x):
    return np.exp(x)


@unpython.type('float64', 'float64')
def np_log_f64(x):
    return np.log(x)


@unpython.type('float32', 'float32')
def np_sqrt_f32(x):
    return np.sqrt(x)


@unpython.type('float32', 'float32')
def np_exp_f32(x):
    return np.exp(x)


@unpython.type('float32', 'float32')
def np_sin_f32(x):
    return np.sin(x)


@unpython.type('float64', 'float64')
def np_rounding_f64(x):
    return np.floor(x) * 1000.0 + np.ceil(x) + np.fabs(x)


@unpython.type('float32', 'float32')
def np_rounding_f32(x):
    return np.floor(x) - np.ceil(x) + np.fabs(x)


@unpython.type('float64', 'float64', 'float64')
def np_two_args(x, y):
    return np.arctan2(x, y) + np.hypot(x, y) + np.power(x, y)


@unpython.type('float32', 'float32', 'float32')
def np_two_args_f32(x, y):
    return np.arctan2(x, y) + np.hypot(x, y) + np.power(x, y)


@unpython.type('int64', 'float64')
def np_sqrt_of_i64(n):
    return np.sqrt(n)


@unpython.type('int16', 'float32')
def np_sqrt_of_i16(n):
    return np.sqrt(n)


@unpython.type('int64', 'float64')
def np_floor_of_i64(n):
    return np.floor(n) + np.ceil(n)     # int64 from NumPy 2.3 on, float64 before


@unpython.type('int64', 'float64')
def np_fabs_of_i64(n):
    return np.fabs(n)


@unpython.type('int64', 'int64', 'int64')
def np_power_ints(a, b):
    return np.power(a, b)


@unpython.type('int8', 'int8')
def np_abs_i8(a):
    return np.abs(a)


@unpython.type('float64', 'float64')
def np_absolute_f64(a):
    return np.absolute(a)


# --- abs, min, max --------------------------------------------------------------------------

@unpython.type('int64', 'int64')
def abs_i64(a):
    return abs(a)


@unpython.type('float64', 'float64')
def abs_f64(a):
    return abs(a)


@unpython.type('float32', 'float32')
def abs_f32(a):
    return abs(a)


@unpython.type('int32', 'int32')
def abs_i32(a):
    return abs(a)


@unpython.type('float64', 'float64', 'float64')
def min2_f64(a, b):
    return min(a, b)


@unpython.type('float64', 'float64', 'float64')
def max2_f64(a, b):
    return max(a, b)


@unpython.type('int64', 'int64', 'int64', 'int64')
def min3_i64(a, b, c):
    return min(a, b, c)


@unpython.type('int64', 'int64', 'int64', 'int64')
def max3_i64(a, b, c):
    return max(a, b, c)


@unpython.type('int32', 'int32', 'int32')
def min_i32(a, b):
    return min(a, b)


@unpython.type('float32', 'float32', 'float32')
def max_f32(a, b):
    return max(a, b)


@unpython.type('int64', 'float64', 'float64')
def min_mixed(a, b):
    return min(a, b)


@unpython.type('float64', 'float64', 'float64')
def clamp(x, hi):
    return max(0.0, min(x, hi))


# Math errors inside loops: each loop sums its checks in a local (so it still vectorises) and
# the statement raises afterwards, in sequential and parallel loops alike.
@unpython.type('ndarray[float64, 1]', 'float64')
def sum_sqrt(a):
    s = 0.0
    for i in range(a.shape[0]):
        s += math.sqrt(a[i])
    return s


@unpython.type('ndarray[float64, 2]', 'ndarray[float64, 1]', None)
def row_log_sums(a, out):
    for i in prange(a.shape[0]):
        s = 0.0
        for j in range(a.shape[1]):
            s += math.log(a[i, j]) + math.exp(a[i, j])
        out[i] = s


@unpython.type('ndarray[float64, 1]', 'float64')
def first_sqrt_in_loop(a):
    for i in range(a.shape[0]):
        r = math.sqrt(a[i])
        if r > 1.0:
            return r
    return -1.0
