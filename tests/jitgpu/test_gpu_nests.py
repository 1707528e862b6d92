"""@gpu nests run through OpenCL on PoCL and compared with the interpreter: layouts (views with
steps, negative strides, Fortran order, aliasing arguments), 1-3 collapsed prange levels,
triangular nests, control flow, math functions, division, bool arrays, non-affine indices."""
import numpy as np
import pytest

from gpucheck import assert_ran

RNG = np.random.default_rng(1234)


def rand(*shape, dtype=np.float64):
    if np.dtype(dtype).kind == "f":
        return RNG.uniform(-4, 4, shape).astype(dtype)
    return RNG.integers(-50, 50, shape).astype(dtype)


F64_TOL = 1e-12
F32_TOL = 1e-5


def test_arguments_keep_their_layout():
    """The comparison copies arguments without making them contiguous or separating views."""
    from gpucheck import clone_args
    from unpy.host_memory import memory_root
    a = rand(40, 30)
    x, y, z, b = a[::-2, 1::3], a[1:].T, np.broadcast_to(a[0], (5, 30)), np.asfortranarray(a)
    (cx, cy, cz, cb, k), buffers = clone_args((x, y, z, b, 3))
    for orig, copy in ((x, cx), (y, cy), (z, cz), (b, cb)):
        assert copy.strides == orig.strides and np.array_equal(copy, orig)
        assert copy.flags.writeable == orig.flags.writeable
    assert np.shares_memory(cx, cy) and not np.shares_memory(cx, x) and k == 3
    assert memory_root(cz) is memory_root(cx) and len(buffers) == 2   # a and its Fortran copy


# --- layouts ----------------------------------------------------------------------------------

VIEWS_1D = {
    "contiguous": lambda a: a,
    "step 3": lambda a: a[::3],
    "reversed": lambda a: a[::-1],
    "reversed step 2": lambda a: a[-2::-2],
    "offset slice": lambda a: a[5:40:4],
}


@pytest.mark.parametrize("x_view", list(VIEWS_1D))
@pytest.mark.parametrize("y_view", ["contiguous", "reversed", "step 3"])
def test_axpy_views(gpu, x_view, y_view):
    x = VIEWS_1D[x_view](rand(120))
    y = VIEWS_1D[y_view](rand(120))
    n = min(len(x), len(y))
    gpu.check("axpy", x[:n], y[:n], 1.5, rtol=F64_TOL)


def test_axpy_float32(gpu):
    x, y = rand(1000, dtype=np.float32), rand(3000, dtype=np.float32)[::-3]
    gpu.check("axpy_f32", x, y, np.float32(0.25), rtol=F32_TOL)


VIEWS_2D = {
    "C": lambda a: a,
    "F": np.asfortranarray,
    "transposed": lambda a: a.T,
    "steps": lambda a: a[::2, 1::3],
    "negative": lambda a: a[::-1, ::-2],
    "mixed": lambda a: a[3:, ::-1].T,
}


@pytest.mark.parametrize("layout", list(VIEWS_2D))
def test_add2_layouts(gpu, layout):
    view = VIEWS_2D[layout]
    a, b, out = view(rand(40, 30)), view(rand(40, 30)), view(np.zeros((40, 30)))
    gpu.check("add2", a, b, out, rtol=F64_TOL)


@pytest.mark.parametrize("layout", ["C", "F", "negative", "steps"])
def test_matmul_layouts(gpu, layout):
    view = VIEWS_2D[layout]
    a, b = view(rand(34, 26)), view(rand(26, 22))
    c = view(np.zeros((a.shape[0], b.shape[1]) if layout in ("C", "F") else (34, 22)))
    c = c[:a.shape[0], :b.shape[1]]
    gpu.check("matmul", a, b, c, rtol=F64_TOL)


