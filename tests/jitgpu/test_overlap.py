"""Tiles whose copies overlap the other tiles' kernels (jitgpu/overlap.py, the executor's
overlapped run): results equal to the interpreter's on the OpenCL device, with the tiles
planned only where they are legal and pay (OVERLAP_BYTES lowered so that small arrays qualify)."""

import dataclasses
from types import SimpleNamespace as NS

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from jitgpu import overlap, session
from test_gpu_hypothesis import SETTINGS, make_view_2d, view_2d
from jitgpu.plan import Estimate, GpuPlan, Part
from jitgpu.split import Grid, SplitPlan
from unpy.host_memory import Box, reused_groups

RNG = np.random.default_rng(11)


@pytest.fixture(autouse=True)
def small_calls_overlap(device_env):
    """Every call moving 256 bytes or more is tiled; layouts are planned afresh (no plan or replay
    of another test's calls)."""
    device_env.setattr(overlap, "OVERLAP_BYTES", 256)
    device_env.setattr(overlap, "TWO_LEVEL_TILE_S", 0.0)
    session.forget()
    device_env.setenv("UNPY_REPLAY", "0")


def _plan(gpu, func):
    return gpu.explain(func).nests[0].plan


@pytest.mark.parametrize("shape", [(4, 9), (13, 7), (64, 33), (2048, 300)])
def test_overlapped_tiles_match_the_interpreter(gpu, shape):
    a, b = RNG.random(shape), RNG.random(shape)
    gpu.check("add2", a, b, np.zeros(shape), rtol=1e-15)
    plan = _plan(gpu, "add2")
    assert plan.overlap and len(plan.parts) == overlap.TILES, str(plan)
    assert "tiles overlapped" in str(plan)
    assert "4 overlapped tiles" in gpu.explain("add2").nests[0].details["ndrange"]
    # The next call on the layout reuses the tiles' kits.
    gpu.check("add2", a, b, np.full(shape, 7.0), rtol=1e-15)
    assert _plan(gpu, "add2").overlap


@given(a=view_2d(), b=view_2d(), out=view_2d(), seed=st.integers(0, 2 ** 32 - 1))
@SETTINGS
def test_any_layouts(gpu, a, b, out, seed):
    """Views stepped, flipped and transposed: tiled where the tiles' byte spans keep apart,
    whole otherwise, the interpreter's result either way."""
    session.forget()
    rng = np.random.default_rng(seed)
    av = make_view_2d(rng, a)
    gpu.check("add2", av, make_view_2d(rng, b, av.shape), make_view_2d(rng, out, av.shape),
              rtol=1e-12)


def test_strided_views(gpu):
    """Every other row of a matrix as the destination: strided tiles, overlapped. The column
    halves of one matrix as destination and source: each tile's byte span of the one meets
    the other's, so the call stays whole."""
    gpu.check("copy_plus_one", np.zeros((80, 16))[::2], RNG.random((40, 16)), rtol=1e-15)
    assert _plan(gpu, "copy_plus_one").overlap
    m = RNG.random((40, 16))
    gpu.check("copy_plus_one", m[:, 8:], m[:, :8], rtol=1e-15)
    assert not _plan(gpu, "copy_plus_one").overlap


@pytest.mark.parametrize("rows", [4, 17])
def test_shared_group_copied_once(gpu, device_env, rows):
    """In tiles of rows only, mmult's b, which every tile reads whole, is copied by the first
    tile only."""
    device_env.setattr(overlap, "TWO_LEVELS", False)
    a, b = RNG.random((rows, 12)), RNG.random((12, 10))
    gpu.check("matmul", a, b, np.zeros((rows, 10)), rtol=1e-12)
    plan = _plan(gpu, "matmul")
    groups = plan.parts[0].transfers.groups
    reused = reused_groups(plan.parts)
    assert plan.overlap and all([groups[k].arrays for k in mine] == [("b",)]
                                and all(t == 0 for t, _ in mine.values()) for mine in reused[1:])
    report = gpu.explain("matmul").nests[0]
    moved = rows * 12 * 8 + 12 * 10 * 8 + rows * 10 * 8
    assert report.timings["bytes_moved"] == report.timings["bytes_touched"] == moved, str(report)
    gpu.check("matmul", a, b, np.ones((rows, 10)), rtol=1e-12)


