"""Whether a nest runs on the device or with OpenMP (issue 7, sections 3 and 4; issue 20): the
estimate where it is clear, measured calls where it is close.

The estimate (`plan.estimate`) takes the launch, the link, the staging copy and both sides'
memory throughput from the machine's calibration (gpurts/calibration.py, measured once per
machine and device) and the operations' rates from constants fitted to one H100; it is
trusted only beyond a margin (`plan.margin`) that follows from how much of each side's time
rests on measured figures (a few tens of percent off, times the calibration's noise) and how
much on the constants (2x off per side: 4x when nothing is calibrated, as the H100's worst
estimate at the dev sizes). So:

- `UNPY_FORCE_GPU=1`: the device, unchecked;
- an estimated ratio (device / OpenMP seconds) of at most 1 / margin: the device; at least the
  margin: OpenMP (the estimate decides; both times, the figures and the margin in the reason),
  except where the work counted is a floor (a `while` loop, or a loop whose bounds the nest
  computes, counted once: `Estimate.floor_only`), which is measured instead.
  The device's first call checks it: where its copies and kernels (event times) took so long
  that the device is no longer clearly faster than the estimated OpenMP time (`contradicts`),
  the layout becomes a close call from the next call on (`doubted`: its Trial, that first
  call the device's uncounted one);
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

Like with like: a device sample counts only when it ran the way the device's later calls
will. A layout whose calls C++ replays (jitgpu/replay.py: 0.04-0.10 ms a call for the n=256
products on an H200, against 0.13-0.24 ms through Python) is judged by replayed calls alone:
once a replayed call's time comes (`replay.harvest`), the device's calls through Python are not
evidence (the ones counted before are dropped), and while a close call measures, its layouts
are recorded with their arrays pinned at once, as a repeated layout's replays are after
REPIN_AFTER calls. A layout that does not replay (new arrays every call, several parts,
reductions, UNPY_REPLAY=0, UNPY_LOG=info) is judged by its calls through Python, which is how
its calls run. (Correcting Python-path samples by a measured replay saving instead would need
the replayed times all the same, and a model of the difference.)

The kept side keeps being timed: on the device, the C++ replay hands every WATCH_REPLAYS-th call
back to Python, which takes the replayed calls' time (`jitgpu.replay.harvest`); with OpenMP, the
hook keeps answering TIMED_OPENMP, so the compiled caller times every call, where those calls take
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

from jitgpu import plan as planning
from jitgpu.choice import Choice, Rules
from jitgpu.nest import NotOffloadable
from jitgpu.shares import remember

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
    `token` (the hook answers TIMED_OPENMP with it, jitgpu/answer.py)."""
    def __init__(self, reason: str, token: int):
        super().__init__(reason)
        self.token = token


def by_estimate(plan) -> Optional[bool]:
    """True: the device; False: OpenMP; None: too close to tell, measure."""
    if plan.forced:
        return True
    e = plan.estimate
    ratio, margin = e.device_s / max(e.host_s, 1e-12), planning.margin(e)
    if ratio <= 1 / margin:
        return True
    if ratio >= margin and not e.floor_only:    # more work than counted would favour the device
        return False
    return None


# How a device call ran: through the hook in Python, or replayed from C++ (jitgpu/replay.py).
PYTHON, REPLAYED = "python", "replayed"


def measured_seconds(side: str, seconds: float, path: str) -> float:
    """The seconds a call of `side` ('device' or 'openmp') counts: the measured ones (a seam:
    tests replace this to decide synthetic situations on the CPU OpenCL device). `path`: how
    a device call ran (PYTHON or REPLAYED; an OpenMP call's is PYTHON, its hook's)."""
    return seconds


SIDES = ("device", "openmp")


