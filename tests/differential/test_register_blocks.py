"""Register-blocked nests (unpy/loopopt/register_blocks.py), interpreter vs compiled: results
equal bit for bit at sizes around the block's (remainder rows and columns, empty ranges),
triangles, views with negative and non-unit strides, and arguments that alias (where the
blocked code must not run); the pass leaves the near misses of tests/kernels/contractions.py
as written."""
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
register_blocks = importlib.import_module("unpy.loopopt.register_blocks")
cpu_cost = importlib.import_module("unpy.loopopt.cost")
from unpy.pipeline import compile_to_ir

MODEL = cpu_cost.CpuModel.for_machine()

SETTINGS = settings(max_examples=30, deadline=None)
# Blocks are 6 rows by 8 to 32 columns (CpuModel.vector_bytes): every remainder, and
# nests of several blocks each way.
sides = st.one_of(st.integers(0, 19), st.integers(30, 75))


@st.composite
def product_operands(draw, dtype=np.float64, ints=False):
    m, n, p = draw(sides), draw(sides), draw(sides)
    return (draw(matrices((m, p), dtype, ints)), draw(matrices((p, n), dtype, ints)),
            draw(matrices((m, n), dtype, ints)))


@SETTINGS
@given(product_operands())
def test_matmul(contractions_kernels, operands):
    contractions_kernels.check("matmul", *operands)


@SETTINGS
@given(product_operands(np.float32))
def test_matmul_float32(contractions_kernels, operands):
    contractions_kernels.check("matmul_f32", *operands)


@SETTINGS
@given(product_operands(np.int64, ints=True))
def test_matmul_int(contractions_kernels, operands):
    contractions_kernels.check("matmul_int", *operands)


@SETTINGS
@given(product_operands(), st.integers(1, 4))
def test_accumulator_with_a_start_value_and_an_epilogue(contractions_kernels, operands, step):
    a, b, c = operands
    if a.shape[1]:
        contractions_kernels.check("gemm_epilogue", 1.5, a, b, 0.75, c)
    contractions_kernels.check("stepped_sum", a, b, c, step)


@SETTINGS
@given(st.one_of(st.integers(0, 21), st.integers(60, 90)).flatmap(lambda n: st.tuples(
    matrices((n, 7)), matrices((n, n)), matrices((7, n)), matrices((n, n)))))
def test_triangles(contractions_kernels, arrays):
    a, c, x, g = arrays
    contractions_kernels.check("syrk_lower", 1.25, a, 0.5, c)
    contractions_kernels.check("gram_upper", x, g)


@SETTINGS
@given(sides, sides, st.integers(1, 9), st.data())
def test_distances(contractions_kernels, m, n, p, data):
    x, y, d = (data.draw(matrices(s)) for s in ((m, p), (n, p), (m, n)))
    contractions_kernels.check("distances", x, y, d)
    contractions_kernels.check("distances_direct", x, y, d)


@SETTINGS
@given(product_operands(), product_operands(np.float32))
def test_accumulating_into_the_output_element(contractions_kernels, operands, f32):
    contractions_kernels.check("textbook", *operands)
    contractions_kernels.check("textbook_beta", 1.5, *operands[:2], 0.25, operands[2])
    contractions_kernels.check("textbook_scaled", *f32, np.float32(0.5))
    contractions_kernels.check("accumulates_along_k", *operands)


@SETTINGS
@given(product_operands(), st.sampled_from([0.0, 0.5, -1.25]))
def test_a_sum_started_from_the_element_it_writes(contractions_kernels, operands, beta):
    """scaled_from_output's sums read c[i, j], which the nest writes: blocked since the middle
    loop's independence comes from typeinfer/independent_loops (each iteration reads the
    element only it writes), every layout of the operands (reversed: negative strides)."""
    contractions_kernels.check("scaled_from_output", 1.5, *operands[:2], beta, operands[2])


