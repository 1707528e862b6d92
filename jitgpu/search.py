"""The first call's empirical search of loop-optimisation choices (issue 7), cached on disk.

The default optimisation (`jitgpu.loopopt.optimise`) picks one register tile and one
work-group shape for every kernel; measured on an H100 the best differs per kernel (mmult f64
2048: 1.54 ms with 8 x 8 register tiles, 2.37 ms with the default 4 x 4). So where it can pay,
the first call of a layout times a handful of alternatives on its own data and keeps the
fastest:

    candidates (pure, made one at a time: the default, then up to MAX_CANDIDATES - 1
      distinct alternatives) -> measure (the only impure step: build, run on the call's data
      with the writes dropped, time the kernel's event) -> the fastest, recorded on disk per
      (nest, device, level, array shapes and strides) under UNPY_CACHE_DIR/search

The search is an edit of the plan's kernel choice (`offload.prepare`): the executor runs the
chosen kernel as any other. It stops starting candidates once it has taken SEARCH_BUDGET_S, so
the first call stays under a second; the candidates it did not reach are timed by the next
preparation of the same layout (a later process, or new arrays of the same shapes), which uses
the best so far meanwhile. A search that meets an error keeps the default kernel.
"""
from __future__ import annotations

import hashlib
import json
import logging
import math
import os
import time
from dataclasses import dataclass
from typing import Optional

import numpy as np

from jitgpu.bind import KernelNest, with_local_size
from jitgpu.loopopt import optimise
from jitgpu.opencl_emit import print_kernel

log = logging.getLogger("unpy")

# Seconds of search (builds and timed runs) after which no more candidate is started: with the
# analysis and the default build, the first call stays under 1 s.
SEARCH_BUDGET_S = 0.4
# Estimated kernel seconds under which a search would measure noise (`auto` only).
MIN_KERNEL_S = 5e-4
MAX_CANDIDATES = 6
# A candidate whose first run's kernel took less than this runs again, and the second (warm)
# run counts; a slower one is timed by its only run.
WARM_RUN_BELOW_S = 0.05
# Bumped when the record's meaning changes: older records are then searched again.
RECORD_VERSION = 1


@dataclass(frozen=True)
class Tuning:
    """The choices a candidate makes beyond the default: the register tile (R, C) (None: the
    pass's own fit; (1, 1): none) and the work-group shape, dimension 0 first (None: bind's)."""
    tile: Optional[tuple] = None
    local: Optional[tuple] = None

    def __str__(self):
        parts = []
        if self.tile is not None:
            parts.append("no register tile" if self.tile == (1, 1)
                         else f"register tile {self.tile[0]}x{self.tile[1]}")
        if self.local is not None:
            parts.append("work-group " + "x".join(map(str, self.local)))
        return ", ".join(parts) or "default"


# In the order they are tried (the budget may stop the search early): the register tiles that
# won on the H100 first (bench/results/variants: 4x4 for syrk and syr2k f32, 8x8 for mmult
# f64), then work-group shapes of 2-D nests (for the nests no register tile applies to).
ALTERNATIVES = (Tuning(tile=(4, 4)), Tuning(tile=(8, 8)), Tuning(tile=(8, 4)),
                Tuning(tile=(4, 8)), Tuning(local=(32, 8)), Tuning(local=(8, 32)),
                Tuning(tile=(1, 1)), Tuning(tile=(2, 2)))


@dataclass(frozen=True)
class Candidate:
    tuning: Tuning
    kernel: KernelNest
    source: str

    @property
    def label(self) -> str:
        return str(self.tuning)


@dataclass(frozen=True)
class Outcome:
    """What a search did, for `unpython.explain`: the kernel seconds of each candidate timed so
    far (inf: failed), in order, the choice, how many this preparation timed (0: all from the
    disk record) and in how long, and whether every candidate has been timed."""
    times: tuple                     # of (label, seconds)
    choice: str
    measured: int
    seconds: float
    complete: bool

    @property
    def summary(self) -> str:
        how = "from the search record" if self.measured == 0 else "searched"
        return f"{self.choice} ({how})"

    def __str__(self):
        cells = [(f"{label} failed" if math.isinf(s) else f"{label} {s * 1e3:.3f} ms")
                 + (" (chosen)" if label == self.choice else "") for label, s in self.times]
        rest = "" if self.complete else ", the rest at the next preparation of this layout"
        return (f"{len(self.times)} candidates timed ({self.measured} now in "
                f"{self.seconds * 1e3:.1f} ms{rest}): " + "; ".join(cells))


