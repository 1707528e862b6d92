"""lane_split on bound nests (the lanes in dimension 0, the work-group's shape, the combination,
what is refused), and against the interpreter on the tested OpenCL device: the CPU device needs
no fill (fill_items 0), so a fixture makes `device_limits` report one (the model's only fact
of the device the pass needs) and the pipeline at UNPY_GPU_OPT=all splits the loops: nbody
f32/f64, min/max, integer sums, a 2-level and a triangular nest, start and step not 0 and 1, a
negative step, a prange reduction updated in the loop, the error flag, trip counts and row
counts that are no multiple of the lanes or the work-group (drawn by hypothesis with the lanes
and the group)."""
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bound import bound
from gpucheck import assert_ran
from jitgpu import bind as bind_module
from jitgpu import loopopt, offload, session
from jitgpu.loopopt import cost
from jitgpu.loopopt.cost import GpuModel
from jitgpu.loopopt.lane_split import lane_split, lane_split_tiles
from jitgpu.loopopt.local_tiles import local_tiles
from jitgpu.loopopt.nodes import Barrier, LaneCombine, LanePartials, TileLoad
from jitgpu.loopopt.unroll_and_jam import unroll_and_jam
from jitgpu.opencl_emit import print_kernel
from modulepair import gpu_pair
from unpy import ir
from unpy.typeinfer.reductions import walk_stmts

F = np.float32
RNG = np.random.default_rng(31)
HERE = Path(__file__).resolve().parent
FILL = 1 << 40                    # more work-items than any test nest has
FULL = GpuModel(fill_items=FILL)


@pytest.fixture(scope="session")
def lanes_pair(tmp_path_factory):
    """Built with --fastmath: the lanes re-associate float accumulators only there."""
    return gpu_pair(HERE / "lane_kernels.py", tmp_path_factory.mktemp("build-lane_kernels"),
                    fastmath=True)


def rand(*shape, dtype=np.float64):
    return RNG.uniform(-2, 2, shape).astype(dtype)


def _nbody(pair, n, dtype=F):
    x, y, z = (rand(n, dtype=dtype) for _ in range(3))
    name = "nbody_f32" if dtype == F else "nbody_f64"
    return bound(pair, name, x, y, z, np.zeros(n, dtype))


def _fill(items, **changes):
    """The model of a device that needs `items` work-items to be full."""
    return GpuModel(fill_items=items, **changes)


# --- on bound nests ---------------------------------------------------------------------------

def test_nbody_gets_lanes_in_dimension_0(lanes_pair):
    kernel = _nbody(lanes_pair, 600)
    assert kernel.global_size == (768,) and kernel.local_size == (256,)
    out = lane_split(kernel, FULL)
    assert out.transforms == ("lane_split(j, 32 lanes)",)
    assert out.local_size == (32, 8)               # the work-group keeps its 256 work-items
    assert out.global_size == (32, 600)            # 75 groups of 8 bodies
    combine = [s for s in out.body if isinstance(s, LaneCombine)]
    assert len(combine) == 1 and combine[0].accumulators == (("s", "+", "float32"),)
    source = print_kernel(out)
    assert "const long unpy_t0 = get_global_id(1);" in source
    assert "const int unpy_lane = (int)get_local_id(0);" in source
    assert "__local float unpy_lanes_s[256];" in source
    assert "unpy_k_j_step = 32L;" in source
    assert "if (unpy_lane != 0) s = (float)(0);" in source
    # The store after the loop by lane 0 alone, of a real iteration.
    assert "if ((unpy_active && (unpy_lane == 0))) {" in source
    # Every work-item reaches the barriers: they are outside every guard.
    body = source.split("{\n", 1)[1]
    depth_at_barriers = {line[:len(line) - len(line.lstrip())]
                         for line in body.splitlines() if "barrier(" in line}
    assert depth_at_barriers <= {"    ", "        "}, depth_at_barriers


