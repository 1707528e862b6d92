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
    # Array statements assume that two parameters are different memory (SPEC section 3).
    (nest,) = nests(fn)
    assert arrays_allocated(fn) == []
    assert {"s__e", "d1__e", "d2__e"} <= set(fn.locals) and "s" not in fn.locals
    assert not any(isinstance(e, ir.Subscript) and e.array.id in ("s", "d1")
                   for e in walk_exprs(nest))


def test_written_pranges_of_parameters_that_may_overlap_stay_apart():
    fn = function("a, b", """
for i in prange(a.shape[0]):
    a[i] = 2.0
for i in prange(a.shape[0]):
    b[i] = 3.0
""")
    assert len(nests(fn)) == 2      # b may be a[1:]: the order of the writes matters


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


def test_a_repeated_reduction_takes_the_earlier_value():
    fn = function("a, out", """
mu = a.mean(axis=0)
sd = a.std(axis=0)
out[:] = (a - mu) / sd
""", types="'ndarray[float64, 2]', 'ndarray[float64, 2]'")
    first = nests(fn)[0]
    sums = [s for s in walk_stmts(first.body) if isinstance(s, ir.For) and not s.parallel]
    assert len(sums) == 2          # the mean once, the squares once


def test_a_reduction_after_a_write_of_its_array_is_computed_again():
    from unpy.typeinfer.contract import reuse_repeated_loops
    fn = function("a, b", """
for j in prange(a.shape[0]):
    s = 0.0
    for i in range(b.shape[0]):
        s += b[i]
    a[j] = s
    b[j] = 0.0
    t = 0.0
    for i in range(b.shape[0]):
        t += b[i]
    a[j] += t
""", gpu=False)
    body = nests(fn)[0].body
    assert len(reuse_repeated_loops(body)) == len(body)


def test_a_matrix_vector_product_fuses_with_its_scaling():
    fn = function("alpha, a, x, beta, y, out", """
out[:] = alpha * a @ x + beta * y
""", types="'float64', 'ndarray[float64, 2]', " + ", ".join([F1, "'float64'", F1, F1]))
    (nest,) = nests(fn)
    assert not nest.blas and arrays_allocated(fn) == []


def test_a_row_reduction_fuses_with_the_statements_over_its_rows():
    fn = function("a, out", """
e = np.exp(a - a.max(axis=1, keepdims=True))
out[:] = e / e.sum(axis=1, keepdims=True)
""", types="'ndarray[float64, 2]', 'ndarray[float64, 2]'")
    (nest,) = nests(fn)
    inner = [s for s in walk_stmts(nest.body) if isinstance(s, ir.For)]
    assert inner and not any(s.parallel for s in inner)     # the rows' loops: sequential
    assert any(name.endswith("__e") for name in fn.locals)   # the row sum: a scalar


def test_an_element_wise_nest_keeps_its_levels_beside_a_nest_without_the_row_loop():
    fn = function("a, r, b", """
r[:] = a[:, 0] * 2.0
b[:] = a + 1.0
""", types="'ndarray[float64, 2]', 'ndarray[float64, 1]', 'ndarray[float64, 2]'")
    assert len(nests(fn)) == 2
