"""unpy/loopopt/index_proof.py: which indices are proved in range while compiling, which get a
run-time proof before their nest, which stay checked; and what the C++ code does with them."""
import dataclasses
import re

from unpy import ir
from unpy.cpp_emit.module import emit_module
from unpy.loopopt import blocked_nests, optimise_for_cpu
from unpy.loopopt.index_proof import prove_indices
from unpy.pipeline import compile_to_ir
from unpy.typeinfer.reductions import walk_exprs, walk_stmts

import irtools


def proved(body, name=None):
    return prove_indices(irtools.typed_function(body, name))


def indices(node) -> dict:
    """`a[i - 1]` -> the dimensions in range, for each subscript below `node` (the last one
    of a text written twice), not those of its run-time proof."""
    if isinstance(node, ir.For):
        node = dataclasses.replace(node, proof=None)
    return {ir.format_expr(e): e.in_range for e in walk_exprs(node)
            if isinstance(e, ir.Subscript)}


def nest(fn, k=0):
    return [s for s in fn.body if isinstance(s, ir.For)][k]


def bounds(loop) -> list:
    return [f"{ir.format_expr(b.index)} < {b.array.id}.shape[{b.dim}]" for b in loop.proof.bounds]


def test_indices_of_a_range_over_the_extent_are_proved_while_compiling():
    fn = proved("""
        @unpython.type('ndarray[float64, 2]', 'ndarray[float64, 1]', 'float64')
        def f(a, b):
            m, n = a.shape
            s = 0.0
            for i in range(1, m - 1):
                for j in range(n):
                    s += a[i - 1, j] + a[i + 1, n - 1 - j] + b[i % 1]
                for j in range(i):
                    s += a[j, 0 * j]
            for i in range(len(b) - 1, -1, -1):
                s += b[i]
            for k in range(max(0, m - 3), min(m, b.shape[0])):
                s += a[k, 0] * b[k]
            return s
        """)
    first, backwards, clamped = (nest(fn, k) for k in range(3))
    assert indices(first) == {"a[(i - 1), j]": [0, 1], "a[(i + 1), ((n - 1) - j)]": [0, 1],
                              "b[(i % 1)]": [], "a[j, (0 * j)]": [0]}
    assert indices(backwards) == {"b[i]": [0]}
    assert indices(clamped) == {"a[k, 0]": [0], "b[k]": [0]}
    # Left for run time: b[i % 1] (b may be empty), a[j, 0] (a may have no column).
    assert bounds(first) == ["(unpy_span_i % 1) < b.shape[0]", "(0 * unpy_span_j_1) < a.shape[1]"]


def test_local_arrays_views_and_guards():
    fn = proved("""
        @unpython.type('ndarray[float64, 2]', 'int64', 'float64')
        def f(a, k):
            t = np.zeros(a.shape[0] + 1)
            s = 0.0
            for i in range(a.shape[0]):
                t[i + 1] = 1.0
                row = a[i]
                for j in range(row.shape[0]):
                    s += row[j]
                if i > 0 and i < a.shape[0] - 1:
                    s += t[i - 1] + a[i + 1, 0 * i]
                else:
                    s += t[i - 1]
            return s
        """)
    assert indices(nest(fn)) == {"t[(i + 1)]": [0], "row[j]": [0], "t[(i - 1)]": [],
                                 "a[(i + 1), (0 * i)]": [0]}
    # The guarded t[i - 1] is proved; the same text in the else branch is not: its i may be 0.
    guarded = [e for e in walk_exprs(dataclasses.replace(nest(fn), proof=None))
               if ir.format_expr(e) == "t[(i - 1)]"]
    assert [e.in_range for e in guarded] == [[0], []]