def test_a_box_an_earlier_tile_copied_is_not_copied_again(gpu):
    """shifted_sum with the shift a whole tile (16 of 64): tile k reads x's rows k and k + 2,
    and tile k + 2's first box is tile k's second: copied once, by tile k, so the tiles copy
    each element of x once, as the whole call does."""
    x, out = RNG.random(96), np.zeros(64)
    gpu.check("shifted_sum", x, out, np.int64(32), rtol=1e-15)
    plan = _plan(gpu, "shifted_sum")
    assert plan.overlap and len(plan.parts) == 4, str(plan)
    assert [sorted(t for t, _ in mine.values()) for mine in reused_groups(plan.parts)] == \
        [[], [], [0], [1]], str(plan)
    assert "x: not copied, part 0 copied it" in str(plan)
    report = gpu.explain("shifted_sum").nests[0]
    assert report.timings["bytes_moved"] == 96 * 8 + 64 * 8, str(report)     # x once, out


def test_not_overlapped_where_illegal_or_unprofitable(gpu, device_env):
    # Each tile reads its rows of x and those 24 further, boxes no other tile copies alike:
    # the tiles would copy x 4/3 times or more.
    gpu.check("shifted_sum", RNG.random(96), np.zeros(64), np.int64(24), rtol=1e-12)
    assert not _plan(gpu, "shifted_sum").overlap
    # dst is read and written: a failed call's rerun needs it intact.
    x = RNG.random(300)
    gpu.check("scale_into", x.copy(), x, rtol=1e-15)
    assert not _plan(gpu, "scale_into").overlap
    # A reduction is combined after every part.
    gpu.check("red_sum_f64", RNG.random(500), 1.5, rtol=1e-12)
    assert not _plan(gpu, "red_sum_f64").overlap
    # A kernel that may set its error flag (a run-time step).
    gpu.check("strided_row_sum", RNG.random((20, 30)), np.int64(2), np.zeros(20), rtol=1e-12)
    assert not _plan(gpu, "strided_row_sum").overlap
    # Small calls stay whole.
    device_env.setattr(overlap, "OVERLAP_BYTES", 1 << 30)
    gpu.check("add2", RNG.random((8, 8)), RNG.random((8, 8)), np.zeros((8, 8)), rtol=1e-15)
    assert not _plan(gpu, "add2").overlap


# --- tiles of rows and columns (issue 25) ------------------------------------------------------

def _tile_ranges(part):
    bounds = {var: (lo, hi) for var, lo, hi in part.bounds}
    return bounds["i"], bounds["j"]


def _assert_copies_once(plan, a_name="a", b_name="b"):
    """Each tile copies its rows of a unless an earlier tile of its rows did, its columns of
    b unless an earlier tile of its columns did, and copies back its own block of c."""
    seen_rows, seen_columns = {}, {}
    for index, (part, mine) in enumerate(zip(plan.parts, reused_groups(plan.parts))):
        rows, columns = _tile_ranges(part)
        arrays = {part.transfers.groups[k].arrays[0]: (t, k) for k, (t, _) in mine.items()}
        assert (a_name in arrays) == (rows in seen_rows), (index, str(plan))
        assert (b_name in arrays) == (columns in seen_columns), (index, str(plan))
        if a_name in arrays:
            assert arrays[a_name][0] == seen_rows[rows]
        if b_name in arrays:
            assert arrays[b_name][0] == seen_columns[columns]
        seen_rows.setdefault(rows, index)
        seen_columns.setdefault(columns, index)
        assert set(arrays) <= {a_name, b_name}


@pytest.mark.parametrize("func, dtype, rtol", [("matmul", np.float64, 1e-12),
                                               ("matmul_f32", np.float32, 1e-4)])
