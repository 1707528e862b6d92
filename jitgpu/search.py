"""The empirical search of loop-optimisation choices (issue 7), off the first call's critical
path, cached on disk.

The default optimisation (`jitgpu.loopopt.optimise`) picks one register tile, one work-group
shape and one unroll factor for every kernel; measured on an H100 the best differs per kernel
(mmult f64 2048: 1.54 ms with 8 x 8 register tiles, 2.37 ms with the default 4 x 4; nbody f32
65536: 2.83 ms with its inner loop unrolled by 8, 3.18 ms by the default 4). So where it can
pay, the calls of a layout time a handful of alternatives on their own data and keep the
fastest:

    candidates (pure, made one at a time: the default, then up to MAX_CANDIDATES - 1 distinct
      alternatives) -> build (the process's one worker thread, through the device's kernel
      cache: a later process gets hits; on a GPU compiled by the device's build process,
      gpurts/build_aside.py, and only loaded here) -> time (the later calls of the layout run
      the candidates in place of the default, one a call, `Pending.turn`, and their kernels'
      events are the samples, `Pending.ran`; a split's search, whose calls run parts, times
      TIMED_PER_CALL candidates a call in a run of their own with the writes dropped,
      `Pending.step`), until jitgpu/choice.py's rules (RUN_RULES, RULES) stop it ->
      the fastest, recorded on disk per (nest, device, level, array shapes and strides)
      under UNPY_CACHE_DIR/search

A candidate's build takes 0.2-1.2 s on NVIDIA's OpenCL, and builds in several threads do not
overlap there, so the first call builds and runs the default kernel only and hands the
candidates to the worker (`start`); pyopencl releases the GIL while the driver builds, so the
caller's thread runs on meanwhile, and the worker starts nothing while a call is under way
(`foreground`: a build of its own would hold up the call's, its Python would slow the call's),
and while it works, threads switch every SWITCH_S instead of every 5 ms (`_short_switches`), so
a call that needs the GIL while a candidate is being made waits little for it.
The later calls that come through Python
(`offload.prepared_call`) run the candidates whose builds are done (`Pending.turn`), and the
turn after the last one is timed switches the prepared layout to the fastest: an edit of the
plan's kernel choice, which the executor runs as any other. While a layout's search is pending
the C++ replay does not record its calls (`jitgpu.replay.refusal`), so they keep coming
through Python until it settles. Each step rewrites the record; a preparation that finds a
complete record uses its choice at once (its build a kernel-cache hit where the search left
it), and one that finds an incomplete record searches only the candidates it lacks. A
candidate that does not build or run is timed as failed; the error flag in a timed run
abandons the search (the default kernel stays). `settle` waits for the builds in flight
(tests, benchmarks); at interpreter exit the worker stops after its current build.
"""
from __future__ import annotations

import atexit
import contextlib
import hashlib
import json
import logging
import math
import os
import queue
import sys
import threading
import weakref
from dataclasses import dataclass
from typing import Optional

import numpy as np

from jitgpu.bind import KernelNest, device_limits, with_local_size
from jitgpu.choice import Choice, Rules
from jitgpu.loopopt import optimise
from jitgpu.loopopt.cost import GpuModel
from jitgpu.opencl_emit import print_kernel
from unpy.settings import current as current_settings

log = logging.getLogger("unpy")

