"""split_plan(): one call's plan edited to run on several participants at once (SPEC section 6).

The outermost parallel loop is cut into contiguous ranges of its normalised counter, one per
participant, in the order named (SKMD's partition-ready kernels come for free: a part's bounds
are kernel arguments already, so every part prints the same kernel). Each range is planned by
`plan_call` on the nest restricted to it (`tile_instance`), so its transfers come from the same
CSLMAD analysis with its bounds and only its slice moves; a range that does not fit its device
is tiled further, as a whole nest would be. The OpenMP participant's range is analysed the same
way, for the region it writes.

Results go straight back, with no merge, so the parts must not get in each other's way: what a
part copies back (or the OpenMP code writes) may meet nothing that another part reads or writes.
The check compares byte intervals of the transfer boxes; where they meet (a non-affine write
takes its array's whole extent, a written column split by rows, ...), the nest is not split
(`NotSplit`) and runs on one participant: never a wrong result. With that, the parts may run in
any order and every copy-back may wait until all parts are done. A part that reads nothing it
copies back and writes every element of it (no group both copied in and back, as `c = a @ b`'s
`c`) may even write back as soon as it succeeds (`SplitPlan.early`): what it wrote is disjoint
from everything the other parts and the OpenMP code touch, and should another part fail, the
OpenMP rerun of the devices' iterations writes those elements again from the same, untouched
inputs.

Also here: `participant_costs`, the estimate that `jitgpu.shares` balances (bytes over the
measured bandwidth plus work over the throughput, as `plan.estimate` counts them).
"""
from __future__ import annotations

import dataclasses
import itertools
import math
import os
from dataclasses import dataclass, field

import numpy as np
from typing import Optional

from jitgpu import plan as planning
from jitgpu.nest import NestInstance, NotOffloadable
from jitgpu.plan import DeviceFacts, GpuPlan, Part, plan_call, tile_instance
from jitgpu.shares import Cost
from unpy.host_memory import byte_runs

OPENMP = "openmp"        # the label of the OpenMP participant
# The OpenMP participant is analysed only for the region it writes: no memory limit.
HOST_FACTS = DeviceFacts(OPENMP, False, 1 << 62, 1 << 62, 1e10, 1e10)


class NotSplit(NotOffloadable):
    """The nest cannot be split across participants; the message says why."""


@dataclass(frozen=True)
class Participant:
    label: str
    facts: Optional[DeviceFacts]        # None: the OpenMP code
    # (a field, not a property: a split call reads it for every participant, several times)
    is_openmp: bool = field(init=False, repr=False, compare=False)

    def __post_init__(self):
        object.__setattr__(self, "is_openmp", self.facts is None)


@dataclass(frozen=True)
class SplitPlan:
    """The device parts (a `GpuPlan` whose parts name their participant), each participant's
    range [lo, hi) of the outer loop's normalised counter, and the OpenMP code's range."""
    plan: GpuPlan
    outer: str                      # the outer loop variable
    extent: int                     # its iteration count
    ranges: tuple                   # ((label, lo, hi), ...) of the participants with iterations
    host: Optional[tuple]           # (lo, hi) of the OpenMP code, or None
    early: frozenset = frozenset()  # indices of the parts that may write back on their own
    grids: tuple = ()               # ((device label, Grid), ...) of the devices cut in tiles

    def reordered(self, grids: dict) -> "SplitPlan":
        """The split with the parts of each device of `grids` ({label: Grid}) in that grid's
        order (`Grid.order_key`), as `split_plan` with those grids lays them out: what each
        part covers and moves is unchanged."""
        index = list(range(len(self.plan.parts)))
        for label, grid in grids.items():
            mine = [k for k in index if self.plan.parts[k].device == label]
            for slot, k in zip(sorted(mine), sorted(
                    mine, key=lambda k: grid.order_key(self.plan.parts[k].bounds))):
                index[slot] = k
        moved = {old: new for new, old in enumerate(index)}
        shown = dict(self.grids)
        shown.update(grids)
        return dataclasses.replace(
            self, plan=dataclasses.replace(self.plan, parts=tuple(self.plan.parts[k]
                                                                  for k in index)),
            early=frozenset(moved[k] for k in self.early), grids=tuple(shown.items()))

    @property
    def device_labels(self) -> tuple:
        return tuple(dict.fromkeys(p.device for p in self.plan.parts))

    def __str__(self):
        ranges = ", ".join(f"{label} [{lo}, {hi})" for label, lo, hi in self.ranges)
        lines = [f"split of {self.plan.nest} along {self.outer} ({self.extent} iterations): "
                 f"{ranges}"]
        if self.host is not None:
            lines.append(f"  OpenMP code: {self.outer} counter in [{self.host[0]}, "
                         f"{self.host[1]})")
        for label, grid in self.grids:
            lines.append(f"  {label} in overlapped tiles: {grid}")
        # (the shares, not an estimate, decide)
        lines += planning.describe_parts(self.plan.parts, bool(self.grids))
        return "\n".join(lines)


