"""Kernels of tests/jitgpu/gpu_kernels.py on Oclgrind with the layouts where the host<->device
address mapping and the runtime bounds proof can go wrong: transposed views, negative strides,
non-contiguous slices, zero strides, overlapping views of one buffer, tiles forced by a memory
limit, triangular nests, non-affine (indirect) indices and reductions. Each result matches the
interpreter's, the nest ran on Oclgrind, and Oclgrind reported no invalid access and no read of
memory nothing wrote (nor data races, with OCLGRIND_DATA_RACES=1). Sizes are tiny (Oclgrind
simulates every work-item) and uneven, so the work-group guards are exercised too."""
import numpy as np
import pytest

pytestmark = pytest.mark.memcheck

RNG = np.random.default_rng(7)
TOL = 1e-12


def rand(*shape, dtype=np.float64):
    if np.dtype(dtype).kind == "f":
        return RNG.uniform(-4, 4, shape).astype(dtype)
    return RNG.integers(-50, 50, shape).astype(dtype)


# --- views of one argument each -------------------------------------------------------------

VIEWS_2D = {
    "transposed": lambda a: a.T,
    "negative strides": lambda a: a[::-1, ::-2],
    "non-contiguous slice": lambda a: a[::2, 1:],
    "mixed": lambda a: a[3:, ::-1].T,
}


@pytest.mark.parametrize("layout", list(VIEWS_2D))
def test_add2_views(memcheck, gpu, layout):
    # 20 rows: two work-groups of 16 along them (unless a step halves them)
    view = VIEWS_2D[layout]
    a, b, out = view(rand(20, 11)), view(rand(20, 11)), view(np.zeros((20, 11)))
    memcheck.check(gpu, "add2", a, b, out, rtol=TOL)


def test_matmul_transposed_and_reversed(memcheck, gpu):
    a, b = rand(9, 13).T, rand(11, 9)[::-1]
    memcheck.check(gpu, "matmul", a, b, np.zeros((11, 13)).T, rtol=TOL)


def test_axpy_negative_strides_and_broadcast(memcheck, gpu):
    memcheck.check(gpu, "axpy", rand(40)[::-1], rand(80)[-2::-2], 1.5, rtol=TOL)
    memcheck.check(gpu, "axpy", np.broadcast_to(np.float64(2.5), (19,)), rand(19), 3.0, rtol=TOL)


def test_three_levels_sliced_and_transposed(memcheck, gpu):
    a = rand(6, 7, 9, dtype=np.int32)
    memcheck.check(gpu, "add3", a[::-1, 1:, ::2], np.zeros((5, 6, 6), np.int32).transpose(2, 1, 0))


def test_prange_with_negative_steps(memcheck, gpu):
    memcheck.check(gpu, "fill_range", np.zeros(20, np.int64), 19, -1, -3)
    memcheck.check(gpu, "fill_block", rand(12, 15)[::-1], np.zeros((12, 15)).T.copy().T,
                   11, -1, -2, 2, 15, 4, rtol=TOL)


# --- overlapping views of one buffer ----------------------------------------------------------

def test_overlapping_shifted_views(memcheck, gpu):
    base = rand(23)

    def make():
        a = base.copy()
        return (a[1:], a[:-1], len(a) - 1), [a]
    memcheck.check_fresh(gpu, "even_to_odd", make, rtol=TOL)


def test_overlapping_same_view_reversed(memcheck, gpu):
    base = rand(17)

    def make():
        a = base.copy()
        return (a[::-1], a[::-1]), [a]
    memcheck.check_fresh(gpu, "scale_into", make, rtol=TOL)


def test_overlapping_interleaved_columns(memcheck, gpu):
    base = rand(9, 12)

    def make():
        a = base.copy()
        return (a[:, 1::2], a[:, ::2]), [a]
    memcheck.check_fresh(gpu, "copy_plus_one", make, rtol=TOL)


def test_overlapping_views_of_different_dtypes(memcheck, gpu):
    base = (rand(22, dtype=np.float32) * 100).view(np.uint32)

    def make():
        raw = base.copy()
        return (raw.view(np.float32)[::2], raw.view(np.int32)[1::2]), [raw]
    memcheck.check_fresh(gpu, "truncate_into", make)