# Estimated kernel seconds under which a search would measure noise (`auto` only).
MIN_KERNEL_S = 5e-4
MAX_CANDIDATES = 6
# Candidates a split's later call times before its own run (each costs a kernel run or two).
TIMED_PER_CALL = 1
# A candidate whose first run's kernel took less than this runs again, and the second (warm)
# run counts; a slower one is timed by its only run, as is one whose first run is clearly
# slower than the fastest so far (RULES.clear).
WARM_RUN_BELOW_S = 0.05
# The search's rules (jitgpu/choice.py): each candidate timed once (its kernel's event, a warm
# run); one 1.5x slower than the fastest so far is dropped after its first run; the search gives
# up, keeping the fastest so far, after BUDGET calls of the layout (timing a candidate, or
# waiting for one to be built) without a candidate 10 % faster than the fastest before it.
BUDGET = 4
RULES = Rules(warmup=0, samples=1, clear=1.5, budget=BUDGET, gain=0.10)
# Where the layout's calls run the candidates themselves (`Pending.turn`): one call each, its
# kernel's event the sample (the event holds no host work, and the device compile is done
# before the candidate is offered: gpurts/build_aside.py). With a warm-up call each, a slower
# candidate cost two slow calls (H200, syr2k f32 2048: 22 calls over 1.5x the settled time).
RUN_RULES = Rules(warmup=0, samples=1, clear=1.5, budget=BUDGET, gain=0.10)
# In a nest's reason (`unpython.explain`) while its layout's search is not over.
PENDING = "for now (timing candidates)"
# Bumped when the record's meaning changes: older records are then searched again.
RECORD_VERSION = 2
# Seconds the interpreter's exit waits for the worker's current build (a driver build cut
# short by the end of the process may crash it).
STOP_WAIT_S = 10.0
# Seconds the worker waits at most, before each candidate and each build, for the calls under
# way to end (`foreground`).
QUIET_WAIT_S = 5.0
# The thread switch interval while the worker makes and builds candidates (`_short_switches`).
SWITCH_S = 1e-4


@dataclass(frozen=True)
class Tuning:
    """The choices a candidate makes beyond the default: the register tile (R, C) (None: the
    pass's own fit; (1, 1): none), the work-group shape, dimension 0 first (None: bind's), and
    the factor innermost loops are unrolled by (None: unroll_inner's own fit; 1: none)."""
    tile: Optional[tuple] = None
    local: Optional[tuple] = None
    unroll: Optional[int] = None

    def __str__(self):
        parts = []
        if self.tile is not None:
            parts.append("no register tile" if self.tile == (1, 1)
                         else f"register tile {self.tile[0]}x{self.tile[1]}")
        if self.local is not None:
            parts.append("work-group " + "x".join(map(str, self.local)))
        if self.unroll is not None:
            parts.append("no inner unroll" if self.unroll == 1
                         else f"inner unroll {self.unroll}")
        return ", ".join(parts) or "default"


# In the order they are tried (MAX_CANDIDATES may stop them early): the register tiles that
# won on the H100 first (bench/results/variants: 4x4 for syrk and syr2k f32, 8x8 for mmult
# f64), then work-group shapes of 2-D nests (for the nests no register tile applies to), then
# for one-level nests (no register tile, no 2-D work-group) an unroll factor of the innermost
# loop (nbody 65536 on the H100: 8 beat the default's 4 in f32 and f64, 2 lost).
ALTERNATIVES = (Tuning(tile=(4, 4)), Tuning(tile=(8, 8)), Tuning(tile=(8, 4)),
                Tuning(tile=(4, 8)), Tuning(local=(32, 8)), Tuning(local=(8, 32)),
                Tuning(tile=(1, 1)), Tuning(tile=(2, 2)), Tuning(unroll=8))


@dataclass(frozen=True)
class Candidate:
    tuning: Tuning
    kernel: KernelNest
    source: str

    @property
    def label(self) -> str:
        return str(self.tuning)


@dataclass(frozen=True)
class Trying:
    """A candidate that a call of the layout runs in place of the default kernel (its kernel's
    event is its sample, `Pending.ran`): `kernel` (KernelNest, source, BuiltKernel), and the
    executor's recipe it keeps for its calls."""
    label: str
    kernel: tuple
    recipe: dict


@dataclass(frozen=True)
class Outcome:
    """What a layout's search has done, for `unpython.explain`: the kernel seconds of each
    candidate timed so far (inf: failed), in order; the kernel in use (the default until every
    candidate is timed, then the fastest); how many this process timed (0: all from the disk
    record); the candidates still building (None: not made yet) and those built and waiting
    for a call to time them; whether every candidate is timed."""
    times: tuple                     # of (label, seconds)
    choice: str
    measured: int
    building: Optional[int]
    to_time: int
    complete: bool
    tuning: Optional[Tuning] = None  # the choice's, once complete (tiles are built with it)

    @property
    def summary(self) -> str:
        if not self.complete:
            return f"{self.choice} {PENDING}"
        how = "from the search record" if self.measured == 0 else "searched"
        return f"{self.choice} ({how})"

    def __str__(self):
        cells = [(f"{label} failed" if math.isinf(s) else f"{label} {s * 1e3:.3f} ms")
                 + (" (chosen)" if label == self.choice and self.complete else "")
                 for label, s in self.times]
        state = f"{self.measured} by this process"
        if not self.complete:
            building = ("the candidates being made" if self.building is None
                        else f"{self.building} still building")
            state += (f"; {building}, {self.to_time} built and waiting for a call to time "
                      f"them; {self.choice} runs meanwhile")
        return (f"{len(self.times)} candidates timed ({state}): " + "; ".join(cells)
                + f"; choice: {self.choice}" + ("" if self.complete else " for now"))


