"""Interchanged and cache-tiled nests (unpy/loopopt/interchange.py, cache_tiles.py),
interpreter vs compiled: results equal bit for bit at odd sizes around the strips' and
tiles' widths (remainders, empty ranges), triangles, views with negative and non-unit
strides, and arguments that alias; the passes fire on the forms of tests/kernels/loop_orders.py
and leave its near misses (a dependence that moving the prange would reverse, serial loops, a
reduction, rows that depend on the column) as written."""
import dataclasses
import importlib

import diffcheck
from npstrategies import matrices
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from unpy import ir
from unpy.loopopt import blocked_nests, optimise_for_cpu
from unpy.loopopt.cost import CpuModel
from unpy.pipeline import compile_to_ir

MODEL = CpuModel.for_machine()
cache_tiles = importlib.import_module("unpy.loopopt.cache_tiles")

SETTINGS = settings(max_examples=25, deadline=None)
KERNELS = "tests/kernels/loop_orders.py"
# The small build's strips and tiles (its CpuModel's strip_width and cache_tile): sizes
# below cover partial strips and tiles and several of each.
SMALL_STRIP, SMALL_TILE = 3, 4
sides = st.one_of(st.integers(0, 9), st.integers(60, 70))


def row_views(a):
    """Views of `a` whose rows stay contiguous (the forms run on them): every other row,
    rows reversed."""
    return [a, a[::-1], a[::2]]


@pytest.fixture(scope="module")
def loop_orders(tmp_path_factory):
    return diffcheck.load_kernel_pair("loop_orders", tmp_path_factory.mktemp("build-loop-orders"))


@pytest.fixture(scope="module")
def small(tmp_path_factory):
    """tests/kernels/loop_orders.py built with strips of SMALL_STRIP columns and tiles of
    SMALL_TILE (its model), so that remainders and several strips and tiles run at small
    sizes. (The model is part of the build key: the build cache keeps this build apart from
    the default one.)"""
    from unpy.cpp_emit.build import BuildOptions, build
    folder = tmp_path_factory.mktemp("small-strips")
    source = folder / "loop_orders_small.py"
    source.write_text((diffcheck.KERNELS / "loop_orders.py").read_text())
    model = dataclasses.replace(MODEL, strip_width=SMALL_STRIP, cache_tile=SMALL_TILE)
    built = build(str(source), str(folder), BuildOptions(model=model)).output
    return diffcheck.KernelPair("loop_orders_small",
                                diffcheck._load("loop_orders_small", built),
                                diffcheck._load("interpreted_loop_orders",
                                                diffcheck.KERNELS / "loop_orders.py"))


@pytest.fixture(params=["default", "small"])
def kernels(request):
    return request.getfixturevalue("loop_orders" if request.param == "default" else "small")


# --- the forms, differentially ------------------------------------------------------------------

@SETTINGS
@given(sides, sides, st.data())
def test_column_sums(loop_orders, small, m, n, data):
    a = data.draw(matrices((m, n)))
    for pair in (loop_orders, small):
        pair.check("column_sums", a, np.zeros(n))
        pair.check("column_sums_f32", a.astype(np.float32), np.zeros(n, np.float32))
        pair.check("column_sums_int", (a * 64).astype(np.int64), np.zeros(n, np.int64))
        if m:
            pair.check("column_max", a, np.zeros(n))
        pair.check("scale_columns", a, np.linspace(-1, 1, n), np.zeros((m, n)))
        pair.check("column_recurrence", a)


@SETTINGS
@given(st.integers(1, 70), sides, st.integers(0, 4), st.data())
def test_column_moments(loop_orders, small, m, n, first, data):
    a = data.draw(matrices((m, n)))
    for pair in (loop_orders, small):
        pair.check("column_moments", a, np.zeros(n), np.zeros(n), first)


@SETTINGS
@given(st.one_of(st.integers(0, 13), st.integers(60, 70)), st.integers(0, 7), st.data())
def test_transposed_access(loop_orders, small, n, w, data):
    a = data.draw(matrices((n, n)))
    b = data.draw(matrices((n, n)))
    for pair in (loop_orders, small):
        pair.check("transpose_add", a, b)
        pair.check("transpose_add_prange", a, b)
        pair.check("lower_antisymmetric", a, b)
        pair.check("upper_band", a, b, w)
        pair.check("symmetrise_upper", a)


@SETTINGS
@given(sides, sides, st.data())
def test_rectangular_transpose(loop_orders, small, m, n, data):
    a, b = data.draw(matrices((n, m))), data.draw(matrices((m, n)))
    for pair in (loop_orders, small):
        pair.check("transpose", a, b)
        pair.check("transpose_scaled_f32", a.astype(np.float32), b.astype(np.float32))