# --- tiles forced by UNPY_GPU_MEM_LIMIT -------------------------------------------------------
# Each limit gives two tiles: each tile is a kernel launch of at least 256 simulated work-items.

@pytest.mark.parametrize("func, args, limit, rtol", [
    ("matmul", lambda: (rand(16, 12), rand(12, 10).T.copy().T, np.zeros((16, 10))), 3000, TOL),
    ("axpy", lambda: (rand(60)[::-1], rand(180)[::3], 0.5), 900, TOL),
    ("syrk", lambda: (rand(14, 5), np.zeros((14, 14))), 1500, TOL),
    ("gather", lambda: (rand(30), RNG.integers(-30, 30, 90), np.zeros(90)), 1500, 0),
    ("scatter", lambda: (rand(60), RNG.permutation(60), np.zeros(60)), 1300, TOL),
    ("red_sum_f64", lambda: (rand(300), 2.0), 2000, TOL),
])
def test_tiled_under_a_memory_limit(memcheck, gpu, oclgrind_env, func, args, limit, rtol):
    oclgrind_env.setenv("UNPY_GPU_MEM_LIMIT", str(limit))
    report = memcheck.check(gpu, func, *args(), rtol=rtol)
    assert report.nests[0].timings["tiles"] > 1, str(report)


def test_tiled_overlapping_views(memcheck, gpu, oclgrind_env):
    oclgrind_env.setenv("UNPY_GPU_MEM_LIMIT", "300")
    base = rand(61)

    def make():
        a = base.copy()
        return (a[1:], a[:-1], len(a) - 1), [a]
    report = memcheck.check_fresh(gpu, "even_to_odd", make, rtol=TOL)
    assert report.nests[0].timings["tiles"] > 1, str(report)


# --- triangular nests -------------------------------------------------------------------------

def test_triangular_nests(memcheck, gpu):
    memcheck.check(gpu, "syrk", rand(13, 6)[::-1], np.zeros((13, 13)), rtol=TOL)
    memcheck.check(gpu, "tri_lower", rand(11, 11).T, np.zeros((11, 11)), rtol=TOL)
    memcheck.check(gpu, "upper_scale", rand(10, 10)[::-1], np.zeros((10, 10)), rtol=TOL)
    memcheck.check(gpu, "tri_three_levels", np.zeros((7, 7, 7), np.int64), 7, 2, 5)
    memcheck.check(gpu, "tri_sum", rand(9, 12), rtol=TOL)


# --- non-affine indices and reductions --------------------------------------------------------

def test_indirect_indices(memcheck, gpu):
    memcheck.check(gpu, "gather", rand(21)[::-1], RNG.integers(-21, 21, 33), np.zeros(33))
    memcheck.check(gpu, "scatter", rand(25), RNG.permutation(25), np.zeros(25), rtol=TOL)
    memcheck.check(gpu, "squares_mod", rand(13, dtype=np.int64), np.zeros(20, np.int64))


def test_reductions(memcheck, gpu):
    memcheck.check(gpu, "red_sum_2d", rand(13, 7)[:, ::-1], rtol=TOL)
    memcheck.check(gpu, "red_several", rand(37), rtol=TOL)
    memcheck.check(gpu, "red_max_u8", rand(29, dtype=np.uint8), np.uint8(3))


# --- overlapped tiles of rows and columns ------------------------------------------------------

def test_overlapped_tiles_of_two_levels(memcheck, gpu, oclgrind_env):
    """matmul of a transposed a and a reversed b in 4 x 4 overlapped tiles (OVERLAP_BYTES and
    the two-level tiles' kernel floor lowered): each tile's kernel reads its rows of a and columns of b from the buffers of the
    tiles that copied them, and writes only its block of c."""
    from jitgpu import overlap, session
    oclgrind_env.setattr(overlap, "OVERLAP_BYTES", 256)
    oclgrind_env.setattr(overlap, "TWO_LEVEL_TILE_S", 0.0)
    oclgrind_env.setenv("UNPY_REPLAY", "0")
    session.forget()
    a, b = rand(7, 13).T, rand(7, 11)[::-1]
    report = memcheck.check(gpu, "matmul", a, b, np.zeros((13, 11)), rtol=TOL)
    plan = report.nests[0].plan
    assert plan.overlap and plan.grid.counts == (overlap.TILES,) * 2, str(plan)
    session.forget()
