"""Scalar semantics (SPEC section 3), interpreter vs compiled: arithmetic of every operator and
dtype with edge values, NEP 50 promotion and result dtypes, comparisons, boolean operators,
conditional expressions, casts, overflow, division by zero, calls between compiled functions.

The interpreter runs on NumPy scalars of the declared types, so that it computes what the typed
program means (Python ints would not wrap); division by zero of integers is checked with Python
ints, where the interpreter raises."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from npstrategies import scalars

SETTINGS = settings(max_examples=40, deadline=None)

i64, i32, i16, i8 = np.int64, np.int32, np.int16, np.int8
u64, u8, f64, f32, b_ = np.uint64, np.uint8, np.float64, np.float32, np.bool_

# func, then the dtype of each parameter; divisions exclude a zero integer divisor (see below),
# integer powers a negative or huge exponent (see test_integer_power).
BINARY = [
    ("add_i64", i64, i64), ("sub_i64", i64, i64), ("mul_i64", i64, i64),
    ("bitops_i64", i64, i64),
    ("add_f64", f64, f64), ("sub_f64", f64, f64), ("mul_f64", f64, f64),
    ("truediv_f64", f64, f64), ("floordiv_f64", f64, f64), ("mod_f64", f64, f64),
    ("pow_f64", f64, f64),
    ("add_f32", f32, f32), ("truediv_f32", f32, f32), ("floordiv_f32", f32, f32),
    ("mod_f32", f32, f32), ("pow_f32", f32, f32), ("f32_times_f32_literal", f32, f32),
    ("add_i32", i32, i32), ("mul_i32", i32, i32), ("add_u8", u8, u8), ("sub_u8", u8, u8),
    ("mul_u8", u8, u8), ("sub_u64", u64, u64), ("mul_i16", i16, i16),
    ("mix_i32_f32", i32, f32), ("mix_i16_f32", i16, f32), ("mix_i64_f32", i64, f32),
    ("mix_u64_i64", u64, i64), ("mix_i32_i64", i32, i64), ("mix_u8_i8", u8, i8),
    ("mix_f32_f64", f32, f64), ("bool_arith", b_, b_),
    ("sub_bool_i32", b_, i32), ("mul_bool_f32", b_, f32), ("add_u8_bool", u8, b_),
    ("minmax_i8_bool", i8, b_),
    ("chain_mixed_ops", i64, i64), ("cmp_i64_u64", i64, u64), ("eq_i64_u64", i64, u64),
    ("cmp_int_float", i64, f64), ("all_compares", f64, f64),
    ("and_ints", i64, i64), ("or_ints", i64, i64), ("and_bools", b_, b_), ("not_ops", i64, i64),
    ("ifexp", i64, i64),
]
DIVISIONS = [("truediv_i64", i64), ("floordiv_i64", i64), ("mod_i64", i64),
             ("truediv_i32", i32), ("floordiv_i32", i32), ("mod_i32", i32),
             ("floordiv_i8", i8), ("floordiv_u64", u64)]
UNARY = [("neg_i64", i64), ("pos_i64", i64), ("invert_i64", i64), ("neg_f64", f64),
         ("pos_f64", f64), ("neg_i8", i8), ("literal_mix_i64", i64), ("literal_f32", f32),
         ("int_literal_f32", f32), ("local_literal_f32", f32), ("literal_i32", i32),
         ("literal_u8", u8), ("int_plus_float_literal", i64), ("i32_truediv_literal", i32),
         ("wrap_i64", i64), ("wrap_i32_loop", i32), ("ifexp_nested", i64),
         ("shortcircuit", i64), ("bool_of_float", f64), ("bool_of_int", i64),
         ("float_of_int", i64), ("f32_of_f64", f64), ("i32_of_i64", i64), ("u8_of_i64", i64),
         ("f64_of_f32", f32), ("int_of_bool", b_), ("square", f64)]


def _fixed_values(dtype):
    """Hand-picked operands: signs, zero, and the edges of the range."""
    if np.dtype(dtype).kind == "f":
        big = np.finfo(dtype).max
        return [dtype(v) for v in (7.5, -7.5, 2.0, -2.0, 0.0, -0.0, big, -big, np.inf, np.nan)]
    if np.dtype(dtype).kind == "b":
        return [dtype(False), dtype(True)]
    info = np.iinfo(dtype)
    values = [7, 2, 1, 0, info.max, info.min] + ([-7, -2, -1] if info.min < 0 else [])
    return [dtype(v) for v in values]


@pytest.mark.parametrize("func, ta, tb", BINARY)
def test_binary_fixed_operands(arith_kernels, func, ta, tb):
    for a in _fixed_values(ta):
        for b in _fixed_values(tb):
            arith_kernels.check(func, a, b)


@pytest.mark.parametrize("func, ta, tb", BINARY)
def test_binary_random_operands(arith_kernels, func, ta, tb):
    @SETTINGS
    @given(scalars(ta), scalars(tb))
    def run(a, b):
        arith_kernels.check(func, a, b)
    run()


@pytest.mark.parametrize("func, t", DIVISIONS)
def test_integer_division_floors(arith_kernels, func, t):
    """`//` and `%` floor toward minus infinity; `/` of integers is float64."""
    @SETTINGS
    @given(scalars(t), scalars(t).filter(lambda b: b != 0))
    def run(a, b):
        arith_kernels.check(func, a, b)
    run()
    signed = np.dtype(t).kind == "i"
    for a, b in [(7, 2), (7, 3), (1, 5)] + ([(-7, 2), (7, -2), (-7, -2), (-1, 5)] if signed else []):
        arith_kernels.check(func, t(a), t(b))


def test_floor_semantics_spelled_out(arith_kernels):
    c = arith_kernels.compiled
    assert (c.floordiv_i64(-7, 2), c.mod_i64(-7, 2)) == (-4, 1)
    assert (c.floordiv_i64(7, -2), c.mod_i64(7, -2)) == (-4, -1)
    assert (c.floordiv_f64(-7.0, 2.0), c.mod_f64(-7.0, 2.0)) == (-4.0, 1.0)
    assert (c.floordiv_f64(7.5, -2.0), c.mod_f64(7.5, -2.0)) == (-4.0, -0.5)
    assert c.truediv_i64(7, 2) == 3.5 and type(c.truediv_i64(7, 2)) is float
    assert c.pow_i64(3, 4) == 81 and type(c.pow_i64(3, 4)) is int


@pytest.mark.parametrize("func, t", DIVISIONS)
def test_integer_division_by_zero_raises(arith_kernels, func, t):
    """The interpreter with Python ints raises ZeroDivisionError; so does the compiled code."""
    for a in (7, 0, -7) if np.dtype(t).kind == "i" else (7, 0):
        error = arith_kernels.check(func, a, 0)
        assert isinstance(error, ZeroDivisionError)


@pytest.mark.parametrize("func, t", [("truediv_f64", f64), ("floordiv_f64", f64),
                                     ("mod_f64", f64), ("truediv_f32", f32),
                                     ("floordiv_f32", f32), ("mod_f32", f32)])
def test_float_division_by_zero_is_ieee(arith_kernels, func, t):
    """As NumPy scalars do: inf, -inf or nan, no exception."""
    for a in (1.5, -1.5, 0.0, -0.0, np.inf, np.nan):
        for b in (0.0, -0.0):
            result = arith_kernels.check(func, t(a), t(b))
            assert not isinstance(result, Exception)


def test_integer_power(arith_kernels):
    """`**` of integers stays an integer for exponents >= 0 (wrapping on overflow); a negative
    exponent raises ValueError as NumPy does."""
    @SETTINGS
    @given(scalars(i64, min_value=-20, max_value=20), scalars(i64, min_value=0, max_value=70))
    def run(a, b):
        result = arith_kernels.check("pow_i64", a, b)
        assert type(result) is int
    run()
    for a, b in [(2, 62), (2, 63), (2, 64), (-3, 41), (0, 0), (-1, 10**12 + 1), (7, 0)]:
        arith_kernels.check("pow_i64", i64(a), i64(b))
    error = arith_kernels.check("pow_i64", i64(2), i64(-1))
    assert isinstance(error, ValueError)


def test_power_with_literals(arith_kernels):
    for a in (0, 1, 5, 62):
        arith_kernels.check("const_pow_i64", i64(a))
    arith_kernels.check("pow_f64_i64", f64(2.0), i64(-2))
    arith_kernels.check("pow_f64_i64", f64(-1.5), i64(3))


@pytest.mark.parametrize("func, t", UNARY)
def test_unary_and_literal_expressions(arith_kernels, func, t):
    for a in _fixed_values(t):
        arith_kernels.check(func, a)

    @SETTINGS
    @given(scalars(t))
    def run(a):
        arith_kernels.check(func, a)
    run()


def test_shifts(arith_kernels):
    @SETTINGS
    @given(scalars(i64), scalars(i64, min_value=0, max_value=63))
    def run(a, b):
        arith_kernels.check("shifts_i64", a, b)
    run()


def test_nep50_result_dtypes(arith_kernels):
    """The compiled results have the dtypes NumPy 2 gives the same scalars."""
    c = arith_kernels.compiled
    assert type(c.literal_f32(f32(1.5))) is np.float32          # float32 * 0.1 stays float32
    assert type(c.int_literal_f32(f32(1.5))) is np.float32
    assert type(c.add_f32(f32(1), f32(2))) is np.float32
    assert type(c.mix_i16_f32(i16(3), f32(2))) is np.float32
    assert type(c.truediv_i32(i32(3), i32(2))) is float          # int / int is float64
    assert type(c.add_i32(i32(3), i32(2))) is np.int32
    assert type(c.literal_u8(u8(100))) is np.uint8 and c.literal_u8(u8(100)) == 44
    assert type(c.add_i64(3, 2)) is int and type(c.add_f64(3.0, 2.0)) is float
    assert type(c.chain_lt(1.0, 2.0, 3.0)) is bool


def test_numpy_bool_takes_the_number_dtype(arith_kernels):
    """An element of a bool array (np.bool_) with an int32 or float32 one computes in int32 or
    float32, as NumPy 2 does (fuzz finding 2): int32 wraps where int64 would not, float32
    rounds where float64 would not."""
    for a, b in [([False, True], [40000, 70000]), ([True, True], [-3, 2 ** 31 - 1])]:
        arith_kernels.check("bool_i32_elements", np.array(a), np.array(b, np.int32),
                            np.zeros(2, np.int32))
    out = np.zeros(2, np.int32)
    arith_kernels.compiled.bool_i32_elements(np.array([False, True]),
                                             np.array([40000, 70000], np.int32), out)
    assert out[0] == 557842432 and out[1] == (70000 * 65536 + 2 ** 31) % 2 ** 32 - 2 ** 31
    for a, b in [([True], [1.1]), ([True, False, True], [1.1, 0.3, 2.7]),
                 ([False, True, True, True], [0.1, 0.7, 1.3, 3.3])]:
        arith_kernels.check("bool_f32_elements", np.array(a), np.array(b, np.float32))
    assert type(arith_kernels.compiled.bool_f32_elements(
        np.array([True]), np.array([1.1], np.float32))) is np.float32
    c = arith_kernels.compiled
    assert type(c.sub_bool_i32(b_(True), i32(1))) is np.int32
    assert type(c.mul_bool_f32(b_(True), f32(2))) is np.float32
    assert c.add_u8_bool(u8(255), b_(True)) == 0
    # What NumPy itself gives these scalars.
    assert (b_(True) - i32(1)).dtype == np.int32 and (b_(True) * f32(2)).dtype == np.float32
    assert (u8(1) + b_(True)).dtype == np.uint8 == np.result_type(np.uint8, np.bool_)


def test_two_numpy_bools_follow_numpy(arith_kernels):
    """`m[0] + m[1]` of a bool array is a bool in NumPy (True + True is True, so times 5 is
    5), a Python-bool local plus itself is 2."""
    for m in ([True, True], [True, False], [False, False], [False, True]):
        out = arith_kernels.check("two_bools", np.array(m), np.zeros(5, np.int64))
    out = np.zeros(5, np.int64)
    arith_kernels.compiled.two_bools(np.array([True, True]), out)
    assert list(out) == [1, 1, 5, 2, 1]


def test_chained_comparison(arith_kernels):
    @SETTINGS
    @given(scalars(f64), scalars(f64), scalars(f64))
    def run(a, b, c):
        arith_kernels.check("chain_lt", a, b, c)
    run()
    for args in [(1, 2, 2), (2, 2, 2), (1, 2, 1), (3, 2, 1)]:
        arith_kernels.check("chain_mixed_ops", *map(i64, args))


def test_and_or_return_an_operand(arith_kernels):
    """Python's `and`/`or` return one of their operands, not a bool."""
    c = arith_kernels.compiled
    assert c.and_ints(3, 5) == 5 and c.and_ints(0, 5) == 0 and c.and_ints(3, 0) == 0
    assert c.or_ints(0, 5) == 5 and c.or_ints(3, 5) == 3 and c.or_ints(0, 0) == 0
    for args in [(0.0, 0.0, 2.5), (0.0, -1.0, 2.5), (1.5, 0.0, 0.0), (0.0, np.nan, 1.0),
                 (-0.0, 0.0, -0.0)]:
        arith_kernels.check("or_chain_floats", *map(f64, args))
    for args in [(0, 5, 7), (3, 0, 7), (3, 5, 7), (0, 0, 0)]:
        arith_kernels.check("and_or_ints", *map(i64, args))