def test_a_sum_started_from_the_element_it_writes_on_aliased_arguments(contractions_kernels):
    """c is a (a row's later sums read the elements its earlier ones stored), c is b (each
    column's sum reads what other rows store), c a reversed view of a: the blocked code must
    not run (its disjoint pairs), and the loops as written give the interpreter's results."""
    rng = np.random.default_rng(9)
    for n in (13, 31):
        a = rng.uniform(-1, 1, (n, n))
        b = rng.uniform(-1, 1, (n, n))
        contractions_kernels.check("scaled_from_output", 1.5, a, b, 0.5, a)
        contractions_kernels.check("scaled_from_output", 1.5, a, a[::-1], 0.5, a[::-1])
        contractions_kernels.check("scaled_from_output", 1.5, a, b, 0.5, a[:, ::-1])


@SETTINGS
@given(product_operands(), product_operands(np.float32))
def test_the_i_k_j_order(contractions_kernels, operands, f32):
    contractions_kernels.check("ikj_gemm", 1.5, *operands[:2], 0.25, operands[2])
    contractions_kernels.check("ikj_plain", *f32)
    contractions_kernels.check("ikj_prefix", *operands)


@pytest.fixture(scope="module")
def small_blocks(tmp_path_factory):
    """tests/kernels/contractions.py built with k blocks of 5 iterations and panels of 2 blocks
    of rows (the model's blocking), so that the tiled code runs at the sizes here: several k
    blocks, partial sums carried between them, panels of several blocks. (The model is part
    of the build key: the build cache keeps this build apart from the default one.)"""
    from unpy.cpp_emit.build import BuildOptions, build
    folder = tmp_path_factory.mktemp("small-blocks")
    source = folder / "contractions_small_blocks.py"
    source.write_text((diffcheck.KERNELS / "contractions.py").read_text())
    model = dataclasses.replace(MODEL, blocking=cpu_cost.Blocking(5, 2))
    built = build(str(source), str(folder), BuildOptions(model=model)).output
    return diffcheck.KernelPair("contractions_small_blocks",
                                diffcheck._load("contractions_small_blocks", built),
                                diffcheck._load("interpreted_contractions",
                                                diffcheck.KERNELS / "contractions.py"))


@SETTINGS
@given(product_operands(), product_operands(np.float32))
def test_k_blocks(small_blocks, operands, f32):
    small_blocks.check("matmul", *operands)
    small_blocks.check("matmul_f32", *f32)
    small_blocks.check("textbook_beta", 1.5, *operands[:2], 0.25, operands[2])
    small_blocks.check("textbook_scaled", *f32, np.float32(0.5))
    small_blocks.check("ikj_gemm", 1.5, *operands[:2], 0.25, operands[2])
    small_blocks.check("stepped_forward", *operands)
    small_blocks.check("stepped_sum", *operands, 3)
    a, b, c = operands
    if a.shape[1]:
        small_blocks.check("gemm_epilogue", 1.5, a, b, 0.75, c)
    small_blocks.check("scaled_from_output", 1.5, a, b, 0.25, c)


@SETTINGS
@given(product_operands(np.int64, ints=True))
def test_k_blocks_int(small_blocks, operands):
    small_blocks.check("matmul_int", *operands)


@SETTINGS
@given(st.one_of(st.integers(0, 21), st.integers(60, 90)).flatmap(lambda n: st.tuples(
    matrices((n, 23)), matrices((n, n)), matrices((23, n)), matrices((n, n)))))
def test_k_blocks_triangles(small_blocks, arrays):
    a, c, x, g = arrays
    small_blocks.check("syrk_lower", 1.25, a, 0.5, c)
    small_blocks.check("gram_upper", x, g)


@SETTINGS
@given(st.integers(2, 40), sides, st.data())
def test_k_blocks_covariance_and_distances(small_blocks, n, m, data):
    rows = data.draw(matrices((n, m)))
    small_blocks.check("centred_gram", rows, rows.mean(axis=0), np.empty((m, m)))
    x, y, d = (data.draw(matrices(s)) for s in ((m, n), (m + 3, n), (m, m + 3)))
    small_blocks.check("distances", x, y, d)
    small_blocks.check("distances_direct", x, y, d)