@SETTINGS
@given(sides, sides, st.integers(0, 40), st.data())
def test_prange_moved_outward(loop_orders, small, m, n, p, data):
    a, b, c = (data.draw(matrices(s)) for s in ((m, p), (p, n), (m, n)))
    for pair in (loop_orders, small):
        pair.check("kij_matmul", a, b, c)
        pair.check("kij_matmul_f32", a.astype(np.float32), b.astype(np.float32),
                   c.astype(np.float32))
        pair.check("relax_steps", a[:, 0].copy() if p else np.zeros(m), np.linspace(0, 1, m), 5)
        if m and n:
            pair.check("k_outer_rows", a, c)


def test_views_with_negative_and_non_unit_strides(kernels):
    rng = np.random.default_rng(7)
    base = rng.uniform(-1, 1, (41, 37))
    for a in row_views(base) + [base[:, ::-1], base[:, ::2], base.T]:
        m, n = a.shape
        kernels.check("column_sums", a, np.zeros(n)[::-1])
        kernels.check("column_moments", a, np.zeros(2 * n)[::2], np.zeros(n), 1)
        kernels.check("scale_columns", a, np.ones(n), np.zeros((m, n))[::-1])
        kernels.check("transpose", a, np.zeros((n, m)))
        square = a[:min(m, n), :min(m, n)]
        kernels.check("transpose_add", square, np.zeros_like(square)[::-1])
        kernels.check("lower_antisymmetric", square, np.zeros_like(square))
        kernels.check("kij_matmul", a, base[:n, :29][::-1], np.zeros((m, 29)))


def check_aliased(pair, func, make_args):
    """KernelPair.check copies each argument apart, which undoes aliasing: here each side gets
    its own arguments from `make_args()`, which makes them share memory as the test says."""
    expected_args, got_args = make_args(), make_args()
    expected = getattr(pair.interpreted, func)(*expected_args)
    got = getattr(pair.compiled, func)(*got_args)
    diffcheck.assert_same(expected, got, what=func)
    for k, (x, y) in enumerate(zip(expected_args, got_args)):
        if isinstance(x, np.ndarray):
            diffcheck.assert_same(x, y, what=f"{func}: argument {k} after the call")


def test_aliasing_arguments(kernels):
    """f(a, a) (each row reading only its own row, as a prange must): the moved and
    register-blocked products would read what they write, so the nests run as written;
    the in-place strips and tiles stay exact."""
    for n in (1, 5, 13, 66):
        def square(seed, n=n):
            return np.random.default_rng(seed).uniform(-1, 1, (n, n))
        check_aliased(kernels, "kij_matmul", lambda: (lambda a: (a, square(2), a))(square(1)))
        check_aliased(kernels, "kij_matmul", lambda: (lambda a: (a[::-1], square(2), a[::-1]))(
            square(1)))
        check_aliased(kernels, "k_outer_rows", lambda: (lambda a: (a, a))(square(1)))
        check_aliased(kernels, "relax_steps", lambda: (lambda x: (x, x, 3))(square(1)[0]))
        check_aliased(kernels, "scale_columns", lambda: (lambda a: (a, a[0], a))(square(1)))
        check_aliased(kernels, "column_recurrence", lambda: (square(1),))
        check_aliased(kernels, "symmetrise_upper", lambda: (square(1),))


def test_near_misses_match(loop_orders):
    rng = np.random.default_rng(9)
    for m, n in ((1, 1), (7, 9), (66, 65)):
        a = rng.uniform(-1, 1, (m, n))
        loop_orders.check("shifted_wavefront", a)
        loop_orders.check("serial_wavefront", a)
        loop_orders.check("total_by_columns", a, rtol=1e-12)
        loop_orders.check("triangular_columns", a, np.zeros(n))
        loop_orders.check("row_sums", a, np.zeros(m))
        loop_orders.check("crossed_sums", a[:min(m, n), :min(m, n)], np.zeros(min(m, n)))
        loop_orders.check("k_outer_reads_k", a, np.zeros((m, 2)))
        ints = rng.integers(-20, 20, (m, n))
        loop_orders.check("times_last_column", ints, np.zeros(n, np.int64))


# --- where the passes fire ----------------------------------------------------------------------

def _module():
    with open(KERNELS) as f:
        return compile_to_ir(KERNELS, f.read())


def _alternatives(checks="none"):
    """name -> the alternative form of the function's nest ([] where none)."""
    found = {}
    for fn in _module().functions:
        nests = [s for s in optimise_for_cpu(fn, checks).body if isinstance(s, ir.For)]
        found[fn.name] = (nests[0].blocked, nests[0].disjoint)
    return found


