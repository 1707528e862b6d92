"""Tiles whose copies overlap the other tiles' kernels on one device (issue 7, section 3;
issue 25 for tiles of two levels).

A call that moves many bytes spends most of its time in copies, each direction on its own DMA
engine, while the kernel waits for all of them: stencil f64 at 8192 on an H100 copied 537 MB
in (9.9 ms), ran 0.4 ms and copied 537 MB back (9.7 ms). Cut into tiles of its outer parallel
loop, tile k's kernel runs while tile k+1 copies in and tile k-1 copies back
(`gpurts.executor`, three queues of the device), so the call takes about the longer
direction's copies plus one tile's worth of the rest.

    tiled_split (pure: the plan edited into tiles and the grid that cut them, or None) ->
      the kernels built per tile -> the executor's overlapped run (only when no tile's kernel
      can set its error flag)

The tiles are cut as a split across devices is (`jitgpu.split.split_plan`, every part on the
call's device): only where what each tile writes meets nothing another tile touches, and each
tile overwrites everything it copies back and reads none of it (`SplitPlan.early`), so tiles
may write back in any order and a failed call's OpenMP rerun finds its inputs intact. A group
an earlier tile copied alike is not copied again (`unpy.host_memory.reused_groups`: an array
each tile reads whole, as mmult's b, is copied once, by the first tile); a nest whose tiles
would still copy much more than the whole is left whole. Where every tile of the outer loop
would wait for such a group (mmult's b: 64 MiB before a half's first kernel at f32 4096), the
next parallel level is cut too (`two_level_grid`): a tile of rows and columns needs its rows
of a and its columns of b, a row's tiles share its rows of a and a column's its columns of b,
and the order of the tiles (`tile_order`) keeps the copies in ahead of the kernels.
"""
from __future__ import annotations

import dataclasses
import itertools

from jitgpu.lmad.transfer import format_bytes
from jitgpu.nest import NotOffloadable
from jitgpu.plan import GPU_OPS, work
from jitgpu.residency import may_flag
from jitgpu.split import Grid, Participant, split_plan, writes_only_overwrite
from unpy.host_memory import distinct_groups, reused_groups

# Calls moving at least this many bytes are tiled. Measured on an H100 (2026-11-25, 4 tiles
# against the whole call replayed from C++): stencil f64 8192 (1 GiB) 14.5 against 20.5-28.7
# ms, mmult f32 4096 (192 MiB) 9.9 against 10.3, f64 4096 17.9 against 19.1; but mmult at 2048
# (48 and 96 MiB) 2.39 against 1.84 (f32) and 4.94 against 3.37 ms (f64): below some 100 MiB
# the tiles' Python path and smaller launches cost more than the overlap saves.
OVERLAP_BYTES = 128 << 20
# Tiles of the outer loop; in tiles of two levels, tiles along each (TILES x TILES).
TILES = 4
# Whether tiles of two levels are considered (`two_level_grid`); bench/multi.py's --tiles-1d
# column turns them off to compare.
TWO_LEVELS = True
# ... where each of them would keep the device busy this long at least (the plan's estimate of
# its kernel: jitgpu/plan.py's work at GPU_OPS). Every tile is bound and enqueued from Python,
# ~1 ms a tile: on two H200s (2026-11-28) mmult f32 4096, 4 x 4 tiles a half (0.86 ms
# estimated a tile), took 18.5 ms a call against 7.1 in 4 row tiles; at 8192 (6.9 ms
# estimated a tile) 41.0 against 43.6, f64 65.8 against 72.7.
TWO_LEVEL_TILE_S = 2e-3
# The tiles may move at most this much more than the whole call (halos, rows read by two
# tiles).
MAX_GROWTH = 1.1


def bytes_moved(parts) -> int:
    """Bytes the parts copy either way, a group an earlier part copies for them counted once."""
    return sum(g.device_bytes * (int(g.copy_in) + int(g.copy_back))
               for g in distinct_groups(parts))


