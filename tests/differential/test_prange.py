"""Parallel loops, interpreter (prange is range) vs compiled (OpenMP): reductions of every form
(float ones within rounding of the reordering), private temporaries, collapsed and triangular
nests, steps, errors raised inside a parallel region."""
import os

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from npstrategies import arrays
from unpy import ir

SETTINGS = settings(max_examples=25, deadline=None)
f64, i64 = np.float64, np.int64
REDUCTION_RTOL = 1e-9      # float sums in another order: values are bounded by 1e6, sizes small
finite = st.floats(-1e3, 1e3)
big_arrays = st.integers(0, 300).map(lambda n: np.random.default_rng(n).uniform(-1, 1, n))


@pytest.mark.parametrize("func", ["sum_plus_equals", "sum_minus_equals", "sum_x_equals_x_plus",
                                  "sum_x_equals_e_plus_x", "minimum", "maximum",
                                  "reduction_then_sequential_use"])
def test_float_reductions(prange_kernels, func):
    @SETTINGS
    @given(st.one_of(arrays(f64, 1, max_side=40, values=finite), big_arrays))
    def run(a):
        prange_kernels.check(func, a, rtol=REDUCTION_RTOL)
    run()


def test_product_reduction(prange_kernels):
    @SETTINGS
    @given(arrays(f64, 1, max_side=30, values=st.floats(0.5, 2.0)))
    def run(a):
        prange_kernels.check("product_times_equals", a, rtol=REDUCTION_RTOL)
    run()


def test_min_max_of_empty_and_special(prange_kernels):
    """min/max reductions of no element give the initial value; infinities take part."""
    c = prange_kernels.compiled
    assert c.minimum(np.zeros(0)) == np.inf and c.maximum(np.zeros(0)) == -np.inf
    a = np.array([3.0, -np.inf, 7.0, np.inf])
    assert c.minimum(a) == -np.inf and c.maximum(a) == np.inf


@pytest.mark.parametrize("func", ["int_sum", "int_product_wraps", "bit_or", "bit_and",
                                  "bit_xor"])
def test_integer_reductions_are_exact(prange_kernels, func):
    @SETTINGS
    @given(arrays(i64, 1, max_side=60))
    def run(a):
        prange_kernels.check(func, a)
    run()


def test_int32_min_reduction(prange_kernels):
    @SETTINGS
    @given(arrays(np.int32, 1, max_side=60))
    def run(a):
        prange_kernels.check("int_min", a)
    run()


def test_several_reductions_in_one_loop(prange_kernels):
    @SETTINGS
    @given(st.integers(0, 200))
    def run(n):
        rng = np.random.default_rng(n)
        a = rng.uniform(-1, 1, n)
        b = rng.integers(0, 1000, n)
        prange_kernels.check("several_reductions", a, b, rtol=REDUCTION_RTOL)
    run()


def test_float32_reduction(prange_kernels):
    a = np.random.default_rng(1).uniform(0, 1, (40, 30)).astype(np.float32)
    result = prange_kernels.check("float32_sum_2d", a, rtol=1e-4)
    assert type(result) is np.float32


@SETTINGS
@given(arrays(f64, 2, min_side=1, values=finite), st.data())
def test_private_temporaries(prange_kernels, a, data):
    out = data.draw(arrays(f64, 2, min_side=a.shape[0], max_side=a.shape[0])
                    .filter(lambda o: o.shape[1] >= a.shape[1]))[:, :a.shape[1]]
    prange_kernels.check("private_temporaries", a, out)


@pytest.mark.parametrize("m, n, p", [(0, 3, 2), (1, 1, 1), (2, 9, 3), (9, 2, 4), (17, 13, 5)])
def test_collapsed_matmul(prange_kernels, m, n, p):
    """Two perfectly nested pranges, collapsed or not depending on the trip counts: exact, as
    each element is computed by one sequential loop."""
    rng = np.random.default_rng(m * 100 + n)
    a, b = rng.uniform(-1, 1, (m, p)), rng.uniform(-1, 1, (p, n))
    prange_kernels.check("matmul_collapsed", a, b, np.zeros((m, n)))
    prange_kernels.check("matmul_collapsed", np.asfortranarray(a), b[:, ::-1],
                         np.zeros((n, m)).T)


