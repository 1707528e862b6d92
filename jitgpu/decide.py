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
  device, UNPY_GPU_OPT), a choice between "device" and "openmp" by the rules of
  jitgpu/choice.py (RULES): the first call of each side is not counted (on the device it
  builds and allocates; with OpenMP, right after device calls, it ran at a quarter of its
  speed on the H100: syrk n=256 2.2 ms against 0.52), then the sides take turns, timed on the
  device (without the preparation of a new layout, which both sides pay) and with OpenMP (the
  compiled caller times its OpenMP code and reports through `jitgpu.hook.openmp_timed`), until
  two of each, or one of each when one side is twice as fast. The fastest call of each side
  counts (a busy spell of a shared machine is not learnt). The measurement is legal to reuse
  while the layout, the device and the switches are the same, which is what the key holds. A
  call that keeps data on the device (residency) is decided by the estimate alone: its nests'
  times depend on each other's copies.

The kept side keeps being timed: on the device, the C++ replay hands every WATCH_REPLAYS-th call
back to Python, which takes the replayed calls' time (`jitgpu.replay.harvest`); with OpenMP, the
hook keeps answering a token, so the compiled caller times every call, where those calls take
WATCH_OPENMP_S or more (below it the trip through Python would cost more than a wrong choice
could: the decision is refused for good, and the caller skips the hook in C++). When the kept
side's recent calls take twice the other side's recorded time, the other side is measured
again (at most once per RULES.revisit_every calls).

A Trial decided for OpenMP and not watched refuses like the estimate (`Refused`), so the compiled
caller then skips the hook in C++ while the same inputs come again (a few microseconds per
call).
"""
from __future__ import annotations

import collections
import itertools
import threading
from dataclasses import dataclass, field
from typing import Optional

import numpy as np

from jitgpu.choice import Choice, Rules
from jitgpu.nest import NotOffloadable
from jitgpu.shares import remember

MEASURE_WITHIN = 4.0    # estimated ratios within 4x either way are measured (the H100's worst
                        # estimate at the dev sizes was off by 3.9x with the constants of plan.py)
# The choice's rules (jitgpu/choice.py): one uncounted call of each side, then two counted of
# each, or one of each when a side is twice as fast; a kept side whose last 3 calls all take
# twice the other's time or more measures the other again, 64 calls apart at least.
RULES = Rules(warmup=1, samples=2, clear=2.0, revisit=2.0, window=3, revisit_every=64)
WATCH_REPLAYS = 32      # replayed calls between two calls through Python of a kept device side
WATCH_OPENMP_S = 2e-3   # a kept OpenMP side is watched when its calls take this long at least
                        # (the hook's trip through Python, tens of microseconds, is then 1-2 %)

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


SIDES = ("device", "openmp")


@dataclass
class Trial:
    """The measured calls of one close call and, once settled, the faster side (watched)."""
    estimate: object                      # plan.Estimate
    choice: Choice = field(default_factory=lambda: Choice(RULES, SIDES))

    @property
    def on_device(self) -> Optional[bool]:
        """The verdict: None while measuring."""
        return None if self.choice.chosen is None else self.choice.chosen == "device"

    @property
    def device_s(self) -> list:
        return self.choice.times["device"]

    @property
    def openmp_s(self) -> list:
        return self.choice.times["openmp"]

    def wants_openmp(self) -> bool:
        """Whether the next call runs with OpenMP (timed)."""
        return self.choice.next() == "openmp"

    def watches_openmp(self) -> bool:
        """Whether a call kept on OpenMP is timed all the same (the hook answers a token)."""
        return self.on_device is False and self.choice.fastest("openmp") >= WATCH_OPENMP_S

    def replay_budget(self) -> Optional[int]:
        """How many calls the C++ replay may run before one comes through Python (None: any
        number): one while measuring, WATCH_REPLAYS once kept on the device."""
        if self.on_device is None:
            return 1
        return WATCH_REPLAYS if self.on_device else None

    def record(self, side: str, seconds: float, calls: int = 1):
        """A call of `side` took `seconds` (`calls`: that many calls it stands for)."""
        with _lock:
            # Plain floats: a replayed call's time comes as a NumPy number, whose comparisons
            # give a NumPy bool that `on_device is False` would not recognise.
            if not self.choice.warming(side):
                seconds = measured_seconds(side, float(seconds))
            self.choice.record(side, float(seconds), calls)

    def __str__(self):
        def fastest(times):
            return f"{min(times) * 1e3:.3f} ms" if times else "not yet"
        measured = (f"{fastest(self.device_s)} on the device ({len(self.device_s)} call(s)) vs "
                    f"{fastest(self.openmp_s)} with OpenMP ({len(self.openmp_s)} call(s)), the "
                    f"fastest of each")
        if self.on_device is None:
            again = (f"measured again ({self.choice.revisits} time(s)): the kept side's last "
                     f"calls took {RULES.revisit:g}x the other's; " if self.choice.revisits
                     else "")
            return (f"close call, measuring: {again}{measured}; {self.estimate}, within "
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
    `seconds` (a sample while measuring, a watched call once kept). The trial, or None when
    the token is unknown (forgotten)."""
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
