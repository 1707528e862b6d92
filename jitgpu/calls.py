"""Whether a call whose nests keep data on the device runs them there at all (issue 20, items 3
and 4): the whole call measured both ways where the nests' estimates are not clear.

A nest alone is decided by its estimate where it is clear and by measured calls where it is
close (jitgpu/decide.py). A call that keeps data on the device (a time loop, several nests
sharing arrays) cannot be decided nest by nest: each nest's time depends on where the others
left the data, so its nests go where their shared-copies estimates lean, and the estimates'
errors add up over thousands of launches (H100, cavity flow 201x201: 309 ms with the nests where
their estimates put them, 49.6 ms all on OpenMP). So the call is the unit of the choice:

- Its first offer asks `begin_call`, with the layouts of the function's array arguments, which
  way the call runs: as its nests decide ("device"), or every nest with OpenMP without asking
  the hook ("openmp"). The
  compiled caller (unpy::CallScope) times the whole call, its copies back at the end included,
  and reports the seconds with the answer's token (`call_timed`).
- A "device" call in which no nest ran on the device says nothing: after QUIET such calls in a
  row (or one whose nests all decided for good, `undecided`), the nests refuse by
  themselves, and the compiled caller runs such calls with OpenMP without asking (as below),
  from the call that found it on (`call_timed` answers so).
- A "device" call whose every device nest was clear by its estimate's margin (`decide.
  by_estimate`) settles on the device, what the estimate decides for a nest alone it decides
  for the call, where the call took at most AGREE times its nests' estimated seconds and no
  longer than their estimated seconds with OpenMP: a call the estimates misjudge that much is
  measured both ways. (An H200 ran numpy_exprs.reduction_in_scalar_operand's four device
  nests, estimated at 2.7 ms there against 7.2 with OpenMP, in 15 ms; with OpenMP in 8.1.)
- Otherwise the two sides are a `Choice` (jitgpu/choice.py, decide.RULES): one uncounted call
  each, then counted calls until one side is twice as fast or each has two; the faster kept,
  watched, and measured again when later calls contradict it. A call kept on OpenMP whose calls
  are shorter than decide.WATCH_OPENMP_S is not watched: the compiled caller remembers its
  arguments' layouts and runs the next such call on OpenMP without Python.

The key is the function and its array arguments' layouts (dtypes, shapes, strides), with the
switches that change what the device runs; the scalars (a number of steps) are not in it.
"""
from __future__ import annotations

import itertools
import logging
import sys
import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Optional

from jitgpu.choice import Choice

log = logging.getLogger("unpy")

DEVICE, OPENMP = "device", "openmp"
QUIET = 2               # timed calls without a device nest before the call has nothing to choose
# A device call whose nests were clear by their estimates settles on the device only where it
# took at most this many times their estimated seconds (H100, the corpus's autocorrelation at
# its large size: its 52 reductions estimated at 0.11 ms on the device, 22x faster than
# OpenMP; the calls took 83-97 ms there, 14.9 ms with OpenMP).
AGREE = 4.0

_CALLS = OrderedDict()  # key -> CallTrial, most recent last
_CALLS_KEPT = 256
_TIMED = {}             # token -> (CallTrial, side, scope id) of a call being timed
_TIMED_KEPT = 64
_SCOPES = {}            # scope id -> ScopeTally of a timed "device" call
_tokens = itertools.count(1)
_lock = threading.Lock()


@dataclass(frozen=True, slots=True)
class CallAnswer:
    """`begin_call`'s answer to the compiled caller (unpy::CallScope::begin)."""
    host_only: bool = False     # every nest of the call runs with OpenMP, without the hook
    token: int = 0              # the call's seconds go to `call_timed` with it (0: untimed)
    remember: bool = False      # C++ remembers these layouts as kept on OpenMP (host_only too)


AS_NESTS_DECIDE = CallAnswer()      # (untimed)
OPENMP_REMEMBERED = CallAnswer(host_only=True, remember=True)


@dataclass
class ScopeTally:
    """What a timed "device" call's nests did: whether any ran on the device, whether every one
    that did was clear by its estimate, their estimated seconds there, launch by launch, the
    seconds they spent preparing (transfer analysis, planning, kernel builds, a search's
    step: what a later call of the same layouts does not pay), and whether a nest stayed off
    the device without deciding for good (`undecided`)."""
    device: bool = False
    clear: bool = True
    estimated_s: float = 0.0
    estimated_openmp_s: float = 0.0   # the same nests' estimated seconds with OpenMP
    prepared_s: float = 0.0
    undecided: bool = False         # a nest stayed off the device for now (`undecided`)