@dataclass
class Trial:
    """The measured calls of one close call and, once settled, the faster side (watched)."""
    estimate: object                      # plan.Estimate
    choice: Choice = field(default_factory=lambda: Choice(RULES, SIDES))
    replays: bool = False                 # the device's calls replay from C++ (seen)

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
        """Whether a call kept on OpenMP is timed all the same (the hook answers TIMED_OPENMP)."""
        return self.on_device is False and self.choice.fastest("openmp") >= WATCH_OPENMP_S

    def replay_budget(self) -> Optional[int]:
        """How many calls the C++ replay may run before one comes through Python (None: any
        number): one while measuring, WATCH_REPLAYS once kept on the device."""
        if self.on_device is None:
            return 1
        return WATCH_REPLAYS if self.on_device else None

    def record(self, side: str, seconds: float, calls: int = 1, path: str = PYTHON):
        """A call of `side` took `seconds` (`calls`: that many calls it stands for; `path`: how
        a device call ran). A device call that did not run the way the device's calls run now
        (through Python where they replay) is a warm-up at most, never evidence."""
        with _lock:
            # Plain floats: a replayed call's time comes as a NumPy number, whose comparisons
            # give a NumPy bool that `on_device is False` would not recognise.
            seconds = float(seconds)
            if side == "device" and path == REPLAYED and not self.replays:
                self.replays = True
                if not self.choice.settled:
                    self.choice.discard("device")     # taken through Python: not like this
            if side == "device" and path != (REPLAYED if self.replays else PYTHON):
                if self.choice.warming("device"):
                    self.choice.record("device", seconds)
                return
            if not self.choice.warming(side):
                seconds = measured_seconds(side, seconds, path)
            self.choice.record(side, float(seconds), calls)

    def not_replayed(self) -> None:
        """The device's calls of this layout take the Python path from now on (the replay
        refused to record one): their times are the evidence again."""
        with _lock:
            self.replays = False

    def __str__(self):
        def fastest(times):
            return f"{min(times) * 1e3:.3f} ms" if times else "not yet"
        how = "replayed " if self.replays else ""
        measured = (f"{fastest(self.device_s)} on the device ({len(self.device_s)} {how}call(s)) "
                    f"vs {fastest(self.openmp_s)} with OpenMP ({len(self.openmp_s)} call(s)), "
                    f"the fastest of each")
        if self.on_device is None:
            again = (f"measured again ({self.choice.revisits} time(s)): the kept side's last "
                     f"calls took {RULES.revisit:g}x the other's; " if self.choice.revisits
                     else "")
            return f"close call, measuring: {again}{measured}; {self.estimate}"
        return (f"measured {'the device' if self.on_device else 'OpenMP'} faster: {measured} "
                f"({self.estimate})")


def trial_key(module, function, nest_id, instance, values, facts, opt) -> tuple:
    """What a measured decision depends on: the nest, its loop extents, the layout of its
    arrays (not their addresses), the device and the optimisation level."""
    arrays = tuple((name, v.shape, v.strides, v.dtype.str) for name, v in values.items()
                   if isinstance(v, np.ndarray))
    extents = tuple((b.var, b.extent) for b in instance.boxes.values())
    return module, function, nest_id, extents, arrays, facts.label, opt


def trial_for(key, estimate) -> Trial:
    return remember(_TRIALS, key, lambda: Trial(estimate), _TRIALS_KEPT)


def doubted(key) -> Optional[Trial]:
    """The trial of a layout the estimate put on the device until its first call said
    otherwise (`contradicts`), or None."""
    with _lock:
        return _TRIALS.get(key)


def contradicts(plan, device_s: float) -> bool:
    """Whether a nest the estimate put on the device (by its margin) measured `device_s`
    (its first call's copies and kernels, event times) so slow that the device is no longer
    clearly faster than the estimated OpenMP time: the layout is then measured both ways.
    (numpy_calls.matrix_powers of tests/kernels on an H200: estimated 0.107 ms a nest on the
    device against 0.69 with OpenMP; 21 nests took 29 ms there, 22 with OpenMP.)"""
    e = plan.estimate
    return not plan.forced and device_s * planning.margin(e) > e.host_s


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