def test_matmul_float32_fortran(gpu):
    a = np.asfortranarray(rand(17, 9, dtype=np.float32))
    b = rand(9, 33, dtype=np.float32)
    c = np.zeros((17, 33), np.float32, order="F")
    gpu.check("matmul_f32", a, b, c, rtol=F32_TOL)


def test_three_levels(gpu):
    a = rand(6, 7, 9, dtype=np.int32)
    out = np.zeros((6, 7, 9), np.int32)
    gpu.check("add3", a, out)
    gpu.check("add3", a[::-1, 1:, ::2], np.zeros((5, 6, 6), np.int32).transpose(2, 1, 0))
    gpu.check("add3", np.asfortranarray(a), np.asfortranarray(out))


@pytest.mark.parametrize("bounds", [(0, 50, 1), (3, 47, 5), (49, -1, -1), (40, 2, -7),
                                    (10, 10, 1), (0, 50, 100)])
def test_prange_start_stop_step(gpu, bounds):
    out = np.zeros(50, np.int64)
    start, stop, step = bounds
    ran_on = "opencl:" if len(range(start, stop, step)) else "openmp"
    gpu.check("fill_range", out, start, stop, step, ran_on=ran_on)


def test_two_level_steps(gpu):
    a = rand(30, 40)
    gpu.check("fill_block", a, np.zeros((30, 40)), 1, 29, 3, 38, 0, -5, rtol=F64_TOL)
    gpu.check("fill_block", a[::-1], np.zeros((30, 40)).T.copy().T, 29, -1, -2, 2, 40, 4,
              rtol=F64_TOL)


# --- aliasing arguments -----------------------------------------------------------------------

def test_alias_shifted_views(gpu):
    """dst = a[1:], src = a[:-1]: odd elements written from the even ones, one buffer."""
    base = rand(101)

    def make():
        a = base.copy()
        return (a[1:], a[:-1], len(a) - 1), [a]
    gpu.check_fresh("even_to_odd", make, rtol=F64_TOL)


def test_alias_same_array(gpu):
    base = rand(77)

    def make():
        a = base.copy()
        return (a, a), [a]
    gpu.check_fresh("scale_into", make, rtol=F64_TOL)

    def make_reversed():
        a = base.copy()
        return (a[::-1], a[::-1]), [a]
    gpu.check_fresh("scale_into", make_reversed, rtol=F64_TOL)


def test_alias_column_halves(gpu):
    base = rand(20, 32)

    def make():
        a = base.copy()
        return (a[:, :16], a[:, 16:]), [a]
    gpu.check_fresh("copy_plus_one", make, rtol=F64_TOL)

    def make_interleaved():
        a = base.copy()
        return (a[:, 1::2], a[:, ::2]), [a]
    gpu.check_fresh("copy_plus_one", make_interleaved, rtol=F64_TOL)


def test_alias_two_roots_of_one_buffer(gpu):
    """np.frombuffer twice over one bytearray: two root arrays whose memory overlaps."""
    data = np.arange(101.0).tobytes()

    def make(shifted_first):
        def fresh():
            buf = bytearray(data)
            a = np.frombuffer(buf, np.float64, 100, 0)
            b = np.frombuffer(buf, np.float64, 100, 8)
            return ((b, a) if shifted_first else (a, b)) + (100,), [np.frombuffer(buf)]
        return fresh
    gpu.check_fresh("even_to_odd", make(True), rtol=F64_TOL)
    gpu.check_fresh("even_to_odd", make(False), rtol=F64_TOL)


def test_zero_strides_and_read_only(gpu):
    """Broadcast (stride 0, read-only) inputs are read on the device; a read-only output is a
    ValueError, as NumPy's."""
    x = np.broadcast_to(np.float64(2.5), (300,))
    gpu.check("axpy", x, rand(300), 3.0, rtol=F64_TOL)
    row = np.broadcast_to(rand(7), (9, 7))
    gpu.check("add2", row, row.T.copy().T, np.zeros((9, 7)), rtol=F64_TOL)
    with pytest.raises(ValueError, match="read-only"):
        gpu.compiled.axpy(rand(300), x, 1.0)


