"""Python forms, interpreter vs compiled (tests/kernels/python_forms.py): module-level numeric
constants read as literals, chained assignment evaluated once and assigned left to right,
`for x in arr` over elements or rows (views), and defaults of compiled functions, from Python
and from other compiled functions."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from diffcheck import assert_ran_on, assert_same
from npstrategies import arrays, scalars

SETTINGS = settings(max_examples=30, deadline=None)
f64, f32 = np.float64, np.float32
RNG = np.random.default_rng(11)


# --- module-level numeric constants -------------------------------------------------------------

@pytest.mark.parametrize("func, t", [("constants_float", f64), ("constants_int", np.int64),
                                     ("constants_keep_float32", f32),
                                     ("constant_assigned_later", f64),
                                     ("constant_hidden_by_a_parameter", np.int64)])
def test_constants(python_forms_kernels, func, t):
    for x in [t(0), t(1), t(-7), t(3)]:
        python_forms_kernels.check(func, x)

    @SETTINGS
    @given(scalars(t))
    def run(x):
        python_forms_kernels.check(func, x)
    run()


def test_constant_float32_stays_float32(python_forms_kernels):
    got = python_forms_kernels.check("constants_keep_float32", f32(1.25))
    assert type(got) is f32


def test_constant_of_math_functions(python_forms_kernels):
    for d in (0.0, 1.5, -3.0, 1e3):
        python_forms_kernels.check("constant_of_math_functions", d)


def test_numpy_scalar_constants_keep_their_dtype(python_forms_kernels):
    x = RNG.random(1001).astype(f32)
    got = python_forms_kernels.check("typed_constants_float32", x)
    assert type(got) is f32
    python_forms_kernels.check("typed_constants_float32", np.zeros(0, f32))
    a = np.full(10, 2 ** 30, np.int32)        # wraps in int32, as the interpreter's sum does
    got = python_forms_kernels.check("typed_constant_int32", a)
    assert type(got) is np.int32
    python_forms_kernels.check("typed_constant_int32", RNG.integers(-9, 9, 50).astype(np.int32))


def test_float_of_strings(python_forms_kernels):
    """float('inf') and the like are Python floats: the float32 result stays float32."""
    got = python_forms_kernels.check("float_of_strings", RNG.random(9), RNG.random(4).astype(f32))
    assert type(got[2]) is f32
    python_forms_kernels.check("float_of_strings", np.zeros(0), np.ones(2, f32))


def test_constant_as_a_size(python_forms_kernels):
    python_forms_kernels.check("constants_as_sizes", RNG.random(11))
    python_forms_kernels.check("constants_as_sizes", np.zeros(0))


# --- chained assignment -------------------------------------------------------------------------

@given(st.floats(allow_nan=False, allow_infinity=False, width=32))
@SETTINGS
def test_chained_scalars(python_forms_kernels, x):
    python_forms_kernels.check("chained_scalars", x)


def test_chained_elements_assign_left_to_right(python_forms_kernels):
    a = np.array([1.0, 0.0, 0.0, 0.0, 9.0])
    python_forms_kernels.check("chained_elements", a, 0)
    a[0] = 3.0                  # k = 4 before a[k] is written
    python_forms_kernels.check("chained_elements", a, 0)


def test_chained_arrays_are_one_array(python_forms_kernels):
    got = python_forms_kernels.check("chained_arrays", 4)
    assert list(got) == [7.0, 8.0, 0.0, 0.0]


def test_chained_literal_into_float32(python_forms_kernels):
    got = python_forms_kernels.compiled.chained_literal_into_float32(f32(2.0))
    assert type(got) is f32 and got == f32(0.75)


# --- for x in arr -------------------------------------------------------------------------------

def test_iterate_elements(python_forms_kernels):
    a = RNG.standard_normal(50)
    for view in (a, a[::-3], a[5:5], a[::-1]):
        python_forms_kernels.check("iterate_sum", view, rtol=1e-15)
        python_forms_kernels.check("loop_variable_after_the_loop", view)


def test_iterate_with_break_and_continue(python_forms_kernels):
    for values in ([1, -2, 3, 400, 5], [-1, -1], [], [7, 8, 9, 101]):
        python_forms_kernels.check("iterate_ints_with_break", np.array(values, np.int64))


@pytest.mark.parametrize("layout", ["C", "F", "steps", "negative"])
def test_iterate_rows_writes_through_the_views(python_forms_kernels, layout):
    m = RNG.standard_normal((6, 5))
    m = {"C": m, "F": np.asfortranarray(m), "steps": m[::2, 1::2],
         "negative": m[::-1, ::-1]}[layout]
    python_forms_kernels.check("iterate_rows", m, np.zeros(m.shape[0]), rtol=1e-15)
    python_forms_kernels.check("iterate_nested", m, rtol=1e-15)


def test_iterate_inside_prange(python_forms_kernels):
    coeffs, x = RNG.standard_normal(7), np.linspace(-2.0, 2.0, 301)
    python_forms_kernels.check("horner_prange", coeffs, x, np.zeros_like(x))
    python_forms_kernels.check("horner_prange", coeffs[::-2], x, np.zeros_like(x))


# --- builtin sum, any, all ----------------------------------------------------------------------

@SETTINGS
@given(arrays(f64, 1, max_side=9, values=st.floats(-4, 4)))
def test_builtin_sum_any_all(python_forms_kernels, a):
    python_forms_kernels.check("builtin_sum", a, rtol=1e-12)
    python_forms_kernels.check("builtin_any_all", a)


@SETTINGS
@given(arrays(np.int64, 1, max_side=9, values=st.integers(-1000, 1000)))
def test_builtin_sum_of_ints(python_forms_kernels, a):
    got = python_forms_kernels.check("builtin_sum_ints", a)
    assert isinstance(got, (int, np.integer))




def test_builtin_sum_of_rows_in_a_prange(python_forms_kernels, device):
    m = RNG.standard_normal((37, 11))
    m[3] = -np.abs(m[3])            # a row with no positive element
    python_forms_kernels.check("builtin_sum_of_rows", m, np.zeros(37), rtol=1e-12)
    python_forms_kernels.check("builtin_sum_of_rows", m[::-2, 1::3], np.zeros(19), rtol=1e-12)
    assert_ran_on(python_forms_kernels, "builtin_sum_of_rows", device)


@SETTINGS
@given(st.floats(-1e3, 1e3), st.integers(-50, 50), st.integers(-6, 6))
def test_pow_and_divmod(python_forms_kernels, x, i, j):
    python_forms_kernels.check("pow_and_divmod", x, i, j, rtol=1e-15)


@SETTINGS
@given(st.floats(-1e12, 1e12) | st.sampled_from([0.5, 1.5, 2.5, -0.5, -2.5, np.inf, np.nan]),
       st.floats(-1e6, 1e6, width=32), st.integers(-2 ** 40, 2 ** 40))
def test_builtin_round(python_forms_kernels, x, y, i):
    """round(x) as Python's: an int, halves to even; inf and nan raise as Python does."""
    got = python_forms_kernels.check("builtin_round", x, f32(y), i)
    assert isinstance(got, (int, OverflowError, ValueError))