def test_or_of_int_and_float_promotes(arith_kernels):
    """`a or b` of an int and a float: the interpreter returns the operand itself (an int or a
    float); compiled code has one static type, the promoted float64, with the same value."""
    for a, b in [(0, 2.5), (3, 2.5), (0, 0.0), (-4, 1.0)]:
        arith_kernels.check("or_int_float", i64(a), f64(b), check_dtype=False)
        assert type(arith_kernels.compiled.or_int_float(a, b)) is float


def test_short_circuit_skips_the_division(arith_kernels):
    assert arith_kernels.compiled.shortcircuit(0) is False
    assert arith_kernels.compiled.shortcircuit(10) is True


def test_ifexp_promotes_branches(arith_kernels):
    for a, b in [(3, 1.5), (1, 2.5), (-1, -1.0)]:
        arith_kernels.check("ifexp_mixed", i64(a), f64(b), check_dtype=False)


@pytest.mark.parametrize("value", [2.7, -2.7, 0.5, -0.5, 1e18, -0.0, 9.2e18])
def test_int_of_float_truncates(arith_kernels, value):
    arith_kernels.check("int_of_float", value)


@pytest.mark.parametrize("value, error", [(np.nan, ValueError), (np.inf, OverflowError),
                                          (-np.inf, OverflowError), (1e19, OverflowError)])
