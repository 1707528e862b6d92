"""Run one @gpu nest on several participants at once (SPEC section 6): the glue of
`jitgpu.split` (the plan edited into parts), `jitgpu.shares` (how much each runs) and
`gpurts.concurrent` (the parts on their devices together), as `jitgpu.offload` is for one device.

Per call layout (the compiled caller's input bytes, as for one device) the nest is instantiated
once and its participants' costs estimated; per (nest, shapes, participants) a `shares.Balance`
holds the shares. Each call asks it for the shares, splits the outer loop by them (prepared parts
and built kernels are kept per ranges, so settled shares reuse them), starts the device parts,
and then either
- finishes them itself and returns the reductions (no OpenMP participant), or
- answers SPLIT (`jitgpu.answer`: lo, hi, spare, handle): the compiled caller runs the nest's
  OpenMP code on iterations [lo, hi) of the outer loop's counter with `spare` fewer threads (one
  core feeds each device), then calls `finish_split(handle, reductions)`, which waits for the
  devices, writes their results back and answers DONE with the reductions combined, or
  RUN_OPENMP when a device part failed: the caller then runs the OpenMP code on the iterations
  the devices had.
(A part whose writes only overwrite, `SplitPlan.early`, writes back from its device's thread as
soon as it succeeds; the rerun after another part's failure writes those elements again.)
After each call the Balance learns the measured time of every participant.
"""
from __future__ import annotations

import collections
import itertools
import logging
import math
import time
from dataclasses import dataclass, field
from typing import Optional

import numpy as np

from jitgpu import overlap, replay, report, search, shares
from jitgpu.answer import RUN_OPENMP, Answer, ran_on_device, split_range
from jitgpu.bind import device_limits
from jitgpu.nest import DeviceFailure, NotOffloadable, Refused, instantiate, load_nest
from jitgpu.offload import bind_part, build_part, call_key, device_facts, run_nest_on_device
from jitgpu.plan import plan_call
from jitgpu.split import OPENMP, NotSplit, Participant, participant_costs, share_ranges, split_plan
from unpy.settings import current as current_settings

log = logging.getLogger("unpy")


@dataclass
class Layout:
    """One call layout of a nest: its instance and the Balance of its shares."""
    instance: object
    participants: tuple
    balance: shares.Balance
    outer_lo: int                   # the outer loop's first value and step, for the reports
    outer_step: int
    one_device_refused: bool = False    # the one-device path's estimate refuses these inputs
    calls: int = 0                  # split calls of this layout (the same arrays) so far
    # device name -> the kernel search of the whole nest on a device of that model (None: it
    # does not search); its choice builds that model's parts.
    searches: dict = field(default_factory=dict)
    # The transfer analyses of the layout's ranges (jitgpu.plan.analysed_transfers): each range
    # analysed once, for the shares' costs, the parts and the search alike.
    analysed: dict = field(default_factory=dict)


@dataclass
class DeviceSearch:
    """The kernel search (jitgpu/search.py) of a split nest on one device model: the one a
    single device of that model runs, on the whole nest, so that both share one record (the
    tuning that wins on the whole wins on its parts: mmult f32 8192 on an H200, halves of 55 ms
    with the default 4x4 register tiles against 36 ms expected with the searched 4x8). While
    `pending`, a split call first times a candidate on the whole nest; once complete, `tuning`
    is the choice."""
    part: object                    # the whole nest's one part on that device
    tuning: Optional[object] = None
    pending: Optional[object] = None


@dataclass(frozen=True)
class SplitPrepared:
    """One split of a layout (the ranges of one set of shares): the plan and per device part
    its (KernelNest, source, BuiltKernel); `refusal`: why it cannot be split."""
    split: Optional[object] = None
    kernels: tuple = ()
    refusal: Optional[str] = None
    analysis_s: float = 0.0
    tiled: frozenset = frozenset()  # devices whose parts are overlapped tiles (jitgpu/overlap.py)
    recipes: dict = field(default_factory=dict, compare=False, repr=False)


# Test seam: a participant's (by label) time for the whole loop, in proportion to the share it
# ran, in place of its measured time: a synthetic imbalance that the shares must follow.
slowdown: dict = {}

