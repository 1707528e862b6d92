"""Fusion of consecutive prange nests (unpy/typeinfer/fuse.py; Helium's rule
without alignment): legal cases become one nest, illegal ones stay two, with the reason."""
from unpy import ir
from unpy.typeinfer.fuse import chain, why_not_fused
from unpy.typeinfer.reductions import walk_stmts

import irtools

F1 = "'ndarray[float64, 1]'"
F2 = "'ndarray[float64, 2]'"
I1 = "'ndarray[int64, 1]'"


def function(params, body, types=None, ret="None"):
    """A @gpu function f(params) with `body` (types: float64 vectors unless given)."""
    types = types or ", ".join([F1] * len(params.split(",")))
    text = (f"@unpython.gpu\n@unpython.type({types}, {ret})\ndef f({params}):\n"
            + "\n".join("    " + line for line in body.strip("\n").splitlines()))
    return irtools.typed_function(text)


def nests(fn):
    return [s for s in walk_stmts(fn.body) if isinstance(s, ir.For) and s.nest_id is not None]


def refusal(params, body, types=None):
    """Why the two nests of `body` were not fused."""
    fn = function(params, body, types)
    found = nests(fn)
    assert len(found) == 2, ir.format_function(fn)
    why = why_not_fused(found[0], found[1], fn)
    assert why, ir.format_function(fn)
    return why


def test_producer_and_consumer_fuse():
    fn = function("a, b, c", """
for i in prange(a.shape[0]):
    b[i] = a[i] * 2.0
for i in prange(a.shape[0]):
    c[i] = b[i] + a[i]
""")
    (nest,) = nests(fn)
    assert nest.nest_id == 0 and nest.fused == [10, 12]
    assert [ir.format_expr(s.target) for s in nest.body] == ["b[i]", "c[i]"]
    assert "(fused: the nests at lines 10, 12)" in ir.format_function(fn)


def test_two_levels_renamed_and_privates_kept_apart():
    fn = function("a, b, c", """
for i in prange(a.shape[0]):
    for j in prange(a.shape[1]):
        t = a[i, j] * 2.0
        b[i, j] = t
for p in prange(a.shape[0]):
    for q in prange(a.shape[1]):
        t = b[p, q] + a[p, q]
        c[p, q] = t * 3.0
s = 0.0
for i in prange(a.shape[0]):
    s += c[i, 0]
return s
""", types=f"{F2}, {F2}, {F2}", ret="'float64'")
    first, second = nests(fn)
    assert [first.nest_id, second.nest_id] == [0, 1]
    levels = chain(first)
    assert [level.var for level in levels] == ["i", "j"]
    text = ir.format_function(fn)
    assert "t__f = (b[i, j] + a[i, j])" in text and "c[i, j] = (t__f * 3.0)" in text
    assert "t__f" in fn.locals
    assert second.reductions and not second.fused       # a reduction stays a nest of its own


def test_same_offset_and_a_local_array():
    fn = function("a, c", """
t = np.zeros(a.shape[0] + 1, np.float64)
for i in prange(a.shape[0]):
    t[i + 1] = a[i] * 2.0
for i in prange(a.shape[0]):
    c[i] = t[i + 1] + a[i]
""")
    assert len(nests(fn)) == 1


def test_nests_in_a_time_loop_fuse():
    fn = function("a, b, c, steps", """
for t in range(steps):
    for i in prange(a.shape[0]):
        b[i] = a[i] * 0.5 + c[i]
    for i in prange(a.shape[0]):
        c[i] = b[i] + a[i]
""", types=f"{F1}, {F1}, {F1}, 'int64'")
    (nest,) = nests(fn)
    assert isinstance(fn.body[0], ir.For) and fn.body[0].body == [nest]


def test_stencil_neighbour_reads_do_not_fuse():
    why = refusal("a, b, steps", """
for t in range(steps):
    for i in prange(1, a.shape[0] - 1):
        b[i] = (a[i - 1] + a[i] + a[i + 1]) / 3.0
    for i in prange(1, a.shape[0] - 1):
        a[i] = (b[i - 1] + b[i] + b[i + 1]) / 3.0
""", types=f"{F1}, {F1}, 'int64'")
    assert "b[i] written by the first nest may be accessed as b[(i - 1)]" in why


def test_reductions_do_not_fuse():
    why = refusal("a, b", """
s = 0.0
for i in prange(a.shape[0]):
    s += a[i]
for i in prange(a.shape[0]):
    b[i] = a[i] * 2.0
""")
    assert "reduction" in why


def test_different_bounds_do_not_fuse():
    why = refusal("a, b", """
for i in prange(a.shape[0]):
    b[i] = a[i]
for i in prange(1, a.shape[0]):
    a[i] = b[i] * 2.0
""")
    assert "different iteration spaces" in why


def test_a_host_statement_between_keeps_two_nests():
    fn = function("a, b", """
for i in prange(a.shape[0]):
    b[i] = a[i]
a[0] = 1.0
for i in prange(a.shape[0]):
    a[i] = b[i] * 2.0
""")
    assert len(nests(fn)) == 2


def test_parameters_that_may_be_views_of_one_buffer():
    # c may be a[1:]: c[i] written by the second nest would be a[i + 1], read by the first.
    why = refusal("a, b, c", """
for i in prange(a.shape[0]):
    b[i] = a[i]
for i in prange(a.shape[0]):
    c[i] = b[i] * 2.0
""")
    assert "c[i] written by the second nest may be accessed as a[i] by the first" in why
    # The second nest reading a[i] itself rules that out (its iterations are independent).
    fn = function("a, b, c", """
for i in prange(a.shape[0]):
    b[i] = a[i]
for i in prange(a.shape[0]):
    c[i] = b[i] * 2.0 + a[i]
""")
    assert len(nests(fn)) == 1


def test_indirect_and_conditional_accesses_do_not_fuse():
    # (An update: a store `b[idx[i]] = a[i]` is refused as a race, typeinfer/array_races.py.)
    why = refusal("a, b, idx", """
for i in prange(a.shape[0]):
    b[idx[i]] += a[i]
for i in prange(a.shape[0]):
    a[i] = b[i] + a[i]
""", types=f"{F1}, {F1}, {I1}")
    assert "b[idx[i]] written by the first nest" in why
    why = refusal("a, b", """
for i in prange(a.shape[0]):
    if a[i] > 0.0:
        continue
    b[i] = a[i]
for i in prange(a.shape[0]):
    a[i] = b[i] * 2.0
""")
    assert "leaves an iteration early" in why


def test_functions_without_gpu_fuse_their_pranges_too():
    fn = irtools.typed_function(f"""
@unpython.type({F1}, {F1}, None)
def f(a, b):
    for i in prange(a.shape[0]):
        b[i] = a[i]
    for i in prange(a.shape[0]):
        a[i] = b[i] * 2.0
""")
    (nest,) = [s for s in fn.body if isinstance(s, ir.For)]
    assert nest.nest_id is None and len(nest.body) == 2
