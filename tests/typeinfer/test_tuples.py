"""Several return values: tuple types (as a string or a tuple of strings), returning a tuple,
unpacking a compiled function's results; the errors of wrong counts and types."""
import pytest

import irtools
from unpy.errors import CompileError
from unpy.ir import Array, Scalar, TupleType
from unpy.typeinfer.types import TypeStringError, parse_type


def test_tuple_type_strings():
    assert parse_type("tuple[float64, ndarray[float32, 2]]") == TupleType(
        (Scalar("float64"), Array("float32", 2)))
    for bad in ("tuple[float64]", "tuple[float64, None]", "tuple[float64, int64"):
        with pytest.raises(TypeStringError):
            parse_type(bad)


def test_a_python_tuple_of_type_strings_is_a_tuple_type():
    fn = irtools.typed_function("""
        @unpython.type('float64', ('float64', 'int64'))
        def f(x):
            return x * 2, 3
        """)
    assert fn.return_type == TupleType((Scalar("float64"), Scalar("int64")))


@pytest.mark.parametrize("body, message", [
    ("""
        @unpython.type('float64', ('float64', 'int64'))
        def f(x):
            return x, x
        """, r"cannot return float64 as int64"),
    ("""
        @unpython.type('float64', ('float64', 'int64'))
        def f(x):
            return x, 1, 2
        """, r"this returns 3 values; the declared type tuple\[float64, int64\] has 2"),
    ("""
        @unpython.type('float64', ('float64', 'int64'))
        def f(x):
            return x, 1

        @unpython.type('float64', 'float64')
        def g(x):
            a, b, c = f(x)
            return a
        """, r"cannot unpack 2 values into 3 names"),
    ("""
        @unpython.type('float64', 'float64')
        def g(x):
            a, b = x
            return a
        """, r"cannot unpack float64: tuple unpacking needs a tuple"),
])
def test_tuple_errors(body, message):
    with pytest.raises(CompileError, match=message):
        irtools.typed(body)