def estimated_kernel_s(instance) -> float:
    """The plan's estimate of the kernel alone on a GPU (jitgpu/plan.py's work / GPU_OPS)."""
    from jitgpu.plan import GPU_OPS, work
    return work(instance) / GPU_OPS


def wanted(plan, instance, limits) -> bool:
    """Whether the calls of this plan search: one part, and `might_search`."""
    return len(plan.parts) == 1 and might_search(instance, limits)


def might_search(instance, limits) -> bool:
    """`UNPY_GPU_SEARCH=1`, or in auto a GPU (`fill_items` > 0 in `jitgpu.bind.device_limits`)
    and an estimated kernel time of MIN_KERNEL_S at least (below it a search measures noise)."""
    mode = current_settings().gpu_search     # '0' never, '1' always, '' auto
    if mode in ("0", "1"):
        return mode == "1"
    is_gpu = bool(limits) and len(limits) > 2 and limits[2] > 0
    return is_gpu and estimated_kernel_s(instance) >= MIN_KERNEL_S


def tuned(bound: KernelNest, tuning: Tuning, model: GpuModel) -> tuple:
    """(the bound nest, the model) with the tuning's choices, for `optimise` (pure): the nest
    launched in the tuning's work-groups, the model's register tile and unroll factor set."""
    kernel = bound if tuning.local is None else with_local_size(bound, tuning.local)
    if tuning.tile is not None:
        model = model.replace(register_tile=tuning.tile)
    if tuning.unroll is not None:
        model = model.replace(unroll_factor=tuning.unroll)
    return kernel, model


def _applies(tuning: Tuning, bound: KernelNest, limits) -> bool:
    """Whether the tuning can change the kernel: a register tile or a work-group shape of as
    many dimensions needs two levels at least, an unroll factor is for one-level nests."""
    levels = len(bound.levels)
    if tuning.tile is not None and levels < 2:
        return False
    if tuning.unroll is not None and levels != 1:
        return False
    return tuning.local is None or _legal_local(tuning.local, bound, limits)


def _legal_local(local: tuple, bound: KernelNest, limits) -> bool:
    if len(local) != len(bound.levels) or not limits:
        return False
    max_group, max_items = limits[0], tuple(limits[1] or ())
    return (math.prod(local) <= max_group
            and all(d >= len(max_items) or size <= max_items[d] for d, size in enumerate(local)))


def candidates(bound: KernelNest, level: str, limits=None, default=None):
    """The default kernel of `level` (`default`, where already made), then the distinct
    alternatives of ALTERNATIVES that apply to the nest, at most MAX_CANDIDATES in all, made
    one at a time as they are asked for (each costs an `optimise` and a print), on the model
    of the device of `limits`. A pass that refuses a choice leaves the kernel as the default
    has it: the same source and launch, dropped (pure)."""
    model = GpuModel.for_device(limits)
    if default is None:
        kernel = optimise(bound, level, model)
        default = Candidate(Tuning(), kernel, print_kernel(kernel))
    yield default
    seen = {(default.source, default.kernel.global_size, default.kernel.local_size)}
    for tuning in ALTERNATIVES:
        if len(seen) >= MAX_CANDIDATES:
            return
        if not _applies(tuning, bound, limits):
            continue
        candidate = made(bound, level, tuning, model)
        key = (candidate.source, candidate.kernel.global_size, candidate.kernel.local_size)
        if key not in seen:
            seen.add(key)
            yield candidate


def made(bound: KernelNest, level: str, tuning: Tuning, model: GpuModel) -> Candidate:
    """The candidate of `tuning` on the device of `model`."""
    kernel, model = tuned(bound, tuning, model)
    kernel = optimise(kernel, level, model)
    return Candidate(tuning, kernel, print_kernel(kernel))