def test_builtin_round_in_a_prange(python_forms_kernels, device):
    a = np.concatenate([RNG.standard_normal(40) * 4, [0.5, 1.5, -0.5, -2.5, 0.2, 0.6]])
    python_forms_kernels.check("rounded_in_a_prange", a, np.zeros(a.shape[0], np.int64))
    assert_ran_on(python_forms_kernels, "rounded_in_a_prange", device)


@SETTINGS
@given(arrays(f64, 1, max_side=9, values=st.floats(-4, 4)), st.integers(-12, 12),
       st.integers(-12, 12))
def test_reversed_ranges(python_forms_kernels, a, lo, hi):
    """Every value of reversed(range(...)) in Python's order, empty ranges included, and the
    loop variable's last value after the loop."""
    python_forms_kernels.check("reversed_ranges", a, lo, hi, rtol=1e-15)


@SETTINGS
@given(arrays(f64, 1, max_side=9, values=st.floats(-4, 4)), st.data())
def test_generator_reductions(python_forms_kernels, a, data):
    k = data.draw(arrays(np.int64, 1, min_side=a.shape[0], max_side=a.shape[0],
                         values=st.integers(-8, 8)))
    python_forms_kernels.check("generator_sums", a, k, rtol=1e-12)
    python_forms_kernels.check("generator_min_max", a)      # raises ValueError when empty


@SETTINGS
@given(arrays(f64, 1, max_side=9, values=st.floats(-4, 4)))
def test_builtin_min_max_of_arrays(python_forms_kernels, a):
    python_forms_kernels.check("builtin_min_max_of_arrays", a)   # ValueError when empty


def test_builtin_min_max_keep_pythons_nan_rule(python_forms_kernels):
    """Python's max keeps an item that compares greater: a NaN first stays, a NaN later is
    passed over (np.max would give NaN for both)."""
    nan = np.nan
    for values in ([1.0, nan, 2.0], [nan, 1.0, 2.0], [2.0, 1.0, nan], [-0.0, 0.0]):
        python_forms_kernels.check("builtin_min_max_of_arrays", np.array(values))


def test_generator_reduction_in_a_prange(python_forms_kernels, device):
    m = RNG.standard_normal((29, 13))
    python_forms_kernels.check("generator_in_a_prange", m, np.zeros(29), rtol=1e-12)
    python_forms_kernels.check("generator_in_a_prange", m[::-3, ::2], np.zeros(10), rtol=1e-12)
    assert_ran_on(python_forms_kernels, "generator_in_a_prange", device)