def switch() -> str:
    """`UNPY_GPU_SEARCH`: '0' never, '1' always (any device, any size), else '' (auto)."""
    value = os.environ.get("UNPY_GPU_SEARCH", "").strip()
    return value if value in ("0", "1") else ""


def estimated_kernel_s(instance) -> float:
    """The plan's estimate of the kernel alone on a GPU (jitgpu/plan.py's work / GPU_OPS)."""
    from jitgpu.plan import GPU_OPS, ops_per_iteration
    iterations = math.prod(b.extent for b in instance.boxes.values())
    return iterations * ops_per_iteration(instance.nest) / GPU_OPS


def wanted(plan, instance, limits) -> bool:
    """Whether the first call of this plan searches: one part, and `UNPY_GPU_SEARCH=1`, or in
    auto a GPU (`fill_items` > 0 in `jitgpu.bind.device_limits`) and an estimated kernel time of
    MIN_KERNEL_S at least (below it a search measures noise)."""
    mode = switch()
    if mode == "0" or len(plan.parts) != 1:
        return False
    if mode == "1":
        return True
    is_gpu = bool(limits) and len(limits) > 2 and limits[2] > 0
    return is_gpu and estimated_kernel_s(instance) >= MIN_KERNEL_S


def tuned(bound: KernelNest, tuning: Tuning) -> KernelNest:
    """The bound nest with the tuning's choices set, for `optimise` to read (pure)."""
    kernel = bound
    if tuning.local is not None:
        kernel = with_local_size(kernel, tuning.local)
    if tuning.tile is not None:
        kernel = kernel.replace(register_tile=tuning.tile)
    return kernel


def _legal_local(local: tuple, bound: KernelNest, limits) -> bool:
    if len(local) != len(bound.levels) or not limits:
        return False
    max_group, max_items = limits[0], tuple(limits[1] or ())
    return (math.prod(local) <= max_group
            and all(d >= len(max_items) or size <= max_items[d] for d, size in enumerate(local)))


def candidates(bound: KernelNest, level: str, limits=None, default=None):
    """The default kernel of `level` (`default`, where already made), then the distinct
    alternatives of ALTERNATIVES, at most MAX_CANDIDATES in all, made one at a time as they are
    asked for (each costs an `optimise` and a print). A pass that refuses a choice leaves the
    kernel as the default has it: the same source and launch, dropped (pure)."""
    if default is None:
        kernel = optimise(bound, level)
        default = Candidate(Tuning(), kernel, print_kernel(kernel))
    yield default
    seen = {(default.source, default.kernel.global_size, default.kernel.local_size)}
    for tuning in ALTERNATIVES:
        if len(seen) >= MAX_CANDIDATES:
            return
        if tuning.local is not None and not _legal_local(tuning.local, bound, limits):
            continue
        candidate = made(bound, level, tuning)
        key = (candidate.source, candidate.kernel.global_size, candidate.kernel.local_size)
        if key not in seen:
            seen.add(key)
            yield candidate


def made(bound: KernelNest, level: str, tuning: Tuning) -> Candidate:
    kernel = optimise(tuned(bound, tuning), level)
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
    from gpurts.kernel_cache import cache_root
    return os.path.join(cache_root(), "search")


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


def load_record(path: str, key: list) -> Optional[Record]:
    """The record at `path`, or None when there is none, or it is unreadable, corrupt or of
    another key (the layout is then searched again)."""
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
        if not isinstance(data, dict) or data.get("key") != key:
            return None
        times, tunings = {}, {}
        for label, (tile, local, seconds) in data["candidates"].items():
            tuning = Tuning(_shape(tile), _shape(local))
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
        label: [None if t.tile is None else list(t.tile), None if t.local is None
                else list(t.local), None if math.isinf(record.times[label])
                else record.times[label]] for label, t in record.tunings.items()}}
    from gpurts.kernel_cache import write_atomically
    try:
        write_atomically(path, json.dumps(data).encode())
    except OSError as e:
        log.info("unpy: search record not written (%s)", e)


# --- measuring (the impure step) -----------------------------------------------------------

class Abandon(Exception):
    """A candidate's run met what every candidate would (the error flag, a read-only output):
    the search stops and the default kernel stays."""


