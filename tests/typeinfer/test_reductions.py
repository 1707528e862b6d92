"""Reductions and private variables of prange loops; numbering of @gpu nests (SPEC section 3)."""
import pytest

from unpy import ir

import irtools


def loop_of(body):
    fn = irtools.typed_function(body)
    return next(s for s in fn.body if isinstance(s, ir.For))


@pytest.mark.parametrize("update, op", [
    ("s += a[i]", "+"), ("s -= a[i]", "+"), ("s *= a[i]", "*"), ("s = s + a[i]", "+"),
    ("s = a[i] + s", "+"), ("s = s - a[i]", "+"), ("s = s * a[i]", "*"),
    ("s = min(s, a[i])", "min"), ("s = max(a[i], s)", "max")])
def test_float_reduction_forms(update, op):
    loop = loop_of(f"""
        @unpython.type('ndarray[float64, 1]', 'float64')
        def f(a):
            s = 0.0
            for i in prange(a.shape[0]):
                {update}
            return s
        """)
    assert [(r.var, r.op) for r in loop.reductions] == [("s", op)]


@pytest.mark.parametrize("update, op", [("x |= a[i]", "|"), ("x &= a[i]", "&"),
                                        ("x ^= a[i]", "^"), ("x = x | a[i]", "|")])
def test_bitwise_reductions_of_integers(update, op):
    loop = loop_of(f"""
        @unpython.type('ndarray[int64, 1]', 'int64')
        def f(a):
            x = 0
            for i in prange(a.shape[0]):
                {update}
            return x
        """)
    assert [(r.var, r.op) for r in loop.reductions] == [("x", op)]


def test_private_variables_are_not_reductions():
    loop = loop_of("""
        @unpython.type('ndarray[float64, 2]', 'float64')
        def f(a):
            total = 0.0
            t = 0.0
            for i in prange(a.shape[0]):
                t = 0.0
                for j in range(a.shape[1]):
                    t += a[i, j]
                total += t
            return total
        """)
    assert [(r.var, r.op) for r in loop.reductions] == [("total", "+")]


def test_reduction_in_a_branch_and_several_reductions():
    loop = loop_of("""
        @unpython.type('ndarray[float64, 1]', 'float64')
        def f(a):
            s = 0.0
            n = 0
            hi = 0.0
            for i in prange(a.shape[0]):
                if a[i] > 0.0:
                    s += a[i]
                    n += 1
                hi = max(hi, a[i])
            return s + n + hi
        """)
    assert sorted((r.var, r.op) for r in loop.reductions) == [("hi", "max"), ("n", "+"),
                                                              ("s", "+")]


def test_gpu_nests_are_numbered_outermost_only():
    fn = irtools.typed_function("""
        @unpython.gpu
        @unpython.type('ndarray[float64, 2]', None)
        def f(a):
            for i in prange(a.shape[0]):
                for j in prange(a.shape[1]):
                    a[i, j] = 0.0
            for k in range(2):
                for i in prange(a.shape[0]):
                    a[i, 0] = k
        """)
    first, outer = fn.body
    assert first.nest_id == 0 and first.body[0].nest_id is None
    assert outer.nest_id is None and outer.body[0].nest_id == 1


def test_cpu_function_nests_have_no_id():
    loop = loop_of("""
        @unpython.type('ndarray[float64, 1]', None)
        def f(a):
            for i in prange(a.shape[0]):
                a[i] = 1.0
        """)
    assert loop.nest_id is None and loop.reductions == []


def test_loop_variable_may_be_read_after_the_prange():
    """Unlike other private variables: compiled code gives it its last value back."""
    loop = loop_of("""
        @unpython.type('ndarray[float64, 1]', 'int64')
        def f(a):
            i = -1
            for i in prange(a.shape[0]):
                a[i] = 1.0
            return i
        """)
    assert loop.var == "i"


def test_private_reassigned_after_the_prange_is_fine():
    loop = loop_of("""
        @unpython.type('ndarray[float64, 1]', 'float64')
        def f(a):
            for i in prange(a.shape[0]):
                t = a[i]
                a[i] = t * 2.0
            t = 5.0
            for i in prange(a.shape[0]):
                t = a[i] + 1.0
                a[i] = t
            return 0.0
        """)
    assert loop.reductions == []