# A layout (the same arrays) split this many times before pins the arrays its device parts
# move, whatever share they move (arrays new at every call are not pinned: a pin costs 0.4 ms
# and 40 us per MiB; the call that pins is not learnt from): a part moving under
# `gpurts.pins.PIN_MIN_FRACTION` of an array went through staging, which competes with the
# OpenMP code for the cores (H100, 2026-11-25, stencil f64 8192 with OpenMP: the GPU's 14 %
# took 140 ms in four tiles, and then its 2 % 8.7 ms).
PIN_AFTER = 1

_LAYOUTS = collections.OrderedDict()     # call key -> Layout, most recent last
_PREPARED = collections.OrderedDict()    # (call key, ranges) -> SplitPrepared
_KEPT = 32


def forget() -> None:
    """Forget the split layouts and their prepared parts (jitgpu/session.py)."""
    _LAYOUTS.clear()
    _PREPARED.clear()


def _shapes(values) -> tuple:
    return tuple((name, v.shape, v.dtype.str) if isinstance(v, np.ndarray) else (name, v)
                 for name, v in values.items())


def _parts_fill(instance, devices) -> bool:
    """Whether an even split leaves each GPU enough work-items to be full (`fill_items` of
    `jitgpu.bind.device_limits`). Where it does not, a part's time is no fraction of the whole's,
    and the times of the parts say nothing of one device alone: the split is compared with it,
    measured (H200, nbody f32 65536: halves of 4.9 ms, modelled 9.0 ms alone, measured 4.6)."""
    items = math.prod(box.extent for box in instance.boxes.values() if box.parallel)
    return all(items // len(devices) >= (device_limits(d) or (0, 0, 0))[2] for d in devices)


def _layout(module, function, nest_id, values, selection, settings, inputs) -> tuple:
    """(its key, the Layout of this call)."""
    forced, opt = settings.force_gpu, settings.gpu_opt
    labels = tuple(d.label for d in selection.devices) + ((OPENMP,) if selection.openmp else ())
    key = ((module, function, nest_id, inputs, labels, forced, opt) if inputs is not None else
           call_key(module, function, nest_id, values, labels, forced, opt))

    def make():
        participants = tuple([Participant(d.label, device_facts(d, settings))
                              for d in selection.devices]
                             + ([Participant(OPENMP, None)] if selection.openmp else []))
        instance = instantiate(load_nest(module, function, nest_id), values)  # refuses empty loops
        analysed = {}

        def first():
            costs, openmp_s = participant_costs(instance, values, participants, analysed)
            decision = shares.first_split(costs, openmp_s, forced)
            return shares.Balance(labels, costs, decision.shares, decision.why, forced,
                                  doubtful=decision.doubtful or not _parts_fill(
                                      instance, selection.devices))
        balance = shares.balance_for((module, function, nest_id, _shapes(values), labels,
                                      forced), first)
        box = instance.boxes[instance.levels[0].var]
        return Layout(instance, participants, balance, box.lo, box.step, analysed=analysed)

    return key, shares.remember(_LAYOUTS, key, make, _KEPT)


def _prepare(layout, ranges, values, devices, forced, opt, nest) -> SplitPrepared:
    started = time.perf_counter()
    shares_now = tuple(hi - lo for lo, hi in ranges)
    plan_args = dict(nest=nest, forced=forced, opt=opt, analysed=layout.analysed)
    try:
        split = split_plan(layout.instance, values, layout.participants, shares_now, **plan_args)
    except NotSplit as e:
        return SplitPrepared(refusal=str(e))

    def built(split):
        return tuple(_build(layout, part, values, devices[part.device], opt, nest)
                     for part in split.plan.parts)

    # A device's large part runs as overlapped tiles, its copies beside its kernels.
    tiled, labels = overlap.tile_devices(split, layout.instance, values, layout.participants,
                                         shares_now, **plan_args)
    if labels:
        kernels = built(tiled)
        if overlap.usable([k for k, part in zip(kernels, tiled.plan.parts)
                           if part.device in labels]):
            return SplitPrepared(tiled, kernels, analysis_s=time.perf_counter() - started,
                                 tiled=labels)
    return SplitPrepared(split, built(split), analysis_s=time.perf_counter() - started)


def _build(layout, part, values, device, opt, nest) -> tuple:
    """(KernelNest, source, BuiltKernel) of a split's part on `device`, with the search's
    choice for that device's model where it has one."""
    found = _search_of(layout, device, values, opt, nest)
    if found is None or found.tuning is None:
        return build_part(layout.instance, part, values, device, opt)
    return search.build_tuned(device, bind_part(layout.instance, part, values, device), opt,
                              found.tuning)


def _search_of(layout, device, values, opt, nest) -> Optional[DeviceSearch]:
    """The layout's search on `device`'s model, started at its first part (a complete record
    decides at once), or None where the whole nest would not search on it."""
    if device.name not in layout.searches:
        found, limits = None, device_limits(device)
        try:
            # (the whole nest's analysis only where a search may follow)
            plan = search.might_search(layout.instance, limits) and plan_call(
                layout.instance, values, device_facts(device), nest=nest, forced=True, opt=opt,
                analysed=layout.analysed)
            if plan and search.wanted(plan, layout.instance, limits):
                whole = plan.parts[0]
                bound = bind_part(layout.instance, whole, values, device)
                default = build_part(layout.instance, whole, values, device, opt, bound)
                _, outcome, pending = search.start(nest, whole, values, device, opt, bound,
                                                   default, limits)
                found = DeviceSearch(whole, outcome.tuning, pending)
        except (NotOffloadable, DeviceFailure):
            pass                    # (the parts meet the same refusal, with its reason)
        layout.searches[device.name] = found
    return layout.searches[device.name]


def _step_searches(key, layout, values) -> bool:
    """Time the next built candidate of each pending search of the layout on the whole nest
    (`search.Pending.step`); one that is over is started again at the next preparation, which
    reads its complete record, and this layout's parts are prepared again with its choice.
    Whether any search stepped."""
    stepped = False
    for name, found in list(layout.searches.items()):
        if found is None or found.pending is None:
            continue
        stepped = True
        step = found.pending.step(found.part, values)
        if step is not None and step[2]:
            del layout.searches[name]
            for prepared_key in [k for k in _PREPARED if k[0] == key]:
                del _PREPARED[prepared_key]
    return stepped


def reprepare_seconds(prepared: SplitPrepared) -> float:
    """What preparing the parts of other shares would cost: this preparation less the OpenCL
    builds it made (other shares print the same kernels, found in the cache)."""
    built = sum(b.build_seconds for _, _, b in prepared.kernels if not b.cache_hit)
    return max(prepared.analysis_s - built, 0.0)


@dataclass
class Pending:
    """A split call whose OpenMP range the compiled caller is running."""
    run: object
    layout: Layout
    prepared: SplitPrepared
    shares: tuple
    started: float
    returned: float
    where: tuple                    # (module, function, nest_id)


_PENDING: dict = {}
_handles = itertools.count(1)


def run_split(module, function, nest_id, values, selection, inputs=None, settings=None):
    """(answer, report): DONE with the reductions when the devices ran the whole nest, or SPLIT
    for the compiled caller (report None: `finish_split` makes it).
    Raises Refused (the estimate or the analysis refuses these inputs), NotOffloadable,
    DeviceFailure."""
    from gpurts import DeviceError
    from gpurts.concurrent import ConcurrentRun
    from gpurts.executor import KernelFlagged

    entered = time.perf_counter()
    settings = settings or current_settings()     # (the hook's, read once a call)
    forced, opt = settings.force_gpu, settings.gpu_opt
    given = values
    # Only the nest's own variables (a compiled caller may add its call scope, `__unpy_...`).
    values = {k: v for k, v in values.items() if not k.startswith("__unpy")}
    key, layout = _layout(module, function, nest_id, values, selection, settings, inputs)
    balance = layout.balance
    shares_now = balance.next_shares()
    trial = shares_now != balance.shares
    if not any(x > 0 and not p.is_openmp for x, p in zip(shares_now, layout.participants)) \
            and not trial:
        # The OpenMP code alone, on every core; explain shows how the shares came to that. By
        # layout, as one device's estimate or measured choice: the shares are the layout's,
        # so the caller skips the hook for arrays new at every call (a time loop's
        # temporaries: mandelbrot's 80 offers a call cost 4.4 ms in Python on the H200).
        raise Refused(balance.why, {"shares": balance.describe()}, by_layout=True)
    devices = {d.label: d for d in selection.devices}
    chosen = [p for x, p in zip(shares_now, layout.participants) if x > 0]
    if len(chosen) == 1 and not chosen[0].is_openmp and not layout.one_device_refused:
        try:
            return _run_alone(module, function, nest_id, given, layout, shares_now,
                              devices[chosen[0].label], inputs, settings, settled=not trial)
        except Refused:         # its profitability estimate: run alone as a part instead
            layout.one_device_refused = True
    extent = layout.instance.trip_counts[0]
    ranges = share_ranges(extent, shares_now)
    nest = f"{module}.{function} nest {nest_id}"
    if _step_searches(key, layout, values):
        entered = time.perf_counter()      # (a search's timed run is not the split's)
    prepared_now = (key, ranges) not in _PREPARED
    prepared = shares.remember(_PREPARED, (key, ranges), lambda: _prepare(
        layout, ranges, values, devices, forced, opt, nest), _KEPT)
    if prepared.refusal:
        if len(chosen) == 1 and not chosen[0].is_openmp:
            # One device whose own tiles get in each other's way: the one-device executor
            # writes each tile back before the next (and undoes them on a failure).
            return run_nest_on_device(module, function, nest_id, given,
                                      devices[chosen[0].label], inputs, measure=False,
                                      settings=settings, analysed=layout.analysed)
        # Not splittable: the fastest participant alone, from now on.
        balance.shares = _alone_instead(balance, layout, prepared.refusal)
        return run_split(module, function, nest_id, given, selection, inputs, settings)
    split = prepared.split
    try:
        run = ConcurrentRun(split.plan, [(k, built.kernel) for k, _, built in prepared.kernels],
                            values, devices, prepared.recipes, split.early,
                            here=split.host is None, tiled=prepared.tiled,
                            pin=layout.calls >= PIN_AFTER)
        layout.calls += 1
    except DeviceError as e:
        raise DeviceFailure(str(e)) from e
    # What the Balance compares is the whole call, its host work included as the one-device
    # call's is (H200, nbody f32 65536: 0.25 ms of a 5.1 ms split call came before its parts
    # started, and the split was kept against 5.0 ms alone), but not a call's analysis, builds
    # and pins: each is paid once (pinning stencil f64 8192's 1 GiB took 13-76 ms on the H100,
    # against 12-15 ms for the whole call); those calls count from the parts' start.
    started = run.started if prepared_now or run.pinned else entered
    pending = Pending(run, layout, prepared, shares_now, started, 0.0,
                      (module, function, nest_id))
    if split.host is None:
        initial = {var: values[var] for k, _, _ in prepared.kernels
                   for var, _, _ in k.reductions}
        try:
            results = run.finish(initial)
        except KernelFlagged as e:
            raise NotOffloadable(str(e)) from None
        except DeviceError as e:
            raise DeviceFailure(str(e)) from e
        nest_report = _learn(pending, None, time.perf_counter())
        settled = (balance.settled and balance.proposed is None and not prepared_now
                   and balance.next_shares() == shares_now)
        nest_report.replay = replay.offer_split(devices, prepared, values, inputs, settled,
                                                settings.replay)
        record = None if isinstance(nest_report.replay, str) else nest_report.replay
        return ran_on_device(results, record), nest_report
    handle = next(_handles)
    _PENDING[handle] = pending
    pending.returned = time.perf_counter()
    lo, hi = split.host
    return split_range(lo, hi, len(split.device_labels), handle), None


def _alone_instead(balance, layout, why) -> tuple:
    """The shares of the participant estimated fastest alone (a device, with
    UNPY_FORCE_GPU=1), with `why` as their reason."""
    candidates = [i for i, p in enumerate(layout.participants)
                  if not (balance.forced and p.is_openmp)]
    k = min(candidates, key=lambda i: balance.costs[i].alone_s)
    balance.why = f"{why}; {balance.labels[k]} alone"
    return shares.alone(k, len(balance.labels))


def _run_alone(module, function, nest_id, given, layout, shares_now, device, inputs, settings,
               settled=False):
    """One device alone (the trial of it, or the split does not pay): through the one-device
    path, so that it runs exactly as the single device the split must beat; timed for the
    Balance. Once `settled` on it, later calls with the same inputs replay from C++ as the
    single device's do (the Balance needs no more times; on the H100 the Python path cost a
    settled mmult f32 2048 0.4 ms, 24 %, against UNPY_DEVICE=gpu). Raises as
    `run_nest_on_device`."""
    started = time.perf_counter()
    answer, nest_report = run_nest_on_device(module, function, nest_id, dict(given), device,
                                             inputs, measure=False, replayable=settled,
                                             settings=settings, analysed=layout.analysed)
    total_s = time.perf_counter() - started
    # Settled alone, repeated calls replay from C++ at about the device's own time: this call
    # through Python is no like sample of them (H100, nbody f32 65536: 5.27 ms through Python,
    # 4.61 ms replayed, and a split of 5.14 ms was kept). Its copies' and kernel's event times
    # are, where they add up to less (a tiled call's overlap makes them add up to more).
    timings = nest_report.timings or {}
    device_s = sum(timings.get(phase) or 0.0 for phase in ("h2d", "kernel", "d2h"))
    if device_s > 0:
        total_s = min(total_s, device_s)
    total_s = slowdown.get(device.label, total_s)
    balance = layout.balance
    balance.record(shares_now, [total_s if x > 0 else 0.0 for x in shares_now], total_s)
    nest_report.reason = f"{device.label} alone: {balance.why}"    # (recorded: amended)
    return answer, nest_report


def finish_split(handle: int, reductions: dict) -> Answer:
    """Called by the compiled caller once its OpenMP range is done, with its reduction values:
    DONE with the reductions combined with the devices' parts, or RUN_OPENMP when a device part
    failed (the caller then runs the OpenMP code on the devices' iterations). Never raises."""
    from gpurts.executor import KernelFlagged

    done = time.perf_counter()
    pending = _PENDING.pop(handle, None)
    if pending is None:
        return RUN_OPENMP
    module, function, nest_id = pending.where
    where = f"{module}.{function} nest {nest_id}"
    try:
        results = pending.run.finish(dict(reductions))
        nest_report = _learn(pending, done - pending.returned, time.perf_counter())
    except Exception as e:  # never a crash: the OpenMP code runs the devices' iterations
        level = logging.INFO if isinstance(e, KernelFlagged) else logging.WARNING
        reason = str(e) if isinstance(e, KernelFlagged) else f"a device part failed ({e})"
        report.record(module, function, nest_id, report.NestReport(nest_id, "openmp", reason))
        log.log(level, "%s: OpenMP (%s)", where, reason)
        return RUN_OPENMP
    if log.isEnabledFor(logging.INFO):
        log.info("%s: ran on %s (%s)", where, nest_report.ran_on,
                 nest_report.details.get("time", ""))
    return ran_on_device(results)


def _learn(pending: Pending, host_s, ended: float) -> report.NestReport:
    """Tell the Balance how the call went, and make and record its report."""
    split, layout = pending.prepared.split, pending.layout
    device_s = pending.run.seconds()
    seconds = tuple((host_s or 0.0) if p.is_openmp else device_s.get(p.label, 0.0)
                    for p in layout.participants)
    total_s = ended - pending.started
    extent = split.extent
    ran = [0.0] * len(layout.participants)
    for label, lo, hi in split.ranges:
        ran[[p.label for p in layout.participants].index(label)] = (hi - lo) / extent
    if any(p.label in slowdown for p in layout.participants):
        # Synthetic times replace the measured ones: a test of the shares is then not a test
        # of the host's timing.
        seconds = tuple(slowdown[p.label] * x if p.label in slowdown else t
                        for p, x, t in zip(layout.participants, ran, seconds))
        total_s = max(seconds)
    # The first run of these ranges is not learnt from: a driver may compile a kernel at its
    # first launch and maps fresh device buffers at their first use (H100, stencil f64 8192
    # beside OpenMP: a GPU part of 36 % took 114 ms at its first run, 7 ms of it copies, and
    # shares learnt from such runs swung 0.14 -> 0.36 -> 0.04 -> 0.14 -> 0.62 -> 0.06). Nor is
    # the call that pinned the arrays: its parts take fresh buffers too (the kits of a staged
    # call are not kept), and it took the same GPU part 25-58 ms, later calls 4-6 ms. (The
    # OpenMP code has no such first run.)
    devices_ranges = tuple(r for r in split.ranges if r[0] != OPENMP)
    first = bool(devices_ranges) and (devices_ranges not in layout.balance.ran_ranges
                                      or pending.run.pinned > 0)
    layout.balance.ran_ranges.add(devices_ranges)
    fresh = [k for k, p in enumerate(layout.participants) if first and not p.is_openmp]
    layout.balance.record(pending.shares, seconds, total_s, ran, fresh=fresh,
                          prepare_s=reprepare_seconds(pending.prepared))
    return _report(pending, seconds, total_s)


def _report(pending: Pending, seconds, total_s) -> report.NestReport:
    split, layout, run = pending.prepared.split, pending.layout, pending.run
    nest_id = pending.where[2]
    ran = [label for label, _, _ in split.ranges]
    by_label = dict(zip((p.label for p in layout.participants), seconds))
    extent = split.extent

    def values_of(lo, hi):
        first = layout.outer_lo + layout.outer_step * lo
        last = layout.outer_lo + layout.outer_step * (hi - 1)
        return f"{split.outer} = {first}..{last} ({hi - lo} of {extent} iterations)"

    def details_and_timings():
        parts, moved = [], 0
        for label, lo, hi in split.ranges:
            line = f"{label}: {values_of(lo, hi)}, {by_label[label] * 1e3:.3f} ms"
            if label in run.runs:
                t = run.runs[label].timings
                moved += t.h2d_bytes + t.d2h_bytes
                line += (f"; moved {t.h2d_bytes + t.d2h_bytes} B (h2d {t.h2d_bytes} B in "
                         f"{t.h2d_seconds * 1e3:.3f} ms, kernel {t.kernel_seconds * 1e3:.3f} ms, "
                         f"d2h {t.d2h_bytes} B in {t.d2h_seconds * 1e3:.3f} ms)")
                if run.runs[label].written_s:
                    line += (f"; written back on its own in "
                             f"{run.runs[label].written_s * 1e3:.3f} ms")
            parts.append(line)
        details = {"parts": "\n      " + "\n      ".join(parts),
                   "shares": layout.balance.describe().replace("\n", "\n      "),
                   "time": f"analysis {pending.prepared.analysis_s * 1e3:.3f} ms (when "
                           f"prepared), total {total_s * 1e3:.3f} ms"}
        timings = {"total": total_s, "bytes_moved": moved,
                   "participants": {label: by_label[label] for label in ran},
                   # per device part: (h2d bytes, d2h bytes, kernel seconds), for bench/multi.py's
                   # bounds
                   "devices": {label: (r.timings.h2d_bytes, r.timings.d2h_bytes,
                                       r.timings.kernel_seconds) for label, r in run.runs.items()},
                   "ranges": {label: (lo, hi) for label, lo, hi in split.ranges},
                   "shares": dict(zip(layout.balance.labels, pending.shares))}
        return details, timings

    reason = (f"split along {split.outer} across {len(ran)} participants: " if len(ran) > 1
              else f"{ran[0]} alone: ") + layout.balance.why
    sources = tuple(dict.fromkeys(s for _, s, _ in pending.prepared.kernels))
    return report.record_ran(pending.where[0], pending.where[1], nest_id, " + ".join(ran),
                             reason, details_and_timings, plan=split, sources=sources)