def test_covariance(contractions_kernels):
    rng = np.random.default_rng(6)
    for n, m in ((2, 1), (37, 29), (300, 45)):
        data = rng.uniform(-1, 1, (n, m))
        contractions_kernels.check("centred_gram", data, data.mean(axis=0), np.empty((m, m)))
        contractions_kernels.check("stepped_forward", data.T, data, np.empty((m, m)))


def test_k_blocks_aliased_output_runs_the_loops_as_written(small_blocks):
    # Each row reads only its own row of the output (aliasing across rows would break the
    # prange's promise: the result would depend on the threads' timing); rows >= 4 threads,
    # so the nest is not collapsed and each row runs its columns in order.
    rng = np.random.default_rng(5)
    for n in (14, 33):
        a = rng.uniform(-1, 1, (n, n))
        b = rng.uniform(-1, 1, (n, n))
        small_blocks.check("matmul", a, b, a)
        small_blocks.check("matmul", a, b, a[:, ::-1])
        small_blocks.check("textbook_beta", 2.0, a, b, 0.5, a)
        small_blocks.check("ikj_gemm", 2.0, a, b, 0.5, a)


def test_aliased_output_runs_the_loops_as_written(contractions_kernels):
    """c is a: each row's later columns read the values its earlier ones stored (the
    interpreter's order; OpenMP keeps it, since rows are the parallel iterations)."""
    rng = np.random.default_rng(3)
    for n in (14, 33):          # (see test_k_blocks_aliased_output_runs_the_loops_as_written)
        a = rng.uniform(-1, 1, (n, n))
        b = rng.uniform(-1, 1, (n, n))
        contractions_kernels.check("matmul", a, b, a)
        contractions_kernels.check("matmul", a, b, a[:, ::-1])
        contractions_kernels.check("textbook", a, b, a)
        contractions_kernels.check("textbook", a[:, ::-1], b, a)
        contractions_kernels.check("textbook_beta", 2.0, a, b, 0.5, a)
        contractions_kernels.check("ikj_gemm", 2.0, a, b, 0.5, a)


def test_near_misses_match(contractions_kernels):
    rng = np.random.default_rng(4)
    a, b = rng.uniform(-1, 1, (13, 17)), rng.uniform(-1, 1, (17, 19))
    contractions_kernels.check("reads_what_it_writes", a[:, :13], rng.uniform(-1, 1, (13, 13)))
    contractions_kernels.check("bound_from_column", a, b, np.zeros((13, 19)))
    lens = rng.integers(0, 20, 13)
    contractions_kernels.check("ragged_rows", a, b, lens, np.zeros((13, 19)))



def test_a_running_value_over_the_columns_is_blocked(contractions_kernels):
    """row_maxima: every column updates best[i], so the columns are not independent, but
    their sums read nothing the nest writes: blocked, the updates still in column order."""
    rng = np.random.default_rng(5)
    for m, k, n in ((13, 17, 19), (1, 3, 2), (24, 40, 33), (25, 9, 17)):
        a, b = rng.uniform(-1, 1, (m, k)), rng.uniform(-1, 1, (k, n))
        contractions_kernels.check("row_maxima", a, b, np.full(m, -np.inf))
        contractions_kernels.check("row_maxima", a[::-1], b[:, ::-2], rng.uniform(-1, 1, m))
        # Ties and a maximum that only a late column reaches.
        contractions_kernels.check("row_maxima", np.ones((m, k)), np.ones((k, n)),
                                   np.full(m, float(k) - 0.5))


def _contractions_ir():
    path = "tests/kernels/contractions.py"
    with open(path) as f:
        return compile_to_ir(path, f.read())