def test_alias_different_dtypes(gpu):
    """A float32 view and an int32 view interleaved in one buffer."""
    base = (rand(64, dtype=np.float32) * 100).view(np.uint32)

    def make():
        raw = base.copy()
        return (raw.view(np.float32)[::2], raw.view(np.int32)[1::2]), [raw]
    gpu.check_fresh("truncate_into", make)


# --- triangular nests, control flow -----------------------------------------------------------

@pytest.mark.parametrize("layout", ["C", "F", "negative"])
def test_syrk(gpu, layout):
    a = VIEWS_2D[layout](rand(23, 11))
    gpu.check("syrk", a, np.zeros((a.shape[0], a.shape[0])), rtol=F64_TOL)


def test_triangular_inner_prange(gpu):
    gpu.check("upper_scale", rand(19, 19), np.zeros((19, 19)), rtol=F64_TOL)


def test_while_loop(gpu):
    x = RNG.integers(1, 10_000, 300).astype(np.int64)
    gpu.check("collatz", x, np.zeros(300, np.int64))


def test_break_continue(gpu):
    a = RNG.integers(-1, 6, (50, 12)).astype(np.float64)
    a[a > 2] = 0.0
    gpu.check("first_negative", a, np.zeros(50, np.int64))


def test_if_elif_else_and_inner_while(gpu):
    x = rand(500)
    gpu.check("branches", x, np.zeros(500), rtol=F64_TOL)


# --- math, division, bool ---------------------------------------------------------------------

def test_math_float64(gpu):
    x = np.concatenate([rand(200), [0.0, -0.0, 0.5, -0.5, 3.0, -3.0]])
    gpu.check("math_f64", x, np.zeros((len(x), 11)), rtol=1e-10)


def test_math_float32(gpu):
    x = np.concatenate([rand(200, dtype=np.float32), np.float32([0, -0.0, 2.5, -2.5])])
    gpu.check("math_f32", x, np.zeros((len(x), 6), np.float32), rtol=1e-4)


def test_math_special_functions(gpu):
    """erf, erfc, tgamma and lgamma of OpenCL C, within rounding of the interpreter's."""
    x = np.concatenate([rand(200) + 0.01, [0.5, -0.5, 3.0, -2.5, 30.0, 171.5, -171.5, 1e-300]])
    gpu.check("math_special", x, np.zeros((len(x), 4)), rtol=1e-12)


@pytest.mark.parametrize("v", [0.0, -0.0, -1.0, -2.5, 180.0, 1e-320, 1e308, -np.inf, np.inf,
                               np.nan])
def test_gamma_errors_as_the_interpreter(gpu, v):
    """At a pole of gamma or lgamma, and where gamma overflows, the kernel sets its flag and the
    CPU path raises CPython's error (ValueError or OverflowError); elsewhere the device's result
    stands."""
    x = np.array([0.5, v, 3.0])
    result, report = gpu.check("math_special", x, np.zeros((3, 4)), rtol=1e-12, ran_on=None)
    expect_device = not isinstance(result, Exception)
    assert report.nests[0].ran_on.startswith("opencl:" if expect_device else "openmp"), str(report)


def test_python_forms_in_a_nest(gpu):
    """`for c in coeffs`, chained assignment, a module constant and a default in one nest."""
    coeffs, x = rand(6), rand(500)
    gpu.check("poly_eval", coeffs, x, np.zeros(500), rtol=F64_TOL)
    gpu.check("poly_eval", coeffs[::-2], x[::3], np.zeros(167), -2.0, rtol=F64_TOL)