def test_negative_indices_become_in_range_ones():
    fn = proved("""
        @unpython.type('ndarray[float64, 1]', 'ndarray[float64, 1]', None)
        def f(a, out):
            for i in range(a.shape[0]):
                out[i] = a[-1 - i] + a[-1]
        """)
    loop = nest(fn)
    assert indices(loop) == {"out[i]": [], "a[((-1 - i) + a.shape[0])]": [0],
                             "a[-1]": []}
    assert bounds(loop) == ["unpy_span_i < out.shape[0]", "(-1 + a.shape[0]) < a.shape[0]"]
    assert indices(loop.proof.nest) == {"out[i]": [0], "a[((-1 - i) + a.shape[0])]": [0],
                                        "a[(-1 + a.shape[0])]": [0]}


def test_run_time_proofs_of_a_nest():
    fn = proved("""
        @unpython.type('ndarray[float64, 2]', 'ndarray[float64, 2]', 'ndarray[float64, 2]', None)
        def f(a, b, c):
            for i in prange(a.shape[0]):
                for j in range(i, b.shape[1]):
                    s = 0.0
                    for k in range(a.shape[1]):
                        s += a[i, k] * b[k, j]
                    c[i, j] = s
        """)
    loop = nest(fn)
    assert indices(loop) == {"a[i, k]": [0, 1], "b[k, j]": [1], "c[i, j]": []}
    assert indices(loop.proof.nest) == {"a[i, k]": [0, 1], "b[k, j]": [0, 1],
                                        "c[i, j]": [0, 1]}
    assert bounds(loop) == ["unpy_span_k < b.shape[0]", "unpy_span_i < c.shape[0]",
                            "unpy_span_j < c.shape[1]"]
    # The triangle's span: j from i's first value to the last column.
    spans = {s.var: (ir.format_expr(s.first), ir.format_expr(s.last)) for s in loop.proof.spans}
    assert spans == {"i": ("0", "(a.shape[0] - 1)"), "j": ("unpy_span_i", "(b.shape[1] - 1)"),
                     "k": ("0", "(a.shape[1] - 1)")}


def test_what_stays_checked():
    fn = proved("""
        @unpython.type('ndarray[float64, 1]', 'ndarray[int64, 1]', 'int64', 'float64')
        def f(a, idx, n):
            s = 0.0
            for i in range(idx.shape[0]):
                s += a[idx[i]]
            for i in range(a.shape[0]):
                s += a[i - 1]
            for i in range(n):
                j = i + 1
                s += a[j]
            for i in range(n):
                i = i * 2
                s += a[i]
            for i in range(a.shape[0]):
                a = idx * 1.0
                s += a[i]
            return s
        """)
    loops = [s for s in fn.body if isinstance(s, ir.For)]
    assert [indices(x) for x in loops] == [
        {"a[idx[i]]": [], "idx[i]": [0]}, {"a[(i - 1)]": []}, {"a[j]": []}, {"a[i]": []},
        {"a[__i_1]": [0], "idx[__i_1]": [0], "a[i]": []}]    # (a = idx * 1.0 as a loop)
    # a[idx[i]] cannot be proved, a[i - 1] reads a[-1] where it first runs: no run-time proof.
    assert all(x.proof is None for x in loops)


def test_gpu_nests_inside_a_loop_are_proved_one_by_one():
    fn = proved("""
        @unpython.gpu
        @unpython.type('ndarray[float64, 1]', 'ndarray[float64, 1]', 'int64', None)
        def f(a, b, steps):
            for t in range(steps):
                for i in prange(a.shape[0]):
                    b[i] = a[i] * 2.0
        """)
    outer = nest(fn)
    assert outer.proof is None and outer.body[0].nest_id is not None
    assert bounds(outer.body[0]) == ["unpy_span_i < b.shape[0]"]


def test_prange_nests_inside_a_sequential_loop_are_proved_one_by_one():
    """(not the whole loop: its proof would copy every nest in it, for checks outside them)"""
    fn = proved("""
        @unpython.type('ndarray[float64, 2]', 'ndarray[float64, 1]', 'int64', None)
        def f(a, b, steps):
            for t in range(steps):
                for i in prange(a.shape[0]):
                    b[i] = a[i, t] * 2.0
                for i in prange(b.shape[0] - 1):
                    b[i] += a[0, i]
        """)
    outer = nest(fn)
    assert outer.proof is None and len(outer.body) == 2
    assert bounds(outer.body[0]) == ["unpy_span_i < b.shape[0]", "t < a.shape[1]"]
    assert outer.body[1].proof is not None


