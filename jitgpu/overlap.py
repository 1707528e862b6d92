"""Tiles whose copies overlap the other tiles' kernels on one device (issue 7, section 3).

A call that moves many bytes spends most of its time in copies, each direction on its own DMA
engine, while the kernel waits for all of them: stencil f64 at 8192 on an H100 copied 537 MB
in (9.9 ms), ran 0.4 ms and copied 537 MB back (9.7 ms). Cut into tiles of its outer parallel
loop, tile k's kernel runs while tile k+1 copies in and tile k-1 copies back
(`gpurts.executor`, three queues of the device), so the call takes about the longer
direction's copies plus one tile's worth of the rest.

    overlapped (pure: the plan edited into tiles, or None) -> the kernels built per tile ->
      the executor's overlapped run (only when no tile's kernel can set its error flag)

The tiles are cut as a split across devices is (`jitgpu.split.split_plan`, every part on the
call's device): only where what each tile writes meets nothing another tile touches, and each
tile overwrites everything it copies back and reads none of it (`SplitPlan.early`), so tiles
may write back in any order and a failed call's OpenMP rerun finds its inputs intact. A group
every tile reads alike (an array each tile reads whole, as mmult's b) is copied once, by the
first tile; a nest whose tiles would still copy much more than the whole is left whole.
"""
from __future__ import annotations

import dataclasses

from jitgpu.nest import NotOffloadable
from jitgpu.residency import may_flag
from jitgpu.split import Participant, split_plan, writes_only_overwrite
from unpy.host_memory import distinct_groups

# Calls moving at least this many bytes are tiled. Measured on an H100 (2026-11-25, 4 tiles
# against the whole call replayed from C++): stencil f64 8192 (1 GiB) 14.5 against 20.5-28.7
# ms, mmult f32 4096 (192 MiB) 9.9 against 10.3, f64 4096 17.9 against 19.1; but mmult at 2048
# (48 and 96 MiB) 2.39 against 1.84 (f32) and 4.94 against 3.37 ms (f64): below some 100 MiB
# the tiles' Python path and smaller launches cost more than the overlap saves.
OVERLAP_BYTES = 128 << 20
TILES = 4
# The tiles may move at most this much more than the whole call (halos, rows read by two
# tiles).
MAX_GROWTH = 1.1


def bytes_moved(parts) -> int:
    """Bytes the parts copy either way, a group the tiles share counted once."""
    return sum(g.device_bytes * (int(g.copy_in) + int(g.copy_back))
               for g in distinct_groups(parts))


def _worth(part) -> bool:
    """Whether a whole part overwrites what it copies back and moves OVERLAP_BYTES or more."""
    return writes_only_overwrite(part.transfers) and bytes_moved([part]) >= OVERLAP_BYTES


def worth_tiling(plan) -> bool:
    """Whether a plan is one whole part worth cutting into tiles (pure, cheap: the tiles may
    still be refused)."""
    return (plan is not None and not plan.overlap and plan.residency is None
            and len(plan.parts) == 1 and plan.parts[0].bounds is None and _worth(plan.parts[0]))


def _tiles_keep_apart(tiles, early, whole) -> bool:
    """Whether the tiles (indices `tiles` of a split's parts) may run overlapped in place of
    the whole part: each writes back on its own, and together they copy little more."""
    return (all(k in early for k, _ in tiles)
            and bytes_moved([part for _, part in tiles]) <= MAX_GROWTH * bytes_moved([whole]))


def overlapped(plan, instance, values, facts):
    """`plan` cut into TILES tiles marked `overlap`, or None where that is not legal or would
    not pay. (Whether the tiles' kernels may set the flag or reduce is known once they are
    built: `usable`.)"""
    if not worth_tiling(plan) or instance.boxes[instance.levels[0].var].extent < TILES:
        return None
    try:
        split = split_plan(instance, values, [Participant(facts.label, facts)], [1],
                           nest=plan.nest, forced=plan.forced, opt=plan.opt,
                           tiles={facts.label: TILES})
    except NotOffloadable:
        return None
    if not _tiles_keep_apart(list(enumerate(split.plan.parts)), split.early, plan.parts[0]):
        return None
    return dataclasses.replace(plan, parts=split.plan.parts, overlap=True)


def tile_devices(split, instance, values, participants, shares, **plan_args) -> tuple:
    """(`split` with each device's part that is worth it cut into TILES overlapped tiles, the
    labels of those devices); (`split`, empty) where none is or the tiles are refused."""
    mine = {}
    for k, part in enumerate(split.plan.parts):
        mine.setdefault(part.device, []).append(k)
    whole = {label: split.plan.parts[ks[0]] for label, ks in mine.items()
             if len(ks) == 1 and ks[0] in split.early and _worth(split.plan.parts[ks[0]])}
    if not whole:
        return split, frozenset()
    try:
        tiled = split_plan(instance, values, participants, shares,
                           tiles={label: TILES for label in whole}, **plan_args)
    except NotOffloadable:
        return split, frozenset()
    labels = set()
    for label, part in whole.items():
        tiles = [(k, p) for k, p in enumerate(tiled.plan.parts) if p.device == label]
        if not _tiles_keep_apart(tiles, tiled.early, part):
            return split, frozenset()
        if len(tiles) > 1:           # (a range of one iteration stays one part)
            labels.add(label)
    return (tiled, frozenset(labels)) if labels else (split, frozenset())


def usable(kernels) -> bool:
    """Whether the tiles' built kernels ((KernelNest, source, built) each) can run overlapped:
    none can set its error flag (its copies back would have to wait for the flag) or has
    reduction results (combined after every tile)."""
    return not any(may_flag(source) or kernel.reductions for kernel, source, _ in kernels)