@pytest.mark.parametrize("shape", [(0, 2, 2), (1, 1, 1), (2, 3, 4), (7, 1, 5), (3, 11, 2)])
def test_collapsed_three_levels(prange_kernels, shape):
    prange_kernels.check("collapse3", np.full(shape, -1, np.int64))
    prange_kernels.check("collapse3", np.full(shape[::-1], -1, np.int64).T)


@pytest.mark.parametrize("shape", [(6000, 3, 2), (7, 2501, 2), (3, 2, 6001), (10923, 1, 3),
                                   (1, 3, 11001), (0, 3, 5000), (5000, 0, 3)])
def test_collapsed_levels_split_anywhere(prange_kernels, shape):
    """Nests large enough for the team (faked free CPUs): each thread's block of the
    flattened iterations starts inside a run of the innermost level, its position unravelled
    once, the outer levels then counted up (emit.py flat_run)."""
    compiled = prange_kernels.compiled
    compiled.__unpy_fake_load__((8, 8, 1, 1))
    try:
        prange_kernels.check("collapse3", np.full(shape, -1, np.int64))
        prange_kernels.check("collapse3", np.full(shape[::-1], -1, np.int64).T)
        assert compiled.__unpy_last_team__() > 1 or 0 in shape or os.cpu_count() == 1
    finally:
        compiled.__unpy_fake_load__(None)


@SETTINGS
@given(arrays(f64, 2, values=finite))
def test_collapsed_reduction(prange_kernels, a):
    prange_kernels.check("collapsed_reduction", a, rtol=REDUCTION_RTOL)


@pytest.mark.parametrize("n", [0, 1, 2, 5, 16, 33])
def test_triangular_nests(prange_kernels, n):
    prange_kernels.check("triangular", np.zeros((n, n)))
    prange_kernels.check("triangular_inner_prange", np.full((n, n), -1.0))


@SETTINGS
@given(st.integers(-12, 12), st.integers(-12, 12), st.integers(-4, 4).filter(bool))
def test_prange_steps(prange_kernels, start, stop, step):
    # 40 elements: a negative index never reaches an element a non-negative one writes (the
    # iterations must be independent).
    a = np.arange(60, dtype=np.int64)[::-1][5:45]
    prange_kernels.check("stepped", a, start, stop, step)


def test_prange_negative_step_and_zero_step(prange_kernels):
    prange_kernels.check("reversed_prange", np.arange(10, dtype=np.int64))
    error = prange_kernels.check("stepped", np.zeros(5, np.int64), 0, 5, 0)
    assert isinstance(error, ValueError)


def test_error_inside_a_parallel_region(prange_kernels):
    """ZeroDivisionError raised by an iteration surfaces after the loop, once, as the right
    exception; the module keeps working after it. (The interpreter divides NumPy scalars here:
    it warns and gives 0; SPEC section 3 wants the Python error on the CPU path.)"""
    c = prange_kernels.compiled
    for n, d in [(100, 57), (10, 3), (1000, 999)]:
        with pytest.raises(ZeroDivisionError, match="by zero"):
            c.zero_division_in_parallel(np.arange(n, dtype=np.int64), d)
    prange_kernels.check("zero_division_in_parallel", np.arange(100, dtype=np.int64), 1000)
    assert c.count_in_parallel(9) == 3


@SETTINGS
@given(arrays(f64, 2, values=finite))
def test_prange_inside_a_sequential_loop(prange_kernels, a):
    prange_kernels.check("prange_inside_sequential", a, np.ones_like(a))


def test_shared_scalars_that_are_only_read(prange_kernels):
    a = np.linspace(-1, 1, 101)
    prange_kernels.check("shared_read_only_scalar", a, 1.5, rtol=REDUCTION_RTOL)


@SETTINGS
@given(arrays(f64, 1, values=finite))
def test_calls_and_local_arrays_in_parallel(prange_kernels, a):
    prange_kernels.check("calls_in_parallel", a, np.zeros(a.shape[0]))
    prange_kernels.check("local_array_in_parallel", a, np.zeros(a.shape[0]))


