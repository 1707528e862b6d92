"""Lowering to the untyped IR: each accepted construct becomes the IR node the later stages
expect (SPEC section 3)."""
import math

from unpy import ir

import irtools


def body_of(text, name="f"):
    return irtools.lowered(text)[name].body


def test_chained_index_is_one_subscript():
    chained, tupled = (body_of(f"""
        @unpython.type('ndarray[float64, 3]', 'float64')
        def f(a):
            return {expr}
        """)[0].value for expr in ("a[1][2][0]", "a[1, 2, 0]"))
    assert isinstance(chained, ir.Subscript) and ir.format_expr(chained) == "a[1, 2, 0]"
    assert ir.to_data(chained)["indices"] == ir.to_data(tupled)["indices"]
    assert ir.format_expr(tupled) == "a[1, 2, 0]"


def test_shape_forms():
    body = body_of("""
        @unpython.type('ndarray[float64, 2]', 'int64')
        def f(a):
            m, n = a.shape
            p, q = shape(a)
            return shape(a)[1] + a.shape[-1] + len(a) + a.ndim + a.size
        """)
    assert [ir.format_expr(s.value) for s in body[:4]] == ["a.shape[0]", "a.shape[1]",
                                                            "a.shape[0]", "a.shape[1]"]
    assert [s.target.id for s in body[:4]] == ["m", "n", "p", "q"]
    assert ir.format_expr(body[4].value) == \
        "((((a.shape[1] + a.shape[-1]) + a.shape[0]) + a.ndim) + a.size)"


def test_range_arguments_are_normalised():
    loops = body_of("""
        @unpython.type('int64', None)
        def f(n):
            for i in range(n):
                pass
            for j in range(2, n):
                pass
            for k in prange(n, 0, -1):
                pass
        """)
    assert [(l.var, ir.format_expr(l.start), ir.format_expr(l.stop), ir.format_expr(l.step),
             l.parallel) for l in loops] == [("i", "0", "n", "1", False),
                                             ("j", "2", "n", "1", False),
                                             ("k", "n", "0", "-1", True)]
    assert isinstance(loops[2].step, ir.Const) and loops[2].step.value == -1


def test_tuple_assignment_goes_through_temporaries():
    body = body_of("""
        @unpython.type('int64', 'int64', 'int64')
        def f(a, b):
            a, b = b, a
            return a
        """)
    assert [f"{s.target.id} = {ir.format_expr(s.value)}" for s in body[:4]] == \
        ["__tmp0 = b", "__tmp1 = a", "a = __tmp0", "b = __tmp1"]


def test_docstring_pass_and_augmented_assignment():
    body = body_of('''
        @unpython.type('int64', 'int64')
        def f(n):
            """Docstring."""
            pass
            n //= 2
            return n
        ''')
    assert isinstance(body[0], ir.Pass)
    assert isinstance(body[1], ir.AugAssign) and body[1].op == "//"


def test_builtins_and_aliases():
    value = body_of("""
        @unpython.type('float64', 'float64')
        def f(x):
            return (math.sqrt(x) + np.arcsin(x) + np.arctan2(x, x) + np.power(x, 2.0)
                    + np.absolute(x) + abs(x) + min(x, 1.0) + float(x) + np.float32(x)
                    + int(x) + bool(x) + np.double(x))
        """)[0].value
    calls = [e.func for e in _walk(value) if isinstance(e, ir.Call)]
    assert calls == ["math.sqrt", "np.asin", "np.atan2", "np.pow", "np.abs", "abs", "min",
                     "cast:float", "cast:float32", "cast:int", "cast:bool", "cast:float64"]


def test_allocations():
    body = body_of("""
        @unpython.type('int64', None)
        def f(n):
            a = np.zeros((n, 3), np.int32)
            b = np.ones(n)
            c = np.empty((2, n, n), dtype='float32')
            d = np.zeros(n, dtype=np.uint8)
        """)
    got = [(s.value.fill, len(s.value.shape), s.value.dtype) for s in body]
    assert got == [("zeros", 2, "int32"), ("ones", 1, "float64"), ("empty", 3, "float32"),
                   ("zeros", 1, "uint8")]


def test_constants_and_negative_literals():
    body = body_of("""
        @unpython.type('float64', 'float64')
        def f(x):
            a = math.pi + np.e
            b = -np.inf
            c = -3
            return x
        """)
    assert body[0].value.left.value == math.pi and body[0].value.right.value == math.e
    assert isinstance(body[1].value, ir.Const) and body[1].value.value == -math.inf
    assert isinstance(body[2].value, ir.Const) and body[2].value.value == -3