def test_lanes_just_fill_the_device(lanes_pair):
    kernel = _nbody(lanes_pair, 600)               # 768 work-items
    assert GpuModel().underfill == 8
    assert lane_split(kernel, _fill(768 * 8 - 1)).global_size == (768,)
    assert lane_split(kernel, _fill(768 * 8)).global_size[0] == 8
    assert lane_split(kernel, _fill(768 * 8 + 1)).global_size[0] == 16
    assert lane_split(kernel, _fill(768 * 16)).global_size[0] == 16
    assert lane_split(kernel, _fill(768 * 1000)).global_size[0] == 32
    small_group = kernel.replace(local_size=(8,), global_size=(600,))
    assert lane_split(small_group, FULL).local_size == (8, 1)   # lanes <= the work-group


def test_two_levels_move_up_one_dimension(lanes_pair):
    kernel = bound(lanes_pair, "grid_potential", rand(600, 3, dtype=F), F(0.5),
                   np.zeros((5, 9), F))
    assert kernel.local_size == (16, 16)
    out = lane_split(kernel, FULL)
    assert out.transforms == ("lane_split(k, 32 lanes)",)
    assert out.local_size == (32, 8, 1) and out.global_size == (32, 16, 5)
    source = print_kernel(out)
    assert "const long unpy_t0 = get_global_id(2);" in source
    assert "const long unpy_t1 = get_global_id(1);" in source


def test_accumulators_and_their_operators(lanes_pair):
    out = lane_split(bound(lanes_pair, "int_row_sums", np.ones((3, 600), np.int64),
                           np.zeros(3, np.int64)), FULL)
    (combine,) = [s for s in out.body if isinstance(s, LaneCombine)]
    assert sorted(combine.accumulators) == [("d", "+", "int64"), ("p", "*", "int64"),
                                            ("s", "+", "int64")]
    (partials,) = [s for s in walk_stmts(list(out.body)) if isinstance(s, LanePartials)]
    assert sorted(partials.accumulators) == sorted(combine.accumulators)
    out = lane_split(bound(lanes_pair, "row_range", rand(3, 600), np.zeros(3)), FULL)
    (combine,) = [s for s in out.body if isinstance(s, LaneCombine)]
    assert sorted(combine.accumulators) == [("hi", "max", "float64"), ("lo", "min", "float64")]
    assert "unpy_lanes_lo[unpy_tlid + unpy_h] < unpy_lanes_lo[unpy_tlid]" in print_kernel(out)


def test_prange_reduction_in_the_loop_is_left_to_its_epilogue(lanes_pair):
    out = lane_split(bound(lanes_pair, "total_and_rows", rand(3, 600), np.zeros(3)), FULL)
    (combine,) = [s for s in out.body if isinstance(s, LaneCombine)]
    assert combine.accumulators == (("s", "+", "float64"),)
    source = print_kernel(out)
    # The reductions' tree over every work-item of the group, the lanes included.
    assert "const int unpy_lid = get_local_id(0) * 1 + get_local_id(1) * 32;" in source


@pytest.mark.parametrize("func, args", [
    ("stores_in_loop", lambda: (rand(3, 600), np.zeros(3))),
    ("stores_before_loop", lambda: (rand(3, 600), np.zeros(3), np.zeros(3))),
    ("recurrence", lambda: (rand(3, 600), np.zeros(3))),
    ("reads_running_sum", lambda: (rand(3, 600), np.zeros(3))),
    ("last_temporary", lambda: (rand(3, 600), np.zeros(3))),
    ("nan_second_min", lambda: (rand(3, 600), np.zeros(3))),
    ("three_levels", lambda: (rand(2, 2, 2), rand(2, 600), np.zeros((2, 2, 2)))),
])
def test_refused(lanes_pair, func, args):
    kernel = bound(lanes_pair, func, *args())
    assert lane_split(kernel, FULL) is kernel