def test_int_of_float_errors(arith_kernels, value, error):
    """int() of nan or infinity raises as in Python (a value out of int64 range too: Python would
    give a big int, which compiled code cannot hold)."""
    with pytest.raises(error):
        arith_kernels.compiled.int_of_float(value)


def test_overflow_wraps(arith_kernels):
    c = arith_kernels.compiled
    assert c.add_i64(2**63 - 1, 1) == -2**63
    assert c.mul_i64(2**62, 4) == 0
    assert c.neg_i64(-2**63) == -2**63
    assert c.add_i32(2**31 - 1, 1) == -2**31
    assert c.sub_u8(0, 1) == 255
    assert c.floordiv_i64(-2**63, -1) == -2**63
    assert c.mod_i64(-2**63, -1) == 0


def test_calls_between_compiled_functions(arith_kernels):
    for a, b in [(3.0, 4.0), (-1.5, 0.0), (1e200, 1e200)]:
        arith_kernels.check("hypot_by_calls", f64(a), f64(b))
    for n in range(12):
        arith_kernels.check("fib", i64(n))
    # The argument converts to the parameter's float64 (the interpreter's square() gets int32).
    arith_kernels.check("call_widens_argument", i32(-7), check_dtype=False)
    for n in (1, 6, 27, 97):
        arith_kernels.check("collatz_steps", i64(n))
    for a, b in [(12, 18), (17, 5), (0, 9), (-12, 18)]:
        arith_kernels.check("gcd", i64(a), i64(b))