@pytest.mark.parametrize("m, p, n", [(37, 29, 41), (9, 5, 22), (23, 31, 6)])
def test_tiles_of_rows_and_columns_match_the_interpreter(gpu, func, dtype, rtol, m, p, n):
    """mmult at odd, non-square sizes (tiles of unequal extents): every row tile alone would
    wait for all of b, so the call runs in 4 x 4 tiles of (i, j), each group moved once in
    all, and the result is the interpreter's."""
    a, b = RNG.random((m, p)).astype(dtype), RNG.random((p, n)).astype(dtype)
    gpu.check(func, a, b, np.zeros((m, n), dtype), rtol=rtol)
    plan = _plan(gpu, func)
    assert plan.overlap and plan.grid.counts == (overlap.TILES, overlap.TILES), str(plan)
    assert len(plan.parts) == overlap.TILES ** 2
    assert "4 x 4 tiles of (i, j)" in str(plan) and "read whole by every tile" in str(plan)
    covered = sorted(_tile_ranges(part) for part in plan.parts)
    assert sum((r[1] - r[0]) * (c[1] - c[0]) for r, c in covered) == m * n
    _assert_copies_once(plan)
    report = gpu.explain(func).nests[0]
    itemsize = np.dtype(dtype).itemsize
    assert report.timings["bytes_moved"] == (m * p + p * n + m * n) * itemsize, str(report)
    assert "16 overlapped tiles" in report.details["ndrange"]
    # Again on the same layout (the tiles' kits reused, a block of c written anew).
    gpu.check(func, a, b, np.full((m, n), 5, dtype), rtol=rtol)
    assert _plan(gpu, func).grid == plan.grid


@given(a=view_2d(), b=view_2d(), inner=st.integers(1, 12), seed=st.integers(0, 2 ** 32 - 1))
@SETTINGS
def test_tiles_of_rows_and_columns_of_any_views(gpu, a, b, inner, seed):
    """Views of a and b stepped, flipped and transposed, c in either order: the interpreter's
    result, in tiles of two levels wherever both loops have TILES iterations or more."""
    session.forget()
    rng = np.random.default_rng(seed)
    av = make_view_2d(rng, a, (a[0], inner))
    bv = make_view_2d(rng, b, (inner, b[1]))
    c = np.zeros((av.shape[0], bv.shape[1]), order=a[2])
    gpu.check("matmul", av, bv, c, rtol=1e-12)
    plan = _plan(gpu, "matmul")
    if min(c.shape) >= overlap.TILES:
        assert plan.overlap and plan.grid.counts == (overlap.TILES,) * 2, str(plan)
        _assert_copies_once(plan)


def test_tiles_of_one_level_where_no_group_is_read_whole(gpu, device_env):
    """add2 reads only its own rows: tiles of rows, as before; with two levels switched off
    (overlap.TWO_LEVELS, bench/multi.py --tiles-1d) mmult too."""
    gpu.check("add2", RNG.random((40, 40)), RNG.random((40, 40)), np.zeros((40, 40)),
              rtol=1e-15)
    assert _plan(gpu, "add2").grid.counts == (overlap.TILES,)
    device_env.setattr(overlap, "TWO_LEVELS", False)
    gpu.check("matmul", RNG.random((40, 9)), RNG.random((9, 40)), np.zeros((40, 40)),
              rtol=1e-12)
    plan = _plan(gpu, "matmul")
    assert plan.overlap and plan.grid.counts == (overlap.TILES,), str(plan)


def test_no_tiles_of_two_levels_where_tiles_are_illegal(gpu):
    """Where no tiles are legal, none of two levels either: a kernel that may set its error
    flag, a reduction, a nest writing what it reads (two views of one matrix: one group)."""
    a, b = RNG.random((20, 7)), RNG.random((7, 20))
    gpu.check("matmul_step", a, b, np.int64(2), np.zeros((20, 20)), rtol=1e-12)
    assert not _plan(gpu, "matmul_step").overlap
    gpu.check("red_sum_2d", RNG.random((20, 20)), rtol=1e-12)
    assert not _plan(gpu, "red_sum_2d").overlap
    m = RNG.random((24, 24))
    gpu.check("copy_plus_one", m[:, 12:], m[:, :12], rtol=1e-15)
    assert not _plan(gpu, "copy_plus_one").overlap


