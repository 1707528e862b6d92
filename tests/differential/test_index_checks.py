"""The default build's index checks (unpy/loopopt/index_proof.py): in range, the interpreter's
results whether an index was proved (while compiling or before its nest) or checked; out of
range, IndexError as in the interpreter: in sequential and parallel loops, nested loops, reads
and writes, negative indices wrapping as Python's. Kernels: tests/kernels/index_checks.py."""
import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import diffcheck
from unpy import ir
from unpy.typeinfer.reductions import walk_exprs
from npstrategies import arrays

SETTINGS = settings(max_examples=40, deadline=None)
RNG = np.random.default_rng(19)


@pytest.fixture(scope="module")
def kernels(tmp_path_factory):
    return diffcheck.load_kernel_pair("index_checks", tmp_path_factory.mktemp("index_checks"))


def rand(*shape):
    return RNG.uniform(-1, 1, shape)


@SETTINGS
@given(st.data())
def test_stencil_bounds(kernels, data):
    """lo = 0 reads a[-1] (Python's wrap), hi = n reads a[n]: IndexError; lo < -n too."""
    a = data.draw(arrays(np.float64, 1, max_side=8))
    n = a.shape[0]
    lo = data.draw(st.integers(-n - 2, n + 1))
    hi = data.draw(st.integers(lo - 1, n + 2))
    kernels.check("stencil", a, np.zeros(n + 1), lo, hi)
    kernels.check("stencil_inside", a, np.zeros(data.draw(st.integers(0, n + 1))))


@SETTINGS
@given(st.data())
def test_matmul_shapes(kernels, data):
    """Matching shapes: the (register-blocked) product; any other: IndexError as the
    interpreter's (from the prange)."""
    m, p, n = (data.draw(st.integers(0, 9)) for _ in range(3))
    a = data.draw(arrays(np.float64, 2, min_side=m, max_side=m, layouts=("C", "F", "strided")))
    a = rand(m, p) if a.shape[1] != p else a
    kb, nb = p + data.draw(st.sampled_from([0, 0, -1, 1])), n
    mc, nc = m + data.draw(st.sampled_from([0, 0, -1])), n + data.draw(st.sampled_from([0, -1]))
    b, c = rand(max(kb, 0), nb), np.zeros((max(mc, 0), max(nc, 0)))
    kernels.check("matmul", a, b, c, rtol=1e-12)


@SETTINGS
@given(st.data())
def test_gathers_and_scatters(kernels, data):
    """Indices read from an array (never proved): negative ones wrap, others raise, in a
    prange (after the loop), a sequential loop and an atomic update."""
    a = data.draw(arrays(np.float64, 1, max_side=6))
    n = a.shape[0]
    idx = np.array(data.draw(st.lists(st.integers(-n - 2, n + 1), max_size=8)), np.int64)
    kernels.check("gather", a, idx, np.zeros(idx.shape[0]))
    kernels.check("gather_sum", a, idx)
    kernels.check("histogram", np.zeros(n), idx)


@SETTINGS
@given(st.data())
def test_nested_and_shifted(kernels, data):
    a = data.draw(arrays(np.float64, 2, max_side=5))
    kernels.check("triangle", a, data.draw(st.integers(-2, 3)))
    c = data.draw(arrays(np.float64, 2, max_side=5))
    kernels.check("fill_rows", c, data.draw(st.integers(0, 6)), data.draw(st.integers(0, 6)))
    v = data.draw(arrays(np.float64, 1, max_side=6))
    kernels.check("shifted_write", v, data.draw(st.integers(-8, 3)), 0.5)
    out = np.zeros(data.draw(st.integers(0, 7)))
    kernels.check("reversed_copy", v, out, data.draw(st.integers(-8, 3)))
    m, n = data.draw(st.integers(0, 4)), data.draw(st.integers(0, 4))
    kernels.check("flat_blocks", rand(data.draw(st.integers(0, 17))), m, n)


@SETTINGS
@given(st.data())
def test_guards_wraps_and_other_loops(kernels, data):
    a = data.draw(arrays(np.float64, 1, max_side=6))
    kernels.check("guarded", a, data.draw(st.integers(-8, 3)))
    kernels.check("periodic", a, data.draw(st.integers(-2, 2)))
    b = data.draw(arrays(np.float64, 2, max_side=4))
    kernels.check("while_reads", b, data.draw(st.integers(-5, 5)), data.draw(st.integers(-5, 5)))
    kernels.check("local_array", data.draw(st.integers(0, 5)), data.draw(st.integers(-7, 7)))


@SETTINGS
@given(st.data())
def test_time_steps(kernels, data):
    a = data.draw(arrays(np.float64, 2, max_side=6))
    rows = a.shape[0] + data.draw(st.sampled_from([0, 0, -1]))
    b = np.zeros((max(rows, 0), a.shape[1]))
    kernels.check("time_steps", a, b, data.draw(st.integers(0, 3)))


def test_message_names_array_axis_index_and_size(kernels):
    with pytest.raises(IndexError) as info:
        kernels.compiled.stencil(np.ones(5), np.zeros(6), 1, 5)
    assert str(info.value) == "index 5 is out of bounds for axis 0 with size 5 (array 'a')"
    with pytest.raises(IndexError, match=re.escape("index -7 is out of bounds for axis 0 with "
                                                   "size 4 (array 'a')")):
        kernels.compiled.gather(np.ones(4), np.array([0, -7, 1]), np.zeros(3))
    with pytest.raises(IndexError, match=r"index 3 is out of bounds for axis 1 with size 3 "
                                         r"\(array 'c'\)"):
        kernels.compiled.fill_rows(np.zeros((4, 3)), 4, 4)