def test_bool_arithmetic_counts_true_as_one(arith_kernels):
    """Python bools are ints in arithmetic (True + True == 2)."""
    assert arith_kernels.compiled.bool_arith(True, True) == 3
    arith_kernels.check("bool_arith", True, True)


def test_names_that_are_cpp_keywords(arith_kernels):
    for args in [(1, 2, 0.5), (-3, 7, 2.0)]:
        arith_kernels.check("reserved_names", *args)


def test_python_ints_compare_by_value_with_sized_integers(arith_kernels):
    """`np.uint8(44) == 300` is False in NumPy 2 (300 is not wrapped to 44)."""
    for a in (0, 44, 255):
        arith_kernels.check("u8_eq_300", u8(a))
    for a in (0, 2**64 - 1):
        arith_kernels.check("u64_lt_minus_one", u64(a))
    for a, n in [(5, 300), (127, 129), (-128, 0), (3, 4)]:
        arith_kernels.check("i8_lt_python_int", i8(a), n)


def test_chain_evaluates_a_called_middle_operand_once(arith_kernels):
    """A chain calls each compiled function once, and the last only when needed (the calls are
    counted in the array argument)."""
    for a, b, c in [(1, 2, 3), (1, 2, 2), (3, 2, 5), (2, 2, 9)]:
        calls = np.zeros(1, np.int64)
        result = arith_kernels.check("chain_calls_once", calls, *map(i64, (a, b, c)))
        assert result == (a < b < c)
    for a in (-5, 0, 5):
        arith_kernels.check("chain_reads_before_call", np.array([0], np.int64), i64(a))