def test_refused_without_need_or_iterations(lanes_pair):
    kernel = _nbody(lanes_pair, 600)
    assert lane_split(kernel, GpuModel()) is kernel          # no fill
    assert lane_split(kernel, _fill(768)) is kernel
    # 32 lanes need 512 iterations, 8 lanes 128 (256 work-items, 8 lanes fill 2048).
    short = _nbody(lanes_pair, 500)
    assert lane_split(short, FULL) is short
    assert lane_split(_nbody(lanes_pair, 128), _fill(2048)).global_size[0] == 8
    short = _nbody(lanes_pair, 127)
    assert lane_split(short, _fill(2048)) is short
    # An earlier pass's unrolled level or tiles: theirs.
    jammed = unroll_and_jam(kernel, level=0, factor=2)
    assert lane_split(jammed, FULL) is jammed
    tiled = local_tiles(kernel, FULL)
    assert tiled is not kernel and lane_split(tiled, FULL) is tiled
    split = lane_split(kernel, FULL)
    assert lane_split(split, FULL) is split
    # The lanes' slots: 256 work-items x 4 bytes of local memory.
    assert lane_split(kernel, _fill(FILL, local_mem=1023)) is kernel
    assert lane_split(kernel, _fill(FILL, local_mem=1024)).transforms == (
        "lane_split(j, 32 lanes)",)


def test_float_accumulators_only_under_fastmath(lanes_pair):
    """Without --fastmath a loop's own float sum keeps the interpreter's order (no lanes); an
    integer one is exact in any order and split all the same."""
    kernel = _nbody(lanes_pair, 600)
    assert kernel.fastmath
    strict = kernel.replace(fastmath=False)
    assert lane_split(strict, FULL) is strict
    for name, args in (("row_range", (rand(3, 600), np.zeros(3))),
                       ("total_and_rows", (rand(3, 600), np.zeros(3)))):
        strict = bound(lanes_pair, name, *args).replace(fastmath=False)
        assert lane_split(strict, FULL) is strict, name
    ints = bound(lanes_pair, "int_row_sums", np.ones((3, 600), np.int64),
                 np.zeros(3, np.int64)).replace(fastmath=False)
    assert lane_split(ints, FULL).transforms == ("lane_split(j, 32 lanes)",)


def test_later_passes_keep_the_split(lanes_pair):
    kernel = _nbody(lanes_pair, 600)
    out = loopopt.optimise(kernel, "all", FULL)
    assert "lane_split(j, 32 lanes)" in out.transforms
    assert not any(t.startswith("local_tiles") for t in out.transforms)
    assert any(t.startswith("unroll_inner(j") for t in out.transforms)
    assert local_tiles(lane_split(kernel, FULL), FULL) == lane_split(kernel, FULL)


def _barriers_unguarded(body, guarded=False):
    """Whether no statement with a barrier (tile loads and barriers, the lanes' combination)
    is under an `if`: every work-item must reach each."""
    for s in body:
        if isinstance(s, (TileLoad, Barrier, LaneCombine)) and guarded:
            return False
        if isinstance(s, ir.If) and not _barriers_unguarded(s.body + s.orelse, True):
            return False
        if isinstance(s, ir.For) and not _barriers_unguarded(s.body, guarded):
            return False
    return True


def test_a_tiled_loop_is_split_in_its_tiles(lanes_pair):
    """768 work-items where the device needs 4096: too many for lane_split (an eighth), so
    local_tiles stages x, y and z; lane_split_tiles then gives each body 8 lanes, which split
    each tile's iterations."""
    kernel = _nbody(lanes_pair, 600)
    model = _fill(4096)
    assert lane_split(kernel, model) is kernel
    tiled = local_tiles(kernel, model)
    out = lane_split_tiles(tiled, model)
    assert out.transforms == tiled.transforms + ("lane_split(j, 8 lanes, in tiles)",)
    assert out.local_size == (8, 32) and out.global_size == (8, 608)
    assert _barriers_unguarded(list(out.body))
    (combine,) = [s for s in out.body if isinstance(s, LaneCombine)]
    assert combine.accumulators == (("s", "+", "float32"),) and combine.lanes == 8
    source = print_kernel(out)
    assert "if (unpy_lane != 0) s = (float)(0);" in source
    assert "unpy_k_j_step = 8L;" in source             # each lane: every 8th of a tile
    assert "if ((unpy_active && (unpy_lane == 0))) {" in source
    # The whole pipeline: the same passes, then the later ones.
    out = loopopt.optimise(kernel, "all", model)
    assert "lane_split(j, 8 lanes, in tiles)" in out.transforms
    assert any(t.startswith("local_tiles(j") for t in out.transforms)