# --- the disk record -----------------------------------------------------------------------

def layout_key(nest: str, device, level: str, values: dict, default: Candidate) -> list:
    """What a choice depends on: the nest (and its default source), the device and its driver,
    the optimisation level, the arrays' shapes, strides and dtypes, and the launch."""
    arrays = [[name, list(v.shape), list(v.strides), v.dtype.str]
              for name, v in values.items() if isinstance(v, np.ndarray)]
    return [RECORD_VERSION, nest, device.name, device.platform_name, device.driver_version, level,
            hashlib.sha256(default.source.encode()).hexdigest(),
            list(default.kernel.global_size), arrays]


def record_dir() -> str:
    return os.path.join(current_settings().cache_root, "search")


def record_path(key: list) -> str:
    return os.path.join(record_dir(), hashlib.sha256(json.dumps(key).encode()).hexdigest()
                        + ".json")


@dataclass(frozen=True)
class Record:
    """A layout's search so far: per candidate label its tuning and kernel seconds (inf: did
    not build or run), and whether every candidate has been timed."""
    times: dict
    tunings: dict
    complete: bool

    def fastest(self, usable=None) -> Optional[str]:
        """The label of the fastest candidate timed (of `usable`, where given), or None."""
        finite = [label for label, s in self.times.items()
                  if math.isfinite(s) and (usable is None or label in usable)]
        return min(finite, key=self.times.get) if finite else None


def load_record(path: str, key: list) -> Optional[Record]:
    """The record at `path`, or None when there is none, or it is unreadable, corrupt or of
    another key (the layout is then searched again)."""
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
        if not isinstance(data, dict) or data.get("key") != key:
            return None
        times, tunings = {}, {}
        for label, (tile, local, unroll, seconds) in data["candidates"].items():
            if unroll is not None and (type(unroll) is not int or unroll < 1):
                raise ValueError(f"not an unroll factor: {unroll!r}")
            tuning = Tuning(_shape(tile), _shape(local), unroll)
            seconds = math.inf if seconds is None else float(seconds)
            if str(tuning) != label or not seconds > 0:
                return None
            times[label], tunings[label] = seconds, tuning
        if data["complete"] not in (True, False):
            return None
        return Record(times, tunings, data["complete"])
    except (OSError, ValueError, TypeError, KeyError, AttributeError):
        return None


def _shape(value) -> Optional[tuple]:
    if value is None:
        return None
    if not isinstance(value, list) or not all(type(n) is int and n > 0 for n in value):
        raise ValueError(f"not a shape: {value!r}")
    return tuple(value)


def store_record(path: str, key: list, record: Record, choice: str) -> None:
    """Write the record atomically (another process may read it meanwhile); a cache that
    cannot be written is skipped."""
    data = {"key": key, "choice": choice, "complete": record.complete, "candidates": {
        label: [None if t.tile is None else list(t.tile),
                None if t.local is None else list(t.local), t.unroll,
                None if math.isinf(record.times[label]) else record.times[label]]
        for label, t in record.tunings.items()}}
    from gpurts.kernel_cache import write_atomically
    try:
        write_atomically(path, json.dumps(data).encode())
    except OSError as e:
        log.info("unpy: search record not written (%s)", e)


# --- measuring (the impure step) -----------------------------------------------------------

class Abandon(Exception):
    """A candidate's run met what every candidate would (the error flag, a read-only output):
    the search stops and the default kernel stays."""


def time_kernel(device, part, kernel: KernelNest, cl_kernel, values,
                drop_above: float = math.inf) -> float:
    """Kernel seconds of one candidate on the call's data, from its event: the part run with
    a throwaway recipe and its writes dropped (NumPy memory is not touched); a cheap kernel
    runs twice and its warm run counts, unless its first run took `drop_above` or more (it is
    dropped: a second run would cost a call more for nothing)."""
    from gpurts import Timings
    from gpurts.executor import run_part
    recipe = {}
    seconds = math.inf
    for _ in range(2):
        timings = Timings()
        run_part(device, part, kernel, cl_kernel, values, timings, recipe)
        seconds = timings.kernel_seconds
        if seconds >= min(WARM_RUN_BELOW_S, drop_above):
            break
    return seconds