@dataclass
class CallTrial:
    """The measured calls of one kind of call and, once settled, the side kept."""
    choice: Choice = field(default_factory=lambda: Choice(_rules(), (DEVICE, OPENMP)))
    quiet: int = 0                  # timed "device" calls in a row without a device nest
    by_estimate: bool = False       # settled on the device by the nests' estimates

    @property
    def idle(self) -> bool:
        """Nothing to choose: the nests refuse the device by themselves."""
        return self.quiet >= QUIET

    def next(self) -> Optional[str]:
        """The side the next call runs; None where the call is left to its nests, untimed.
        (The device's calls come first, and only those with a device nest are counted: OpenMP
        is timed once a call has put a nest on the device.)"""
        if self.idle or self.by_estimate:
            return None
        return self.choice.next()

    def record(self, side: str, seconds: float, tally: Optional[ScopeTally]) -> None:
        """A call of `side` took `seconds`. A device call counts without its nests'
        preparations, as a nest's own trial counts its launches (jitgpu/offload.py): with
        them, a time loop on new arrays looked 2-4x slower on the device than its later calls
        are (H200, jacobi-2d 700x700 x 200 steps: 22 ms against 5-6 ms, and OpenMP's 12 ms
        was kept). Where later calls do pay them, the device side kept is watched and
        measured again."""
        if side == DEVICE and (tally is None or not tally.device):
            # A call whose nests refused with their estimates final says all there is to say:
            # the same inputs are refused again (their refusals are remembered in C++, so the
            # next call of the same arrays would not even ask `begin_call`).
            self.quiet = QUIET if tally is not None and not tally.undecided else \
                self.quiet + 1
            return
        self.quiet = 0
        if side == DEVICE:
            seconds = max(seconds - tally.prepared_s, 0.0)
        if side == DEVICE and tally.clear and not self.choice.settled \
                and seconds <= min(AGREE * tally.estimated_s, tally.estimated_openmp_s):
            self.by_estimate = True
            return
        self.choice.record(side, seconds)

    def describe(self) -> str:
        def fastest(side):
            t = self.choice.fastest(side)
            return "not yet" if t is None else f"{t * 1e3:.3f} ms"
        measured = (f"whole calls {fastest(DEVICE)} with nests on the device vs "
                    f"{fastest(OPENMP)} all with OpenMP, the fastest of each")
        if self.choice.chosen is None:
            return f"the call is measured both ways: {measured}"
        kept = "the device" if self.choice.chosen == DEVICE else "OpenMP"
        return f"measured {kept} faster for the whole call: {measured}"


def _rules():
    from jitgpu.decide import RULES
    return RULES


def begin_call(module: str, function: str, layout: bytes, scope: int) -> CallAnswer:
    """From the compiled caller's first offer of a call that keeps data (`layout`: the dtypes,
    shapes and strides of the function's array arguments; `scope`: the call's id): which way
    the call runs, whether it is timed, and whether C++ remembers the choice."""
    from unpy.settings import current
    settings = current()
    if settings.switched_off or settings.force_gpu or not settings.resident:
        # (UNPY_DEVICE=none: before any import of the GPU stack; UNPY_RESIDENT=0: no call
        # keeps data, each nest decides alone)
        return AS_NESTS_DECIDE
    try:
        from gpurts.device import is_list_spec
        from jitgpu.decide import WATCH_OPENMP_S
        from jitgpu.hook import device_spec
    except ImportError:         # without the extra `gpu`: the hook says so
        return AS_NESTS_DECIDE
    if is_list_spec(device_spec(module, function, settings)):
        return AS_NESTS_DECIDE      # several participants: the split's shares decide
    key = (module, function, layout, settings.device, settings.gpu_opt, settings.gpu_search,
           settings.pin, settings.gpu_mem_limit)
    with _lock:
        trial = _CALLS.get(key)
        if trial is None:
            trial = _CALLS[key] = CallTrial()
            while len(_CALLS) > _CALLS_KEPT:
                _CALLS.popitem(last=False)
        _CALLS.move_to_end(key)
        if trial.idle:
            # Its nests refuse by themselves: the compiled caller skips their hooks too, which
            # a changing scalar or a new array in their inputs would otherwise bring to Python
            # every launch (H100, an n-body leapfrog of 3600 launches a call: 22.5 ms against
            # 16.0 ms; PoCL, the corpus's Floyd-Warshall, a new `dist` every step: 137 ms
            # against 0.064 ms).
            return OPENMP_REMEMBERED
        side = trial.next()
        if side is None:
            return AS_NESTS_DECIDE
        host_only = side == OPENMP
        # Kept on OpenMP, calls too short to watch are remembered in C++.
        remember = host_only and trial.choice.settled and \
            trial.choice.fastest(OPENMP) < WATCH_OPENMP_S
        token = 0 if remember else next(_tokens)
        if token:
            _TIMED[token] = (trial, side, scope)
            while len(_TIMED) > _TIMED_KEPT:        # calls that never ended (a crash)
                _SCOPES.pop(_TIMED.popitem(last=False)[1][2], None)
            if not host_only:
                _SCOPES[scope] = ScopeTally()
    if host_only:
        _openmp_reports(module, function, trial)
    return OPENMP_REMEMBERED if remember else CallAnswer(host_only, token)