def test_an_independent_inner_loop_is_a_level_to_tile(gpu):
    """matmul_range's j is a `range` proved independent, a level of the kernel: its tiles are
    of rows and columns too."""
    gpu.check("matmul_range", RNG.random((21, 7)), RNG.random((7, 19)), np.zeros((21, 19)),
              rtol=1e-12)
    plan = _plan(gpu, "matmul_range")
    assert plan.grid.counts == (overlap.TILES,) * 2, str(plan)
    _assert_copies_once(plan)


# --- the rule, the order and the copies, pure (no device) --------------------------------------

def _group(name, box, elems, copy_in=True, copy_back=False):
    return NS(arrays=(name,), itemsize=4, device_elems=elems, device_bytes=4 * elems,
              boxes=[box], copy_in=copy_in, copy_back=copy_back)


def _mmult_tiles(rows, columns, p=8, n_rows=4, n_columns=4, columns_first=False):
    """Synthetic tiles of c[i, j] = sum_k a[i, k] b[k, j] (a: m x p, b: p x n, C order), each
    (i-tile r, j-tile c) with a's rows, b's columns and c's block as its groups."""
    m, n = rows * n_rows, columns * n_columns
    a0, b0, c0 = 1 << 20, 2 << 20, 3 << 20
    cells = [(r, c) for r in range(n_rows) for c in range(n_columns)]
    if columns_first:
        cells.sort(key=lambda rc: (rc[1], rc[0]))
    parts = []
    for r, c in cells:
        groups = [_group("c", Box(c0 + 4 * (r * rows * n + c * columns), (rows, columns),
                                  (4 * n, 4)), rows * columns, False, True),
                  _group("a", Box(a0 + 4 * r * rows * p, (rows * p,), (4,)), rows * p),
                  _group("b", Box(b0 + 4 * c * columns, (p, columns), (4 * n, 4)), p * columns)]
        parts.append(Part((("i", r * rows, (r + 1) * rows), ("j", c * columns, (c + 1) * columns)),
                          "dev", NS(groups=groups)))
    return parts


def test_which_copies_each_tile_makes():
    """Rows first: tile (r, c) copies a's rows r only where c == 0, b's columns c only where
    r == 0, each from the tile that copied it; columns first the same from the other side."""
    for columns_first in (False, True):
        parts = _mmult_tiles(2, 3, columns_first=columns_first)
        first = {}
        for index, (part, mine) in enumerate(zip(parts, reused_groups(parts))):
            (_, i, _), (_, j, _) = part.bounds
            want = {}
            for k, key in ((1, ("a", i)), (2, ("b", j))):
                if key in first:
                    want[k] = (first[key], k)
                else:
                    first[key] = index
            assert mine == want, (columns_first, index)
        assert overlap.copies_in(parts)[0] == 4 * (2 * 8 + 8 * 3)


@pytest.mark.parametrize("rows, columns, columns_first", [(2, 8, True), (8, 2, False),
                                                          (4, 4, False)])
def test_the_order_whose_copies_stay_ahead(rows, columns, columns_first):
    """b larger than the rows of a (mmult's half on one GPU: a 32 MiB, b 64 MiB): columns
    first, the rows of a come in beside the first column's kernels and b a column at a time;
    a larger: rows first; alike: rows first."""
    parts = _mmult_tiles(rows, columns)
    grid = Grid((4, 4), levels=("i", "j"), why="test")
    split = SplitPlan(NS(parts=tuple(parts)), "i", 4 * rows, (("dev", 0, 4 * rows),), None,
                      frozenset(range(16)))
    chosen = overlap.tile_order(grid, split, "dev")
    assert chosen.columns_first == columns_first, str(chosen)
    ordered = sorted(parts, key=lambda p: chosen.order_key(p.bounds))
    other = sorted(parts, key=lambda p: dataclasses.replace(
        chosen, columns_first=not columns_first).order_key(p.bounds))
    assert overlap.waited_bytes(ordered) <= overlap.waited_bytes(other)
    assert "a tile waits for" in str(chosen) and "columns first" in str(chosen)


