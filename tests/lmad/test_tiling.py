"""Loop tiling when the transfers do not fit the device (section 4.4)."""
import numpy as np
from hypothesis import given, settings, strategies as st

from jitgpu.lmad import Access, AffineForm, LoopDim, Refusal, TransferPlan, tile_plan
from jitgpu.lmad.tiling import tile_nest

from .oracle import check_plan, iterations, live, touched
from .strategies import nests

F = AffineForm


def matrix_nest(parallel_j=True):
    c = np.zeros((64, 64))
    loops = [LoopDim("i", 64, True), LoopDim("j", 64, parallel_j)]
    ij = [F(0, {"i": 1}), F(0, {"j": 1})]
    accesses = [Access(0, "c", ij, True, False), Access(1, "c", ij, False, True)]
    return c, loops, [live("c", c)], accesses


def test_a_nest_that_fits_is_one_tile():
    c, loops, arrays, accesses = matrix_nest()
    [(bounds, plan)] = tile_plan(loops, arrays, accesses, mem_limit=64 * 64 * 8)
    assert bounds == {"i": (0, 64), "j": (0, 64)} and isinstance(plan, TransferPlan)


def test_tiles_fit_the_limit_and_together_touch_what_the_nest_touches():
    c, loops, arrays, accesses = matrix_nest()
    tiles = tile_plan(loops, arrays, accesses, mem_limit=9000)
    assert len(tiles) == 4         # i halved, then j halved: 32 x 32 tiles of 8 kB
    covered = set()
    for bounds, plan in tiles:
        assert plan.device_bytes <= 9000
        tile_loops, tile_accesses = tile_nest(loops, accesses, bounds)
        check_plan(plan, tile_loops, arrays, tile_accesses)
        covered |= {addr for points in touched(tile_loops, arrays, tile_accesses).values()
                    for _, _, addr in points}
    assert covered == {addr for points in touched(loops, arrays, accesses).values()
                       for _, _, addr in points}


def test_only_parallel_loops_are_split():
    c, loops, arrays, accesses = matrix_nest(parallel_j=False)
    tiles = tile_plan(loops, arrays, accesses, mem_limit=9000)
    assert len(tiles) == 4 and all(b["j"] == (0, 64) for b, _ in tiles)   # 16 rows, 8 kB


def test_too_many_tiles_is_refused_over_memory():
    c, loops, arrays, accesses = matrix_nest(parallel_j=False)
    result = tile_plan(loops, arrays, accesses, mem_limit=100, max_tiles=16)
    assert isinstance(result, Refusal) and result.over_memory
    assert "even in 16 tiles" in result.reason


def test_other_refusals_pass_through_untouched():
    c, loops, arrays, accesses = matrix_nest()
    accesses[0].indices = [F(1, {"i": 1}), F(0, {"j": 1})]
    result = tile_plan(loops, arrays, accesses, mem_limit=9000)
    assert isinstance(result, Refusal) and not result.over_memory
    assert result.reason.startswith("c[i + 1, j]")


@settings(max_examples=80, deadline=None)
@given(nests(max_extent=6), st.integers(8, 600))
def test_tiles_partition_the_loops_and_each_plan_is_correct(nest, mem_limit):
    result = tile_plan(nest.loops, nest.arrays, nest.accesses, mem_limit, max_tiles=16)
    if isinstance(result, Refusal):
        assert result.over_memory
        return
    assert len(result) <= 16
    points = []
    for bounds, plan in result:
        assert plan.device_bytes <= mem_limit
        tile_loops, tile_accesses = tile_nest(nest.loops, nest.accesses, bounds)
        check_plan(plan, tile_loops, nest.arrays, tile_accesses)
        points += [tuple(env[v] + bounds[v][0] for v in env) for env in iterations(tile_loops)]
    assert sorted(points) == sorted(tuple(env.values()) for env in iterations(nest.loops))
