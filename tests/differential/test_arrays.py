"""Arrays, interpreter vs compiled, in every layout hypothesis draws (C, Fortran, strided and
reversed views, transposes, zero-size; 1-D to 3-D): reads and writes through live strides,
`a[i][j]`, shape/len/ndim/size, negative indices, local and returned arrays, read-only inputs."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from npstrategies import arrays

SETTINGS = settings(max_examples=30, deadline=None)
f64, f32, i64 = np.float64, np.float32, np.int64


@SETTINGS
@given(arrays(f64, 1))
def test_sum_1d(arrays_kernels, a):
    arrays_kernels.check("sum1", a)


@SETTINGS
@given(arrays(f64, 2))
def test_sum_2d(arrays_kernels, a):
    arrays_kernels.check("sum2", a)


@SETTINGS
@given(arrays(f64, 3))
def test_sum_3d(arrays_kernels, a):
    arrays_kernels.check("sum3", a)


@SETTINGS
@given(arrays(np.int32, 2))
def test_sum_int32_no_overflow_of_the_int64_sum(arrays_kernels, a):
    arrays_kernels.check("sum2_i32", a)


def test_python_int_accumulator_follows_numpy(arrays_kernels):
    """`s = 0; s += a[i]` with an int32 array: s is a Python int, and NumPy 2 computes
    Python int + int32 in int32; compiled code does the same arithmetic (and returns it as the
    declared int64, where the interpreter has an np.int32)."""
    a = np.array([2**31 - 1, 5, -7, 2**30], np.int32)
    result = arrays_kernels.check("sum1_i32_python_int", a, check_dtype=False)
    with np.errstate(over="ignore"):
        assert result == np.int32(2**31 - 1) + np.int32(5) + np.int32(-7) + np.int32(2**30)


@SETTINGS
@given(arrays(f32, 1, max_side=12, values=st.floats(-1e4, 1e4, width=32)),
       arrays(f64, 1, max_side=12, values=st.floats(-1e4, 1e4)))
def test_a_python_float_local_follows_the_interpreter(arrays_kernels, a, b):
    """A local first bound to a Python float is weak as in the interpreter, and takes the NumPy
    type its later values give it: float32 sums are float32 sums, bit for bit."""
    result = arrays_kernels.check("sum1_f32_python_float", a, check_dtype=False)
    assert result == arrays_kernels.interpreted.sum1_f32_python_float(a)
    n = min(len(a), len(b))
    arrays_kernels.check("python_float_then_float64", a[:n], b[:n], check_dtype=False)
    arrays_kernels.check("python_float_local_stays_weak", a, np.zeros(len(a)))


@SETTINGS
@given(arrays(np.uint8, 1), arrays(np.bool_, 1))
def test_small_dtypes(arrays_kernels, a, flags):
    arrays_kernels.check("sum1_u8", a)
    arrays_kernels.check("count_true", flags)


@SETTINGS
@given(arrays(np.uint8, 2, values=st.sampled_from([0, 1, 2, 128, 255])))
def test_masks_of_any_bytes(arrays_kernels, bytes_):
    """Bool arrays, also views with steps and reversed, and of bytes other than 0 and 1
    (a uint8 array viewed as bool), read as NumPy reads them."""
    arrays_kernels.check("mask_counts", bytes_ != 0)
    arrays_kernels.check("mask_counts", (bytes_ > 1)[::-1, ::2])
    arrays_kernels.check("mask_counts", bytes_.view(np.bool_))


@SETTINGS
@given(arrays(f32, 2))
def test_float32_sum_stays_float32(arrays_kernels, a):
    arrays_kernels.check("sum2_f32", a)


@SETTINGS
@given(st.data())
def test_write_through_views(arrays_kernels, data):
    a = data.draw(arrays(f64, 2))
    b = data.draw(arrays(f64, 2, min_side=a.shape[0], max_side=a.shape[0])
                  .filter(lambda b: b.shape[1] >= a.shape[1]))
    arrays_kernels.check("copy2", a, b[:, :a.shape[1]])


@SETTINGS
@given(arrays(i64, 3, values=st.integers(-1000, 1000)), st.integers(-50, 50))
def test_augmented_writes_3d(arrays_kernels, a, x):
    arrays_kernels.check("add3_inplace", a, x)


@SETTINGS
@given(arrays(f32, 1), st.floats(-4, 4, width=32).map(f32))
def test_float32_writes(arrays_kernels, a, x):
    arrays_kernels.check("scale1_f32", a, x)


@SETTINGS
@given(arrays(f64, 2))
def test_chained_index_is_tuple_index(arrays_kernels, a):
    """`a[i][j]` is `a[i, j]`: the same element, read or written."""
    expected = arrays_kernels.check("tuple_index", a)
    assert arrays_kernels.check("chained_index", a) == expected
    arrays_kernels.check("chained_index_write", a)


@SETTINGS
@given(arrays(f64, 3, min_side=1))
def test_shape_len_ndim_size(arrays_kernels, a):
    arrays_kernels.check("shape_facts", a)


def test_shape_facts_spelled_out(arrays_kernels):
    a = np.zeros((2, 3, 4))
    assert arrays_kernels.compiled.shape_facts(a) == (2030400 + 20 + 3 + 24 * 100000000
                                                      + 4 * 7 + 4 * 3 + 2)


@SETTINGS
@given(st.data())
def test_negative_indices_wrap(arrays_kernels, data):
    a = data.draw(arrays(np.int32, 1, min_side=1))
    n = a.shape[0]
    i = data.draw(st.integers(-n, n - 1))
    arrays_kernels.check("get1", a, i)
    b = data.draw(arrays(f64, 2, min_side=1))
    i = data.draw(st.integers(-b.shape[0], b.shape[0] - 1))
    j = data.draw(st.integers(-b.shape[1], b.shape[1] - 1))
    arrays_kernels.check("get2", b, i, j)
    arrays_kernels.check("set2", b, i, j, 7.5)


@SETTINGS
@given(arrays(f64, 1, min_side=2))
def test_negative_literal_indices(arrays_kernels, a):
    arrays_kernels.check("negative_literal_indices", a)


@SETTINGS
@given(arrays(i64, 1), arrays(f64, 2))
def test_negative_computed_indices(arrays_kernels, a, b):
    arrays_kernels.check("reverse_by_negative_index", a)
    arrays_kernels.check("negative_computed_indices", b)


@pytest.mark.parametrize("m, n", [(0, 1), (1, 1), (3, 2), (5, 4)])
def test_local_arrays(arrays_kernels, m, n):
    arrays_kernels.check("make_zeros", m, n)
    arrays_kernels.check("make_ones", m)
    arrays_kernels.check("make_empty_filled", m)
    arrays_kernels.check("make_ones_3d", m, n, 2)
    arrays_kernels.check("local_array_round_trip", m)


def test_local_array_properties(arrays_kernels):
    a = arrays_kernels.compiled.make_zeros(3, 4)
    assert a.dtype == np.int32 and a.shape == (3, 4) and a.flags.c_contiguous
    assert a.flags.writeable and a.flags.owndata or a.base is not None
    a[0, 0] = 5                      # the memory stays alive and is the caller's now
    assert a.sum() == 5 + 2 + 3


def test_negative_dimension_raises(arrays_kernels):
    error = arrays_kernels.check("make_ones", -1)
    assert isinstance(error, ValueError)


@SETTINGS
@given(arrays(f64, 1))
def test_returned_new_array(arrays_kernels, a):
    arrays_kernels.check("cumsum", a)
    arrays_kernels.check("sum_of_cumsum", a)


@SETTINGS
@given(arrays(f64, 2))
def test_returned_new_array_2d(arrays_kernels, a):
    arrays_kernels.check("transpose_copy", a)


def test_returning_a_parameter_returns_the_same_object(arrays_kernels):
    a = np.arange(6.0).reshape(2, 3)[:, ::-1]
    b = np.zeros((1, 1))
    c = arrays_kernels.compiled
    assert c.identity(a) is a
    assert c.choose(a, b, True) is a and c.choose(a, b, False) is b


@pytest.mark.parametrize("x", [2.7, -2.7, 0.49, -1e3])
def test_store_float_into_int_array_truncates(arrays_kernels, x):
    arrays_kernels.check("store_float_into_int", np.zeros(5, np.int64), x)


def test_store_wrapping_cast(arrays_kernels):
    arrays_kernels.check("store_wrapping", np.zeros(6, np.int8), i64(125))


@SETTINGS
@given(arrays(f64, 2))
def test_compiled_callee_writes_caller_array(arrays_kernels, a):
    arrays_kernels.check("fill_all_rows", a)


@SETTINGS
@given(arrays(f64, 1, min_side=3, max_side=3), arrays(f64, 1, min_side=3, max_side=3))
def test_array_arguments_of_calls(arrays_kernels, a, b):
    arrays_kernels.check("dot_by_call", a, b)


@SETTINGS
@given(arrays(f64, 1, writeable=False))
def test_read_only_input_can_be_read(arrays_kernels, a):
    assert not a.flags.writeable
    arrays_kernels.check("read_only_sum", a)
    arrays_kernels.check("sum1", a)


def _read_only(a):
    a.flags.writeable = False
    return a


@pytest.mark.parametrize("func, make_args", [
    ("copy2", lambda: (np.ones((2, 2)), _read_only(np.ones((2, 2))))),
    ("scale1_f32", lambda: (_read_only(np.ones(2, f32)), f32(2.0))),
    ("chained_index_write", lambda: (_read_only(np.ones((2, 2))),)),
    ("fill_all_rows", lambda: (_read_only(np.ones((2, 2))),)),     # written by the callee
    ("write_through_alias", lambda: (_read_only(np.ones((2, 2))),)),
    ("write_through_chosen_alias", lambda: (_read_only(np.ones((2, 2))), np.ones((2, 2)), True)),
    ("write_through_returned_alias", lambda: (_read_only(np.ones((2, 2))),)),
    ("write_through_view", lambda: (_read_only(np.ones((2, 2))),)),
    ("write_through_returned_view", lambda: (_read_only(np.ones((2, 2))),)),
    ("write_through_returned_tuple", lambda: (_read_only(np.ones((2, 2))),)),
])
def test_writing_a_read_only_array_raises(arrays_kernels, func, make_args):
    """As NumPy: ValueError, 'assignment destination is read-only'; the array is unchanged."""
    args = make_args()
    error = arrays_kernels.check(func, *args)
    assert isinstance(error, ValueError) and "read-only" in str(error)
    assert all(np.all(a == 1) for a in args if isinstance(a, np.ndarray))


def test_writes_through_aliases(arrays_kernels):
    a = np.ones((2, 2))
    arrays_kernels.check("write_through_alias", a)
    arrays_kernels.check("write_through_chosen_alias", a, np.ones((2, 2)), False)
    arrays_kernels.check("write_through_returned_alias", a)
    for func in ("write_through_view", "write_through_returned_view",
                 "write_through_returned_tuple"):
        arrays_kernels.check(func, np.ones((2, 2)))


def test_read_only_array_only_read_is_accepted(arrays_kernels):
    """A local array shaped after a read-only parameter, or a new array a compiled function
    returns, does not make the parameter written."""
    a = _read_only(np.arange(6.0).reshape(2, 3))
    arrays_kernels.check("local_copy_of_shape_is_not_an_alias", a)
    arrays_kernels.check("write_a_new_result", a)


def test_function_names_that_clash_with_cpp_or_the_runtime(arrays_kernels):
    for a in ([1.0, 2.0, 4.0], [3.0], [-1.5, 1.5, 0.0, 2.0]):
        arrays_kernels.check("std", np.array(a))
    arrays_kernels.check("floordiv", -7, 2)


@pytest.mark.parametrize("shape", [(0, 0), (0, 3), (2, 0), (3, 2)])
@pytest.mark.parametrize("i", [0, 1, -1, 3])
def test_integer_index_of_a_view_with_no_element(arrays_kernels, shape, i):
    """IndexError as NumPy's (its words) where the index is out of range, whether or not the
    view it picks has elements."""
    arrays_kernels.check("row_of_maybe_empty", np.ones(shape), i)


@pytest.mark.parametrize("n", [0, 1, 1000, 524288, 1 << 20, 1234567])
def test_large_arrays_made_filled(arrays_kernels, n):
    """Twice each: the second call's np.zeros gets the first call's blocks back (kept by the
    runtime, written), which it zeroes."""
    for _ in range(2):
        arrays_kernels.check("made_filled", n, n // 2)      # (n = 0: IndexError)



@pytest.mark.parametrize("n, steps", [(1, 3), (5, 7), (64, 9)])
def test_arrays_made_again_in_a_loop(arrays_kernels, n, steps):
    arrays_kernels.check("arrays_made_again", n, steps)