def _device_bytes(parts) -> int:
    """Device memory the tiles of an overlapped run hold together (every tile's buffers live
    until the run ends; a group an earlier tile copied is its buffer)."""
    return sum(g.device_bytes for g in distinct_groups(parts))


def _worth(part) -> bool:
    """Whether a whole part overwrites what it copies back and moves OVERLAP_BYTES or more."""
    return writes_only_overwrite(part.transfers) and bytes_moved([part]) >= OVERLAP_BYTES


def worth_tiling(plan) -> bool:
    """Whether a plan is one whole part worth cutting into tiles (pure, cheap: the tiles may
    still be refused)."""
    return (plan is not None and not plan.overlap and plan.residency is None
            and len(plan.parts) == 1 and plan.parts[0].bounds is None and _worth(plan.parts[0]))


def _tiles_keep_apart(tiles, early, whole, facts) -> bool:
    """Whether the tiles (indices `tiles` of a split's parts) may run overlapped in place of
    the whole part: each writes back on its own, together they copy little more, and their
    buffers, held together, fit the device."""
    parts = [part for _, part in tiles]
    return (all(k in early for k, _ in tiles)
            and bytes_moved(parts) <= MAX_GROWTH * bytes_moved([whole])
            and _device_bytes(parts) <= facts.mem_limit)


def copies_in(parts) -> list:
    """Per part, in order, the bytes its overlapped run copies in (a group an earlier part
    copied, none)."""
    reused = reused_groups(parts)
    return [sum(g.device_bytes for k, g in enumerate(part.transfers.groups)
                if g.copy_in and k not in reused[index]) for index, part in enumerate(parts)]


def waited_bytes(parts) -> int:
    """The bytes copied in before each part's kernel may start (its own and every earlier
    part's copies, in order on one queue), summed over the parts: the smaller, the further the
    copies in stay ahead of the kernels."""
    return sum(itertools.accumulate(copies_in(parts)))


def tile_seconds(instance, tiles) -> float:
    """The estimated kernel seconds of one of TILES x TILES tiles of the rows `tiles` cover."""
    outer = instance.levels[0].var
    rows = sum(hi - lo for p in tiles for var, lo, hi in p.bounds if var == outer)
    return work(instance) * rows / instance.boxes[outer].extent / GPU_OPS / TILES ** 2


def two_level_grid(instance, tiles) -> Grid | None:
    """The grid of tiles of two levels for a device whose tiles of the outer loop (`tiles`,
    in order) each wait for a group that every one of them reads whole, or None: then the
    first tile's kernel waits for all of it (mmult's b behind a row tile; 2, 4 or 8 row tiles
    per half of mmult f32 4096 on two H200s ran within 5 % of no tiles). Cut along the next
    parallel level too, TILES x TILES, a tile needs only its rows of a and its columns of b,
    where each tile's kernel is estimated at TWO_LEVEL_TILE_S at least. Pure: the order comes later (`tile_order`), from the planned tiles."""
    if not TWO_LEVELS or len(instance.levels) < 2 or len(tiles) < 2:
        return None
    inner = instance.levels[1].var
    if inner in instance.guarded or instance.boxes[inner].extent < TILES:
        return None
    if TWO_LEVEL_TILE_S > 0 and tile_seconds(instance, tiles) < TWO_LEVEL_TILE_S:
        return None
    reused = reused_groups(tiles)
    every = [k for k in reused[1] if all(r.get(k) == (0, k) for r in reused[1:])]
    if not every:
        return None
    names = ", ".join(tiles[0].transfers.groups[k].arrays[0] for k in every)
    held = sum(tiles[0].transfers.groups[k].device_bytes for k in every)
    return Grid((TILES, TILES), levels=(instance.levels[0].var, inner),
                why=f"each tile of {instance.levels[0].var} alone would wait "
                    f"for {names} ({format_bytes(held)}), read whole by every tile")


