"""Whether a nest runs on the device or with OpenMP (issue 7, sections 3 and 4): the estimate
where it is clear, measured calls where it is close.

The estimate (`plan.estimate`) counts operations per iteration at one rate per side; measured on
an H100 with 16 cores it misjudged the ratio of device to OpenMP time by up to 5x at the dev
sizes (OpenMP's vectorised loops, NVIDIA's per-call host cost), and copies from NumPy memory at
full bus speed change it again. So:

- `UNPY_FORCE_GPU=1`: the device, unchecked;
- an estimated ratio (device / OpenMP seconds) of at most 1 / MEASURE_WITHIN: the device; at
  least MEASURE_WITHIN: OpenMP (the estimate decides; both times in the reason);
- in between, a close call: a `Trial` per (nest, loop extents, array shapes, strides and dtypes,
  device, UNPY_GPU_OPT). Its calls alternate: the first of each side is not counted (on the
  device it builds and allocates; with OpenMP, right after device calls, it ran at a quarter
  of its speed on the H100: syrk n=256 2.2 ms against 0.52), then calls timed on the device
  (without the preparation of a new layout, which both sides pay) and with OpenMP (the
  compiled caller times its OpenMP code and reports through `jitgpu.hook.openmp_timed`), in
  turn, until SAMPLES of each,
  or one of each when one side is CLEAR_FACTOR faster. The fastest call of each side counts (a
  busy spell of a shared machine is not learnt), and the faster side is kept for good: the
  measurement is legal to reuse while the layout, the device and the switches are the same,
  which is what the key holds. A call that keeps data on the device (residency) is decided by
  the estimate alone: its nests' times depend on each other's copies.

A Trial decided for OpenMP refuses like the estimate (`Refused`), so the compiled caller then
skips the hook in C++ while the same inputs come again (a few microseconds per call).
"""
from __future__ import annotations

import collections
import itertools
import threading
from dataclasses import dataclass, field
from typing import Optional

import numpy as np

from jitgpu.nest import NotOffloadable
from jitgpu.shares import remember

MEASURE_WITHIN = 4.0    # estimated ratios within 4x either way are measured (the H100's worst
                        # estimate at the dev sizes was off by 3.9x with the constants of plan.py)
SAMPLES = 2             # timed calls of each side a close call takes at most
CLEAR_FACTOR = 2.0      # after one of each, a side this much faster wins at once

_TRIALS = collections.OrderedDict()    # trial key -> Trial, most recent last
_TRIALS_KEPT = 256
_ASKED = collections.OrderedDict()     # token -> Trial whose OpenMP call is being timed
_ASKED_KEPT = 64
_tokens = itertools.count(1)
_lock = threading.Lock()


class TimeOpenMP(NotOffloadable):
    """This call runs the OpenMP code and the compiled caller reports its seconds with
    `token` (the hook answers the token)."""
    def __init__(self, reason: str, token: int):
        super().__init__(reason)
        self.token = token


def by_estimate(plan) -> Optional[bool]:
    """True: the device; False: OpenMP; None: too close to tell, measure."""
    if plan.forced:
        return True
    e = plan.estimate
    ratio = e.device_s / max(e.host_s, 1e-12)
    if ratio <= 1 / MEASURE_WITHIN:
        return True
    if ratio >= MEASURE_WITHIN:
        return False
    return None


def measured_seconds(side: str, seconds: float) -> float:
    """The seconds a call of `side` ('device' or 'openmp') counts: the measured ones (a seam:
    tests replace this to decide synthetic situations on the CPU OpenCL device)."""
    return seconds


@dataclass
class Trial:
    """The measured calls of one close call and, once decided, the faster side."""
    estimate: object                      # plan.Estimate
    device_s: list = field(default_factory=list)
    openmp_s: list = field(default_factory=list)
    on_device: Optional[bool] = None      # the verdict, once measured
    warm: set = field(default_factory=set)   # sides whose first call (not counted) is done

    def wants_openmp(self) -> bool:
        """Whether the next call runs with OpenMP (timed): while it has fewer samples."""
        return len(self.openmp_s) < len(self.device_s)

    def record(self, side: str, seconds: float):
        with _lock:
            if self.on_device is not None:
                return
            if side not in self.warm:
                self.warm.add(side)
                return
            # Plain floats: a replayed call's time comes as a NumPy number, whose comparisons
            # give a NumPy bool that `on_device is False` would not recognise.
            (self.device_s if side == "device" else self.openmp_s).append(
                float(measured_seconds(side, seconds)))
            d, o = len(self.device_s), len(self.openmp_s)
            if min(d, o) == 0:
                return
            fast, slow = sorted((min(self.device_s), min(self.openmp_s)))
            if min(d, o) >= SAMPLES or slow >= CLEAR_FACTOR * fast:
                self.on_device = bool(min(self.device_s) < min(self.openmp_s))

    def __str__(self):
        def fastest(times):
            return f"{min(times) * 1e3:.3f} ms" if times else "not yet"
        measured = (f"{fastest(self.device_s)} on the device ({len(self.device_s)} call(s)) vs "
                    f"{fastest(self.openmp_s)} with OpenMP ({len(self.openmp_s)} call(s)), the "
                    f"fastest of each")
        if self.on_device is None:
            return (f"close call, measuring: {measured}; {self.estimate}, within "
                    f"{MEASURE_WITHIN:g}x")
        return (f"measured {'the device' if self.on_device else 'OpenMP'} faster: {measured} "
                f"({self.estimate}, within {MEASURE_WITHIN:g}x)")


def trial_key(module, function, nest_id, instance, values, facts, opt) -> tuple:
    """What a measured decision depends on: the nest, its loop extents, the layout of its
    arrays (not their addresses), the device and the optimisation level."""
    arrays = tuple((name, v.shape, v.strides, v.dtype.str) for name, v in values.items()
                   if isinstance(v, np.ndarray))
    extents = tuple((b.var, b.extent) for b in instance.boxes.values())
    return module, function, nest_id, extents, arrays, facts.label, opt


def trial_for(key, estimate) -> Trial:
    return remember(_TRIALS, key, lambda: Trial(estimate), _TRIALS_KEPT)


def ask_openmp(trial: Trial) -> TimeOpenMP:
    """The answer of a call that the trial times with OpenMP."""
    with _lock:
        token = next(_tokens)
        _ASKED[token] = trial
        while len(_ASKED) > _ASKED_KEPT:     # callers that never reported (an exception)
            _ASKED.popitem(last=False)
    return TimeOpenMP(str(trial), token)


def openmp_timed(token: int, seconds: float) -> Optional[Trial]:
    """The compiled caller's report: the OpenMP code of the call answered `token` took
    `seconds`. The trial, or None when the token is unknown (forgotten)."""
    with _lock:
        trial = _ASKED.pop(token, None)
    if trial is not None:
        trial.record("openmp", seconds)
    return trial


def forget() -> None:
    """Forget every measured decision (tests, benchmarks), and stop the replays of calls they
    decided (jitgpu/replay.py)."""
    from gpurts.epoch import invalidate_replays
    with _lock:
        _TRIALS.clear()
        _ASKED.clear()
    invalidate_replays()