def test_integer_division_negative_operands(gpu):
    a = np.array([7, -7, 7, -7, 0, 1, -1, 2 ** 62, -2 ** 62, 13, -13, -2 ** 63, -2 ** 63, 5],
                 np.int64)
    b = np.array([2, 2, -2, -2, 5, -3, 3, 7, -7, 13, 4, -1, 1, -1], np.int64)
    gpu.check("divmod_i64", a, b, np.zeros_like(a), np.zeros_like(a))
    a32 = np.concatenate([np.arange(-40, 40), [-2 ** 31, 2 ** 31 - 1]]).astype(np.int32)
    for d in (-6, 7, -1, 1):
        gpu.check("divmod_i32", a32, np.int32(d), np.zeros((82, 4), np.int32))


def test_shifts_and_integer_true_division(gpu):
    """Shift counts outside [0, 64) shift everything out, as in NumPy (OpenCL would take them
    modulo 64); integer `/` by zero raises on the CPU path, so the kernel flags it."""
    a = np.array([1, -1, 5, -40, 2 ** 62, -7, 3], np.int64)
    b = np.array([1, 3, 63, 64, 70, 100, 2], np.int64)
    gpu.check("shifts_and_true_division", a, b, np.zeros((7, 3)))
    b[3] = 0
    with pytest.raises(ZeroDivisionError):
        gpu.compiled.shifts_and_true_division(a, b, np.zeros((7, 3)))
    assert_ran(gpu.explain("shifts_and_true_division"), "openmp", "division by zero")


@pytest.mark.parametrize("v", [1.0, -0.0, 0.25, 2.5, -2.5, -1.0, 800.0, -800.0, np.nan, np.inf,
                               -np.inf, 1e300])
def test_math_errors_as_the_interpreter(gpu, v):
    """Where CPython's math module raises, the kernel sets its flag and the CPU path raises the
    same error; elsewhere the device's result stands."""
    x = np.array([0.5, v, 3.0])
    result, report = gpu.check("math_errors", x, np.zeros((3, 7)), rtol=1e-14, ran_on=None)
    expect_device = not isinstance(result, Exception)
    assert report.nests[0].ran_on.startswith("opencl:" if expect_device else "openmp"), str(report)


def test_float_division(gpu):
    a = np.array([7.5, -7.5, 7.5, -7.5, 0.0, -0.0, 1.0, 1e300, 3.0], np.float64)
    b = np.array([2.0, 2.0, -2.0, -2.0, 3.0, 3.0, 0.1, 1e-10, 0.0], np.float64)
    gpu.check("divmod_f64", a, b, np.zeros((len(a), 3)))


def test_bool_arrays(gpu):
    a, b = RNG.random(99) < 0.5, RNG.random(99) < 0.5
    gpu.check("bool_ops", a, b, np.zeros(99, bool))
    gpu.check("bool_ops", a[::-1], b[::3].repeat(3)[:99], np.zeros(99, bool))
    x = rand(300)
    gpu.check("threshold_count", x, 0.25, np.zeros(300, bool))


# --- non-affine indices: the array's whole extent moves --------------------------------------

def test_gather_whole_extent(gpu):
    x = rand(64)
    idx = RNG.integers(-64, 64, 200)
    _, report = gpu.check("gather", x, idx, np.zeros(200))
    assert any("extent" in g for g in report.nests[0].details["groups"]), str(report)
    gpu.check("gather", x[::-2], RNG.integers(0, 32, 50), np.zeros(50))


def test_scatter_permutation(gpu):
    idx = RNG.permutation(150)
    gpu.check("scatter", rand(150), idx, np.zeros(150), rtol=F64_TOL)


def test_squares_mod(gpu):
    gpu.check("squares_mod", np.arange(37, dtype=np.int64) * 3, np.zeros(100, np.int64))


def test_reserved_names(gpu):
    """Variables named as OpenCL keywords, types, built-ins, macros or the kernel's own names."""
    x = rand(300)
    for constant in (True, False):
        gpu.check("reserved_names", x, np.zeros(300), 1.5, constant, rtol=1e-12)