def start(nest: str, part, values: dict, device, level: str, bound: KernelNest, default: tuple,
          limits=None, default_runs: bool = False) -> tuple:
    """(the kernel to run: (KernelNest, source, BuiltKernel), Outcome, Pending or None) for the
    single part of a plan at its first call; `default` is the default candidate, built
    (offload.build_part). A complete disk record decides at once (the choice built: a
    kernel-cache hit where the search left it, else a build now); otherwise the candidates the
    record lacks go to the worker, and the default runs until the search settles
    (`Pending.turn` at later calls, `Pending.step` for a split's). `default_runs`: the
    layout's calls run the default kernel, and the candidates in turn, while the search is
    pending, their kernels' times the samples (`Pending.ran`)."""
    from gpurts import BuildError
    first = Candidate(Tuning(), default[0], default[1])
    key = layout_key(nest, device, level, values, first)
    path = record_path(key)
    record = load_record(path, key) or Record({}, {}, False)
    if not record.complete:
        pending = Pending(nest, device, level, bound, limits, first, default, key, path, record,
                          default_runs)
        _submit(pending)
        return default, pending.outcome(), pending
    choice = record.fastest() or first.label
    chosen, tuning = default, Tuning()
    if choice != first.label:
        best = made(bound, level, record.tunings[choice], GpuModel.for_device(limits))
        try:
            chosen = (best.kernel, best.source, _built(device, best))
            tuning = best.tuning
        except BuildError:
            choice = first.label
    return chosen, Outcome(tuple(record.times.items()), choice, 0, 0, 0, True, tuning), None


def _has_partials(kernel: KernelNest) -> bool:
    return any(p.kind == "partial" for p in kernel.params)


def build_tuned(device, bound: KernelNest, level: str, tuning: Tuning) -> tuple:
    """(KernelNest, source, BuiltKernel) of `bound` optimised with a search's choice (the
    tiles of an overlapped plan are built with the choice searched on the whole nest)."""
    candidate = made(bound, level, tuning, GpuModel.for_device(device_limits(device)))
    return candidate.kernel, candidate.source, _built(device, candidate)


def _built(device, candidate: Candidate, aside=False):
    """The candidate's kernel through the device's kernel cache (a fresh kernel object, also
    on a hit); raises BuildError. `aside`: the worker's build, made in the device's build
    process where it has one (gpurts/build_aside.py: a build here holds up the calls'
    launches on NVIDIA's OpenCL)."""
    from gpurts import build_kernel
    from jitgpu.offload import build_options
    return build_kernel(device, candidate.source, candidate.kernel.name,
                        build_options(candidate.kernel, device), aside)