@dataclass(frozen=True)
class Grid:
    """How a device's range is cut into tiles: `counts[d]` tiles along parallel level d (the
    outer loop's range first; a second count cuts the next level's whole extent too, `levels`
    naming both), visited in C order (rows first: the next level's tiles innermost) or with
    the outer loop's tiles innermost (`columns_first`). `why`: the rule that chose it."""
    counts: tuple
    columns_first: bool = False
    levels: tuple = ()
    why: str = ""

    def cells(self, ranges) -> list:
        """The tiles' bounds ((var, lo, hi) per cut level), in the order they run, of `ranges`
        ((var, lo, hi) of each level the grid cuts, outer first)."""
        cuts = [[(var, lo + a, lo + b) for a, b in share_ranges(hi - lo, [1] * min(c, hi - lo))]
                for c, (var, lo, hi) in zip(self.counts, ranges)]
        return sorted(itertools.product(*cuts), key=self.order_key)

    def order_key(self, bounds) -> tuple:
        """Where a tile of these bounds ((var, lo, hi), ...) runs among the grid's tiles."""
        lows = {var: lo for var, lo, _ in bounds}
        cut = tuple(lows.get(var, 0) for var in self.levels) or (0,)
        return tuple(reversed(cut)) if self.columns_first else cut

    def __str__(self):
        shape = " x ".join(str(c) for c in self.counts)
        over = f" of ({', '.join(self.levels)})" if len(self.levels) > 1 else ""
        order = (", columns first" if self.columns_first else ", rows first"
                 if len(self.counts) > 1 else "")
        return f"{shape} tiles{over}{order}" + (f": {self.why}" if self.why else "")


def share_ranges(extent: int, shares) -> tuple:
    """Contiguous ranges [lo, hi) of [0, extent), in order, of sizes proportional to `shares`
    (largest remainders), covering every iteration exactly once; each positive share gets at
    least one iteration while there are enough."""
    total = sum(shares)
    if total <= 0:
        return tuple((0, 0) for _ in shares)
    exact = [extent * x / total for x in shares]
    counts = [int(e) for e in exact]
    for k in sorted(range(len(shares)), key=lambda k: counts[k] - exact[k])[:extent - sum(counts)]:
        counts[k] += 1
    for k, x in enumerate(shares):
        if x > 0 and counts[k] == 0:
            largest = max(range(len(counts)), key=lambda j: counts[j])
            if counts[largest] > 1:
                counts[largest] -= 1
                counts[k] = 1
    cuts = [0]
    for c in counts:
        cuts.append(cuts[-1] + c)
    return tuple((cuts[k], cuts[k + 1]) for k in range(len(shares)))


def split_plan(instance: NestInstance, values, participants, shares, *, nest: str = "",
               forced: bool = False, opt: str = "none", tiles=None,
               analysed=None) -> SplitPlan:
    """The plan of one call split by `shares` (one per participant); raises NotSplit when the
    parts would get in each other's way, NotOffloadable when a part cannot run on its device.
    `tiles` ({device label: Grid}): that device's range is cut into the grid's tiles, parts of
    their own, in the grid's order (overlapped tiles: `gpurts.executor.run_tiles`).
    `analysed`: the layout's analyses of its ranges so far (`jitgpu.plan.analysed_transfers`)."""
    outer = instance.levels[0].var
    extent = instance.boxes[outer].extent
    tiles = tiles or {}
    parts, pieces, ranges, host = [], [], [], None
    for who, (lo, hi) in zip(participants, share_ranges(extent, shares)):
        if hi <= lo:
            continue
        ranges.append((who.label, lo, hi))
        grid = tiles.get(who.label, Grid((1,)))
        whole = [(outer, lo, hi)] + [(level.var, 0, instance.boxes[level.var].extent)
                                     for level in instance.levels[1:len(grid.counts)]]
        for cell in grid.cells(whole):
            sub = plan_call(restrict(instance, cell), values, who.facts or HOST_FACTS,
                            nest=nest, forced=True, opt=opt, analysed=analysed)
            for part in sub.parts:
                bounds = _within(part.bounds, cell, instance)
                pieces.append((who.label, bounds, part.transfers))
                if not who.is_openmp:
                    parts.append(Part(bounds, who.label, part.transfers))
        if who.is_openmp:
            host = (lo, hi)
    _check_apart(pieces)
    early = frozenset(k for k, part in enumerate(parts) if writes_only_overwrite(part.transfers))
    # The shares (jitgpu.shares) decide where the nest runs, not a profitability estimate.
    return SplitPlan(GpuPlan(nest, tuple(parts), planning.Estimate(0.0, 0.0, 0), forced, opt),
                     outer, extent, tuple(ranges), host, early,
                     tuple((label, grid) for label, grid in tiles.items()
                           if any(label == r[0] for r in ranges)))