def _blocked_nests():
    """The nests as register_blocks leaves them (index_proof, after it by default, may move a
    blocked form onto the nest of a run-time proof: tests/cpp_emit/test_index_proof.py)."""
    module = _contractions_ir()
    found = {}
    for fn in module.functions:
        nests = [s for s in optimise_for_cpu(fn, "none").body
                 if isinstance(s, ir.For) and s.parallel]
        found[fn.name] = nests[0]
    return found


def test_which_nests_are_blocked():
    nests = _blocked_nests()
    blocked = {name for name, nest in nests.items() if nest.blocked}
    assert blocked == {"matmul", "matmul_f32", "matmul_int", "gemm_epilogue", "syrk_lower",
                       "gram_upper", "distances", "distances_direct", "stepped_sum",
                       "textbook", "textbook_scaled", "textbook_beta", "ikj_gemm",
                       "ikj_plain", "accumulates_along_k", "centred_gram",
                       "stepped_forward", "scaled_from_output", "row_maxima"}
    # The middle level: a loop typeinfer/independent_loops proves independent
    # (scaled_from_output, whose sums read the element each column writes), or one whose sums
    # read nothing the nest writes (row_maxima's columns all update best[i]).
    # `unpy build` counts them in its progress line.
    assert blocked_nests(_contractions_ir().functions) == len(blocked)
    # The blocked code's condition: what the nest writes overlaps nothing its sums read.
    assert nests["matmul"].disjoint == [["c", "a"], ["c", "b"]]
    assert nests["gram_upper"].disjoint == [["g", "x"]]
    cols = MODEL.vector_bytes // 8       # float64 columns: one vector register
    k_block = MODEL.blocking.k_block
    text = "\n".join(ir.format_stmts(nests["matmul"].blocked))
    assert f"tile(float64, (12, {cols}))" in text and "# simd" in text
    # Each nest records what was applied to it.
    assert nests["matmul"].transforms == [f"register_blocks(i x j: 12 x {cols}, panels)"]
    assert nests["gram_upper"].transforms == [f"register_blocks(i x j: 6 x {2 * cols})"]
    assert nests["ikj_gemm"].transforms == [
        f"register_blocks(i x j: 12 x {cols}, panels, in the dot-product order)"]
    assert nests["row_maxima"].transforms == [f"register_blocks(i x j: 12 x {cols}, panels)"]
    assert f"tile(float32, (12, {2 * cols}))" in "\n".join(
        ir.format_stmts(nests["matmul_f32"].blocked))
    # Two accumulators: two tiles of half the rows.
    assert f"tile(float64, (6, {cols}))" in "\n".join(
        ir.format_stmts(nests["distances"].blocked))
    # Panels cut for the threads at run time, k in blocks, both operands packed for each.
    assert "unpy_panel_rows = unpy.panel_rows((a.shape[0] - 0), 12, " in text
    assert f"unpy_kb = (0 + (unpy_kbi * {k_block}))" in text
    assert (f"unpy_a_p[((((unpy_i0 - unpy_ic) * {k_block}) + ((k - unpy_kb) * 12)) + unpy_ii)]"
            f" = a[(unpy_i0 + unpy_ii), k]") in text
    assert "unpy_b_p[(k - unpy_kb), unpy_jj] = b[k, (unpy_j0 + unpy_jj)]" in text
    # Partial sums carried between k blocks; started and finished in the first and last.
    assert ("unpy_tile_s[unpy_ii, unpy_jj] = unpy_acc_s[((unpy_i0 + unpy_ii) - unpy_ic), "
            "((unpy_j0 + unpy_jj) - 0)]") in text
    assert "if (unpy_kbi == (unpy_kbn - 1)):" in text
    # Covariance's factors are packed as values, each computed once.
    text = "\n".join(ir.format_stmts(nests["centred_gram"].blocked))
    assert "= (data[k, (unpy_i0 + unpy_ii)] - mean[(unpy_i0 + unpy_ii)])" in text
    assert "= (data[k, (unpy_j0 + unpy_jj)] - mean[(unpy_j0 + unpy_jj)])" in text
    # Rows read along the middle loop's variable (a[j, k]) are read from a transposed copy
    # (and packed from it); triangles take at least TRIANGLE_ROUNDS turns of panels.
    text = "\n".join(ir.format_stmts(nests["syrk_lower"].blocked))
    assert "unpy_a_t = np.empty((a.shape[1], a.shape[0]), float64)" in text
    assert "unpy_b_p[(k - unpy_kb), unpy_jj] = unpy_a_t[k, (unpy_j0 + unpy_jj)]" in text
    assert (f", 12, {MODEL.blocking.panel_blocks}, "
            f"{register_blocks.TRIANGLE_ROUNDS})") in text
    assert "_t = np.empty" not in "\n".join(ir.format_stmts(nests["matmul"].blocked))
    # Columns starting with the row: no panels, blocks of 6 rows x two vector registers.
    assert f"tile(float64, (6, {2 * cols}))" in "\n".join(
        ir.format_stmts(nests["gram_upper"].blocked))


