"""Math functions, interpreter vs compiled: math.* computes in double precision and raises
ValueError/OverflowError where Python's math module does; numpy.* keeps NumPy's dtypes and
returns inf/nan; abs/min/max follow Python (min/max keep the first of equal or unordered
operands)."""
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from npstrategies import scalars

SETTINGS = settings(max_examples=40, deadline=None)
f64, f32, i64 = np.float64, np.float32, np.int64

SPECIAL = [0.0, -0.0, 0.5, -0.5, 1.0, -1.0, 2.0, -3.7, 20.0, 700.0, 710.0, -750.0, 1e308,
           -1e308, 5e-324, np.inf, -np.inf, np.nan]
MATH_UNARY = ["math_sqrt", "math_exp", "math_log", "math_log10", "math_sin", "math_cos",
              "math_tan", "math_asin", "math_acos", "math_atan", "math_sinh", "math_cosh",
              "math_tanh", "math_fabs", "math_floor", "math_ceil", "imported_sqrt"]
MATH_BINARY = ["math_atan2", "math_pow", "math_hypot"]


def check_math(kernels, func, x):
    """math.floor/ceil give Python ints of any size; compiled code gives an int64 and raises
    OverflowError (as int() of infinity does) where the value does not fit, never a wrong value."""
    if func in ("math_floor", "math_ceil") and math.isfinite(x) and \
            not -2**63 <= getattr(math, func[5:])(x) < 2**63:
        with pytest.raises(OverflowError):
            getattr(kernels.compiled, func)(x)
        return
    kernels.check(func, x)


@pytest.mark.parametrize("func", MATH_UNARY)
def test_math_unary(mathfuncs_kernels, func):
    """Same value (the same libm), and the same exception where Python's math module raises:
    ValueError for a domain error (sqrt(-1), log(0), sin(inf)), OverflowError for a finite
    argument with an infinite result (exp(710))."""
    for x in SPECIAL:
        check_math(mathfuncs_kernels, func, x)

    @SETTINGS
    @given(st.floats())
    def run(x):
        check_math(mathfuncs_kernels, func, x)
    run()


@pytest.mark.parametrize("func", MATH_BINARY)
def test_math_binary(mathfuncs_kernels, func):
    # CPython computes math.hypot with its own algorithm (correctly rounded); C's hypot may
    # differ from it in the last bit. Every other function must agree exactly.
    rtol = 2 * np.finfo(np.float64).eps if func == "math_hypot" else 0.0
    for x in [0.0, -0.0, 1.0, -2.0, 0.5, 1e308, np.inf, -np.inf, np.nan]:
        for y in [0.0, -0.0, 1.0, -1.0, 2.0, 0.5, 1e308, 400.0, np.inf, -np.inf, np.nan]:
            mathfuncs_kernels.check(func, x, y, rtol=rtol)

    @SETTINGS
    @given(st.floats(), st.floats())
    def run(x, y):
        mathfuncs_kernels.check(func, x, y, rtol=rtol)
    run()


def test_math_errors_spelled_out(mathfuncs_kernels):
    c = mathfuncs_kernels.compiled
    with pytest.raises(ValueError, match="math domain error"):
        c.math_sqrt(-1.0)
    with pytest.raises(ValueError):
        c.math_log(0.0)
    with pytest.raises(OverflowError):
        c.math_exp(1000.0)
    with pytest.raises(ValueError):
        c.math_floor(np.nan)
    with pytest.raises(OverflowError):
        c.math_ceil(np.inf)
    assert c.math_floor(-2.5) == -3 and type(c.math_floor(-2.5)) is int


# CPython computes math.gamma and math.lgamma with its own approximations; compiled code calls the
# C library's tgamma and lgamma, which differ from them in the last digits (measured: 12 units in
# the last place, 3e-15 absolute where lgamma is near 0, more for subnormal results).
GAMMA_RTOL = 64 * np.finfo(np.float64).eps
GAMMA_POINTS = [-2.0, -3.0, -2.5, -170.5, -171.5, -200.5, 1.5, 3.0, 171.6, 172.0, 200.0, 1e-320,
                -1e-320, 2.5e305, 1e-300, -1e-300]


@pytest.mark.parametrize("func", ["math_erf", "math_erfc", "math_gamma", "math_lgamma",
                                  "imported_erf"])