def test_imported_constant_shadowed_by_a_local():
    body = irtools.lowered("from math import pi, e\nimport unpython\n\n"
                           "@unpython.type('float64', 'float64')\ndef f(x):\n"
                           "    e = x\n    return pi + e\n")["f"].body
    ret = body[1].value
    assert isinstance(ret.left, ir.Const) and ret.left.value == math.pi
    assert isinstance(ret.right, ir.Name) and ret.right.id == "e"


def test_calls_to_compiled_functions():
    functions = irtools.lowered("""
        @unpython.type('float64', 'float64')
        def g(x):
            return x

        @unpython.type('ndarray[float64, 1]', None)
        def f(a):
            g(1.0)
            a[0] = g(a[0])
        """)
    body = functions["f"].body
    assert isinstance(body[0], ir.ExprStmt) and isinstance(body[0].value, ir.CallCompiled)
    assert isinstance(body[1].value, ir.CallCompiled) and body[1].value.func == "g"


def test_chained_assignment_evaluates_once_then_assigns_left_to_right():
    body = body_of("""
        @unpython.type('ndarray[float64, 1]', 'int64', 'float64')
        def f(a, i):
            x = a[i] = a[0] * 2.0
            p = q = -1
            r = s = x
            return x
        """)
    assert [f"{ir.format_expr(s.target)} = {ir.format_expr(s.value)}" for s in body[:7]] == [
        "__tmp0 = (a[0] * 2.0)", "x = __tmp0", "a[i] = __tmp0", "p = -1", "q = -1", "r = x",
        "s = x"]
    assert body[3].value is not body[4].value       # each statement has its own node


def test_for_over_an_array_is_an_index_loop():
    loop, = body_of("""
        @unpython.type('ndarray[float64, 2]', None)
        def f(rows):
            for row in rows:
                row[0] = 1.0
        """)
    assert (loop.var, ir.format_expr(loop.start), ir.format_expr(loop.stop),
            ir.format_expr(loop.step), loop.parallel) == ("__k0", "0", "rows.shape[0]", "1", False)
    assert [f"{ir.format_expr(s.target)} = {ir.format_expr(s.value)}" for s in loop.body] == [
        "row = rows[__k0]", "row[0] = 1.0"]


def test_module_constants_are_literals():
    functions = irtools.lowered("""
        N = 8
        SCALE = -2.5 * N + 1
        ON = not False
        TWO_PI = 2 * math.pi

        @unpython.type('float64', 'float64')
        def f(x):
            return x * SCALE + N + ON + TWO_PI + LATER

        @unpython.type('float64', 'float64')
        def g(N):
            return N

        LATER = 1 << 4
        """)
    consts = [e.value for e in _walk(functions["f"].body[0].value) if isinstance(e, ir.Const)]
    assert consts == [-19.0, 8, True, 2 * math.pi, 16]
    assert isinstance(functions["g"].body[0].value, ir.Name)       # a parameter hides N


def test_defaults_fill_calls_of_compiled_functions():
    functions = irtools.lowered("""
        K = 3

        @unpython.type('float64', 'int64', 'bool', 'float64')
        def g(x, n=-K, flag=True):
            return x

        @unpython.type('float64', 'float64')
        def f(x):
            return g(x) + g(x, 2) + g(x, flag=False) + g(flag=False, n=1, x=x)
        """)
    assert [(p.name, p.default) for p in functions["g"].params] == [
        ("x", None), ("n", -3), ("flag", True)]
    calls = [ir.format_expr(e) for e in _walk(functions["f"].body[0].value)
             if isinstance(e, ir.CallCompiled)]
    assert calls == ["g(x, -3, True)", "g(x, 2, True)", "g(x, -3, False)", "g(x, 1, False)"]


def test_locations_are_one_based_lines_zero_based_columns():
    body = body_of("""
        @unpython.type('int64', 'int64')
        def f(n):
            x = n + 1
            return x
        """)
    first_line = irtools.HEADER.count("\n") + 3
    assert body[0].loc == (first_line, 4)
    assert body[0].value.loc == (first_line, 8)


def _walk(e):
    yield e
    for name in ("left", "right", "operand", "value", "test", "body", "orelse"):
        child = getattr(e, name, None)
        if child is not None and not isinstance(child, (list, int, float, bool, str)):
            yield from _walk(child)
    for child in getattr(e, "args", []) + getattr(e, "values", []):
        yield from _walk(child)