def test_blocking_from_the_caches():
    """KC: the packed columns (KC x one vector register) fill half of L1; MC: the packed rows
    (MC x KC doubles) half of L2, at most 16 blocks of rows."""
    vector = MODEL.vector_bytes
    blocking = cpu_cost.Blocking.for_machine(vector, l1=32 << 10, l2=1 << 20)
    assert blocking.k_block == (32 << 10) // 2 // vector
    assert blocking.panel_blocks == min(16, (1 << 19) // (blocking.k_block * 8) // 12)
    assert cpu_cost.Blocking.for_machine(vector, l1=48 << 10, l2=2 << 20).k_block \
        == (48 << 10) // 2 // vector
    assert cpu_cost.Blocking.for_machine(vector, l1=1024, l2=4096) == \
        cpu_cost.Blocking(16, 1)


def test_unpy_show_prints_the_blocked_form(capsys):
    from unpy.cli import main
    assert main(["show", "tests/kernels/contractions.py"]) == 0
    out = capsys.readouterr().out
    assert "# the C++ path runs instead, where the nest runs whole on OpenMP and no memory " \
           "is shared by c and a, c and b:" in out
    assert "unpy::disjoint(c, a) && unpy::disjoint(c, b)" in out
    # The transforms applied to the nest: its indices' run-time proof, and where that holds
    # its register blocks.
    cols = MODEL.vector_bytes // 8
    assert "    # loop optimisations: prove_indices(3 bound(s) at run time)\n" \
           "    for i in prange(0, a.shape[0], 1):" in out
    assert f"    # loop optimisations where proved: register_blocks(i x j: 12 x {cols}, panels)\n" \
           "    # the C++ path runs instead" in out


def test_explain_names_the_cpp_loop_optimisations(contractions_kernels):
    """The built module keeps each nest's transforms (`__unpy_loopopt__`) for explain."""
    import unpython
    cols = MODEL.vector_bytes // 8
    report = unpython.explain(contractions_kernels.compiled.matmul)
    (nest,) = report.nests
    assert nest.ran_on == "openmp"
    assert nest.details["C++ loop optimisations"] == (
        f"prove_indices(3 bound(s) at run time), register_blocks(i x j: 12 x {cols}, panels) "
        "where proved")
    assert "\n      C++ loop optimisations: prove_indices(" in str(report)
    (near,) = unpython.explain(contractions_kernels.compiled.reads_what_it_writes).nests
    assert "register_blocks" not in near.details.get("C++ loop optimisations", "")


def test_boundscheck_runs_the_loops_as_written():
    from unpy.cpp_emit.module import emit_module
    path = "tests/kernels/contractions.py"
    with open(path) as f:
        source = f.read()
    module = compile_to_ir(path, source)
    assert "unpy::disjoint" in emit_module(module, source)
    assert "unpy::disjoint" not in emit_module(module, source, checks="all")