def test_an_integer_index_of_a_view_is_wrapped_once_before_its_statement():
    """`a[:, k]` in an array statement: k checked and wrapped before the nest, so its accesses
    are in range and the nest needs no run-time proof (one version of it, not two)."""
    fn = proved("""
        @unpython.type('ndarray[float64, 2]', 'ndarray[float64, 2]', 'int64', None)
        def f(a, b, k):
            for t in range(1, a.shape[1]):
                b[:, t] = a[:, t - 1] * 2.0 + a[:, k]
        """)
    loops = [s for s in walk_stmts(fn.body) if isinstance(s, ir.For) and s.parallel]
    assert loops and all(loop.proof is None for loop in loops)
    for loop in loops:
        assert all(dims == [0, 1] for dims in indices(loop).values()), indices(loop)


def test_register_blocked_nests_keep_their_blocked_form_by_default():
    path = "tests/kernels/contractions.py"
    with open(path) as f:
        module = compile_to_ir(path, f.read())
    unproved = {fn.name: nest(optimise_for_cpu(fn)) for fn in module.functions}
    unchecked = {fn.name: nest(optimise_for_cpu(fn, "none")) for fn in module.functions}
    blocked = {name for name, loop in unchecked.items() if loop.blocked}
    assert len(blocked) == 19           # (tests/differential/test_register_blocks.py's set)
    for name in blocked:
        loop = unproved[name]
        # c's extents are not a's or b's: the blocked form runs under the run-time proof.
        assert loop.blocked == [] and loop.proof.nest.blocked, name
        assert loop.proof.nest.disjoint == unchecked[name].disjoint
        assert all(len(e.in_range) == len(e.indices) for e in walk_exprs(loop.proof.nest.blocked)
                   if isinstance(e, ir.Subscript))
    assert blocked_nests(module.functions) == blocked_nests(module.functions, "none") == 19
    assert blocked_nests(module.functions, "all") == 0


def test_a_squared_array_expression_keeps_its_blocked_form():
    """`(x[:, None, :] - y[None, :, :]) ** 2` squares one element with itself: two copies of
    the element's nodes (one node in two places would be proved in neither, and the nest
    would lose its register-blocked form: 2.1x the loops' time on 16 cores)."""
    module = compile_to_ir("/virtual/pairwise.py", irtools.source("""
        @unpython.type('ndarray[float64, 2]', 'ndarray[float64, 2]', 'ndarray[float64, 2]',
                       None)
        def pairwise(x, y, out):
            out[:] = np.sqrt(np.sum((x[:, None, :] - y[None, :, :]) ** 2, axis=2))

        @unpython.type('ndarray[float64, 2]', 'ndarray[float64, 2]', 'ndarray[float64, 2]',
                       None)
        def pairwise_square(x, y, out):
            out[:] = np.sqrt(np.sum(np.square(x[:, None, :] - y[None, :, :]), axis=2))
        """))
    for fn in module.functions:
        products = [e for e in walk_exprs(fn.body) if isinstance(e, ir.BinOp) and e.op == "*"
                    and ir.format_expr(e.left) == ir.format_expr(e.right)]
        assert products and all(e.left is not e.right for e in products)
        assert blocked_nests([fn]) == 2, fn.name     # both shapes' versions