def nest_ran(scope: int, clear: bool, estimate_s: float, prepared_s: float = 0.0,
             openmp_s: float = 0.0) -> None:
    """A nest of call `scope` ran on the device (jitgpu/offload.py, jitgpu/relaunch.py);
    `clear`: its estimate alone put it there; `estimate_s`: its estimated seconds there
    (`openmp_s`: with OpenMP); `prepared_s`: the seconds it spent preparing."""
    tally = _SCOPES.get(scope)
    if tally is not None:
        tally.device = True
        tally.clear = tally.clear and clear
        tally.estimated_s += estimate_s
        tally.estimated_openmp_s += openmp_s
        tally.prepared_s += prepared_s


def undecided(scope: int) -> None:
    """A nest of call `scope` stayed off the device without deciding for good: refused for
    this call only (the function's first call: its estimate did not know yet how many nest
    calls share the copies), or timed with OpenMP by its close call's trial (jitgpu/decide.py),
    which wants the device's calls too."""
    tally = _SCOPES.get(scope)
    if tally is not None:
        tally.undecided = True


def measured_seconds(side: str, seconds: float) -> float:
    """The seconds a whole call of `side` counts: the measured ones (a seam: tests replace
    this to decide synthetic situations on the CPU OpenCL device)."""
    return seconds


def call_timed(token: int, seconds: float) -> bool:
    """From the compiled caller: the call `begin_call` answered `token` took `seconds`. Returns
    whether the compiled caller now remembers these layouts as run with OpenMP without asking
    (the trial has nothing to choose: its nests refuse by themselves), as `begin_call` answers
    such a call: the next call's nests may all be skipped by their own remembered refusals (the
    same arrays again), and a call whose nests are all skipped does not ask `begin_call`, but
    it would still build each nest's key at every launch (H100, the corpus's jacobi_1d at its
    test size: 0.107 ms against 0.061 with OpenMP alone)."""
    relaunch = sys.modules.get("jitgpu.relaunch")
    if relaunch is not None:
        relaunch.harvest()       # (its nests' launches from C++ count in the call's tally)
    with _lock:
        found = _TIMED.pop(token, None)
        if found is None:
            return False
        trial, side, scope = found
        trial.record(side, measured_seconds(side, seconds), _SCOPES.pop(scope, None))
    if log.isEnabledFor(logging.INFO):
        log.info("call timed at %.3f ms (%s): %s", seconds * 1e3,
                 "nests on the device" if side == DEVICE else "all with OpenMP",
                 trial.describe())
    return trial.idle


def _openmp_reports(module, function, trial) -> None:
    """What explain shows of the nests of a call run all with OpenMP."""
    from jitgpu import report
    reason = trial.describe()
    for nest_id in report.nests_reported(module, function):
        report.record(module, function, nest_id, report.NestReport(nest_id, "openmp", reason))


def forget() -> None:
    with _lock:
        _CALLS.clear()
        _TIMED.clear()
        _SCOPES.clear()