@pytest.mark.parametrize("body, message", [
    ("for x in reversed(a):\n        s += x",
     r"reversed\(\) of an array is not supported.*a\[::-1\]"),
    ("s = sum(x * y for x in a for y in a)",
     "one 'for' is supported here; write the nested loops"),
    ("s = max((x for x in a), default=0.0)",
     r"max\(\) of a generator expression takes no other"),
    ("s = np.trapezoid(a, axis=0)", r"integrates along the last axis here \(axis=-1\)"),
    ("q, r = divmod(a[0], 2.0, 1.0)\n    s = q", r"divmod\(\) takes two numbers"),
    ("s = np.nansum(a, a)", r"np\.nansum\(a, axis=k\) takes one array here"),
    ("s = round(a[0], 2)", r"round\(x, ndigits\) is not supported.*np\.round\(x, ndigits\)"),
    ("s = round(a)", r"round\(\) takes a number here; for arrays use np\.round\(a\)"),
    ("s = np.median(a, axis=0)", r"np\.median\(a\) of a whole array is supported here"),
    ("s = 1.0 if a[0] > 0 else np.nansum(a * 2.0)", "read more than once here: put it in a "
                                                   "variable first"),
])
def test_refusals_of_the_builtin_forms_say_what_to_write(body, message):
    from unpy.errors import CompileError
    import irtools
    source = ("@unpython.type('ndarray[float64, 1]', 'float64')\ndef f(a):\n    s = 0.0\n"
              f"    {body}\n    return s\n")
    with pytest.raises(CompileError, match=message):
        irtools.typed(source)


def test_builtin_sum_of_a_matrix_says_what_to_write():
    from unpy.errors import CompileError
    import irtools
    with pytest.raises(CompileError, match=r"sum\(\) of a 2-D array walks its rows; write "
                                           r"np\.sum\(a, axis=0\)"):
        irtools.typed("""
            @unpython.type('ndarray[float64, 2]', 'float64')
            def f(m):
                return sum(m)
            """)
    with pytest.raises(CompileError, match="a generator expression is not supported in "
                                           "compiled functions except as the argument of"):
        irtools.typed("""
            @unpython.type('ndarray[float64, 1]', 'float64')
            def f(a):
                g = (x * x for x in a)
                return sum(g)
            """)
    with pytest.raises(CompileError, match="inside a conditional expression"):
        irtools.typed("""
            @unpython.type('ndarray[float64, 1]', 'float64')
            def f(a):
                return a[0] if a[0] > 0 else sum(x for x in a)
            """)
    with pytest.raises(CompileError, match="in a while condition"):
        irtools.typed("""
            @unpython.type('ndarray[float64, 1]', 'float64')
            def f(a):
                s = 0.0
                while s < sum(x for x in a):
                    s += 1.0
                return s
            """)


# --- defaults -----------------------------------------------------------------------------------

@pytest.mark.parametrize("args, kwargs", [
    ((1.25,), {}), ((1.25, 3.0), {}), ((1.25,), {"n": 4}), ((1.25,), {"negate": True}),
    ((-2.0, 0.5, 2, True), {}), ((), {"x": 2.0, "alpha": 0.0})])
def test_defaults_from_python(python_forms_kernels, args, kwargs):
    k = python_forms_kernels
    assert_same(k.interpreted.with_defaults(*args, **kwargs),
                k.compiled.with_defaults(*args, **kwargs))


def test_typed_defaults(python_forms_kernels):
    """A default is passed as the interpreter passes it (0.1, a Python float) and converted to
    the parameter's type as any argument."""
    c = python_forms_kernels.compiled
    assert c.with_typed_defaults(f32(2.0)) == f32(2.0) * f32(0.1) + f32(200)
    assert c.with_typed_defaults(f32(2.0), shift=3) == f32(2.0) * f32(0.1) + f32(3)
    with pytest.raises(TypeError):
        c.with_typed_defaults(f32(1.0), 0.5, 3, 4)


def test_defaults_between_compiled_functions(python_forms_kernels):
    for x in [0.0, 1.5, -3.25]:
        python_forms_kernels.check("calls_with_defaults", x)


def test_array_parameter_before_a_default(python_forms_kernels):
    a = RNG.random(9)
    python_forms_kernels.check("array_then_default", a)
    python_forms_kernels.check("array_then_default", a, -1.0)


# --- raise, assert, string statements, imports in the function ----------------------------------

@pytest.mark.parametrize("n", [3, 0, -1, 11, 7, 8])
def test_raise_and_assert_as_python(python_forms_kernels, n):
    """Each raise and failed assert: the same exception and message (quotes, a newline and
    `{}` in it kept) as the interpreter's."""
    python_forms_kernels.check("raises_and_asserts", RNG.random(10), n)
    python_forms_kernels.check("raises_and_asserts", np.zeros(200), 1)


def test_raise_in_a_prange(python_forms_kernels, device):
    """On the device the kernel sets its error flag; the OpenMP code runs again and raises."""
    python_forms_kernels.check("raises_in_a_prange", np.array([1.0, -1.0, 2.0]), np.zeros(3))
    python_forms_kernels.check("raises_in_a_prange", np.array([1.0, 3.0]), np.zeros(2))
    assert_ran_on(python_forms_kernels, "raises_in_a_prange", device)