def test_math_special_functions(mathfuncs_kernels, func):
    """erf and erfc are the C library's in both (the same values, never an error); gamma and
    lgamma raise as CPython does: ValueError at the poles (0, -0.0, the negative integers) and
    for gamma(-inf), OverflowError where a finite argument gives an infinite result."""
    rtol = GAMMA_RTOL if "gamma" in func else 0.0
    for x in SPECIAL + GAMMA_POINTS:
        mathfuncs_kernels.check(func, x, rtol=rtol)

    @SETTINGS
    @given(st.floats())
    def run(x):
        mathfuncs_kernels.check(func, x, rtol=rtol)
    run()


def test_gamma_errors_spelled_out(mathfuncs_kernels):
    c = mathfuncs_kernels.compiled
    for x in [0.0, -0.0, -1.0, -4.0, -1e308, -np.inf]:
        with pytest.raises(ValueError, match="math domain error"):
            c.math_gamma(x)
    for x in [172.0, 200.0, 1e308, 1e-320]:
        with pytest.raises(OverflowError, match="math range error"):
            c.math_gamma(x)
    for x in [0.0, -0.0, -1.0, -2.0, -1e308]:
        with pytest.raises(ValueError, match="math domain error"):
            c.math_lgamma(x)
    with pytest.raises(OverflowError, match="math range error"):
        c.math_lgamma(1e308)
    assert c.math_lgamma(-np.inf) == np.inf and c.math_gamma(np.inf) == np.inf
    assert c.math_gamma(5.0) == 24.0 and c.math_erfc(np.inf) == 0.0


def test_gamma_in_prange(mathfuncs_kernels):
    """The errors of a prange raise after it, as for the other math functions."""
    x = np.concatenate([np.linspace(-5.5, 40.0, 200), [171.0, 0.5]])
    mathfuncs_kernels.check("gamma_in_prange", x, np.zeros_like(x), rtol=GAMMA_RTOL)
    for bad, error in [(-3.0, ValueError), (0.0, ValueError), (180.0, OverflowError)]:
        y = x.copy()
        y[77] = bad
        with pytest.raises(error):
            mathfuncs_kernels.compiled.gamma_in_prange(y, np.zeros_like(y))
        mathfuncs_kernels.check("gamma_in_prange", y, np.zeros_like(y))


def test_math_result_into_float32(mathfuncs_kernels):
    """math.* gives a Python float, weak in NEP 50 (SPEC section 2): a float32 return value or
    variable takes it rounded to float32 (as `np.float32(math.sqrt(x))`), and arithmetic with a
    float32 operand stays float32, as in the interpreter."""
    c = mathfuncs_kernels.compiled
    for x in [f32(0.5), f32(2.0), f32(1e-3), f32(3e38), f32(0.0)]:
        got = c.math_sqrt_into_f32(x)
        assert type(got) is f32 and got == f32(math.sqrt(x))
        mathfuncs_kernels.check("f32_times_math", x)
    for x in [f32(0.5), f32(-20.0), f32(88.0)]:
        got = c.math_into_f32_local(x)
        assert type(got) is f32 and got == f32(math.exp(x))
    with pytest.raises(OverflowError):
        c.math_into_f32_local(f32(1000.0))

    @SETTINGS
    @given(scalars(f32))
    def run(x):
        mathfuncs_kernels.check("f32_times_math", x)
    run()


def test_math_of_other_types(mathfuncs_kernels):
    for n in [0, 1, 2, 17, 2**53 + 1]:
        mathfuncs_kernels.check("math_sqrt_of_int", n)
    for x in [f32(0.5), f32(-3.25), f32(88.0)]:
        mathfuncs_kernels.check("math_exp_of_f32", x)


@pytest.mark.parametrize("func, t", [("np_f64", f64), ("np_f32", f32), ("np_sqrt_f64", f64),
                                     ("np_exp_f64", f64), ("np_log_f64", f64),
                                     ("np_sqrt_f32", f32), ("np_exp_f32", f32),
                                     ("np_sin_f32", f32), ("np_rounding_f64", f64),
                                     ("np_rounding_f32", f32), ("np_absolute_f64", f64)])
def test_numpy_unary(mathfuncs_kernels, func, t):
    """NumPy's own SIMD implementations may differ from libm in the last bits: compared within a
    few units in the last place; the dtype must be exactly NumPy's (float32 stays float32)."""
    rtol = 4 * np.finfo(t).eps
    with np.errstate(over="ignore"):        # 1e308 becomes inf in float32
        values = [t(x) for x in SPECIAL + [0.25, -0.25, 0.999]]
    for x in values:
        mathfuncs_kernels.check(func, x, rtol=rtol)

    @SETTINGS
    @given(scalars(t))
    def run(x):
        mathfuncs_kernels.check(func, x, rtol=rtol)
    run()