def restrict(instance: NestInstance, bounds) -> NestInstance:
    """The nest over iterations [lo, hi) of the counters of the parallel loops `bounds` names
    (((var, lo, hi), ...)), renormalised to start at 0 there (loop boxes and access forms), as
    the transfer analysis tiles a nest (4.4): a plan of it is the plan of a part with these
    bounds."""
    origin = {var: lo for var, lo, _ in bounds}
    accesses = [(e, dataclasses.replace(acc, indices=[None if ix is None else
                                                      ix.shifted(origin)
                                                      for ix in acc.indices]))
                for e, acc in instance.accesses]
    return dataclasses.replace(tile_instance(instance, bounds), accesses=accesses)


def _within(bounds, cell, instance) -> tuple:
    """A part's bounds on the nest restricted to `cell` ((var, lo, hi) per restricted level),
    as bounds on the nest, in the order of the nest's levels."""
    origin = {var: (lo, hi) for var, lo, hi in cell}
    found = dict(origin)
    for var, a, b in bounds or ():
        shift = origin[var][0] if var in origin else 0
        found[var] = (shift + a, shift + b)
    order = {level.var: k for k, level in enumerate(instance.levels)}
    return tuple((var, lo, hi) for var, (lo, hi) in
                 sorted(found.items(), key=lambda item: order.get(item[0], len(order))))


def writes_only_overwrite(transfers) -> bool:
    """Whether a part's copy-back may go into NumPy memory before the other parts are known to
    have succeeded (given `_check_apart`): it copies something back, no group it copies back is
    copied in (the kernel reads none of it and writes every element of it: the `copy_in` rule
    of jitgpu/lmad/plan.py), and no byte it copies back is among those it copies in (arrays
    viewing one memory)."""
    if any(g.copy_in for g in transfers.groups if g.copy_back):
        return False
    written = _union(_runs(_boxes(transfers, "back")))
    read = _union(_runs(_near(_boxes(transfers, "in"), written)))
    return bool(len(written)) and not len(_shared_bytes([written, read]))


def _boxes(transfers, moved: str) -> list:
    """[(box, itemsize)] of the groups copied back ('back'), in ('in') or either way
    ('any')."""
    return [(box, g.itemsize) for g in transfers.groups
            if (g.copy_back if moved == "back" else g.copy_in if moved == "in"
                else g.copy_in or g.copy_back) for box in g.boxes if box.size]


def _runs(boxes) -> np.ndarray:
    """The byte runs (`byte_runs`) of `boxes` ([(box, itemsize)])."""
    runs = [byte_runs(box, itemsize) for box, itemsize in boxes]
    return np.concatenate(runs) if runs else np.empty((0, 2), np.int64)


def _near(boxes, union: np.ndarray) -> list:
    """The boxes whose byte span meets `union` (sorted, disjoint [lo, hi)): only their lines
    can meet its bytes, and a box of a large array has many (mmult's columns of b at 8192:
    8192 lines a tile)."""
    if not len(union) or not boxes:
        return []
    spans = np.array([box.byte_span(itemsize) for box, itemsize in boxes], np.int64)
    return [boxes[k] for k in np.flatnonzero(_meets(spans, union))]


def _meets(runs: np.ndarray, union: np.ndarray) -> np.ndarray:
    """Per run [lo, hi), whether it meets `union` (sorted, disjoint [lo, hi))."""
    if not len(union):
        return np.zeros(len(runs), bool)
    at = np.minimum(np.searchsorted(union[:, 1], runs[:, 0], side="right"), len(union) - 1)
    return (union[at, 1] > runs[:, 0]) & (union[at, 0] < runs[:, 1])


def written_bytes(transfers) -> list:
    """[(lo, hi)], sorted and disjoint, of the bytes the part's copies back write."""
    return [tuple(run) for run in _union(_runs(_boxes(transfers, "back"))).tolist()]


def _union(runs: np.ndarray) -> np.ndarray:
    """Sorted, disjoint [lo, hi) covering the same bytes as `runs`."""
    if not len(runs):
        return runs
    runs = runs[np.argsort(runs[:, 0], kind="stable")]
    reach = np.maximum.accumulate(runs[:, 1])
    starts = np.concatenate([[True], runs[1:, 0] >= reach[:-1]])
    first = np.flatnonzero(starts)
    return np.stack([runs[first, 0], np.maximum.reduceat(runs[:, 1], first)], axis=1)