def time_kernel(device, part, kernel: KernelNest, cl_kernel, values) -> float:
    """Kernel seconds of one candidate on the call's data, from its event: the part run with
    a throwaway recipe and its writes dropped (NumPy memory is not touched); a cheap kernel
    runs twice and its warm run counts."""
    from gpurts import Timings
    from gpurts.executor import run_part
    recipe = {}
    seconds = math.inf
    for _ in range(2):
        timings = Timings()
        run_part(device, part, kernel, cl_kernel, values, timings, recipe)
        seconds = timings.kernel_seconds
        if seconds >= WARM_RUN_BELOW_S:
            break
    return seconds


def _measure(pending, part, values, device, built: dict, budget_s: float,
             build_guess_s: float) -> tuple:
    """({label: Candidate}, {label: kernel seconds (inf: did not build or run)}, whether
    `pending` ran out) of the candidates of the iterator `pending`, in order, until the next
    one would end past `budget_s` (the first is always timed): each made, built (the kernel
    cache: a later process gets hits; `built` holds those built already and receives the new
    ones) and timed. The next candidate is predicted to cost what the last one did, plus
    `build_guess_s` where the last one was built already. Raises Abandon."""
    from gpurts import BuildError, DeviceError, build_kernel
    from gpurts.executor import KernelFlagged
    started = time.perf_counter()
    made_now, times = {}, {}
    predicted_s = 0.0
    while True:
        if times and time.perf_counter() - started + predicted_s > budget_s:
            return made_now, times, False
        began = time.perf_counter()
        candidate = next(pending, None)
        if candidate is None:
            return made_now, times, True
        label = candidate.label
        made_now[label] = candidate
        prebuilt = label in built
        try:
            if not prebuilt:
                built[label] = build_kernel(device, candidate.source, candidate.kernel.name, [])
            times[label] = time_kernel(device, part, candidate.kernel, built[label].kernel,
                                       values)
        except BuildError as e:
            log.info("unpy: search candidate %s did not build (%s)", label,
                     str(e).splitlines()[0])
            times[label] = math.inf
        except (KernelFlagged, ValueError) as e:
            raise Abandon(str(e)) from e
        except DeviceError as e:
            log.info("unpy: search candidate %s failed (%s)", label, e)
            times[label] = math.inf
        predicted_s = time.perf_counter() - began + (build_guess_s if prebuilt else 0.0)


def search_part(nest: str, part, values: dict, device, level: str, bound: KernelNest,
                default: tuple, limits=None) -> tuple:
    """((KernelNest, source, BuiltKernel) of the fastest candidate, Outcome or None) for the
    single part of a plan; `default` is the default candidate already built
    (offload.build_part). Times come from the layout's disk record where it has them; the
    candidates it lacks are timed within the budget and the record is rewritten with them.
    None: the search was abandoned, the default stays."""
    started = time.perf_counter()
    default_kernel, default_source, default_built = default
    first = Candidate(Tuning(), default_kernel, default_source)
    key = layout_key(nest, device, level, values, first)
    path = record_path(key)
    record = load_record(path, key) or Record({}, {}, False)
    built = {first.label: default_built}
    made_now, measured, complete = {}, {}, record.complete
    if not complete:
        pending = (c for c in candidates(bound, level, limits, first)
                   if c.label not in record.times)
        # The default's build (unless a hit) stands for a candidate's build.
        guess = 0.0 if default_built.cache_hit else default_built.build_seconds
        try:
            made_now, measured, complete = _measure(
                pending, part, values, device, built,
                SEARCH_BUDGET_S - (time.perf_counter() - started), guess)
        except Abandon as e:
            log.info("unpy: search of %s abandoned (%s); default kernel kept", nest, e)
            return default, None
    times = {**record.times, **measured}
    tunings = {**record.tunings, **{label: c.tuning for label, c in made_now.items()}}
    finite = [label for label, s in times.items() if math.isfinite(s)]
    choice = min(finite, key=times.get) if finite else first.label
    if measured or complete != record.complete:
        store_record(path, key, Record(times, tunings, complete), choice)
    chosen = default
    if choice != first.label:
        from gpurts import BuildError, build_kernel
        best = made_now.get(choice) or made(bound, level, tunings[choice])
        try:
            kernel = built.get(choice) or build_kernel(device, best.source, best.kernel.name,
                                                       [])
            chosen = (best.kernel, best.source, kernel)
        except BuildError:
            choice = first.label
    outcome = Outcome(tuple(times.items()), choice, len(measured),
                      time.perf_counter() - started, complete)
    return chosen, outcome