def test_a_split_reordered_by_its_grid():
    """The same parts, in the grid's order, with `early` following them."""
    parts = _mmult_tiles(2, 2, n_rows=2, n_columns=2)
    split = SplitPlan(GpuPlan("nest", tuple(parts), Estimate(0, 0, 0), True, "none"), "i", 4,
                      (("dev", 0, 4),), None, frozenset({0, 3}))
    grid = Grid((2, 2), columns_first=True, levels=("i", "j"))
    moved = split.reordered({"dev": grid})
    assert [p.bounds for p in moved.plan.parts] == [parts[k].bounds for k in (0, 2, 1, 3)]
    assert moved.early == frozenset({0, 3}) and dict(moved.grids) == {"dev": grid}


def test_the_cells_of_a_grid():
    grid = Grid((2, 3), levels=("i", "j"))
    ranges = [("i", 10, 17), ("j", 0, 8)]
    cells = grid.cells(ranges)
    assert cells[:4] == [(("i", 10, 14), ("j", 0, 3)), (("i", 10, 14), ("j", 3, 6)),
                         (("i", 10, 14), ("j", 6, 8)), (("i", 14, 17), ("j", 0, 3))]
    columns = dataclasses.replace(grid, columns_first=True).cells(ranges)
    assert columns[:2] == [(("i", 10, 14), ("j", 0, 3)), (("i", 14, 17), ("j", 0, 3))]
    assert sorted(columns) == sorted(cells) and len(cells) == 6
    assert Grid((4,)).cells([("i", 0, 3)]) == [(("i", 0, 1),), (("i", 1, 2),), (("i", 2, 3),)]
    assert str(grid) == "2 x 3 tiles of (i, j), rows first"


def test_when_tiles_of_two_levels_are_chosen(device_env):
    """Only where every tile of the outer loop copies a group alike from the first (it reads
    it whole), the next level is no triangle's and has TILES iterations or more, and the
    switch allows."""
    parts = [p for p in _mmult_tiles(2, 8, n_columns=1)]          # tiles of rows: b whole
    instance = NS(levels=[NS(var="i"), NS(var="j")], guarded=set(),
                  boxes={"j": NS(extent=8)})
    grid = overlap.two_level_grid(instance, parts)
    assert grid is not None and grid.counts == (overlap.TILES,) * 2 and grid.levels == ("i", "j")
    assert "would wait for b (256 B), read whole by every tile" in grid.why
    assert overlap.two_level_grid(NS(**{**vars(instance), "guarded": {"j"}}), parts) is None
    assert overlap.two_level_grid(NS(**{**vars(instance), "boxes": {"j": NS(extent=3)}}),
                                  parts) is None
    assert overlap.two_level_grid(NS(**{**vars(instance), "levels": instance.levels[:1]}),
                                  parts) is None
    own = [Part(p.bounds, p.device, NS(groups=p.transfers.groups[:2])) for p in parts]
    assert overlap.two_level_grid(instance, own) is None        # (no b: nothing read whole)
    device_env.setattr(overlap, "TWO_LEVELS", False)
    assert overlap.two_level_grid(instance, parts) is None


def test_tiles_of_two_levels_only_where_each_keeps_the_device_busy(device_env):
    """Each tile is bound and enqueued from Python (~1 ms): 4 x 4 tiles of a half of mmult
    f32 4096 on two H200s took 18.5 ms a call against 7.1 in row tiles."""
    parts = [p for p in _mmult_tiles(2, 8, n_columns=1)]
    instance = NS(levels=[NS(var="i"), NS(var="j")], guarded=set(),
                  boxes={"i": NS(extent=8), "j": NS(extent=8)})
    device_env.setattr(overlap, "TWO_LEVEL_TILE_S", 2e-3)
    for seconds, grid in ((1.9e-3, False), (2.1e-3, True)):
        device_env.setattr(overlap, "tile_seconds", lambda instance, tiles, s=seconds: s)
        assert (overlap.two_level_grid(instance, parts) is not None) is grid
