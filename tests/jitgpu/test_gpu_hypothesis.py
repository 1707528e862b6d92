"""Property tests of the GPU path: shapes, strides, views (negative and stepped, transposed,
aliased) and loop bounds drawn by hypothesis; every example runs through OpenCL on PoCL and must
match the interpreter. The kernel sources take sizes as arguments, so the examples share a few
OpenCL builds (see test_examples_share_builds)."""
import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

SETTINGS = settings(max_examples=20, deadline=None, database=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture,
                                           HealthCheck.too_slow])


@st.composite
def view_1d(draw, n_min=0, n_max=300):
    """(base length, start, step): a view base[start::step] of a fresh 1-D array."""
    step = draw(st.sampled_from([1, 1, 2, 3, -1, -2, 5]))
    n = draw(st.integers(n_min, n_max))
    base = n * abs(step) + draw(st.integers(0, 4))
    start = draw(st.integers(0, base - n * abs(step)))
    if step < 0:
        start = base - 1 - start
    return base, start, step, n


def make_view(rng, spec, dtype=np.float64):
    base, start, step, n = spec
    a = rng.uniform(-10, 10, base).astype(dtype)
    if n == 0:
        return a[:0:step]
    stop = start + step * n
    view = a[start:stop if stop >= 0 else None:step]
    assert len(view) == n
    return view


@given(x=view_1d(), y=view_1d(), seed=st.integers(0, 2 ** 32 - 1),
       alpha=st.floats(-4, 4))
@SETTINGS
def test_axpy_any_views(gpu, x, y, seed, alpha):
    rng = np.random.default_rng(seed)
    n = min(x[3], y[3])
    xv, yv = make_view(rng, x[:3] + (n,)), make_view(rng, y[:3] + (n,))
    ran_on = "opencl:" if n else "openmp"
    gpu.check("axpy", xv, yv, alpha, rtol=1e-12, ran_on=ran_on)


@st.composite
def view_2d(draw):
    """A 2-D view: shape, order, per-axis steps and flips, maybe transposed."""
    rows, cols = draw(st.integers(1, 24)), draw(st.integers(1, 24))
    order = draw(st.sampled_from("CF"))
    steps = draw(st.tuples(st.sampled_from([1, 2, -1, -3]), st.sampled_from([1, 3, -1, -2])))
    transpose = draw(st.booleans())
    return rows, cols, order, steps, transpose


def make_view_2d(rng, spec, shape=None, dtype=np.float64):
    rows, cols, order, (s0, s1), transpose = spec
    if shape is not None:
        rows, cols = shape[::-1] if transpose else shape
    base = rng.uniform(-10, 10, (rows * abs(s0), cols * abs(s1))).astype(dtype)
    base = np.asarray(base, order=order)
    view = base[::s0, ::s1]
    view = view.T if transpose else view
    return view


@given(a=view_2d(), b=view_2d(), out=view_2d(), seed=st.integers(0, 2 ** 32 - 1))
@SETTINGS
def test_add2_any_layouts(gpu, a, b, out, seed):
    rng = np.random.default_rng(seed)
    av = make_view_2d(rng, a)
    bv = make_view_2d(rng, b, av.shape)
    ov = make_view_2d(rng, out, av.shape)
    gpu.check("add2", av, bv, ov, rtol=1e-12)


@given(a=view_2d(), b=view_2d(), inner=st.integers(0, 12), seed=st.integers(0, 2 ** 32 - 1))
@SETTINGS
def test_matmul_any_layouts(gpu, a, b, inner, seed):
    rng = np.random.default_rng(seed)
    av = make_view_2d(rng, a, (a[0], inner))
    bv = make_view_2d(rng, b, (inner, b[1]))
    c = np.zeros((av.shape[0], bv.shape[1]), order=a[2])
    gpu.check("matmul", av, bv, c, rtol=1e-12)


@given(shape=st.tuples(st.integers(1, 9), st.integers(1, 9), st.integers(1, 9)),
       axes=st.permutations([0, 1, 2]), flips=st.tuples(*[st.sampled_from([1, -1, 2])] * 3),
       order=st.sampled_from("CF"), seed=st.integers(0, 1000))
@SETTINGS
def test_three_levels_any_layout(gpu, shape, axes, flips, order, seed):
    rng = np.random.default_rng(seed)
    big = tuple(n * abs(f) for n, f in zip(shape, flips))
    a = np.asarray(rng.integers(-99, 99, big), np.int32, order=order)
    a = a[tuple(slice(None, None, f) for f in flips)].transpose(axes)
    out = np.zeros(a.shape[::-1], np.int32).T
    gpu.check("add3", a, out)


@given(a=view_2d(), seed=st.integers(0, 1000))
@SETTINGS
def test_two_level_reduction_any_layout(gpu, a, seed):
    gpu.check("red_sum_2d", make_view_2d(np.random.default_rng(seed), a), rtol=1e-12)


