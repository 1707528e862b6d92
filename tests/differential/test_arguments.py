"""Call-time argument checks (SPEC section 10): a wrong argument is a TypeError naming the
function, the parameter, what was expected and what was given; an integer out of the parameter's
range is an OverflowError (as `np.int8(300)`); never a crash. Valid inputs of every layout and
scalar kind are accepted."""
import numpy as np
import pytest


def type_error(call):
    with pytest.raises(TypeError) as info:
        call()
    return str(info.value)


@pytest.mark.parametrize("value, got", [
    (np.zeros(3, np.float32), "ndarray[float32, 1]"),        # wrong dtype
    (np.zeros((3, 3)), "ndarray[float64, 2]"),               # wrong ndim
    (np.zeros(3, np.int64), "ndarray[int64, 1]"),
    (np.zeros(3, ">f8"), "ndarray[>f8, 1]"),                 # non-native byte order
    ([1.0, 2.0], "list"),                                     # not an array
    ("abc", "str"),
    (None, "NoneType"),
    (2.5, "float"),
    (np.float64(2.5), "float64"),
])
def test_wrong_array_argument(arrays_kernels, value, got):
    message = type_error(lambda: arrays_kernels.compiled.sum1(value))
    assert message.startswith("sum1() argument 'a': ")
    assert "expected ndarray[float64, 1]" in message
    assert message.endswith(f"got {got}")


def test_wrong_dtype_of_the_second_array(arrays_kernels):
    message = type_error(lambda: arrays_kernels.compiled.copy2(np.zeros((2, 2)),
                                                               np.zeros((2, 2), np.float32)))
    assert "copy2() argument 'b'" in message and "float32" in message


@pytest.mark.parametrize("value, got", [(1.5, "float"), ("3", "str"), (None, "NoneType"),
                                        (np.float64(2.0), "float64"), (True, "bool"),
                                        (np.zeros(1, np.int64), "ndarray[int64, 1]"),
                                        (np.array(5), "ndarray[int64, 0]"),
                                        (3 + 0j, "complex")])
def test_wrong_int_argument(arith_kernels, value, got):
    message = type_error(lambda: arith_kernels.compiled.add_i64(1, value))
    assert message == f"add_i64() argument 'b': expected int64, got {got}"


@pytest.mark.parametrize("value, got", [("1.5", "str"), (None, "NoneType"), (1j, "complex"),
                                        (np.ones(2), "ndarray[float64, 1]")])
def test_wrong_float_argument(arith_kernels, value, got):
    message = type_error(lambda: arith_kernels.compiled.add_f64(value, 1.0))
    assert message == f"add_f64() argument 'a': expected float64, got {got}"


@pytest.mark.parametrize("value", [1, 0, "x", None, 1.0])
def test_wrong_bool_argument(arith_kernels, value):
    message = type_error(lambda: arith_kernels.compiled.and_bools(True, value))
    assert message.startswith("and_bools() argument 'b': expected bool, got")


@pytest.mark.parametrize("func, value, expected", [
    ("add_i64", 2**63, "int64"), ("add_i64", -2**63 - 1, "int64"),
    ("add_i32", 2**31, "int32"), ("add_u8", 256, "uint8"), ("add_u8", -1, "uint8"),
    ("sub_u64", 2**64, "uint64"), ("sub_u64", -1, "uint64"),
    ("add_i32", np.int64(2**40), "int32"), ("add_i64", np.uint64(2**64 - 1), "int64")])
def test_integer_out_of_range(arith_kernels, func, value, expected):
    with pytest.raises(OverflowError) as info:
        getattr(arith_kernels.compiled, func)(value, 1)
    message = str(info.value)
    assert message.startswith(f"{func}() argument 'a': {int(value)} is out of range for")
    assert message.endswith(expected)


@pytest.mark.parametrize("func, value", [("add_i64", 2**63 - 1), ("add_i64", -2**63),
                                         ("add_u8", 255), ("sub_u64", 2**64 - 1),
                                         ("add_i32", np.int8(-5)), ("add_i64", np.uint32(7))])
def test_integer_edges_and_numpy_integers_accepted(arith_kernels, func, value):
    getattr(arith_kernels.compiled, func)(value, 0)


@pytest.mark.parametrize("value", [3, np.float32(1.5), np.int16(-2), np.float64(2.5), 10**30])
def test_float_parameter_takes_any_real_number(arith_kernels, value):
    assert arith_kernels.compiled.add_f64(value, 0.0) == float(value)


def test_arity_and_keywords(arrays_kernels):
    """Missing or extra arguments are the TypeError the Python function raises, word for word;
    parameters can be passed by keyword, as to the Python function."""
    c, py = arrays_kernels.compiled, arrays_kernels.interpreted
    big = np.zeros(10 ** 5)
    calls = [lambda f: f.sum1(), lambda f: f.sum1(big, 2), lambda f: f.sum1(b=big),
             lambda f: f.sum1(big, a=big), lambda f: f.get2(np.eye(2)),
             lambda f: f.get2(np.eye(2), 1, 1, 1), lambda f: f.get2(i=1, j=1)]
    for call in calls:
        assert type_error(lambda: call(c)) == type_error(lambda: call(py))
    assert type_error(c.sum1) == "sum1() missing 1 required positional argument: 'a'"
    assert c.sum1(a=np.ones(3)) == 3.0
    assert c.get2(np.eye(2), j=1, i=1) == 1.0


def test_signature_and_docstring_are_the_python_functions(arrays_kernels):
    import inspect
    compiled, interpreted = arrays_kernels.compiled, arrays_kernels.interpreted
    assert inspect.signature(compiled.get2) == inspect.signature(interpreted.get2)
    assert compiled.get2.__name__ == "get2" and compiled.get2.__module__ == compiled.__name__
    assert "compiled by unpy" in compiled.get2.__doc__
    assert hasattr(compiled.get2, "__unpy_compiled__")


def test_valid_layouts_accepted(arrays_kernels):
    """Non-contiguous, negative-stride, zero-size, Fortran and read-only arrays are valid."""
    base = np.arange(24.0).reshape(4, 6)
    read_only = base.copy()
    read_only.flags.writeable = False
    for a in [base, base.T, base[::2, ::-3], base[::-1], np.asfortranarray(base), base[:0],
              base[:, :0], read_only]:
        assert arrays_kernels.compiled.tuple_index(a) == arrays_kernels.interpreted.tuple_index(a)


def test_odd_strides_rejected_misaligned_data_accepted(arrays_kernels):
    """Strides that are not a multiple of the item size cannot be indexed in elements: a
    TypeError that says so. A misaligned data pointer with regular strides works."""
    odd = np.lib.stride_tricks.as_strided(np.zeros(10, np.float32), shape=(3,), strides=(6,))
    message = type_error(lambda: arrays_kernels.compiled.scale1_f32(odd, np.float32(1)))
    assert message.startswith("scale1_f32() argument 'a'")
    assert "strides not a multiple of the item size" in message
    misaligned = np.arange(8 * 7 + 1, dtype=np.uint8)[1:].view(np.float64)
    assert misaligned.shape == (7,)
    arrays_kernels.check("sum1", misaligned)


def test_errors_leave_the_module_usable(arith_kernels):
    c = arith_kernels.compiled
    for bad in ("x", None, 2**70):
        with pytest.raises((TypeError, OverflowError)):
            c.add_i64(bad, 1)
    assert c.add_i64(2, 3) == 5