def test_huge_index_raises_instead_of_crashing(kernels):
    a = np.ones(10)
    with pytest.raises(IndexError, match="index 1000000000 is out of bounds"):
        kernels.compiled.gather(a, np.array([10 ** 9]), np.zeros(1))
    with pytest.raises(IndexError, match="index 1000000000 is out of bounds"):
        kernels.compiled.shifted_write(a, 10 ** 9, 1.0)
    assert (a == 1.0).all()     # raised before its first write


def test_parallel_errors_raise_after_the_loop_and_the_next_call_runs(kernels):
    idx = np.arange(100_000) % 50
    idx[77_777] = 1000
    a, out = rand(50), np.zeros(idx.shape[0])
    with pytest.raises(IndexError, match="index 1000 is out of bounds for axis 0 with size 50"):
        kernels.compiled.gather(a, idx, out)
    idx[77_777] = 3
    kernels.compiled.gather(a, idx, out)
    np.testing.assert_array_equal(out, a[idx])


def test_errors_in_while_loops_and_nested_regions_stop(kernels):
    """No hang: the iteration that met the error stops at its next poll (a while loop reading
    past the end would read 0 forever); no crash: an error in a nested region is raised by the
    outer one."""
    a = np.zeros(1000)
    a[10] = 1.0
    starts = np.array([0, 3, 11, 5] * 50, np.int64)
    for func in ("searches", "searches_inline"):
        kernels.check(func, a, starts, np.zeros(200, np.int64))
        kernels.check(func, a, np.array([0, 3, 5] * 50, np.int64), np.zeros(150, np.int64))
    kernels.check("first_nonzero_after", a, 11)
    b = rand(300, 4)
    kernels.check("nested_prange_rows", b, np.array([0, 3, 1, -4]), np.zeros(300))
    kernels.check("nested_prange_rows", b, np.array([0, 4, 1] * 20), np.zeros(300))


@SETTINGS
@given(st.data())
def test_inlined_calls(kernels, data):
    """Calls of a function returning an expression, with names and constants, inlined
    (unpy/loopopt/inline_calls.py): the interpreter's values, and its IndexError and
    ZeroDivisionError raised from the inlined bodies; views with negative and non-unit
    strides."""
    a = data.draw(arrays(np.float64, 1, max_side=9))
    n = a.shape[0]
    out = data.draw(arrays(np.float64, 1, min_side=n, max_side=n + 2))
    k = data.draw(st.integers(-1, n + 3))
    d = data.draw(st.sampled_from([0.0, -0.0, 2.0, 3.0]))
    kernels.check("inlined_calls", a, out, k, d)


def test_what_is_inlined():
    from unpy.loopopt import optimise_for_cpu
    from unpy.pipeline import compile_to_ir
    path = diffcheck.KERNELS / "index_checks.py"
    functions = {f.name: f for f in compile_to_ir(str(path), path.read_text()).functions}
    calls = lambda name: {e.func for e in walk_exprs(optimise_for_cpu(
        functions[name], functions=functions).body) if isinstance(e, ir.CallCompiled)}
    assert calls("inlined_calls") == {"around"}          # around(a, k % 3) only
    assert calls("searches") == {"first_nonzero_after"}   # a while loop: called
    assert calls("nested_prange_rows") == {"row_gather"}
    # Those left called are declared inline where small, with no prange (row_gather has one)
    from unpy.cpp_emit.emit import inlined_helpers
    helpers = inlined_helpers(functions)
    assert {"first_nonzero_after", "around"} <= helpers and "row_gather" not in helpers
    # a's indices proved while compiling, out's length checked before the nest
    proof = optimise_for_cpu(functions["inlined_calls"], functions=functions).body[0].proof
    assert {b.array.id for b in proof.bounds} == {"out"}


@pytest.mark.parametrize("m", [0, 3, 4, 7])
@pytest.mark.parametrize("n", [0, 1, 5, 301])
def test_local_arrays_of_constant_extents(kernels, n, m):
    """index_proof: a local assigned once, by np.zeros/np.ones/np.full of constant extents,
    has them wherever it is read; other indices of it stay checked; a read before any
    assignment raises UnboundLocalError, as in the interpreter."""
    a = rand(2 * n)[::-2]
    kernels.check("local_arrays_in_loops", a, m, rtol=1e-12)
    kernels.check("local_array_maybe_unassigned", a, m)


def test_local_arrays_of_constant_extents_are_proved():
    from unpy.loopopt import optimise_for_cpu
    from unpy.pipeline import compile_to_ir
    path = diffcheck.KERNELS / "index_checks.py"
    functions = {f.name: f for f in compile_to_ir(str(path), path.read_text()).functions}
    unproved = lambda name: {e.array.id for e in walk_exprs(optimise_for_cpu(
        functions[name]).body) if isinstance(e, ir.Subscript) and not e.in_range}
    assert unproved("local_arrays_in_loops") == {"w"}      # w[k], k < m: checked
    assert unproved("local_array_maybe_unassigned") == set()