def test_chain_short_circuits_and_raises_as_python(arith_kernels):
    assert arith_kernels.compiled.chain_stops_before_division(5, 1, 0) is False
    for a, b, c in [(5, 1, 0), (1, 5, 0), (1, 5, 3), (1, 50, 3)]:
        arith_kernels.check("chain_stops_before_division", a, b, c)   # Python ints raise
    for i in range(-3, 12):
        arith_kernels.check("chain_division_in_the_middle", i)


def test_value_returning_and_or_evaluate_each_operand_once(arith_kernels):
    for a in (0, 3, -4, 20):
        arith_kernels.check("and_guards_division", a)
    for a, b in [(0.0, 2.5), (-0.0, 0.0), (1.5, 2.5), (np.nan, 1.0), (0.0, np.nan)]:
        arith_kernels.check("or_calls_once", np.zeros(1), f64(a), f64(b))
    for a, b in [(0, 2), (3, 0), (3, 4)]:
        arith_kernels.check("and_calls_once", np.zeros(1, np.int64), i64(a), i64(b))
    for a, b, c in [(0, 0, 0.0), (0, 5, 2.0), (2, 0, 0.0), (2, 3, 1.0), (0, 0, 3.0)]:
        arith_kernels.check("nested_and_or", i64(a), i64(b), f64(c), check_dtype=False)
