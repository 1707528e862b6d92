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
import math
import os
from dataclasses import dataclass
from typing import Optional

from jitgpu import plan as planning
from jitgpu.nest import NestInstance, NotOffloadable
from jitgpu.plan import DeviceFacts, GpuPlan, Part, plan_call, tile_instance
from jitgpu.shares import Cost

OPENMP = "openmp"        # the label of the OpenMP participant
# The OpenMP participant is analysed only for the region it writes: no memory limit.
HOST_FACTS = DeviceFacts(OPENMP, False, 1 << 62, 1 << 62, 1e10, 1e10)


class NotSplit(NotOffloadable):
    """The nest cannot be split across participants; the message says why."""


@dataclass(frozen=True)
class Participant:
    label: str
    facts: Optional[DeviceFacts]        # None: the OpenMP code

    @property
    def is_openmp(self) -> bool:
        return self.facts is None


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
        for k, part in enumerate(self.plan.parts):     # the shares, not an estimate, decide
            lines.append(f"  part {k}: {part.describe()}")
            lines += ["    " + line for line in part.transfers.describe().splitlines()]
        return "\n".join(lines)


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
               forced: bool = False, opt: str = "none", tiles=None) -> SplitPlan:
    """The plan of one call split by `shares` (one per participant); raises NotSplit when the
    parts would get in each other's way, NotOffloadable when a part cannot run on its device.
    `tiles` ({device label: T}): that device's range is cut into T parts of their own, in order
    (overlapped tiles: `gpurts.executor.run_tiles`)."""
    outer = instance.levels[0].var
    extent = instance.boxes[outer].extent
    tiles = tiles or {}
    parts, pieces, ranges, host = [], [], [], None
    for who, (lo, hi) in zip(participants, share_ranges(extent, shares)):
        if hi <= lo:
            continue
        ranges.append((who.label, lo, hi))
        count = min(tiles.get(who.label, 1), hi - lo)
        for a, b in share_ranges(hi - lo, [1] * count):
            sub = plan_call(restrict(instance, lo + a, lo + b), values, who.facts or HOST_FACTS,
                            nest=nest, forced=True, opt=opt)
            for part in sub.parts:
                bounds = _within(part.bounds, outer, lo + a, lo + b)
                pieces.append((who.label, bounds, part.transfers))
                if not who.is_openmp:
                    parts.append(Part(bounds, who.label, part.transfers))
        if who.is_openmp:
            host = (lo, hi)
    _check_apart(pieces)
    early = frozenset(k for k, part in enumerate(parts) if writes_only_overwrite(part.transfers))
    # The shares (jitgpu.shares) decide where the nest runs, not a profitability estimate.
    return SplitPlan(GpuPlan(nest, tuple(parts), planning.Estimate(0.0, 0.0, 0), forced, opt),
                     outer, extent, tuple(ranges), host, early)


def restrict(instance: NestInstance, lo: int, hi: int) -> NestInstance:
    """The nest over iterations [lo, hi) of its outer loop's counter, renormalised to start at
    0 there (loop box and access forms), as the transfer analysis tiles a nest (4.4): a plan of
    it is the plan of a part with bounds `((outer, lo, hi),)`."""
    outer = instance.levels[0].var
    accesses = [(e, dataclasses.replace(acc, indices=[None if ix is None else
                                                      ix.shifted({outer: lo})
                                                      for ix in acc.indices]))
                for e, acc in instance.accesses]
    return dataclasses.replace(tile_instance(instance, ((outer, lo, hi),)), accesses=accesses)


def _within(bounds, outer, lo, hi) -> tuple:
    """A part's bounds on the nest restricted to [lo, hi) of `outer`, as bounds on the nest."""
    if bounds is None:
        return ((outer, lo, hi),)
    moved = tuple((var, lo + a, lo + b) if var == outer else (var, a, b) for var, a, b in bounds)
    return moved if any(var == outer for var, _, _ in bounds) else ((outer, lo, hi),) + moved


def byte_intervals(transfers, written: bool) -> list:
    """[(lo, hi)] bytes of the boxes of the groups copied back (`written`), or of every group
    moved either way."""
    return [span for g in transfers.groups
            if (g.copy_back if written else g.copy_in or g.copy_back) for span in _group_bytes(g)]


def _group_bytes(g) -> list:
    """[(lo, hi)] bytes of a group's boxes in host memory (an empty box touches none)."""
    return [box.byte_span(g.itemsize) for box in g.boxes if box.size]


def writes_only_overwrite(transfers) -> bool:
    """Whether a part's copy-back may go into NumPy memory before the other parts are known to
    have succeeded (given `_check_apart`): it copies something back, no group it copies back is
    copied in (the kernel reads none of it and writes every element of it: the `copy_in` rule
    of jitgpu/lmad/plan.py), and no byte it copies back is among those it copies in (arrays
    viewing one memory)."""
    written = byte_intervals(transfers, written=True)
    read = [span for g in transfers.groups if g.copy_in for span in _group_bytes(g)]
    return (bool(written) and not any(g.copy_in for g in transfers.groups if g.copy_back)
            and not any(lo < b and a < hi for lo, hi in written for a, b in read))


def _check_apart(pieces) -> None:
    """Raise NotSplit unless what each piece writes meets nothing another piece touches."""
    touched = [byte_intervals(t, written=False) for _, _, t in pieces]
    for k, (label, bounds, transfers) in enumerate(pieces):
        for lo, hi in byte_intervals(transfers, written=True):
            for j, other in enumerate(touched):
                if j != k and any(lo < b and a < hi for a, b in other):
                    arrays = ", ".join(g.arrays[0] for g in transfers.groups if g.copy_back)
                    raise NotSplit(
                        f"what {label} writes ({arrays}) for {_describe(bounds)} may meet what "
                        f"{pieces[j][0]} touches for {_describe(pieces[j][1])}: the nest is not "
                        f"split")


def _describe(bounds) -> str:
    return ", ".join(f"{var} in [{lo}, {hi})" for var, lo, hi in bounds)


def participant_costs(instance: NestInstance, values, participants) -> tuple:
    """(a `shares.Cost` per participant, the plain OpenMP code's seconds on every core): the
    transfer-aware estimate of SKMD simplified. The bytes a share x moves are modelled as
    `fixed + x * whole`, from the analysis of the whole loop and of its first half (inputs every
    part needs, such as mmult's `b`, are fixed); a device takes those bytes at its measured
    bandwidth (times the staging slowdown) plus the launch, and the work at its throughput; the
    OpenMP code the work on the cores the devices' threads leave it."""
    outer = instance.levels[0].var
    extent = instance.boxes[outer].extent
    work = planning.work(instance)
    facts = next((p.facts for p in participants if p.facts), HOST_FACTS)
    whole_bytes = _bytes_moved(instance, values, facts)
    half = max(extent // 2, 1)
    half_bytes = _bytes_moved(restrict(instance, 0, half), values, facts)
    share = half / extent if extent else 1.0
    per_whole = max(whole_bytes - half_bytes, 0) / max(1 - share, 1e-9) if share < 1 else 0.0
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


def _bytes_moved(instance, values, facts) -> int:
    return plan_call(instance, values, facts, forced=True).estimate.bytes_moved
