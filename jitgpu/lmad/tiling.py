"""Loop tiling for nests whose transfers do not fit the device (section 4.4).

Only parallel loops are tiled, which is always legal; the tiles run one after the other. Like
jit4GPU, the tile size is halved until every tile's plan fits, here one parallel loop at a time
in turn, outermost first, and the attempt stops past `max_tiles` tiles (64 in the paper).
"""
from __future__ import annotations

import dataclasses
import itertools
from typing import Union

from .nest import LoopDim
from .plan import analyse
from .transfer import Refusal, format_bytes


def tile_plan(loops: list, arrays: list, accesses: list, mem_limit: int, max_tiles: int = 64,
              **options) -> Union[list, Refusal]:
    """[(bounds, plan)] with `bounds = {var: (lo, hi)}` in the normalised iteration space, one
    entry per tile, each plan fitting `mem_limit` bytes; or a Refusal.

    A tile's plan is that of the nest with every loop `var` running over `[0, hi - lo)`: its
    device maps use the tile's own loop variables, `var - lo`. `options` go to `analyse`."""
    sizes = {loop.var: max(loop.extent, 1) for loop in loops}
    parallel = [loop.var for loop in loops if loop.parallel]
    turn = 0
    while True:
        tiles = tile_bounds(loops, sizes)
        if len(tiles) > max_tiles:
            return Refusal(f"the transfers do not fit the device limit of "
                           f"{format_bytes(mem_limit)} even in {max_tiles} tiles", over_memory=True)
        plans = []
        for bounds in tiles:
            tile_loops, tile_accesses = tile_nest(loops, accesses, bounds)
            plan = analyse(tile_loops, arrays, tile_accesses, mem_limit=mem_limit, **options)
            if isinstance(plan, Refusal):
                break
            plans.append((bounds, plan))
        else:
            return plans
        if not plan.over_memory:
            return plan
        splittable = [var for var in parallel if sizes[var] > 1]
        if not splittable:
            return Refusal(f"{plan.reason}, even with every parallel loop split to single "
                           f"iterations", over_memory=True)
        # Halve the parallel loops in turn, outermost first.
        var = splittable[turn % len(splittable)]
        turn += 1
        sizes[var] = (sizes[var] + 1) // 2


def tile_bounds(loops: list, sizes: dict) -> list:
    """Every tile as {var: (lo, hi)} for tiles of `sizes[var]` iterations, in C order."""
    ranges = [[(lo, min(lo + sizes[loop.var], loop.extent))
               for lo in range(0, loop.extent, sizes[loop.var])] or [(0, 0)]
              for loop in loops]
    return [dict(zip((loop.var for loop in loops), combo))
            for combo in itertools.product(*ranges)]


def tile_nest(loops: list, accesses: list, bounds: dict) -> tuple:
    """The loops and accesses of one tile, renormalised to start at 0 (const += coeff * lo)."""
    origin = {var: lo for var, (lo, _) in bounds.items()}
    tile_loops = [LoopDim(loop.var, bounds[loop.var][1] - bounds[loop.var][0], loop.parallel)
                  for loop in loops]
    tile_accesses = [dataclasses.replace(acc, indices=[None if ix is None else ix.shifted(origin)
                                                       for ix in acc.indices])
                     for acc in accesses]
    return tile_loops, tile_accesses