@pytest.mark.parametrize("n", [1, 2, 17, 40])
def test_triangular_collapsed_levels(gpu, n):
    a = rand(n, n)
    gpu.check("tri_lower", a, np.zeros((n, n)), rtol=F64_TOL)
    gpu.check("tri_lower", a[::-1].T, np.zeros((n, n)), rtol=F64_TOL)
    gpu.check("tri_sum", rand(n, n + 3), rtol=F64_TOL)


@pytest.mark.parametrize("n, s", [(1, 1), (5, 1), (9, 2), (12, 5)])
def test_triangular_three_levels(gpu, n, s):
    gpu.check("tri_three_levels", np.zeros((n, n, n), np.int64), n, s, np.int64(-3))


def test_continue_in_parallel_body(gpu):
    """`continue` of the prange body ends the iteration; the skipped writes keep the old values
    (so the output must be copied in)."""
    x = rand(300)
    gpu.check("skip_negative", x, np.full(300, 7.0), rtol=F64_TOL)


def test_float32_literals(gpu):
    x = np.float32([0.0, 1.0, -1.5, 1e-3, 3.0])
    gpu.check("f32_literals", x, np.zeros((5, 4), np.float32))


def test_nests_inside_a_sequential_loop(gpu):
    x = rand(500)
    _, report = gpu.check("jacobi", x, np.zeros(500), 7, rtol=1e-12)
    assert len(report.nests) == 3


@pytest.mark.parametrize("s", [1, 2, 5])
def test_inner_loops_with_steps_and_a_reused_variable(gpu, s):
    """Inner loops with negative and non-unit steps, a start moving with i (`i % m`), and one
    variable for two loops (the hull of their boxes)."""
    a = rand(30, 13)
    gpu.check("inner_steps", a, np.zeros((30, 2)), s, rtol=F64_TOL)
    gpu.check("inner_steps", a[::-1, ::2], np.zeros((30, 2)), s, rtol=F64_TOL)


def test_chained_comparisons_and_value_returning_and_or(gpu):
    """Chains stop at the first false comparison, `and`/`or` skip their later operands (no
    division by zero is reached) and return an operand, as in the interpreter."""
    k = np.arange(-6, 14, dtype=np.int64)
    x = np.array([0.0, -0.0, 1.5, -2.5, np.nan, 0.5, -0.75, 3.0, 0.0, 1.0] * 2)
    gpu.check("logic_ops", k, x, np.zeros((20, 5), np.int64), np.zeros((20, 5)), rtol=F64_TOL)


# --- inner range loops as NDRange levels (unpy/typeinfer/independent_loops.py) -------------

def ndrange_dims(report) -> int:
    """How many NDRange dimensions the function's (one) nest ran with."""
    import re
    found = re.search(r"ndrange: global \(([^)]*)\)", str(report))
    assert found, str(report)
    return len([x for x in found.group(1).split(",") if x.strip()])


@pytest.mark.parametrize("m, n, p", [(1, 1, 1), (7, 13, 5), (33, 17, 40)])
def test_an_independent_inner_range_is_a_level(gpu, m, n, p):
    _, report = gpu.check("matmul_range", rand(m, p), rand(p, n), np.zeros((m, n)),
                          rtol=F64_TOL)
    assert ndrange_dims(report) == 2
    x = rand(9, 12)
    _, report = gpu.check("shift_right", x, np.zeros((9, 12)))
    assert ndrange_dims(report) == 2
    _, report = gpu.check("scale3_ranges", rand(4, 5, 6), np.zeros((4, 5, 6))[:, ::-1])
    assert ndrange_dims(report) == 3
    _, report = gpu.check("lower_triangle_range", rand(11, 11), rand(11, 11))
    assert ndrange_dims(report) == 2


def test_a_dependent_inner_range_stays_in_the_work_item(gpu):
    _, report = gpu.check("running_sum", rand(6, 20))
    assert ndrange_dims(report) == 1