@pytest.mark.parametrize("n", [0, 5, 10])
def test_list_comprehension_sums(python_forms_kernels, n):
    python_forms_kernels.check("list_comprehension_sums", n, RNG.random(4))
    python_forms_kernels.check("list_comprehension_sums", n, RNG.random(1))   # min of nothing


def test_a_tuple_as_an_index(python_forms_kernels):
    python_forms_kernels.check("tuple_as_an_index", RNG.random((6, 5)), RNG.random((3, 3)))
    python_forms_kernels.check("tuple_as_an_index", RNG.random((2, 2)), RNG.random((3, 3)))


@pytest.mark.parametrize("columns", [2, 3, 1])
def test_unpacking_an_array(python_forms_kernels, columns):
    python_forms_kernels.check("unpack_rows_of_differences", RNG.random((5, columns)))
    python_forms_kernels.check("unpack_a_matrix", RNG.random((columns, 4)))


@pytest.mark.parametrize("columns", [3, 2, 4])
def test_unpacking_in_a_prange(python_forms_kernels, device, columns):
    python_forms_kernels.check("unpack_in_a_prange", RNG.random((6, columns)), np.zeros(6))


@pytest.mark.parametrize("k", [1, 3, -2])
def test_lists_as_indices(python_forms_kernels, k):
    python_forms_kernels.check("lists_as_indices", RNG.random((3, 4)), k)


def test_a_list_index_out_of_range_raises_as_numpy(python_forms_kernels):
    python_forms_kernels.check("lists_as_indices", RNG.random((3, 4)), 4)
    python_forms_kernels.check("lists_as_indices", RNG.random((2, 4)), 1)


@pytest.mark.parametrize("n", [1, 4, 7])
def test_np_array_of_list_comprehensions(python_forms_kernels, n):
    python_forms_kernels.check("comprehension_arrays", n, RNG.random((n + 1, 3)),
                               RNG.random((n, 3)))


@SETTINGS
@given(st.data())
def test_np_array_of_list_comprehensions_at_any_size(python_forms_kernels, data):
    """The items stored by counters proved in range by construction (frontend/lower.py
    comprehension_array): every range and filter, arrays and views of any layout."""
    lo, hi = data.draw(st.integers(-7, 9)), data.draw(st.integers(-7, 13))
    X = data.draw(arrays(np.float64, 2, min_side=1, max_side=6, values=st.floats(0, 1)))
    python_forms_kernels.check("comprehension_counters", lo, hi, X)
    n = data.draw(st.integers(1, 6))
    python_forms_kernels.check("comprehension_arrays", n, X, X[::-1])
    python_forms_kernels.check("comprehension_of_bools", n)


def test_np_array_of_an_empty_list_comprehension_keeps_the_items_dtype(python_forms_kernels):
    """No item: an empty array of the item's dtype, where NumPy, which has no item to see,
    makes float64 (docs/supported.md); with items both are bool."""
    python_forms_kernels.check("comprehension_of_bools", 5)
    out = python_forms_kernels.compiled.comprehension_of_bools(0)
    expected = python_forms_kernels.interpreted.comprehension_of_bools(0)
    assert out.shape == expected.shape == (0,)
    assert out.dtype == np.bool_ and expected.dtype == np.float64


@pytest.mark.parametrize("n", [1, 5])
def test_lambdas_called(python_forms_kernels, n):
    python_forms_kernels.check("lambdas", RNG.random(n), 0.25, rtol=1e-12)


@pytest.mark.parametrize("n", [0, 3])
def test_print_prints_as_python(python_forms_kernels, capsys, n):
    a = RNG.random(5)
    b = a.astype(np.float32)
    printed = []
    for f in (python_forms_kernels.interpreted.printing, python_forms_kernels.compiled.printing):
        result = f(a, b, n)
        printed.append((capsys.readouterr().out, result))
    assert printed[1] == printed[0] and "done" in printed[0][0]


def test_a_tuple_stored_into_a_slice(python_forms_kernels):
    python_forms_kernels.check("store_tuples", RNG.random((5, 2)), 1.5)
    python_forms_kernels.check("store_tuples", RNG.random((5, 3)), 1.5)    # shapes differ
    python_forms_kernels.check("store_tuples", RNG.random((1, 2)), 1.5)


def test_return_none(python_forms_kernels):
    python_forms_kernels.check("returns_none", RNG.random(3))
    python_forms_kernels.check("returns_none", np.zeros(0))


# --- lists: out = [], out.append(v) -------------------------------------------------------------

@SETTINGS
@given(arrays(f64, 1, max_side=12, values=st.floats(-4, 4)))
def test_list_of_peak_indices(python_forms_kernels, x):
    expected, got, _, _ = python_forms_kernels.run("list_peaks", x)
    if expected[1].size:
        assert_same(expected[1], got[1], what="list_peaks")
    else:   # no append: empty of the items' dtype, where NumPy's np.array([]) is float64
        assert got[1].shape == (0,) and got[1].dtype == np.int64