def test_a_tiled_loop_is_split_only_where_allowed(lanes_pair):
    kernel = _nbody(lanes_pair, 600)
    model = _fill(4096)
    tiled = local_tiles(kernel, model)
    for refused, on in ((tiled, GpuModel()), (tiled, _fill(768)),
                        (tiled.replace(fastmath=False), model),
                        # the tiles (3 x 256 floats) and the lanes' slots (256 floats): 4096
                        # bytes
                        (tiled, _fill(4096, local_mem=4095))):
        assert lane_split_tiles(refused, on) is refused
    assert lane_split_tiles(tiled, _fill(4096, local_mem=4096)) is not tiled
    assert lane_split_tiles(kernel, model) is kernel          # no tiles: lane_split's
    once = lane_split_tiles(tiled, model)
    assert lane_split_tiles(once, model) is once
    # Tiles with rows (a level's rows of an array) depend on the levels' local sizes.
    rows = bound(lanes_pair, "tri_products", rand(13, 600), np.zeros((13, 13)))
    rows_tiled = local_tiles(rows, model)
    assert any(t.startswith("local_tiles") for t in rows_tiled.transforms)
    assert lane_split_tiles(rows_tiled, model) is rows_tiled


# --- on the tested OpenCL device, against the interpreter -----------------------------------

@pytest.fixture
def device_fill(device_env, monkeypatch):
    """The tested device reports a fill of FILL work-items (a GPU's need), fresh preparations,
    UNPY_GPU_OPT=all; returns a function that sets the lanes at most and the iterations per
    lane at least of every device's model (cost.DEFAULT's max_lanes, min_iterations_per_lane)."""
    real = offload.device_limits

    def limits(device):
        found = real(device)
        return found[:2] + (FILL,) + found[3:]
    monkeypatch.setattr(offload, "device_limits", limits)
    session.forget()
    device_env.setenv("UNPY_GPU_OPT", "all")

    def lanes(most, iterations=GpuModel().min_iterations_per_lane):
        monkeypatch.setattr(cost, "DEFAULT", cost.DEFAULT.replace(
            max_lanes=most, min_iterations_per_lane=iterations))
    return lanes


def cases(n):
    """(function, arguments, rtol) with n iterations of the split loop and rows that are no
    multiple of the lanes or the work-group."""
    a = rand(n + 3)
    return [
        ("nbody_f32", tuple(rand(n, dtype=F) for _ in range(3)) + (np.zeros(n, F),), 1e-4),
        ("nbody_f64", tuple(rand(n) for _ in range(3)) + (np.zeros(n),), 1e-12),
        ("row_range", (rand(37, n), np.zeros(37)), 0),
        ("int_row_sums", (RNG.integers(-2 ** 62, 2 ** 62, (37, n)),
                          np.zeros(37, np.int64)), 0),
        ("grid_potential", (rand(n, 3, dtype=F), F(0.3), np.zeros((5, 11), F)), 1e-4),
        ("strided_dot", (a, rand(21), np.zeros(21)), 1e-12),
        ("backwards_sum", (a, rand(21), np.zeros(21)), 1e-12),
        ("total_and_rows", (rand(19, n), np.zeros(19)), 1e-12),
        ("tri_products", (rand(13, n), np.zeros((13, 13))), 1e-12),
    ]


CASE_NAMES = [c[0] for c in cases(1)]


@pytest.mark.parametrize("lanes, n", [(4, 5), (32, 1), (32, 50)])
@pytest.mark.parametrize("case", range(len(CASE_NAMES)), ids=CASE_NAMES)
def test_split_matches_interpreter(lanes_pair, device_fill, lanes, n, case):
    """Loops of fewer iterations than lanes too (min_iterations_per_lane 0 here)."""
    device_fill(lanes, 0)
    func, args, rtol = cases(n)[case]
    _, report = lanes_pair.check(func, *args, rtol=rtol)
    assert "lane_split(" in report.nests[0].reason, str(report)