@pytest.mark.parametrize("n", [0, 1, 2, 3, 1000])
def test_count_reduction(prange_kernels, n):
    prange_kernels.check("count_in_parallel", n)


@pytest.mark.parametrize("n", [0, 1, 7])
def test_loop_variable_after_prange(prange_kernels, n):
    prange_kernels.check("loop_var_after_prange", np.zeros(n, np.int64))


def test_bool_and_small_int_reductions(prange_kernels):
    for a in ([], [-1.0], [-1.0, 2.0], [1.0, 2.0], [0.0] * 50 + [3.0]):
        prange_kernels.check("any_positive", np.array(a))
        prange_kernels.check("all_positive", np.array(a))
    prange_kernels.check("small_sum", np.full(100, 100, np.int8))       # wraps in int8


@SETTINGS
@given(arrays(f64, 1, values=finite))
def test_continue_in_prange(prange_kernels, a):
    prange_kernels.check("skip_negative", a)


@SETTINGS
@given(arrays(f64, 2, values=finite))
def test_small_arrays_of_an_iteration(prange_kernels, a):
    """On the iteration's stack (unpy/cpp_emit/emit.py small_allocations): every value as the
    interpreter's, also of an array passed to a compiled function and back."""
    z = np.arange(a.shape[0]) * (1 + 2j)
    prange_kernels.check("small_arrays_in_parallel", a, z, np.zeros(a.shape[0]), rtol=1e-12)


def test_which_arrays_go_on_the_stack():
    from unpy.cpp_emit.emit import small_allocations
    from unpy.pipeline import compile_to_ir
    import diffcheck
    path = diffcheck.KERNELS / "prange.py"
    fn = next(f for f in compile_to_ir(str(path), path.read_text()).functions
              if f.name == "small_arrays_in_parallel")
    loop = next(s for s in fn.body if isinstance(s, ir.For) and s.parallel)
    shapes = sorted(tuple(d.value for d in x.shape) for x, _ in small_allocations(loop.body))
    assert shapes == [(2,), (2,), (2,), (2, 3), (4,)]      # not `row`, made in a loop


@SETTINGS
@given(arrays(i64, 2, max_side=40, values=st.integers(-2 ** 40, 2 ** 40)))
def test_integer_and_bool_arrays_written_in_a_prange(prange_kernels, a):
    """Each thread's own copy of the arrays (emit.py region_arrays): views with negative and
    non-unit strides, and the array written being the one read."""
    shape = a.shape
    prange_kernels.check("int_and_bool_rows", a, np.zeros(shape, i64), np.zeros(shape, bool))
    prange_kernels.check("int_and_bool_rows", a[::-1, ::-2], np.zeros(shape, i64)[:, ::-2],
                         np.zeros((shape[0], 2 * shape[1]), bool)[::-1, ::2])
    prange_kernels.check("int_and_bool_rows", a, a, np.zeros(shape, bool))
    prange_kernels.check("int_and_bool_rows", a[:, ::-1], a, np.zeros(shape, bool))
    prange_kernels.check("int_rows_of_a_local", a.astype(np.int32)[::-1, ::3])


def _views(a, kind):
    """`a` as is, every other row and column reversed (negative strides), or transposed."""
    return {"plain": a, "reversed": a[::-2, ::-1], "transposed": a.T}[kind]