class Pending:
    """A layout's search under way. The worker makes the candidates the record lacks (and the
    record's fastest so far, to have it built) and builds them (`build_all`); the later calls
    of the layout run those built (`turn`, `ran`) or, a split's, time them (`step`), and the
    turn or step that finds nothing left chooses.
    The worker and the calls share `ready` and the counts under `_state`; one call steps at a
    time (another call meanwhile runs without stepping)."""

    def __init__(self, nest, device, level, bound, limits, first, default, key, path, record,
                 default_runs=False):
        self.nest, self.device, self.level, self.bound, self.limits = (nest, device, level,
                                                                       bound, limits)
        self.first, self.default, self.key, self.path = first, default, key, path
        self.record = Record(dict(record.times), dict(record.tunings), False)
        self.recorded_best = record.fastest()
        # When to stop (RULES, RUN_RULES): the record's times count as measured.
        self.choice = Choice(RUN_RULES if default_runs else RULES, closed=False)
        for label, seconds in record.times.items():
            self.choice.known(label, seconds)
        self.built = {first.label: default[2]}
        self.made = {first.label: first}
        self.measured = 0
        self.stopped = False             # abandoned: no more builds, no more steps
        self.over = False                # settled or abandoned: nothing left to step
        self._state = threading.Lock()
        self._stepping = threading.Lock()
        # Built (Candidate, BuiltKernel or None: failed), not yet taken by a step. Where the
        # layout's calls run the default (`default_runs`), its time is their kernel's
        # (`ran`): a timed run of its own allocates and fills buffers of its own (H100,
        # mmult f32 2048: the second call took 13.9 ms against 3.3 ms settled). Otherwise (a
        # split's parts run, not the whole) it is timed on a kernel object of its own (a memory
        # hit): a timed run binds the arguments to its own buffers, which the layout's runs
        # would not bind again.
        self.ready = [] if first.label in record.times or default_runs else [
            (first, _built(device, first))]
        # Where the layout's calls run the default, they run the candidates too, one a call
        # (`turn`): no run beside the call's own (timed beside it, on buffers of its own, a
        # candidate made its call 2-4x the settled time, H200, 2026-11-27). Each keeps its
        # recipe; small parts share the default's kept kits (buffers, staging) where neither
        # kernel has reduction partials (sized by the kernel's work-groups).
        self.runs_candidates = default_runs
        self.recipes = {}
        self.queued: Optional[int] = None     # builds the worker does, once it has made them
        self.finished = 0

    def ran(self, label: str, seconds: float) -> None:
        """A call of the layout ran candidate `label` (the default, or the one `turn` gave
        it) in `seconds` (its kernel's event): a sample for the choice; the candidate's time,
        the fastest of its counted calls, rewritten in the record (arrays new at every call
        make a new search each, which reads it)."""
        if self.over or not self._stepping.acquire(blocking=False):
            return
        try:
            self.choice.offer(label)
            counted = not self.choice.warming(label)
            self.choice.record(label, seconds)
            known = self.record.times.get(label)
            if not counted or (known is not None and known <= seconds):
                return
            self.measured += known is None
            self.record.times[label] = seconds
            self.record.tunings[label] = self.made[label].tuning
            store_record(self.path, self.key, self.record, self.record.fastest() or label)
        finally:
            self._stepping.release()

    def failed(self, label: str) -> None:
        """Candidate `label` failed where a call ran it (a device error): not run again."""
        with self._state:
            self.record.times[label] = math.inf
            self.record.tunings[label] = self.made[label].tuning
            self.choice.dropped.add(label)

    def abandon(self, why: str) -> None:
        """The layout's own run met what every candidate would (the error flag): no more
        builds or steps, the default stays."""
        log.info("unpy: search of %s abandoned (%s); default kernel kept", self.nest, why)
        self.stopped = self.over = True

    def build_all(self) -> None:
        """(the worker) Make the candidates and build each, a failed build kept as None."""
        with _short_switches():
            self._build_all()

    def _build_all(self) -> None:
        from gpurts import BuildError, DeviceError
        todo = []
        for c in candidates(self.bound, self.level, self.limits, self.first):
            if c is not self.first and (c.label not in self.record.times
                                        or c.label == self.recorded_best):
                todo.append(c)
            if not _quiet():
                return
        with self._state:
            self.queued = len(todo)
        aside = self.device.build_aside
        for candidate in todo:
            # A build in the device's build process holds no call up: it need not wait for one
            # to end (calls back to back left it a 5-s wait per build, QUIET_WAIT_S).
            if self.stopped or self.over or not (
                    _quiet() if aside is None or aside.unusable else not _STOPPING.is_set()):
                return
            try:
                built = _built(self.device, candidate, aside=True)
            except (BuildError, DeviceError) as e:
                log.info("unpy: search candidate %s of %s did not build (%s)", candidate.label,
                         self.nest, str(e).splitlines()[0])
                built = None
            with self._state:
                self.ready.append((candidate, built))
                self.finished += 1

    def outcome(self) -> Outcome:
        with self._state:
            building = None if self.queued is None else self.queued - self.finished
            to_time = sum(c.label not in self.record.times for c, _ in self.ready)
        return Outcome(tuple(self.record.times.items()), self.first.label, self.measured,
                       building, to_time, False)

    def step(self, part, values) -> Optional[tuple]:
        """(Outcome or None: abandoned, the chosen (KernelNest, source, BuiltKernel) or None,
        whether the search is over) after this call's step: up to TIMED_PER_CALL built
        candidates timed on the call's data, the record rewritten, and where none is left to
        build or time, or the budget is spent (RULES), the fastest chosen. None when another
        call is stepping."""
        if not self._stepping.acquire(blocking=False):
            return None
        try:
            timed = 0
            while timed < TIMED_PER_CALL and not self.stopped:
                with self._state:
                    item = self.ready.pop(0) if self.ready else None
                if item is None:
                    break
                candidate, built = item
                label = candidate.label
                self.made[label] = candidate
                self.record.tunings[label] = candidate.tuning
                if built is not None and label != self.first.label:
                    self.built[label] = built
                if label in self.record.times:       # the record's fastest: built, not timed
                    continue
                try:
                    seconds = self._timed(candidate, built, part, values)
                except Abandon as e:
                    log.info("unpy: search of %s abandoned (%s); default kernel kept",
                             self.nest, e)
                    self.stopped = True
                else:
                    self.record.times[label] = seconds
                    self.choice.offer(label)
                    self.choice.record(label, seconds)
                timed += 1
                self.measured += 1
            if self.stopped:
                self.over = True
                return None, None, True
            with self._state:
                over = (self.queued is not None and self.finished == self.queued
                        and not self.ready and self.first.label in self.record.times)
            if over or self.choice.settled:
                return self._settled()
            if timed:
                store_record(self.path, self.key, self.record,
                             self.record.fastest() or self.first.label)
            return self.outcome(), None, False
        finally:
            self._stepping.release()

    def turn(self, default_recipe: dict) -> Optional[tuple]:
        """(Outcome, the chosen (KernelNest, source, BuiltKernel) or None, whether the search
        is over, a Trying or None) of a call of a layout whose calls run the candidates: the
        built candidates offered to the choice, and the candidate the choice wants next given
        to this call (None: the default runs); once the choice settles, the fastest chosen.
        None when another call is taking its turn. `default_recipe`: the default kernel's, whose
        kept kits a candidate may share."""
        if not self._stepping.acquire(blocking=False):
            return None
        try:
            with self._state:
                ready, self.ready = self.ready, []
                built_all = self.queued is not None and self.finished == self.queued
            for candidate, built in ready:
                label = candidate.label
                self.made[label] = candidate
                if built is None:
                    self.record.times[label] = math.inf
                    self.record.tunings[label] = candidate.tuning
                    continue
                self.built[label] = built
                if label not in self.record.times:       # (else the record's fastest, built)
                    self.choice.offer(label)
            if built_all and self.first.label in self.choice.times:
                self.choice.close()
            if self.stopped:
                self.over = True
                return None, None, True, None
            if self.choice.settled:
                return self._settled() + (None,)
            label = self.choice.next()
            if label is None or label == self.first.label or label not in self.built:
                return self.outcome(), None, False, None
            candidate = self.made[label]
            recipe = self.recipes.get(label)
            if recipe is None:
                recipe = self.recipes[label] = {}
                if not (_has_partials(candidate.kernel) or _has_partials(self.default[0])):
                    recipe["kits"] = default_recipe.setdefault("kits", [])
            return self.outcome(), None, False, Trying(
                label, (candidate.kernel, candidate.source, self.built[label]), recipe)
        finally:
            self._stepping.release()

    def _timed(self, candidate, built, part, values) -> float:
        from gpurts import DeviceError
        from gpurts.executor import KernelFlagged
        if built is None:
            return math.inf
        try:
            return time_kernel(self.device, part, candidate.kernel, built.kernel, values,
                               drop_above=self.choice.drop_above())
        except (KernelFlagged, ValueError) as e:
            raise Abandon(str(e)) from e
        except DeviceError as e:
            log.info("unpy: search candidate %s of %s failed (%s)", candidate.label,
                     self.nest, e)
            return math.inf

    def _settled(self) -> tuple:
        self.over = True
        record = Record(self.record.times, self.record.tunings, True)
        choice = record.fastest(self.built) or self.first.label
        store_record(self.path, self.key, record, choice)
        times = record.times
        if self.choice.gave_up:
            log.info("unpy: search of %s gave up: no candidate %d %% faster within %d calls",
                     self.nest, round(RULES.gain * 100), RULES.budget)
        if choice == self.first.label:
            chosen = self.default
            log.info("unpy: search of %s settled: the default kernel stays (%d candidates)",
                     self.nest, len(times))
        else:
            best = self.made[choice]
            chosen = (best.kernel, best.source, self.built[choice])
            default_s = times.get(self.first.label, math.inf)
            log.info("unpy: search of %s settled: switched to %s (%.3f ms, the default %.3f ms)",
                     self.nest, choice, times[choice] * 1e3, default_s * 1e3)
        return (Outcome(tuple(times.items()), choice, self.measured, 0, 0, True), chosen,
                True)


