"""What the compiled caller checks of index scalars before relaunching a nest from C++
(jitgpu/relaunch.py, `IndexChecks.constraints`): for indices affine in the index scalars, the
linear constraints hold exactly where the interval proofs (`IndexChecks.hold`) hold; any other
index gives none (the Python path proves each value)."""
from hypothesis import given, settings, strategies as st

from jitgpu.nest import LoopBox
from jitgpu.relaunch import IndexChecks, ScalarRoles, _coefficient
from unpy import ir


def name(n):
    return ir.Name(n)


def const(v):
    return ir.Const(v)


def affine(c, e, d, offset):
    """c * k + e * t + d * i + offset, written as a user would (constants folded in)."""
    x = ir.BinOp("*", const(c), name("k")) if c != 1 else name("k")
    if e:
        x = ir.BinOp("-", x, ir.BinOp("*", name("t"), const(-e)))
    if d:
        x = ir.BinOp("+", x, ir.BinOp("*", name("i"), const(d)))
    return ir.BinOp("-" if offset < 0 else "+", x, const(abs(offset)))


ROLES = ScalarRoles(frozenset({"dt"}), frozenset({"k", "t"}))


def holds(constraints, values):
    return all(lo <= sum(c * values[s] for s, c in coefficients.items()) <= hi
               for lo, hi, coefficients in constraints)


@settings(max_examples=150, deadline=None)
@given(checks=st.lists(st.tuples(st.integers(-3, 3).filter(bool), st.integers(-2, 2),
                                 st.integers(-2, 2), st.integers(-20, 20), st.integers(1, 30)),
                       min_size=1, max_size=3),
       extent=st.integers(1, 6), k=st.integers(-40, 40), t=st.integers(-10, 10))
def test_the_constraints_hold_where_the_proofs_do(checks, extent, k, t):
    boxes = {"i": LoopBox("i", 0, 1, extent, True)}
    found = IndexChecks(tuple((affine(c, e, d, o), n) for c, e, d, o, n in checks), boxes)
    constraints = found.constraints(ROLES, {"k": k, "t": t, "dt": 0.5})
    for v in range(-60, 61):
        for u in (-7, 0, 3):
            values = {"k": v, "t": u, "dt": 0.25}
            assert found.hold(values) == holds(constraints, values), (values, constraints)


def test_indices_not_affine_in_the_index_scalars_give_none():
    boxes = {"i": LoopBox("i", 0, 1, 4, True)}
    square = ir.BinOp("*", name("k"), name("k"))
    modulo = ir.BinOp("%", name("k"), const(5))
    product = ir.BinOp("*", name("k"), name("t"))
    for e in (square, modulo, product):
        assert IndexChecks(((e, 9),), boxes).constraints(ROLES, {"k": 1, "t": 2}) is None
    assert IndexChecks((), boxes).constraints(ROLES, {"k": 1, "t": 2}) == ()


def test_coefficients():
    k, i = name("k"), name("i")
    assert _coefficient(ir.BinOp("-", const(10), ir.BinOp("*", k, const(3))), "k") == -3
    assert _coefficient(ir.UnaryOp("-", ir.BinOp("+", k, i)), "k") == -1
    assert _coefficient(ir.BinOp("-", k, k), "k") == 0
    assert _coefficient(ir.BinOp("*", i, k), "k") is None
    assert _coefficient(ir.BinOp("//", k, const(2)), "k") is None