def test_which_nests_get_another_form():
    forms = _alternatives()
    assert {name for name, (blocked, _) in forms.items() if blocked} == {
        "column_sums", "column_sums_f32", "column_sums_int", "column_moments",
        "scale_columns", "column_recurrence", "column_max", "transpose_add",
        "transpose_add_prange", "transpose", "transpose_scaled_f32", "lower_antisymmetric",
        "upper_band", "symmetrise_upper", "kij_matmul", "kij_matmul_f32", "relax_steps",
        "k_outer_rows", "times_last_column"}
    # By default too (index_proof proves these nests), but only the register-blocked
    # products count as register-blocked.
    defaults = _alternatives("unproved")
    module = _module()
    assert blocked_nests(module.functions) == 2
    assert blocked_nests(module.functions, "all") == 0
    assert not _alternatives("all")["column_sums"][0]
    fns = {fn.name: fn for fn in module.functions}
    proved = [s for s in optimise_for_cpu(fns["transpose_add"]).body if isinstance(s, ir.For)]
    assert proved[0].proof.nest.blocked and not defaults["serial_wavefront"][0]
    wrapped = [s for s in optimise_for_cpu(fns["times_last_column"]).body
               if isinstance(s, ir.For)]
    assert not wrapped[0].blocked and not wrapped[0].proof.nest.blocked


def _text(name, checks="none"):
    return "\n".join(ir.format_stmts(_alternatives(checks)[name][0]))


def test_strips_expand_the_sums():
    width = MODEL.strip_width
    text = _text("column_sums")
    assert f"for unpy_jb in prange(0, a.shape[1], {width}):" in text
    assert f"unpy_strip_s = tile(float64, ({width},))" in text
    # The loop over rows outside, the strip's columns inside, vectorised.
    assert ("for i in range(0, a.shape[0], 1):\n"
            "            # simd\n"
            "            for j in range(unpy_jb, unpy_jend, 1):\n"
            "                unpy_strip_s[(j - unpy_jb)] = (unpy_strip_s[(j - unpy_jb)] + a[i, j])"
            ) in text
    assert "out[j] = unpy_strip_s[(j - unpy_jb)]" in text
    # A temporary of the loop over rows, and one of the statements after it, stay scalars.
    text = _text("column_moments")
    assert "    x = a[i, j]" in text and "unpy_strip_x" not in text
    assert "unpy_strip_m" not in text and "unpy_strip_count" in text
    # A value computed before the loop over rows: one per column of the strip.
    assert "unpy_strip_cj[(j - unpy_jb)] = (c[j] * 2.0)" in _text("scale_columns")


def test_tiles_of_transposed_access():
    tile = MODEL.cache_tile
    text = _text("transpose_add")
    assert f"for unpy_ib in prange(0, n, {tile}):" in text
    assert f"for unpy_jb in range(unpy_jlo, unpy_jhi, {tile}):" in text
    assert f"for j in range(unpy_jb, min((unpy_jb + {tile}), unpy_jhi), 1):" in text
    # Triangles: each row's columns clipped to the tile's, the tile's columns to its rows'.
    text = _text("lower_antisymmetric")
    assert "unpy_jhi = max(unpy_ib, (unpy_iend - 1))" in text
    assert f"for j in range(unpy_jb, min(min((unpy_jb + {tile}), unpy_jhi), i), 1):" in text


def test_prange_moved_outward_then_register_blocked():
    forms = _alternatives()
    blocked, disjoint = forms["kij_matmul"]
    assert disjoint == [["c", "a"], ["c", "b"]]
    text = "\n".join(ir.format_stmts(blocked))
    assert "tile(float64" in text and "unpy.panel_rows" in text
    blocked, disjoint = forms["relax_steps"]
    assert disjoint == [["x", "y"]]
    assert ir.format_stmts(blocked, 0)[:2] == ["for i in prange(0, x.shape[0], 1):",
                                               "    for t in range(0, steps, 1):"]


def test_near_misses_are_left_as_written():
    forms = _alternatives()
    for name in ("shifted_wavefront", "serial_wavefront", "total_by_columns",
                 "triangular_columns", "row_sums", "crossed_sums", "k_outer_reads_k"):
        assert forms[name] == ([], []), name


def test_direction_of_bounds():
    i, n = ir.Name("i", type=ir.Scalar("int64")), ir.Name("n", type=ir.Scalar("int64"))

    def op(o, a, b):
        return ir.BinOp(o, a, b, type=ir.Scalar("int64"))

    def call(f, *args):
        return ir.Call(f, list(args), type=ir.Scalar("int64"))
    assert cache_tiles.direction(n, "i") == 0
    assert cache_tiles.direction(op("+", i, n), "i") == 1
    assert cache_tiles.direction(op("-", n, i), "i") == -1
    assert cache_tiles.direction(call("min", op("+", i, n), n), "i") == 1
    assert cache_tiles.direction(call("min", op("+", i, n), op("-", n, i)), "i") is None
    assert cache_tiles.direction(op("*", i, i), "i") is None