# --- the worker ----------------------------------------------------------------------------

_JOBS: "queue.Queue[Optional[Pending]]" = queue.Queue()
_STOPPING = threading.Event()
_IDLE = threading.Condition()        # guards _WORK: searches queued or building
_QUIET = threading.Condition()       # guards _WORK["calls"]: calls under way
_WORK = {"outstanding": 0, "thread": None, "calls": 0}
_IN_FLIGHT: "weakref.WeakSet[Pending]" = weakref.WeakSet()


@contextlib.contextmanager
def foreground():
    """(around `offload.run_nest_on_device`) A call under way, whose own build a build of the
    worker's would hold up (NVIDIA's OpenCL builds one program at a time), and whose Python
    the worker's making of candidates would slow (the GIL): the worker starts no candidate and
    no build meanwhile (one under way goes on), for QUIET_WAIT_S at most at a time (calls
    that never pause do not starve it)."""
    with _QUIET:
        _WORK["calls"] += 1
    try:
        yield
    finally:
        with _QUIET:
            _WORK["calls"] -= 1
            _QUIET.notify_all()


@contextlib.contextmanager
def _short_switches():
    """(the worker) The interpreter's thread switch interval at SWITCH_S while the worker makes
    candidates: making one is 60-180 ms of Python, and at the default 5 ms a call needing the
    GIL meanwhile waits up to 5 ms each time it takes it (H100, mmult f32 2048 in a fresh
    process: calls 3-16 took 26-37 ms against 2.9 ms settled; 3.5-7 ms at 0.2 ms)."""
    before = sys.getswitchinterval()
    sys.setswitchinterval(min(before, SWITCH_S))
    try:
        yield
    finally:
        sys.setswitchinterval(before)


