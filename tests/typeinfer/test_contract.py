"""Array statements fused across their shape checks, and temporaries that live in one nest made
scalars (unpy/typeinfer/fuse.py, unpy/typeinfer/contract.py), in @gpu functions and others; the
results are checked against the interpreter by the kernels of tests/kernels (numpy_exprs,
complex_numbers) and the corpus."""
import pytest

from unpy import ir
from unpy.typeinfer.reductions import walk_exprs, walk_stmts

import irtools

F1 = "'ndarray[float64, 1]'"


def function(params, body, types=None, ret="None", gpu=True):
    types = types or ", ".join([F1] * len(params.split(",")))
    text = (("@unpython.gpu\n" if gpu else "") + f"@unpython.type({types}, {ret})\n"
            f"def f({params}):\n" + "\n".join("    " + line
                                             for line in body.strip("\n").splitlines()))
    return irtools.typed_function(text)


def nests(fn):
    return [s for s in fn.body if isinstance(s, ir.For) and s.parallel]


def arrays_allocated(fn):
    return sorted(e.target.id for e in walk_stmts(fn.body)
                  if isinstance(e, ir.Assign) and isinstance(e.value, ir.AllocArray))


BLACK_SCHOLES_LIKE = """
s = vol * np.sqrt(t)
d1 = (np.log(price / strike) + 0.5 * t) / s
d2 = d1 - s
out[:] = price * d1 - strike * d2
"""


@pytest.mark.parametrize("gpu", [True, False])
def test_statements_fuse_and_temporaries_become_scalars(gpu):
    fn = function("price, strike, t, vol, out", BLACK_SCHOLES_LIKE,
                  types=f"{F1}, {F1}, {F1}, 'float64', {F1}", gpu=gpu)
    # out may be a view of t (two parameters): the store stays a nest of its own.
    first, store = nests(fn)
    assert arrays_allocated(fn) == ["d1", "d2"]
    assert {"s__e"} <= set(fn.locals) and "s" not in fn.locals
    assert not any(isinstance(e, ir.Subscript) and e.array.id == "s" for e in walk_exprs(first))


def test_a_temporary_read_after_its_nest_stays_an_array():
    fn = function("a", """
t = a * 2.0
u = t + 1.0
v = u * 3.0
return t, v
""", ret="'tuple[ndarray[float64, 1], ndarray[float64, 1]]'")
    (nest,) = nests(fn)
    assert arrays_allocated(fn) == ["t", "v"]
    assert "u__e" in fn.locals


def test_a_temporary_read_at_a_neighbour_stays_an_array():
    fn = function("a, b", """
t = a * 2.0
b[1:] = t[:-1] + t[1:]
""")
    assert "t" in arrays_allocated(fn)


def test_shape_checks_move_before_the_fused_nest_and_fold_where_known():
    fn = function("a, b, c", """
t = a * b
u = t * c
return u
""", ret=F1)
    (nest,) = nests(fn)
    checks = [s for s in fn.body if isinstance(s, ir.If)]
    # a vs b, and a vs c once: t's length is a's, known when compiling.
    assert len(checks) == 2
    assert fn.body.index(checks[-1]) < fn.body.index(nest)


def test_a_nest_that_may_raise_keeps_the_checks_after_it():
    fn = function("a, b, c", """
t = a // b
u = t * c
return u
""", types=", ".join(["'ndarray[int64, 1]'"] * 3), ret="'ndarray[int64, 1]'")
    assert len(nests(fn)) == 2