@given(a=view_2d(), s=st.integers(1, 4), seed=st.integers(0, 1000))
@SETTINGS
def test_inner_loop_steps(gpu, a, s, seed):
    av = make_view_2d(np.random.default_rng(seed), a)
    gpu.check("inner_steps", av, np.zeros((av.shape[0], 2)), s, rtol=1e-12)


@given(n=st.integers(1, 60), start=st.integers(0, 59), stop=st.integers(-1, 60),
       step=st.integers(-9, 9).filter(bool))
@SETTINGS
def test_prange_bounds(gpu, n, start, stop, step):
    start, stop = min(start, n - 1), min(stop, n)
    if step < 0:
        stop = max(stop, -1)        # range(5, -1, -1) ends at 0: every index stays in [0, n)
    else:
        stop = max(stop, 0)
    ran_on = "opencl:" if len(range(start, stop, step)) else "openmp"
    gpu.check("fill_range", np.zeros(n, np.int64), start, stop, step, ran_on=ran_on)


@given(rows=st.integers(1, 20), cols=st.integers(1, 20), data=st.data())
@SETTINGS
def test_two_level_bounds(gpu, rows, cols, data):
    def bounds(n):
        step = data.draw(st.sampled_from([1, 2, 3, -1, -2]))
        start = data.draw(st.integers(0, n - 1))
        stop = data.draw(st.integers(start, n) if step > 0 else st.integers(-1, start))
        return start, stop, step
    r, c = bounds(rows), bounds(cols)
    ran_on = "opencl:" if len(range(*r)) and len(range(*c)) else "openmp"
    a = np.arange(rows * cols, dtype=np.float64).reshape(rows, cols)
    gpu.check("fill_block", a, np.zeros((rows, cols)), *r, *c, ran_on=ran_on)


@given(n=st.integers(1, 40), k=st.integers(0, 8), flip=st.booleans(),
       order=st.sampled_from("CF"))
@SETTINGS
def test_syrk_shapes(gpu, n, k, flip, order):
    a = np.asarray(np.random.default_rng(n * 31 + k).uniform(-1, 1, (n, k)), order=order)
    gpu.check("syrk", a[::-1] if flip else a, np.zeros((n, n)), rtol=1e-12)


@given(n=st.integers(1, 14), s=st.integers(1, 6), init=st.integers(-100, 100))
@SETTINGS
def test_triangular_levels(gpu, n, s, init):
    gpu.check("tri_three_levels", np.zeros((n, n, n), np.int64), n, s, np.int64(init))


@given(n=st.integers(1, 700), init=st.integers(-2 ** 62, 2 ** 62),
       op=st.sampled_from(["red_sum_i64", "red_min_i64", "red_max_i64", "red_or_i64",
                           "red_and_i64", "red_xor_i64"]),
       x=view_1d(n_min=1, n_max=1))
@SETTINGS
def test_int_reductions_any_size(gpu, n, init, op, x):
    rng = np.random.default_rng(n)
    base, start, step, _ = x
    values = rng.integers(-2 ** 62, 2 ** 62, n * abs(step) + 1)
    view = values[::step][:n]
    gpu.check(op, view, np.int64(init))


@given(spec=view_1d(n_min=1, n_max=200), m=st.integers(1, 50), seed=st.integers(0, 1000))
@SETTINGS
def test_gather_any_indices(gpu, spec, m, seed):
    rng = np.random.default_rng(seed)
    x = make_view(rng, spec)
    n = len(x)
    idx = rng.integers(-n, n, m)
    gpu.check("gather", x, idx, np.zeros(m))


@given(n=st.integers(2, 200), seed=st.integers(0, 1000), offset=st.sampled_from([0, 1]))
@SETTINGS
def test_aliased_shift(gpu, n, seed, offset):
    base = np.random.default_rng(seed).uniform(-1, 1, n + offset)

    def make():
        a = base.copy()
        return (a[1 + offset:], a[offset:-1], n - 1), [a]
    gpu.check_fresh("even_to_odd", make, rtol=1e-12)


def test_examples_share_builds(gpu, device):
    """Sizes and offsets are kernel arguments: new shapes of one layout reuse the build."""
    rng = np.random.default_rng(5)
    gpu.check("add2", rng.random((3, 4)), rng.random((3, 4)), np.zeros((3, 4)))
    stats = device.kernel_cache.stats
    builds, disk = stats.builds, stats.disk_hits
    for shape in [(5, 9), (17, 2), (30, 31), (2, 70)]:
        _, report = gpu.check("add2", rng.random(shape), rng.random(shape), np.zeros(shape),
                              rtol=1e-12)
        assert report.nests[0].timings["cache_hits"] == 1, str(report)
    assert (stats.builds, stats.disk_hits) == (builds, disk)