def _quiet() -> bool:
    """(the worker) Wait while a call is under way; False when the process is ending."""
    with _QUIET:
        _QUIET.wait_for(lambda: _WORK["calls"] == 0 or _STOPPING.is_set(), QUIET_WAIT_S)
    return not _STOPPING.is_set()


def _submit(pending: Pending) -> None:
    """Queue the search's builds for the process's one worker (started at the first)."""
    with _IDLE:
        _WORK["outstanding"] += 1
        _IN_FLIGHT.add(pending)
        thread = _WORK["thread"]
        if thread is None or not thread.is_alive():
            if thread is None:
                atexit.register(_stop)
            thread = _WORK["thread"] = threading.Thread(
                target=_work, name="unpy-search-builds", daemon=True)
            thread.start()
    _JOBS.put(pending)


def _work() -> None:
    while not _STOPPING.is_set():
        pending = _JOBS.get()
        if pending is None:
            return
        try:
            pending.build_all()
        except Exception as e:   # never a dead worker: this search is abandoned
            log.warning("unpy: search of %s abandoned (internal error: %s: %s)", pending.nest,
                        type(e).__name__, e)
            pending.stopped = True
        finally:
            with _IDLE:
                _WORK["outstanding"] -= 1
                _IDLE.notify_all()
        del pending            # (a layout dropped meanwhile leaves `in_flight`)


def _stop() -> None:
    """(atexit) Let the worker finish its current build and stop."""
    _STOPPING.set()
    with _QUIET:
        _QUIET.notify_all()
    _JOBS.put(None)
    thread = _WORK["thread"]
    if thread is not None:
        thread.join(STOP_WAIT_S)


def settle(timeout_s: float) -> bool:
    """Wait until the worker has built every candidate queued so far (True), or `timeout_s`
    passed (False). The next calls of each searched layout then run what is built (one a
    call; a split's time one a call), and the last of them switches (for tests and
    benchmarks)."""
    with _IDLE:
        return _IDLE.wait_for(lambda: _WORK["outstanding"] == 0, timeout_s)


def in_flight() -> int:
    """How many searches of the layouts still prepared are not over (built or not)."""
    return sum(not p.over for p in list(_IN_FLIGHT))