@SETTINGS
@given(arrays(f64, 1, max_side=12, values=st.floats(-4, 4)), st.floats(-4, 4))
def test_list_of_values_as_arrays(python_forms_kernels, a, t):
    python_forms_kernels.check("list_of_values_above", a, t)


@pytest.mark.parametrize("n", [1, 2, 9])
def test_list_reads(python_forms_kernels, n):
    python_forms_kernels.check("list_reads", RNG.random(n), rtol=1e-12)


def test_list_reads_of_no_value_raise_index_error(python_forms_kernels):
    # [0.5] then nothing appended: out[-2] is past the start
    got = python_forms_kernels.check("list_reads", np.zeros(0))
    assert isinstance(got, IndexError) and str(got) == "list index out of range"


@pytest.mark.parametrize("k", [-5, -4, -1, 0, 3, 4, 9])
def test_list_index_as_python(python_forms_kernels, k):
    python_forms_kernels.check("list_index", 4, k)


@pytest.mark.parametrize("n, k", [(0, 0), (3, 3), (3, -4), (3, -3), (3, 2)])
def test_list_store_as_python(python_forms_kernels, n, k):
    """A store past either end raises Python's IndexError of a store."""
    got = python_forms_kernels.check("list_store", n, k)
    if not -n <= k < n:
        assert str(got) == "list assignment index out of range"


@pytest.mark.parametrize("n, m", [(7, 3), (5, 2)])
def test_list_of_ints_and_floats_is_float64(python_forms_kernels, n, m):
    python_forms_kernels.check("list_mixed_ints_and_floats", n, m)


def test_list_items_type_is_of_every_value_it_may_take(python_forms_kernels):
    """Only ints appended at run time: NumPy makes int64 of them, compiled code float64, the
    items' type of every value the code may append (docs/supported.md)."""
    expected = python_forms_kernels.interpreted.list_mixed_ints_and_floats(0, 2)
    got = python_forms_kernels.compiled.list_mixed_ints_and_floats(0, 2)
    assert expected.dtype == np.int64 and got.dtype == np.float64
    np.testing.assert_array_equal(got, expected)


def test_list_returned_holds_the_interpreters_values(python_forms_kernels):
    a = RNG.random(4)
    python_forms_kernels.check("list_returned", a)
    python_forms_kernels.check("list_returned", a[:0])
    got = python_forms_kernels.check("list_of_float32", a.astype(f32))
    assert all(type(v) is f32 for v in got)
    got = python_forms_kernels.check("list_of_ints", 5)
    assert [type(v) for v in got] == [int] * 5
    got = python_forms_kernels.check("list_of_bools", a)
    assert all(isinstance(v, (bool, np.bool_)) for v in got)
    assert python_forms_kernels.check("list_of_ints", 0) == []


@pytest.mark.parametrize("dtype", ["int8", "uint8", "int16", "uint16", "int32", "uint32",
                                   "uint64", "float32", "complex64"])
