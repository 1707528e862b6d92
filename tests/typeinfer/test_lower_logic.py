"""Chained comparisons and value-returning `and`/`or` lowered in the IR (lower_logic): single
comparisons joined by a bool `and`, conditional expressions, and a `NamedExpr` local only where
an operand used twice calls a compiled function."""
from unpy import ir
from unpy.ir import Scalar
from unpy.typeinfer.reductions import walk_exprs

import irtools


def lowered_values(body):
    module = irtools.typed(body)
    fn = module.functions[-1]
    return fn, [ir.format_expr(s.value) for s in fn.body]


def test_every_compare_has_one_operator_and_every_boolop_is_bool():
    fn, _ = lowered_values("""
        @unpython.type('int64', 'float64', 'int64', 'float64')
        def f(a, b, c):
            x = a < b <= c != 3
            y = (a or c) and b
            return b if x else y
        """)
    for e in walk_exprs(fn.body):
        if isinstance(e, ir.Compare):
            assert len(e.ops) == len(e.comparators) == len(e.operand_types) == 1
        if isinstance(e, ir.BoolOp):
            assert e.type == Scalar("bool")


def test_chain_repeats_a_middle_operand_without_calls():
    fn, texts = lowered_values("""
        @unpython.type('int64', 'ndarray[float64,1]', 'int64', 'bool')
        def f(a, x, c):
            return a < x[a] + 1.0 < c
        """)
    assert texts == ["((a < (x[a] + 1.0)) and ((x[a] + 1.0) < c))"]
    assert not any(n.startswith("unpy_") for n in fn.locals)


def test_chain_with_a_compiled_call_binds_its_changeable_middle_operands():
    fn, texts = lowered_values("""
        @unpython.type('ndarray[int64,1]', 'int64')
        def bump(x):
            x[0] += 1
            return x[0]

        @unpython.type('ndarray[int64,1]', 'int64', 'bool')
        def f(x, a):
            return a < x[0] < bump(x) < 10
        """)
    # `a` needs no local (no call changes it); x[0] and the call are evaluated once.
    assert texts == ["((a < (unpy_t1 := x[0])) and (unpy_t1 < (unpy_t2 := bump(x))) "
                     "and (unpy_t2 < 10))"]
    assert fn.locals["unpy_t1"] == fn.locals["unpy_t2"] == Scalar("int64")


def test_value_returning_and_or_become_conditional_expressions():
    _, texts = lowered_values("""
        @unpython.type('int64', 'int64', 'int64', 'int64')
        def f(a, b, c):
            x = a and b
            y = a or b or c
            return x + y
        """)
    assert texts[:2] == ["(b if a else a)", "(a if a else (b if b else c))"]


def test_value_returning_or_binds_a_compiled_call():
    fn, texts = lowered_values("""
        @unpython.type('float64', 'float64')
        def g(v):
            return v - 1.0

        @unpython.type('float64', 'float64', 'float64')
        def f(a, b):
            return g(a) or b
        """)
    assert texts == ["(unpy_t1 if (unpy_t1 := g(a)) else b)"]


def test_temporaries_do_not_take_a_users_name():
    fn, texts = lowered_values("""
        @unpython.type('int64', 'int64')
        def g(v):
            return v

        @unpython.type('int64', 'int64', 'int64')
        def f(a, unpy_t1):
            return g(a) and unpy_t1
        """)
    assert texts == ["(unpy_t1 if (unpy_t2 := g(a)) else unpy_t2)"]


def test_lowered_ir_round_trips():
    module = irtools.typed("""
        @unpython.type('int64', 'int64')
        def g(v):
            return v

        @unpython.type('int64', 'int64', 'bool')
        def f(a, b):
            return 0 < g(a) < b and (a or b) > 2
        """)
    assert ir.from_json(ir.to_json(module)) == module