def tile_order(grid: Grid, split, label) -> Grid:
    """`grid` (rows first) visited in the order whose tiles (the device `label`'s parts of
    `split`) wait for fewer bytes copied in (`waited_bytes`), rows first where both wait
    alike: a half of mmult f32 4096 in 4 x 4 tiles waits for 24 MiB before its first kernel
    either way, then rows first for all of b within the first row of tiles, columns first
    for a quarter of b and the rows of a."""
    parts = [p for p in split.plan.parts if p.device == label]
    columns = dataclasses.replace(grid, columns_first=True)
    waited = {g.columns_first: waited_bytes(sorted(parts, key=lambda p: g.order_key(p.bounds)))
              for g in (grid, columns)}
    why = (f"{grid.why}; the first tile copies {format_bytes(copies_in(parts)[0])} in; a tile "
           f"waits for {format_bytes(waited[True] // len(parts))} on average columns first, "
           f"{format_bytes(waited[False] // len(parts))} rows first")
    return dataclasses.replace(grid, columns_first=waited[True] < waited[False], why=why)


def tiled_split(instance, values, participants, shares, whole, **plan_args):
    """(the split with each device of `whole` ({label: its whole part}) cut into overlapped
    tiles, {label: Grid}), or None where the tiles are refused: TILES tiles of the outer loop,
    or tiles of two levels where those wait for a group every tile reads whole
    (`two_level_grid`) and are legal; a range of one iteration stays one part."""
    facts = {p.label: p.facts for p in participants}

    def planned(grids):
        try:
            split = split_plan(instance, values, participants, shares, tiles=grids,
                               **plan_args)
        except NotOffloadable:
            return None
        mine = {label: [(k, p) for k, p in enumerate(split.plan.parts) if p.device == label]
                for label in grids}
        if not all(_tiles_keep_apart(mine[label], split.early, whole[label], facts[label])
                   for label in grids):
            return None
        return split, mine

    rows = {label: Grid((TILES,)) for label in whole}
    found = planned(rows)
    if found is None:
        return None
    split, mine = found
    grids = {label: grid for label, grid in rows.items() if len(mine[label]) > 1}
    wider = {label: two_level_grid(instance, [p for _, p in mine[label]]) for label in grids}
    wider = {label: grid for label, grid in wider.items() if grid is not None}
    if wider:
        found = planned({**grids, **wider})
        if found is not None:
            wider = {label: tile_order(grid, found[0], label) for label, grid in wider.items()}
            return found[0].reordered(wider), {**grids, **wider}
    return (split, grids) if grids else None


def overlapped(plan, instance, values, facts):
    """`plan` cut into overlapped tiles (`tiled_split`), marked `overlap`, or None where that
    is not legal or would not pay. (Whether the tiles' kernels may set the flag or reduce is
    known once they are built: `usable`.)"""
    if not worth_tiling(plan) or instance.boxes[instance.levels[0].var].extent < TILES:
        return None
    found = tiled_split(instance, values, [Participant(facts.label, facts)], [1],
                        {facts.label: plan.parts[0]}, nest=plan.nest, forced=plan.forced,
                        opt=plan.opt)
    if found is None:
        return None
    split, grids = found
    return dataclasses.replace(plan, parts=split.plan.parts, overlap=True,
                               grid=grids[facts.label])


def tile_devices(split, instance, values, participants, shares, **plan_args) -> tuple:
    """(`split` with each device's part that is worth it cut into overlapped tiles, the
    labels of those devices); (`split`, empty) where none is or the tiles are refused."""
    mine = {}
    for k, part in enumerate(split.plan.parts):
        mine.setdefault(part.device, []).append(k)
    whole = {label: split.plan.parts[ks[0]] for label, ks in mine.items()
             if len(ks) == 1 and ks[0] in split.early and _worth(split.plan.parts[ks[0]])}
    found = whole and tiled_split(instance, values, participants, shares, whole, **plan_args)
    if not found:
        return split, frozenset()
    tiled, grids = found
    return tiled, frozenset(grids)


def usable(kernels) -> bool:
    """Whether the tiles' built kernels ((KernelNest, source, built) each) can run overlapped:
    none can set its error flag (its copies back would have to wait for the flag) or has
    reduction results (combined after every tile)."""
    return not any(may_flag(source) or kernel.reductions for kernel, source, _ in kernels)