@pytest.mark.parametrize("dtype", [F, np.float64])
def test_nbody_at_the_default_lanes(lanes_pair, device_fill, dtype):
    n = 16 * 8 + 5                                 # 8 lanes: 16 iterations each
    device_fill(8)
    args = tuple(rand(n, dtype=dtype) for _ in range(3)) + (np.zeros(n, dtype),)
    func = "nbody_f32" if dtype == F else "nbody_f64"
    _, report = lanes_pair.check(func, *args, rtol=1e-4 if dtype == F else 1e-12)
    assert "lane_split(j, 8 lanes)" in report.nests[0].reason, str(report)


def test_error_flag_raises_as_the_interpreter(lanes_pair, device_fill):
    """A division by zero in any lane sets the flag; the OpenMP code reruns the nest and raises
    ZeroDivisionError (SPEC section 3; the interpreter's NumPy scalars only warn)."""
    device_fill(8, 0)
    a = RNG.integers(-50, 50, 23)
    b = RNG.integers(1, 9, 40)
    _, report = lanes_pair.check("floor_quotients", a, b, np.zeros(23, np.int64))
    assert "lane_split(j, 8 lanes)" in report.nests[0].reason, str(report)
    for zero_at in (0, 13, 39):                    # in lane 0, 5 and 7 of 8
        b_zero = b.copy()
        b_zero[zero_at] = 0
        with pytest.raises(ZeroDivisionError):
            lanes_pair.compiled.floor_quotients(a, b_zero, np.zeros(23, np.int64))
        assert_ran(lanes_pair.explain("floor_quotients"), "openmp", "division by zero")


def test_small_work_groups(lanes_pair, device_fill, monkeypatch):
    """Groups of 8 work-items: 4 lanes x 2 rows (x 1 in a 2-level nest)."""
    monkeypatch.setattr(bind_module, "LOCAL_SIZES", {1: (8,), 2: (4, 2), 3: (2, 2, 2)})
    device_fill(4, 0)
    for func, args, rtol in cases(9):
        if func in ("nbody_f64", "int_row_sums", "grid_potential", "total_and_rows"):
            _, report = lanes_pair.check(func, *args, rtol=rtol)
            assert "lane_split(" in report.nests[0].reason, str(report)


@given(rows=st.integers(1, 40), columns=st.integers(0, 90), start=st.integers(0, 5),
       lanes=st.sampled_from([2, 4, 8, 32]), group=st.sampled_from([8, 32, 256]),
       seed=st.integers(0, 2 ** 32 - 1))
@settings(max_examples=25, deadline=None, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
def test_any_shape_lanes_and_group(lanes_pair, device_fill, monkeypatch, rows, columns, start,
                                   lanes, group, seed):
    """Rows and iterations of any count (none too), each lane count on work-groups of 8 to
    256 work-items (lanes up to the group's size)."""
    monkeypatch.setattr(bind_module, "LOCAL_SIZES", {1: (group,), 2: (16, 16), 3: (16, 4, 4)})
    session.forget()
    device_fill(lanes, 0)
    rng = np.random.default_rng(seed)
    a = rng.uniform(-2, 2, (rows, columns))
    _, report = lanes_pair.check("windowed_sums", a, start, np.zeros(rows),
                                 np.zeros(rows, np.int64), rtol=1e-12)
    assert f"lane_split(j, {min(lanes, group)} lanes)" in report.nests[0].reason, str(report)


@pytest.mark.parametrize("n", [1, 300, 1000])
@pytest.mark.parametrize("case", range(len(CASE_NAMES)), ids=CASE_NAMES)
def test_split_in_tiles_matches_interpreter(lanes_pair, device_fill, monkeypatch, n, case):
    """lane_split left out (its underfill beyond any fill): the loops local_tiles stages get
    their lanes in the tiles; trip counts below, at and over a tile (256) and no multiple of
    it."""
    device_fill(8, 0)
    monkeypatch.setattr(cost, "DEFAULT", cost.DEFAULT.replace(underfill=FILL + 1))
    func, args, rtol = cases(n)[case]
    _, report = lanes_pair.check(func, *args, rtol=rtol)
    if func.startswith("nbody") and n > 1:                # (one iteration is not tiled)
        assert "lane_split(j, 8 lanes, in tiles)" in report.nests[0].reason, str(report)
