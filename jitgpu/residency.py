"""Residency as an edit of a plan's copy decisions (SPEC section 8; Helium's delayed copies).

Two pure steps, both producing a `GpuPlan`:

- `one_layout_per_array(plan, instance, values, facts)` (at preparation, when the call keeps data
  on the device): each group mirrors the whole views of its arrays (the lmad 'span' layout over
  the views' bytes), so that every nest touching an array gives it the same device buffer and the
  next nest can use it without a copy. Used only where that costs at most `MIRROR_FACTOR` times
  the bytes of the packed plan and the plan is one part; otherwise the packed plan stays (data
  then stays on the device only between nests of the same layout).
- `apply_residency(plan, snapshot, keep=..., may_flag=...)` (every call, against the residency
  table's `snapshot()`): per group, whether it reuses a device copy already there (no copy-in),
  whether it stays on the device after the run (copy-back delayed: the host copy becomes stale),
  and which entries must be copied back and dropped first (another layout or device over the
  same memory). The edited groups carry the new `copy_in`/`copy_back`; `plan.residency` says
  the rest and prints with the plan.

`gpurts.executor.execute` carries the result out against `gpurts.residency.TABLE`.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from jitgpu import lmad
from jitgpu.lmad.cslmad import access_pattern
from jitgpu.lmad.overlap import overlap_components
from jitgpu.lmad.plan import Footprint, Options, mirror_group
from jitgpu.nest import loop_dims
from jitgpu.plan import Estimate, live_arrays, without_needless_copies
from unpy.host_memory import group_span, layout_key

# A whole-view layout is used while it moves at most this many times the packed plan's bytes.
MIRROR_FACTOR = 2.0


@dataclass(frozen=True)
class GroupResidence:
    group: int
    arrays: tuple
    reuse: bool          # the device copy is already there: no copy-in
    keep: bool           # stays on the device after the run (a write's copy-back is delayed)
    written: bool

    def describe(self) -> str:
        start = "on the device already, no copy-in" if self.reuse else "copied in as planned"
        if not self.keep:
            end = "copied back now" if self.written else "not kept"
        else:
            end = "kept, copy-back delayed" if self.written else "kept on the device"
        return f"group {self.group} ({', '.join(self.arrays)}): {start}; {end}"


@dataclass(frozen=True)
class ResidencyPlan:
    groups: tuple                 # of GroupResidence, part 0's groups
    flush: tuple = ()             # [(lo, hi)]: entries copied back (if stale) and dropped first
    note: str = ""
    flagless: bool = False        # the kernel cannot set its error flag: nothing to wait for

    @property
    def keeps(self) -> bool:
        return any(g.keep or g.reuse for g in self.groups)

    def __str__(self):
        lines = ["residency: " + (self.note or "data stays on the device between nests")
                 + ("; the kernel cannot set its error flag: not waited for" if self.flagless
                    else "")]
        lines += ["  " + g.describe() for g in self.groups]
        if self.flush:
            lines.append(f"  first copied back and dropped: {len(self.flush)} device copy(ies) "
                         f"of other layouts over the same memory")
        return "\n".join(lines)


def whole_view_transfers(instance, values, facts):
    """The transfer plan whose groups mirror their arrays' whole views, or None when it does not
    fit the device."""
    loops = loop_dims(instance)
    arrays = {a.key: a for a in live_arrays(instance, values)}
    extents = {loop.var: loop.extent for loop in loops}
    footprints = []
    for _, acc in instance.accesses:
        arr = arrays[acc.array]
        interval = arr.byte_interval()
        if interval is None:
            return None
        pattern = access_pattern(acc, arr, extents) if acc.is_affine else None
        footprints.append(Footprint(acc, arr, pattern, interval))
    opts = Options(facts.mem_limit, 2.0, 0, 0.0)
    plan = lmad.TransferPlan([])
    for component in overlap_components([fp.interval for fp in footprints]):
        members = [footprints[k] for k in component]
        lo = min(fp.interval[0] for fp in members)
        hi = max(fp.interval[1] for fp in members)
        group, maps = mirror_group(len(plan.groups), members, lo, hi,
                                   "one layout per array while it stays on the device", opts)
        plan.groups.append(group)
        plan.maps.update(maps)
    if plan.device_bytes > facts.mem_limit or any(g.device_bytes > facts.max_alloc
                                                  for g in plan.groups):
        return None
    return without_needless_copies(plan, instance)


def one_layout_per_array(plan, instance, values, facts, factor=MIRROR_FACTOR):
    """`plan` with whole-view groups where that is cheap (see the module docstring): where
    they take at most `factor` times the packed plan's bytes (a nest whose indices read a
    scalar of the host's loop takes them whatever they cost: one plan then serves every
    value, jitgpu/relaunch.py)."""
    if len(plan.parts) != 1 or not plan.parts[0].transfers.groups:
        return plan
    part = plan.parts[0]
    mirrored = whole_view_transfers(instance, values, facts)
    if mirrored is None or mirrored.device_bytes > factor * part.transfers.device_bytes:
        return plan
    return dataclasses.replace(plan, parts=(dataclasses.replace(part, transfers=mirrored),))


def apply_residency(plan, snapshot, held, *, keep: bool, may_flag: bool):
    """The plan with its copy decisions edited against the residency table's `snapshot`
    (`gpurts.residency.EntryState`s) and `held` ([(lo, hi)] of memory `unpython.resident`
    holds). `keep`: the call keeps data on the device (a compiled caller's call scope whose
    nests may share data, UNPY_RESIDENT on); held memory is kept in any case. `may_flag`: the
    kernel may set its error flag, so groups it writes must not hold the only current copy
    (they are copied in afresh). Several parts (tiles, devices) keep nothing: their overlapping
    entries are copied back and dropped first, and each part copies as planned."""
    if not snapshot and not keep and not held:
        return plan
    key = (id(plan), snapshot, held, keep, may_flag)
    found = _EDITS.get(key)
    if found is not None and found[0] is plan:
        return found[1]
    edited = _edit(plan, snapshot, held, keep, may_flag)
    _EDITS[key] = (plan, edited)
    if len(_EDITS) > 256:
        del _EDITS[next(iter(_EDITS))]
    return edited


# (id(plan), snapshot, held, keep, may_flag) -> (plan, edited plan): a time-stepping loop meets
# the same few table states again and again.
_EDITS = {}


def _edit(plan, snapshot, held, keep, may_flag):
    if len(plan.parts) != 1:
        spans = [group_span(g) for part in plan.parts for g in part.transfers.groups]
        flush = tuple(sorted({(e.lo, e.hi) for e in snapshot for lo, hi in spans
                              if e.lo < hi and lo < e.hi}))
        if not flush:
            return plan
        return dataclasses.replace(plan, residency=ResidencyPlan(
            (), flush, "several parts: no data kept on the device"))
    part = plan.parts[0]
    flush, decisions, groups = set(), [], []
    kept_any = False
    for k, g in enumerate(part.transfers.groups):
        lo, hi = group_span(g)
        stays = keep or any(a < hi and lo < b for a, b in held)
        there = [e for e in snapshot if e.lo < hi and lo < e.hi]
        reuse = (stays and len(there) == 1 and there[0].layout == layout_key(g, part.device)
                 and not (may_flag and g.copy_back))
        if not reuse:
            flush.update((e.lo, e.hi) for e in there)
        kept_any = kept_any or stays
        decisions.append(GroupResidence(k, tuple(g.arrays), reuse, stays, g.copy_back))
        groups.append(dataclasses.replace(g, copy_in=g.copy_in and not reuse,
                                          copy_back=g.copy_back and not stays))
    if not kept_any and not flush:
        return plan
    note = ("data stays on the device between nests" if keep
            else "memory held by unpython.resident stays on the device" if kept_any
            else "copies as planned, after the device copies of this memory are written back")
    if kept_any and may_flag:
        note += "; the kernel may flag an error, so what it writes is copied in afresh"
    transfers = dataclasses.replace(part.transfers, groups=groups)
    return dataclasses.replace(
        plan, parts=(dataclasses.replace(part, transfers=transfers),),
        residency=ResidencyPlan(tuple(decisions), tuple(sorted(flush)), note,
                                flagless=kept_any and not may_flag))


@dataclass(frozen=True)
class SharedEstimate(Estimate):
    """An estimate whose copies are paid once per call, shared by `share` nest calls."""
    share: int = 1
    pipelined: bool = False     # its launches' round trip shared too (`amortised`)

    def __str__(self):
        shared = "the copies and the launches' round trip" if self.pipelined else "the copies"
        return (super().__str__() + f" (data kept on the device: {shared} shared by the "
                f"{self.share} nest calls of a call of the function)")


def amortised(plan, share: int, pipelined: bool = False):
    """The plan with its estimate's copies divided among `share` nest calls: in a call that
    keeps data on the device, an array moves once in and once out however many nests use it.
    `share`: the nest calls of the function's earlier calls (`nest_calls_share`). `pipelined`
    (a nest with no reduction to read back): its launches within the call are enqueued behind
    each other (jitgpu/relaunch.py), so a launch costs the calibration's `enqueue_s`, and the
    round trip of a waited launch is paid once per call (H200, floyd_warshall n=480: 12 us a
    launch in its time loop against a round trip of 57 us)."""
    if share <= 1:
        return plan
    e = plan.estimate
    copies = e.copies_s / share
    saved = e.copies_s - copies
    c = e.calibration
    pipelined = pipelined and c is not None and 0 < c.enqueue_s < c.launch_s
    if pipelined:
        saved += len(plan.parts) * (c.launch_s - c.enqueue_s) * (1 - 1 / share)
    fields = {f.name: getattr(e, f.name) for f in dataclasses.fields(e)}
    fields.update(device_s=e.device_s - saved, copies_s=copies,
                  device_calibrated_s=max(e.device_calibrated_s - saved, 0.0), share=share,
                  pipelined=pipelined)
    return dataclasses.replace(plan, estimate=SharedEstimate(**fields))


# (module, function) -> [scope of the current call, its nest calls so far, the most nest calls
# an earlier call made]
_NEST_CALLS = {}


def nest_calls_share(module: str, function: str, scope: int, calls: int = 1):
    """Count `calls` nest calls of call `scope`; returns the most nest calls an earlier call of
    the function made, rounded down to a power of two (None during its first call). The most,
    not the last: a nest whose refusal the compiled caller remembers no longer calls in."""
    state = _NEST_CALLS.get((module, function))
    if state is None or state[0] != scope:
        most = None if state is None else max(state[1], state[2] or 1)
        state = _NEST_CALLS[(module, function)] = [scope, 0, most]
    state[1] += calls
    return None if state[2] is None else 1 << (state[2].bit_length() - 1)


def may_flag(source: str) -> bool:
    """Whether a kernel's body can set the error flag (it passes or writes `unpy_flag`
    anywhere but its parameter list)."""
    body = source[source.find("__kernel"):]
    return body.count("unpy_flag") > 1


def reuses_entries(plan, snapshot, held, *, may_flag: bool) -> bool:
    """Whether `plan`, run now in a call that keeps data, finds some of its arrays on the
    device in its own layouts and copies no other layout of them back first."""
    edited = apply_residency(plan, snapshot, held, keep=True, may_flag=may_flag).residency
    return (edited is not None and not edited.flush
            and any(g.reuse for g in edited.groups))