def _shared_bytes(unions) -> np.ndarray:
    """Sorted [lo, hi) of the bytes that two or more of `unions` (each sorted and disjoint)
    cover."""
    both = [u for u in unions if len(u)]
    if len(both) < 2:
        return np.empty((0, 2), np.int64)
    runs = np.concatenate(both)
    where = np.concatenate([runs[:, 0], runs[:, 1]])
    step = np.concatenate([np.ones(len(runs), np.int64), -np.ones(len(runs), np.int64)])
    order = np.lexsort((step, where))        # (an end before a start at the same byte)
    where, depth = where[order], np.cumsum(step[order])
    shared = np.flatnonzero((depth[:-1] >= 2) & (where[1:] > where[:-1]))
    return np.stack([where[shared], where[shared + 1]], axis=1)


def _check_apart(pieces) -> None:
    """Raise NotSplit unless what each piece writes meets nothing another piece touches:
    exact for boxes of contiguous lines (the bytes of a tile of rows and columns of a C array
    are its rows' runs, not its span), a span where a box has too many lines."""
    # Only boxes whose span meets some piece's writes can meet their bytes.
    writes = _union(np.array([box.byte_span(itemsize) for _, _, t in pieces
                              for box, itemsize in _boxes(t, "back")], np.int64).reshape(-1, 2))
    touched = [_union(_runs(_near(_boxes(t, "any"), writes))) for _, _, t in pieces]
    shared = _shared_bytes(touched)
    if not len(shared):
        return
    for k, (label, bounds, transfers) in enumerate(pieces):
        written = _runs(_boxes(transfers, "back"))
        met = np.flatnonzero(_meets(written, shared))
        if len(met):
            lo, hi = written[met[0]]
            j = next(j for j, other in enumerate(touched) if j != k and np.any(
                (other[:, 0] < hi) & (lo < other[:, 1])))
            arrays = ", ".join(g.arrays[0] for g in transfers.groups if g.copy_back)
            raise NotSplit(
                f"what {label} writes ({arrays}) for {_describe(bounds)} may meet what "
                f"{pieces[j][0]} touches for {_describe(pieces[j][1])}: the nest is not "
                f"split")


def _describe(bounds) -> str:
    return ", ".join(f"{var} in [{lo}, {hi})" for var, lo, hi in bounds)


def participant_costs(instance: NestInstance, values, participants, analysed=None) -> tuple:
    """(a `shares.Cost` per participant, the plain OpenMP code's seconds on every core): the
    transfer-aware estimate of SKMD simplified. The bytes a share x moves are modelled as
    `fixed + x * whole`, from the analysis of the whole loop and of the first participant's
    range in an even split (inputs every part needs, such as mmult's `b`, are fixed); a device
    takes those bytes at its measured bandwidth (times the staging slowdown) plus the launch,
    and the work at its throughput; the OpenMP code the work on the cores the devices' threads
    leave it. `analysed`: the layout's analyses of its ranges
    (`jitgpu.plan.analysed_transfers`), where an even split's parts find theirs again."""
    outer = instance.levels[0].var
    extent = instance.boxes[outer].extent
    work = planning.work(instance)
    facts = next((p.facts for p in participants if p.facts), HOST_FACTS)
    whole_bytes = _bytes_moved(instance, values, facts, analysed)
    # (the first participant's range in an even split, so that the parts of one analyse it
    # no more: `analysed`)
    first = share_ranges(extent, [1] * max(len(participants), 2))[0][1] or 1
    first_bytes = _bytes_moved(restrict(instance, ((outer, 0, first),)), values, facts, analysed)
    share = first / extent if extent else 1.0
    per_whole = max(whole_bytes - first_bytes, 0) / max(1 - share, 1e-9) if share < 1 else 0.0
    fixed_bytes = max(whole_bytes - per_whole, 0)
    cores = os.cpu_count() or 1
    devices = sum(1 for p in participants if not p.is_openmp)
    openmp_s = work / (planning.HOST_OPS_PER_CORE * cores)
    costs = []
    for p in participants:
        if p.is_openmp:
            threads = max(cores - devices, 1)
            costs.append(Cost(p.label, 0.0, work / (planning.HOST_OPS_PER_CORE * threads),
                              openmp_s))
            continue
        rate = planning.GPU_OPS if p.facts.is_gpu else planning.CPU_DEVICE_OPS
        fixed = planning.copy_seconds(fixed_bytes, p.facts) + planning.launch_seconds(p.facts)
        whole = planning.copy_seconds(per_whole, p.facts) + work / rate
        costs.append(Cost(p.label, fixed, whole, fixed + whole))
    return tuple(costs), openmp_s


def _bytes_moved(instance, values, facts, analysed) -> int:
    return plan_call(instance, values, facts, forced=True, analysed=analysed).estimate.bytes_moved
