"""Type inference: every expression typed, casts where values change type, locals from their
first assignment or declaration (SPEC section 2)."""
from unpy import ir
from unpy.ir import Array, Scalar
from unpy.typeinfer.reductions import walk_exprs

import irtools


def test_every_expression_is_typed():
    fn = irtools.typed_function("""
        @unpython.type('ndarray[float32, 2]', 'int32', 'float64')
        def f(a, k):
            m, n = a.shape
            s = 0.0
            for i in range(m):
                for j in range(n):
                    if a[i, j] > 0 and k != 3 or not j:
                        s += a[i, j] * k + math.sqrt(i) + np.sqrt(a[i, j]) + (i if j else k)
            return s
        """)
    untyped = [e for e in walk_exprs(fn.body) if e.type is None]
    assert untyped == []


def test_a_python_scalar_local_takes_the_numpy_type_a_later_assignment_gives():
    """As in the interpreter: `s = 0.0` is a Python float until `s += x[i]` (float32) makes
    it a NumPy float32; a local only ever holding Python scalars stays weak."""
    fn = irtools.typed_function("""
        @unpython.type('ndarray[float32, 1]', 'ndarray[float64, 1]', 'float64')
        def f(x, y):
            s = 0.0
            t = 0.0
            u = 0
            w = 0.5
            for i in range(x.shape[0]):
                s += x[i]
                t += x[i]
                t += y[i]
                u = u + 2
                w = w * 2.0
            return s + t
        """)
    assert fn.locals["s"] == Scalar("float32")
    assert fn.locals["t"] == Scalar("float64")     # float32 and float64 promoted
    assert fn.locals["u"] == Scalar("int64", weak=True)
    assert fn.locals["w"] == Scalar("float64", weak=True)


def test_locals_take_the_type_of_their_first_assignment():
    fn = irtools.typed_function("""
        @unpython.locals(d='float32')
        @unpython.type('ndarray[float32, 1]', 'int32', None)
        def f(a, k):
            x = a[0]
            y = k * 2
            z = 1.5
            w = k
            n = a.shape[0]
            d = 0.0
            flag = True
            b = np.zeros(n, np.int16)
            for i in range(n):
                pass
        """)
    assert fn.locals == {"d": Scalar("float32"), "x": Scalar("float32"), "y": Scalar("int32"),
                         "z": Scalar("float64", weak=True), "w": Scalar("int32"),
                         "n": Scalar("int64", weak=True), "flag": Scalar("bool", weak=True),
                         "b": Array("int16", 1), "i": Scalar("int64", weak=True)}


def test_float32_stays_float32_against_literals():
    fn = irtools.typed_function("""
        @unpython.type('float32', 'float32')
        def f(x):
            return x * 0.5 + 2 - x / 3.0
        """)
    value = fn.body[0].value
    assert value.type == Scalar("float32")
    assert not isinstance(value, ir.Cast)


def test_widening_assignment_inserts_a_cast():
    fn = irtools.typed_function("""
        @unpython.type('int32', 'float64', 'float64')
        def f(k, x):
            y = x
            y = k
            return y
        """)
    second = fn.body[1]
    assert isinstance(second.value, ir.Cast) and second.value.type == Scalar("float64")
    assert second.value.value.type == Scalar("int32")


def test_comparison_chain_records_each_pair():
    fn = irtools.typed_function("""
        @unpython.type('int32', 'float64', 'uint64', 'bool')
        def f(a, b, c):
            return a < b < c
        """)
    chain = fn.body[0].value        # lowered to one comparison per pair (lower_logic)
    assert chain.type == Scalar("bool")
    assert [c.operand_types for c in chain.values] == [[["float64", "float64"]],
                                                       [["float64", "float64"]]]


def test_integer_division_and_math_types():
    fn = irtools.typed_function("""
        @unpython.type('int64', 'int64', 'float64')
        def f(a, b):
            q = a / b
            r = a // b
            s = math.floor(q)
            t = np.floor(q)
            return q + r + s + t
        """)
    assert fn.locals["q"] == Scalar("float64") and fn.locals["r"] == Scalar("int64")
    assert fn.locals["s"].dtype == "int64" and fn.locals["t"] == Scalar("float64")


def test_bool_arithmetic_is_integer():
    fn = irtools.typed_function("""
        @unpython.type('bool', 'bool', 'int64')
        def f(a, b):
            return a + b
        """)
    assert fn.body[0].value.type.dtype == "int64"


def test_array_return_and_call_types():
    module = irtools.typed("""
        @unpython.type('int64', 'ndarray[float64, 2]')
        def make(n):
            return np.zeros((n, n), np.float64)

        @unpython.type('int64', 'float64')
        def user(n):
            a = make(n)
            return a[0, 0]
        """)
    make, user = module.functions
    assert make.return_type == Array("float64", 2)
    assert user.locals["a"] == Array("float64", 2)
    assert isinstance(user.body[0].value, ir.CallCompiled)