@pytest.mark.parametrize("func, t", [("np_two_args", f64), ("np_two_args_f32", f32)])
def test_numpy_binary(mathfuncs_kernels, func, t):
    """np.power(-inf, 0.5) is nan in NumPy's AVX-512 power (SVML), inf in C99, in Python's
    math.pow and in NumPy on other CPUs: compiled code follows C99, so -inf is left out here."""
    rtol = 4 * np.finfo(t).eps

    @SETTINGS
    @given(scalars(t).filter(lambda x: x != -np.inf), scalars(t))
    def run(x, y):
        mathfuncs_kernels.check(func, x, y, rtol=rtol)
    run()
    assert mathfuncs_kernels.compiled.np_two_args(-np.inf, 0.5) == np.inf


def test_numpy_of_integers(mathfuncs_kernels):
    for n in [0, 1, 4, 17, -4, 2**62]:
        mathfuncs_kernels.check("np_sqrt_of_i64", i64(n), rtol=1e-15)
        mathfuncs_kernels.check("np_fabs_of_i64", i64(n))
        # int64 from NumPy 2.3 on, float64 before: the value is what matters here.
        mathfuncs_kernels.check("np_floor_of_i64", i64(n), check_dtype=False)
    for n in [0, 4, 300, -3]:
        mathfuncs_kernels.check("np_sqrt_of_i16", np.int16(n), rtol=1e-6)
    for a, b in [(2, 10), (-3, 3), (5, 0), (2, 64)]:
        mathfuncs_kernels.check("np_power_ints", i64(a), i64(b))
    assert isinstance(mathfuncs_kernels.check("np_power_ints", i64(2), i64(-1)), ValueError)
    for a in [-128, -1, 0, 127]:
        mathfuncs_kernels.check("np_abs_i8", np.int8(a))


@pytest.mark.parametrize("func, t", [("abs_i64", i64), ("abs_f64", f64), ("abs_f32", f32),
                                     ("abs_i32", np.int32)])
def test_abs(mathfuncs_kernels, func, t):
    @SETTINGS
    @given(scalars(t))
    def run(x):
        mathfuncs_kernels.check(func, x)
    run()


@pytest.mark.parametrize("func, t, n", [("min2_f64", f64, 2), ("max2_f64", f64, 2),
                                        ("min3_i64", i64, 3), ("max3_i64", i64, 3),
                                        ("min_i32", np.int32, 2), ("max_f32", f32, 2),
                                        ("clamp", f64, 2)])
def test_min_max(mathfuncs_kernels, func, t, n):
    """Python's min/max: the first of equal or unordered operands wins (min(nan, 1) is nan,
    min(1, nan) is 1; min(0.0, -0.0) is 0.0)."""
    if np.dtype(t).kind == "f":
        for a in [0.0, -0.0, 1.0, np.nan]:
            for b in [0.0, -0.0, -1.0, np.nan]:
                mathfuncs_kernels.check(func, t(a), t(b))

    @SETTINGS
    @given(st.tuples(*[scalars(t)] * n))
    def run(args):
        mathfuncs_kernels.check(func, *args)
    run()


def test_min_of_int_and_float(mathfuncs_kernels):
    """Python's min returns the operand itself (int or float); compiled code returns the
    promoted float64 of the same value."""
    for a, b in [(1, 2.5), (3, 2.5), (2, 2.0)]:
        mathfuncs_kernels.check("min_mixed", i64(a), f64(b), check_dtype=False)
        assert type(mathfuncs_kernels.compiled.min_mixed(a, b)) is float


def test_math_errors_inside_loops(mathfuncs_kernels):
    k = mathfuncs_kernels
    ok = np.linspace(0.5, 3.0, 40)
    k.check("sum_sqrt", ok, rtol=1e-15)
    k.check("first_sqrt_in_loop", ok)
    for bad_at in (0, 17, 39):
        bad = ok.copy()
        bad[bad_at] = -1.0
        with pytest.raises(ValueError, match="math domain error"):
            k.compiled.sum_sqrt(bad)
        k.check("sum_sqrt", bad)         # the interpreter raises the same error
    # A return inside the loop checks the loop's errors first.
    bad = ok.copy()
    bad[:3] = [-1.0, 4.0, 9.0]
    k.check("first_sqrt_in_loop", bad)
    grid = np.full((6, 5), 0.5)
    k.check("row_log_sums", grid, np.zeros(6), rtol=1e-14)
    for value, error in ((0.0, ValueError), (800.0, OverflowError)):
        g = grid.copy()
        g[4, 2] = value
        with pytest.raises(error):
            k.compiled.row_log_sums(g, np.zeros(6))
        k.check("row_log_sums", g, np.zeros(6))