def test_numpy_scalars_returned(python_forms_kernels, dtype):
    """Of each type, the extremes too: NumPy scalars of the interpreter's type and value, that
    hash, compare and compute as they do."""
    info = np.finfo(dtype) if dtype[0] in "fc" else np.iinfo(dtype)
    a = np.array([0, 1, info.max, info.min, info.max // 3 if dtype[0] in "iu" else 1.5],
                 dtype)
    if dtype == "complex64":
        a = a * np.complex64(0.25 - 0.5j)
    last, items = python_forms_kernels.check("numpy_scalars_returned", a[::-1])
    expected = python_forms_kernels.interpreted.numpy_scalars_returned(a[::-1])
    assert type(last) is np.dtype(dtype).type and hash(last) == hash(expected[0])
    assert [type(v) for v in items] == [np.dtype(dtype).type] * len(a)
    assert [repr(v) for v in items] == [repr(v) for v in expected[1]]
    assert last * 2 == expected[0] * 2


@pytest.mark.parametrize("n", [1, 2, 6])
def test_list_rebound_as_an_array(python_forms_kernels, n):
    python_forms_kernels.check("list_rebound_as_array", n)


def test_list_items_in_an_array_statement(python_forms_kernels, device):
    a = RNG.random(300)
    python_forms_kernels.check("list_items_in_an_array_statement", a, 3)
    assert_ran_on(python_forms_kernels, "list_items_in_an_array_statement", device)
    python_forms_kernels.check("list_items_in_an_array_statement", a, 0)     # w[-2]: IndexError


@pytest.mark.parametrize("shapes", [((2, 3), (2, 3), 3), ((2, 3), (3, 2), 3), ((2, 3), (2, 3), 4),
                                    ((0, 3), (0, 3), 3)])
def test_shape_tuples_compared(python_forms_kernels, shapes):
    a, b, n = shapes
    python_forms_kernels.check("shapes_compared", RNG.random(a), RNG.random(b), RNG.random(n))


@pytest.mark.parametrize("n", [0, 1, 5])
def test_itertools_repeat_loops(python_forms_kernels, n):
    python_forms_kernels.check("repeated_steps", RNG.random(4), n)
    python_forms_kernels.check("repeated_steps", RNG.random(0), n)


@pytest.mark.parametrize("n", [-3, 0, 1, 2, 12, 97, 360, 2 ** 31 - 1])
def test_a_list_returned_empty_or_built(python_forms_kernels, n):
    python_forms_kernels.check("factors", n)


@given(a=arrays(np.float64, 1, max_side=9, values=st.floats(0, 1)), n=st.integers(0, 6))
@settings(max_examples=15, deadline=None)
def test_lists_built_by_comprehensions_and_list(python_forms_kernels, a, n):
    python_forms_kernels.check("built_lists", a, n)


@pytest.mark.parametrize("n", [-1, 0, 1, 3, 5, 9, 20])
def test_loops_with_else(python_forms_kernels, n):
    python_forms_kernels.check("loops_with_else", np.array([3, 1, 4, 1, 5, 9, 2, 6]), n)


@pytest.mark.parametrize("n", [-2, 0, 1, 2, 30])
def test_repeated_lists(python_forms_kernels, n):
    python_forms_kernels.check("repeated_lists", n, 1.5)


@pytest.mark.parametrize("n", [1, 2, 16])
def test_lists_joined_in_a_recursive_fft(python_forms_kernels, n):
    x = RNG.random(n) + 1j * RNG.random(n)
    got = python_forms_kernels.check("recursive_fft", x, rtol=1e-12)
    np.testing.assert_allclose(got, np.fft.fft(x), rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("n", [0, 1, 4])
def test_lists_joined(python_forms_kernels, n):
    python_forms_kernels.check("joined_lists", n)


@pytest.mark.parametrize("n", [0, 1, 2, 3, 6])
def test_list_pop_and_insert(python_forms_kernels, n):
    python_forms_kernels.check("popped_and_inserted", n)


@pytest.mark.parametrize("n, k", [(6, 2), (6, 0), (5, 9), (3, -1), (6, -3), (0, 0), (1, 1)])
def test_list_slices(python_forms_kernels, n, k):
    python_forms_kernels.check("list_slices", n, k)
    python_forms_kernels.check("list_slice_returned", n)
    python_forms_kernels.check("extended_slice_mismatch", n)


@pytest.mark.parametrize("n", [-1, 0, 3, 5])
def test_itertools_product_loops(python_forms_kernels, n):
    python_forms_kernels.check("product_loops", n, np.array([0.5, 1.5, -2.0]))
    python_forms_kernels.check("product_loops", n, np.zeros(0))


# --- list parameters ----------------------------------------------------------------------------

def check_list_args(kernels, func, *args, rtol=0.0):
    """`check`, and the list arguments after the call equal the interpreter's, item by item
    (their Python types too)."""
    expected, got, py_args, c_args = kernels.run(func, *args)
    kernels.check(func, *args, rtol=rtol)
    for a, b in zip(py_args, c_args):
        if isinstance(a, list):
            assert_same(a, b, rtol=rtol, what=f"{func}: a list argument after the call")
            assert [type(x) for x in a] == [type(x) for x in b], (a, b)


@given(a=st.lists(st.floats(-1e6, 1e6), max_size=12))
@SETTINGS
def test_list_parameter_sorted_in_place(python_forms_kernels, a):
    check_list_args(python_forms_kernels, "insertion_sort", a)


@given(a=st.lists(st.integers(-50, 50), max_size=15))
@SETTINGS
def test_list_parameter_passed_on_recursively(python_forms_kernels, a):
    check_list_args(python_forms_kernels, "quicksort", a, 0, len(a) - 1)


@given(n=st.integers(0, 6), m=st.integers(0, 6))
@settings(max_examples=10, deadline=None)
def test_complex_list_parameters(python_forms_kernels, n, m):
    cx = [complex(k, -k) for k in range(n)]
    cy = [complex(0.5 * k, 1.0) for k in range(m)]
    check_list_args(python_forms_kernels, "caxpy", 2 - 1j, cx, cy)


@given(prices=st.lists(st.floats(0, 100), max_size=8), rate=st.floats(0, 0.2))
@settings(max_examples=15, deadline=None)
def test_list_parameters_read_and_a_list_returned(python_forms_kernels, prices, rate):
    strikes = [p * 0.9 + 1.0 for p in prices]
    check_list_args(python_forms_kernels, "black_scholes_lists", prices, strikes, rate,
                    rtol=1e-12)


@pytest.mark.parametrize("a, n", [([], 0), ([], 3), ([4], 0), ([4, 9, 1], 2), ([-1, -2], 1)])
def test_list_parameter_grown_shrunk_and_bound_anew(python_forms_kernels, a, n):
    check_list_args(python_forms_kernels, "grown_and_shrunk", a, n)


@pytest.mark.parametrize("k", [0, 1, 2, 3, -3, -4, 9])
def test_list_parameter_keeps_the_changes_before_an_error(python_forms_kernels, k):
    check_list_args(python_forms_kernels, "changed_then_raises", [1.0, 2.0], k)


def test_list_items_left_as_they_were_stay_the_callers_objects(python_forms_kernels):
    # an int in a list[float64] stays an int where the function did not change it, and the
    # caller's list is the same object, as the interpreter leaves it
    a = [3, 1.5, 2.0, 7]
    same = a
    python_forms_kernels.compiled.insertion_sort(a)
    assert same is a and a == [1.5, 2.0, 3.0, 7] and type(a[3]) is int


@given(a=st.lists(st.floats(-10, 10), max_size=6))
@settings(max_examples=10, deadline=None)
def test_lists_passed_to_a_compiled_function_as_themselves(python_forms_kernels, a):
    check_list_args(python_forms_kernels, "sort_twice", a)


def test_list_parameter_arguments(python_forms_kernels):
    f = python_forms_kernels.compiled
    assert f.count_true([True, False, True]) == 2
    assert f.count_true((True, True)) == 2          # read only: a tuple is taken
    with pytest.raises(TypeError, match=r"count_true\(\) argument 'flags': expected "
                                        r"list\[bool\], got ndarray"):
        f.count_true(np.array([True]))
    with pytest.raises(TypeError, match=r"argument 'a\[1\]': expected float64, got str"):
        f.insertion_sort([1.0, "x"])
    with pytest.raises(TypeError, match=r"expected list\[float64\], got tuple \(the function "
                                        r"changes it\)"):
        f.insertion_sort((2.0, 1.0))
    with pytest.raises(OverflowError):
        f.quicksort([2 ** 70, 1], 0, 1)


def test_list_parameter_of_a_gpu_function(python_forms_kernels, device):
    x = RNG.random(300)
    check_list_args(python_forms_kernels, "weighted_by_a_list", [2.0, 0.5], x)
    assert_ran_on(python_forms_kernels, "weighted_by_a_list", device)
    check_list_args(python_forms_kernels, "weighted_by_a_list", [], x)      # IndexError


# --- lists of lists -----------------------------------------------------------------------------

def matrix(rows, cols, scale=1.0):
    return [[scale * (i * cols + j) - 3.0 for j in range(cols)] for i in range(rows)]


@pytest.mark.parametrize("n, m", [(3, 2), (0, 2), (2, 0), (1, 1)])
def test_list_of_lists_made_and_returned(python_forms_kernels, n, m):
    python_forms_kernels.check("zero_matrix", n, m)


@given(n=st.integers(1, 5), k=st.integers(1, 5), m=st.integers(1, 5))
@settings(max_examples=15, deadline=None)
def test_list_of_lists_matmul(python_forms_kernels, n, k, m):
    check_list_args(python_forms_kernels, "list_matmul", matrix(n, k), matrix(k, m, 0.5))


@pytest.mark.parametrize("n, steps", [(0, 1), (1, 2), (2, 1), (5, 3)])
def test_list_of_lists_changed_by_a_callee(python_forms_kernels, n, steps):
    python_forms_kernels.check("laplace", n, steps)
    check_list_args(python_forms_kernels, "laplace_update", matrix(n, n + 1))


def test_list_of_lists_rows_read_as_copies(python_forms_kernels):
    check_list_args(python_forms_kernels, "weighted_rows", 0.5, matrix(3, 4))
    check_list_args(python_forms_kernels, "weighted_rows", 0.5, [])
    check_list_args(python_forms_kernels, "weighted_rows", 0.5, [[1.0], []])    # IndexError


@pytest.mark.parametrize("n", [0, 1, 2, 4])
def test_list_of_lists_ragged_rows(python_forms_kernels, n):
    python_forms_kernels.check("ragged_rows", n)


@pytest.mark.parametrize("n", [1, 2, 4])
def test_list_parameters_returned_are_the_callers(python_forms_kernels, n):
    a, b = matrix(n, n), [float(k) for k in range(n)]
    check_list_args(python_forms_kernels, "pivot_lists", a, b)
    got = python_forms_kernels.compiled.pivot_lists(a, b)
    assert got[0] is a and got[1] is b
    c = [1.0, 2.0]
    assert python_forms_kernels.compiled.scaled_in_place(c, 2.0) is c and c == [2.0, 4.0]


def test_one_list_given_for_two_parameters_is_one_list(python_forms_kernels):
    for a in ([1.0, 2.0, 3.0, 4.0], [], [5.0]):
        check_list_args(python_forms_kernels, "shift_into", a, [9.0] * len(a))
        expected, got = list(a), list(a)
        python_forms_kernels.interpreted.shift_into(expected, expected)
        python_forms_kernels.compiled.shift_into(got, got)
        assert got == expected


def test_list_of_lists_arguments(python_forms_kernels):
    f = python_forms_kernels.compiled
    with pytest.raises(TypeError, match=r"argument 'u\[1\]': expected list\[float64\], got "
                                        r"float"):
        f.laplace_update([[1.0], 2.0])
    row = [1.0, 2.0, 3.0]
    with pytest.raises(ValueError, match=r"u\[0\] and u\[1\] are one list, which the function "
                                         r"changes"):
        f.laplace_update([row, row, [0.0] * 3])
    assert f.weighted_rows(1.0, [row, row]) == python_forms_kernels.interpreted.weighted_rows(
        1.0, [row, row])            # read only: one list twice is fine


@pytest.mark.parametrize("n, ca", [(0, 1 + 1j), (-1, 1j), (2, 0j), (2, 2 - 1j), (3, 0.5j)])
def test_a_bare_return_gives_none(python_forms_kernels, n, ca):
    cx = [complex(k, 1) for k in range(3)]
    cy = [complex(1, -k) for k in range(3)]
    check_list_args(python_forms_kernels, "caxpy_early", n, ca, cx, cy)


@pytest.mark.parametrize("n", [-5, 0, 3, 100, 101])
def test_a_function_that_may_return_none(python_forms_kernels, n):
    python_forms_kernels.check("half_or_none", n)
    python_forms_kernels.check("uses_half", n)


@pytest.mark.parametrize("cc", [[], [[]], [[1]]])
def test_none_as_a_condition_is_false(python_forms_kernels, cc):
    check_list_args(python_forms_kernels, "pairs_where", cc)


def test_np_array_of_lists_of_lists(python_forms_kernels):
    check_list_args(python_forms_kernels, "rows_as_array", matrix(3, 4))
    check_list_args(python_forms_kernels, "rows_as_array", [[1.0], [2.0]])
    check_list_args(python_forms_kernels, "rows_as_array", [[], []])
    check_list_args(python_forms_kernels, "rows_as_array", [[1.0, 2.0], [3.0]])  # ValueError
    for n in (1, 3):
        python_forms_kernels.check("built_cube", n)
    # an empty list of lists: empty of its depth (NumPy's np.array([]) is 1-D)
    assert python_forms_kernels.compiled.rows_as_array([]).shape == (0, 0)


def test_rows_converted_where_a_list_of_lists_takes_floats(python_forms_kernels):
    check_list_args(python_forms_kernels, "pairwise_lists", matrix(3, 2), rtol=1e-12)
    check_list_args(python_forms_kernels, "pairwise_lists", [])
    for n in (0, 1, 4):
        got = python_forms_kernels.compiled.ints_returned_as_floats(n)
        assert got == [float(k * k) for k in range(n)] and all(type(v) is float for v in got)


@pytest.mark.parametrize("a, b", [([[1, 2], [3]], [4]), ([[1.5], [2.0, 0.5]], [1.0]),
                                  ([[1 + 2j], []], [1j]), ([[1, 2.5]], [3]), ([], [])])
def test_signatures_chosen_by_the_lists_items(python_forms_kernels, a, b):
    check_list_args(python_forms_kernels, "signatures_of_lists", a, b)


@pytest.mark.parametrize("n", [0, 1, 7])
def test_functions_defined_inside(python_forms_kernels, n):
    python_forms_kernels.check("nested_defs", -1.0, 2.5, n, rtol=1e-12)


# --- lists of tuples ----------------------------------------------------------------------------

@given(a=st.lists(st.tuples(st.floats(0, 1), st.floats(0, 1)), max_size=4),
       b=st.lists(st.tuples(st.floats(0, 1), st.floats(0, 1)), max_size=4))
@settings(max_examples=15, deadline=None)
def test_lists_of_tuples_unpacked_by_loops(python_forms_kernels, a, b):
    check_list_args(python_forms_kernels, "arc_distances", a, b, rtol=1e-12)


@pytest.mark.parametrize("n", [0, 1, 3])
def test_lists_of_tuples_made(python_forms_kernels, n):
    python_forms_kernels.check("index_value_pairs", n)


def test_list_of_tuples_parameter(python_forms_kernels):
    check_list_args(python_forms_kernels, "edges_kept", [(1, 2), (5, 6), (0, 0)], 4)
    check_list_args(python_forms_kernels, "edges_kept", [], 0)
    f = python_forms_kernels.compiled
    with pytest.raises(TypeError, match=r"argument 'edges\[0\]': expected tuple\[int64, "
                                        r"int64\], got tuple"):
        f.edges_kept([(1, 2, 3)], 1)
    assert f.edges_kept([[1, 2]], 5) == [(1, 2)]       # a list of two converts as a pair


@pytest.mark.parametrize("cc", [[], [[]], [[1], [], [2, 3]]])
def test_lists_as_conditions(python_forms_kernels, cc):
    check_list_args(python_forms_kernels, "lists_as_conditions", cc)


@pytest.mark.parametrize("steps", [0.0, 1.0, 3.0])
def test_lists_rotated_by_their_names(python_forms_kernels, steps):
    check_list_args(python_forms_kernels, "rotating_lists", steps, [1.0, 2.0, 4.0],
                    [0.0, 1.0, 1.0], rtol=1e-12)


@pytest.mark.parametrize("shape", [(5, 4), (3, 1), (2, 7)])
def test_triangle_slices_in_a_prange(python_forms_kernels, shape):
    python_forms_kernels.check("correlation_triangles", RNG.random(shape), rtol=1e-12)
