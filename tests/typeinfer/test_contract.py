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


def fast(body):
    """The statements that run where no length of 1 found at run time broadcasts: of a
    statement in two versions (unpy/typeinfer/lower_arrays.py), the fast one."""
    out = []
    for s in body:
        out += fast(s.orelse) if isinstance(s, ir.If) and s.broadcast else [s]
    return out


def nests(fn):
    return [s for s in fast(fn.body) if isinstance(s, ir.For) and s.parallel]


def arrays_allocated(fn):
    return sorted(e.target.id for e in walk_stmts(fast(fn.body))
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
    assert {"s__e", "d1__e", "d2__e"} <= set(fn.locals)
    # (the arrays stay for the general versions, where a length of 1 broadcasts)
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
    body = fast(fn.body)
    checks = [s for s in body if isinstance(s, ir.If)]
    # a vs b, and a vs c once: t's length is a's, known when compiling.
    assert len(checks) == 2
    assert body.index(checks[-1]) < body.index(nest)


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
    # (a range: in a prange, reading b whole while the iterations write it is a race)
    fn = function("a, b", """
for j in range(a.shape[0]):
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
    body = [s for s in fast(fn.body) if isinstance(s, ir.For)][0].body
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


def test_lengths_that_may_differ_give_two_versions_decided_before_the_nest():
    """`a * b` of lengths equal or 1 at run time (lower_arrays): the fast version reads both at
    the nest's index, the general one a length 1 at index 0 (`i * (n != 1)`); the lengths'
    test comes first, once."""
    fn = function("a, b", "return a * b", ret=F1)
    (versions,) = [s for s in fn.body if isinstance(s, ir.If) and s.broadcast]
    assert ir.format_expr(versions.test) == "(b.shape[0] != a.shape[0])"

    def reads(body):
        return [e for e in walk_exprs(body) if isinstance(e, ir.Subscript)
                and e.array.id in ("a", "b")]
    assert all(isinstance(i, ir.Name) for e in reads(versions.orelse) for i in e.indices)
    stretched = [i for e in reads(versions.body) for i in e.indices]
    assert len(stretched) == 2 and all(isinstance(i, ir.BinOp) and i.op == "*"
                                       for i in stretched)


def test_one_operand_has_one_version():
    fn = function("a", "return a * 2.0 + a", ret=F1)
    assert not any(isinstance(s, ir.If) and s.broadcast for s in walk_stmts(fn.body))
