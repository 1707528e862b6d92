"""Type strings and NumPy 2 promotion (SPEC section 2)."""
import numpy as np
import pytest

from unpy.ir import Array, Scalar
from unpy.typeinfer.types import (TypeStringError, conversion_loses, parse_type,
                                  resolve)


@pytest.mark.parametrize("text, expected", [
    ("float64", Scalar("float64")), ("double", Scalar("float64")), ("float", Scalar("float64")),
    ("single", Scalar("float32")), ("int", Scalar("int64")), (" int32 ", Scalar("int32")),
    ("uint8", Scalar("uint8")), ("bool", Scalar("bool")), ("intc", Scalar("int32")),
    ("ndarray[float64, 2]", Array("float64", 2)), ("ndarray [double, 2]", Array("float64", 2)),
    ("ndarray[ int16 ,3 ]", Array("int16", 3)), ("complex", Scalar("complex128")),
    ("ndarray[complex64, 2]", Array("complex64", 2)), (None, None), ("None", None)])
def test_parse_type(text, expected):
    assert parse_type(text) == expected


@pytest.mark.parametrize("text, message", [
    ("float65", "unknown scalar type"), ("object", "is not supported"),
    ("str", "is not supported"), ("ndarray[float64]", "cannot read array type"),
    ("ndarray[float64, 0]", "at least one dimension"), ("ndarray[float64, 2", "cannot read"),
    ("ndarray[object, 1]", "is not supported")])
def test_bad_type_strings(text, message):
    with pytest.raises(TypeStringError, match=message):
        parse_type(text)


F32, F64, I64, I32, U64, U8 = (Scalar(t) for t in
                                ("float32", "float64", "int64", "int32", "uint64", "uint8"))
PY_INT, PY_FLOAT = Scalar("int64", weak=True), Scalar("float64", weak=True)


@pytest.mark.parametrize("op, types, out", [
    (np.add, [F32, PY_FLOAT], F32),                    # a Python float is weak
    (np.multiply, [F32, PY_INT], F32),
    (np.add, [I32, PY_INT], I32),
    (np.true_divide, [I64, I64], F64),                 # int / int is float64
    (np.true_divide, [I32, PY_INT], F64),
    (np.add, [I32, F32], F64),
    (np.add, [Scalar("int16"), F32], F32),
    (np.add, [U64, I64], F64),
    (np.add, [U8, Scalar("int8")], Scalar("int16")),
    (np.add, [F32, F64], F64),
    (np.add, [PY_INT, PY_INT], PY_INT),                # Python ints among themselves stay weak
    (np.true_divide, [PY_INT, PY_INT], PY_FLOAT),
    (np.add, [PY_INT, PY_FLOAT], PY_FLOAT),
    (np.power, [I64, I64], I64)])
def test_nep50_promotion(op, types, out):
    assert resolve(op, types)[1] == out


@pytest.mark.parametrize("op", [np.less, np.equal, np.not_equal])
def test_comparing_python_ints_uses_int64(op):
    """NumPy would resolve two Python ints to its object loop; compiled code compares int64."""
    inputs, out = resolve(op, [PY_INT, PY_INT])
    assert [t.dtype for t in inputs] == ["int64", "int64"] and out.dtype == "bool"


def test_undefined_operations():
    assert resolve(np.bitwise_and, [F64, I64]) is None
    assert resolve(np.left_shift, [F32, PY_INT]) is None


@pytest.mark.parametrize("source, target, value, loses", [
    (I32, I64, None, False), (I64, F64, None, False), (F32, F64, None, False),
    (F64, F32, None, True), (F64, I64, None, True), (I64, I32, None, True),
    (U64, I64, None, True), (PY_INT, U8, 255, False), (PY_INT, U8, 256, True),
    (PY_INT, Scalar("int8"), -129, True), (PY_FLOAT, F32, None, False),
    (PY_FLOAT, I64, None, True), (Scalar("bool"), I64, None, False),
    (Array("float64", 1), Array("float64", 1), None, False),
    (Array("float64", 1), Array("float64", 2), None, True),
    (Array("float32", 1), Array("float64", 1), None, True)])
def test_conversion_loses(source, target, value, loses):
    assert bool(conversion_loses(source, target, value)) == loses