@pytest.mark.parametrize("alias", ["same array", "overlapping view"])
def test_arrays_that_overlap_at_the_call_keep_the_loop(gpu, alias):
    """The proof compared names: where the array written overlaps the one read, each row's
    iterations run in order in one work-item, as the interpreter runs them."""
    base = rand(9, 12)

    def make():
        x = base.copy()
        out = x if alias == "same array" else x[:, :]
        return (x, out), [x]
    _, report = gpu.check_fresh("shift_right", make)
    assert ndrange_dims(report) == 1


@pytest.mark.parametrize("new_h, new_w", [(7, 9), (1, 5), (4, 1), (3, 0)])
def test_scalars_before_an_independent_loop_are_sunk_into_it(gpu, new_h, new_w):
    """The row's scalars, computed before the loop over columns, are computed by each
    work-item of the level; where the loop has no iteration it stays a loop (the statements
    before it then run once per row, as written)."""
    img = rand(6, 8)
    _, report = gpu.check("resize_rows", img, new_h, new_w, np.zeros((new_h, max(new_w, 1))),
                          rtol=F64_TOL, ran_on="opencl:" if new_w else None)
    if new_w:
        assert ndrange_dims(report) == 2


def test_print_between_nests_sees_what_the_device_wrote(gpu, capsys):
    """print() of an array the nest before it wrote on the device (data kept there between the
    nests): copied back first, printed as the interpreter prints it."""
    a = rand(7)
    printed = []
    for f in (gpu.interpreted.print_between_nests, gpu.compiled.print_between_nests):
        b = a.copy()
        f(b)
        printed.append((capsys.readouterr().out, b))
    assert printed[1][0] == printed[0][0] and "doubled" in printed[0][0]
    np.testing.assert_array_equal(printed[1][1], printed[0][1])
    assert_ran(gpu.explain("print_between_nests"), "opencl:")


def test_draws_between_nests_see_what_the_device_wrote(gpu):
    """np.random.shuffle of an array a nest wrote on the device, then a nest reading it and an
    array of draws: the interpreter's values from the same seed."""
    a = rand(9)
    got = []
    for f in (gpu.interpreted.draws_between_nests, gpu.compiled.draws_between_nests):
        b = a.copy()
        f(b, 5)
        got.append((b, np.random.random()))
    np.testing.assert_array_equal(got[1][0], got[0][0])
    assert got[1][1] == got[0][1]
    assert_ran(gpu.explain("draws_between_nests"), "opencl:")


def test_a_helper_that_draws_keeps_its_nest_on_the_host(gpu):
    """A nest calling a function that draws from np.random stays on OpenMP; its iterations take
    the draws in any order, the generator ends where the interpreter leaves it."""
    a = np.zeros(2000)
    got = []
    for f in (gpu.interpreted.draws_in_a_helper, gpu.compiled.draws_in_a_helper):
        np.random.seed(17)
        out = np.zeros(2000)
        f(a, out)
        got.append((out, np.random.random()))
    assert got[1][0][0] == got[0][0][0] and got[1][1] == got[0][1]
    np.testing.assert_array_equal(np.sort(got[1][0][1:]), np.sort(got[0][0][1:]))
    assert_ran(gpu.explain("draws_in_a_helper"), "openmp", "calls compiled function jittered()")


def test_a_store_read_back_by_its_work_item_is_fenced(gpu):
    """A store that a later statement of the same work-item may read is followed by a fence
    (jitgpu/opencl_emit.stores_read_later); a store nothing reads after it is not."""
    dat, w = rand(7, 3), np.linspace(0.0, 1.0, 7)
    _, report = gpu.check("store_then_select", dat, w, np.zeros((7, 3)), rtol=0.0,
                          ran_on="opencl:")
    source = report.nests[0].source
    body = source[source.index("__kernel"):]
    assert body.count("mem_fence(CLK_GLOBAL_MEM_FENCE);") == 1
    first_store = body.index(" = g")
    assert body.index("mem_fence") > first_store