def test_the_emitted_code():
    body = """
        @unpython.type('ndarray[float64, 2]', 'ndarray[float64, 2]', 'ndarray[float64, 2]', None)
        def f(a, b, c):
            for i in prange(a.shape[0]):
                for j in prange(b.shape[1]):
                    s = 0.0
                    for k in range(a.shape[1]):
                        s += a[i, k] * b[k, j]
                    c[i, j] = s

        @unpython.type('ndarray[float64, 1]', 'ndarray[int64, 1]', 'float64')
        def g(a, idx):
            s = 0.0
            for i in range(idx.shape[0]):
                s += a[idx[i]]
            return s
        """
    cpp = emit_module(irtools.typed(body), irtools.source(body))
    f = cpp[cpp.index("f_body"):cpp.index("g_body")]
    g = cpp[cpp.index("g_body"):]
    assert re.search(r"const unpy::Span unpy_span_k_ = unpy::span_loop\(unpy::span\(int64_t\(0\)"
                     r"\), unpy::span_sub\(unpy::span\(a.shape\[1\]\), ", f)
    assert "if (unpy::span_within(unpy_span_k_, b.shape[0]) && " in f
    # The proved nest, register-blocked where it may be, then the checked one.
    proved_part, checked_part = f.split("} else {\n", 1)[0], f.split("} else {\n")[-1]
    assert "unpy::disjoint(c, a)" in f
    assert "at_checked" not in proved_part
    assert 'c.template at_checked<C>("c", i, j)' in checked_part
    assert 'a.template at<C>(i, k)' in checked_part          # proved while compiling
    assert "Span" not in g and 'a.template at_checked<C>("a", idx.template at<C>(i))' in g
    # --boundscheck: every index as written; --unchecked: today's code, no checks.
    every = emit_module(irtools.typed(body), irtools.source(body), "all")
    assert "Span" not in every and 'a.template at_checked<C>("a", i, k)' in every
    none = emit_module(irtools.typed(body), irtools.source(body), "none")
    assert "Span" not in none and "at_checked" not in none and "unpy::disjoint" in none


def test_tests_narrow_loop_variables_in_their_own_scope():
    fn = proved("""
        @unpython.type('ndarray[float64, 1]', 'int64', 'float64')
        def f(a, m):
            s = 0.0
            n = a.shape[0]
            for j in range(m):
                for i in range(j, n):
                    for j in range(5):
                        if i > 0 and j < 3:
                            s += a[i - 1] + a[j]
                        elif i != 0:
                            s += a[i - 1]
            return s
        """)
    # i > 0 proves a[i - 1] while compiling (i's range starts at the outer j, which the
    # inner loop assigns: no span for i, so nothing proves the unguarded a[i - 1]); the inner
    # j < 3 narrows j's span for a[j] (a may have fewer than 3 elements).
    loop = nest(fn)
    guarded = [e.in_range for e in walk_exprs(dataclasses.replace(loop, proof=None))
               if isinstance(e, ir.Subscript)]
    assert guarded == [[0], [], []]
    assert bounds(loop) == ["unpy_span_j_1 < a.shape[0]"]
    spans = {s.name: (ir.format_expr(s.first), ir.format_expr(s.last)) for s in loop.proof.spans}
    assert spans == {"unpy_span_j_1": ("0", "min((5 - 1), (3 - 1))")}


def test_a_loop_holding_gpu_nests_keeps_its_body():
    fn = proved("""
        @unpython.gpu
        @unpython.type('ndarray[float64, 1]', 'ndarray[int64, 1]', None)
        def f(a, steps):
            for t in range(steps[0]):
                for i in prange(a.shape[0]):
                    a[i] = a[i] * 2.0
        """)
    outer = nest(fn)
    assert outer.proof is None and len(outer.body) == 1
    assert indices(outer) == {"steps[0]": [], "a[i]": [0]}


def test_unpy_show_prints_the_proof(capsys):
    from unpy.cli import main
    assert main(["show", "tests/kernels/index_checks.py"]) == 0
    out = capsys.readouterr().out
    assert "# the C++ path runs it with these indices unchecked where, before the nest:" in out
    assert "#     unpy_span_i = span of i in [0, (a.shape[0] - 1)]" in out
    assert "#     0 <= unpy_span_i < b.shape[0]" in out
    assert main(["show", "--unchecked", "tests/kernels/index_checks.py"]) == 0
    assert "unchecked where" not in capsys.readouterr().out