@pytest.mark.parametrize("view", ["plain", "reversed", "transposed"])
@pytest.mark.parametrize("rows, cols", [(0, 3), (1, 1), (7, 5), (301, 13), (1201, 37)])
def test_functions_with_pranges_called_in_a_prange(prange_kernels, rows, cols, view):
    """Called in a prange's iteration, a function's prange nests run as plain loops on the
    iteration's thread (unpy::region_inactive), from Python in parallel (a free machine
    faked): the interpreter's results either way; a float reduction's order is the
    interpreter's in the first, the threads' partial sums in the second. Errors raised in
    the callees' loops (IndexError, math.log's ValueError) come out of the outer prange."""
    rng = np.random.default_rng(rows * cols)
    compiled = prange_kernels.compiled
    compiled.__unpy_fake_load__((8, 8, 1, 1))
    try:
        a = _views(rng.uniform(0.0, 2.0, (2 * rows + 1, 2 * cols + 1)), view)
        a = a[:rows, :cols] if view != "transposed" else a[:cols, :rows]
        m, n = a.shape
        bins = rng.integers(-5, 5, 3 * n + 2)
        args = lambda: (a, bins, np.zeros((m, 4)), np.zeros((m, 3, 5))[:, ::-1, ::2],
                        np.zeros((m, 5), np.int64))
        prange_kernels.check("calls_in_a_prange", *args(), rtol=REDUCTION_RTOL)
        for callee in ("row_sum", "positives", "row_logs", "triangle_of_row"):
            for i in (0, m - 1, m):
                prange_kernels.check(callee, a, i, rtol=REDUCTION_RTOL)
        if m and n:
            prange_kernels.check("row_histogram", np.zeros((m, 5), np.int64), m - 1, bins)
            prange_kernels.check("fill_block", np.zeros((m, 3, 5))[:, ::-1, ::2], m - 1, 2.5)
            a[m - 1, n - 1] = -3.0          # math.log(-2.0) in the last row
            prange_kernels.check("calls_in_a_prange", *args())
            a[m - 1, n - 1] = 1.0
            bins[-1] = 5                    # hist[i, 5]: out of range
            prange_kernels.check("calls_in_a_prange", *args())
    finally:
        compiled.__unpy_fake_load__(None)


def test_nests_of_functions_called_in_a_prange_have_both_forms():
    """A function called in a prange's iteration (or by one) has each nest's parallel region
    and, taken where unpy::region_inactive(), its plain loops; another function only the
    region."""
    from unpy.cpp_emit.emit import called_in_regions, emit_function
    from unpy.pipeline import compile_to_ir
    import diffcheck
    path = diffcheck.KERNELS / "prange.py"
    module = compile_to_ir(str(path), path.read_text())
    functions = {f.name: f for f in module.functions}
    callees = {"row_sum", "positives", "row_logs", "fill_block", "row_histogram",
               "triangle_of_row"}
    found = called_in_regions(functions)
    assert callees <= found and not found & {"calls_in_a_prange", "sum_plus_equals"}
    for name in callees | {"calls_in_a_prange", "sum_plus_equals"}:
        text = "\n".join(emit_function(functions[name], module.name, "unproved", functions)[1])
        assert "#pragma omp parallel" in text, name
        assert ("unpy::region_inactive()" in text) == (name in callees), name


@pytest.mark.parametrize("special", [None, np.nan, np.inf, -np.inf, 2.0 ** 63, -2.0 ** 63,
                                     1e300])
@pytest.mark.parametrize("n", [1, 7, 2001])
def test_float_to_int_conversions_in_a_prange(prange_kernels, n, special):
    """int(), round(), floor, ceil in a prange record a nan or an out-of-range value in a flag
    and raise after the loop (unpy::float_to_int): the interpreter's exception (ValueError for
    a nan, OverflowError beyond int64, -2**63 converted), its values where none; also in a
    function called in a prange's iteration; views with negative and non-unit strides."""
    rng = np.random.default_rng(n)
    a = rng.uniform(-1e15, 1e15, 3 * n)[::-3]           # negative stride
    if special is not None:
        a[rng.integers(0, n)] = special
    compiled = prange_kernels.compiled
    compiled.__unpy_fake_load__((8, 8, 1, 1))
    try:
        prange_kernels.check("conversions_in_a_prange", a, np.zeros((n, 4), np.int64))
        rows = np.ascontiguousarray(a[: n - n % 7]).reshape(-1, 7)[:, ::2] if n >= 7 else \
            a.reshape(1, n)
        if special is not None and abs(special) >= 2.0 ** 62:
            rows = np.where(np.isfinite(rows) & (np.abs(rows) >= 2.0 ** 62), 1e300, rows)
        prange_kernels.check("conversions_of_rows", rows, np.zeros(rows.shape, np.int64))
    finally:
        compiled.__unpy_fake_load__(None)
