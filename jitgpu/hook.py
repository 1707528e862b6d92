"""The call-time hook of @gpu loop nests (SPEC section 4).

A compiled module calls `run_nest(module, function, nest_id, values)` before the OpenMP code of
each outermost prange nest of a @gpu function. It returns None ("not done": run the OpenMP code)
or a dict of the nest's reduction results when the nest ran on the OpenCL device; False when no
device can be used at all, so that the nest skips the hook until UNPY_DEVICE changes; REFUSED
when the analysis or the profitability estimate refused the call's inputs, so that the nest
skips the hook while the same inputs and switches come again (REFUSED_LAYOUT: inputs of the
same layouts and scalars, at any addresses; either + IN_CALL: until the call ends); or, for a nest split across
several participants one of which is its own OpenMP code (jitgpu/multi.py), `(lo, hi, spare,
handle)`: run the OpenMP code on iterations [lo, hi) of the outer loop, then call
`jitgpu.multi.finish_split(handle, reductions)`; or an int, when a close call is being measured
(jitgpu/decide.py): run the OpenMP code and report its seconds with `openmp_timed(int, seconds)`.
Every decision goes to the report that `unpython.explain` shows, and to the 'unpy' logger
(UNPY_LOG=info), the estimated and measured times with it.
"""
from __future__ import annotations

import logging
import time
import traceback

from jitgpu import report
from jitgpu.relaunch import RELAUNCHES, SCOPE_KEY, harvest, try_relaunch
from unpy.settings import current as current_settings

log = logging.getLogger("unpy")


def _configure_logging():
    """The 'unpy' logger's handler, then its level (`UNPY_LOG`, read once: tests set the level
    themselves), so that the settings' own warnings already go through the handler."""
    if not log.handlers:
        handler = logging.StreamHandler()
        handler.setFormatter(logging.Formatter("unpy: %(message)s"))
        log.addHandler(handler)
        log.propagate = False
    log.setLevel(current_settings().log_level)


_configure_logging()


REFUSED = "refused"
# A refusal that holds for arrays of the same layouts at other addresses (nest.Refused.by_layout):
# a temporary the function allocates anew every call then skips the hook too.
REFUSED_LAYOUT = "refused by layout"
# Either, for the rest of the call only (nest.Refused.in_call).
IN_CALL = " in this call"

# gpurts.device's reason for the spec 'none', so that explain says the same either way.
SWITCHED_OFF = "UNPY_DEVICE=none: OpenCL is switched off"


def run_nest(module: str, function: str, nest_id: int, values: dict, key: bytes | None = None):
    """`key`: the call's inputs as bytes (array addresses, shapes, strides, scalars), from the
    compiled caller. With it, a refusal that depends only on the inputs answers REFUSED: the
    caller skips the hook while the same inputs come again (unless every call is logged). A
    nest launched again in its call with only scalars changed is relaunched first thing
    (jitgpu/relaunch.py)."""
    started = time.perf_counter()
    harvest()      # (what C++ relaunched since: counted before anything decides by it)
    if key is not None and not log.isEnabledFor(logging.INFO):
        done = try_relaunch(module, function, nest_id, values, key)
        if done is not None:
            return done
    scope = values.get(SCOPE_KEY, -1)
    where = f"{module}.{function} nest {nest_id}"
    settings = current_settings()
    # `UNPY_DEVICE=none` (which, when set, wins over a function's `@gpu(devices=...)`): decided
    # before any import of the GPU stack (gpurts, pyopencl, the ILP).
    if settings.switched_off:
        _fall_back(module, function, nest_id, where,
                   f"no OpenCL device: {SWITCHED_OFF}", logging.INFO)
        return None if log.isEnabledFor(logging.INFO) else False
    try:
        from gpurts import device_selection
        from gpurts.device import devices_selection, is_list_spec
        from jitgpu.decide import TimeOpenMP
        from jitgpu.multi import device_spec, run_split
        from jitgpu.nest import DeviceFailure, NotOffloadable, Refused
        from jitgpu.offload import run_nest_on_device
    except ImportError as e:    # installed without the extra `gpu` (pyopencl, pulp, highspy)
        _fall_back(module, function, nest_id, where,
                   f"no OpenCL device: the GPU path cannot be imported ({e}; "
                   "pip install 'unpy[gpu]')", logging.INFO)
        return None if log.isEnabledFor(logging.INFO) else False

    spec = device_spec(module, function, settings)
    split = is_list_spec(spec)      # several participants (SPEC section 6, jitgpu/multi.py)
    selection = devices_selection(spec) if split else device_selection(spec)
    if not (selection.devices if split else selection.device):
        _fall_back(module, function, nest_id, where, f"no OpenCL device: {selection.reason}",
                   logging.INFO)
        # False: this nest stops asking until UNPY_DEVICE changes (unless every call is to be
        # logged); the report just recorded stays true for the calls it skips.
        return None if log.isEnabledFor(logging.INFO) else False
    try:
        if split:   # the report of a call that the caller finishes comes from finish_split
            results, nest_report = run_split(module, function, nest_id, values, selection, key)
            if nest_report is None:
                return results
        else:
            results, nest_report = run_nest_on_device(module, function, nest_id, values,
                                                      selection.device, key)
    except TimeOpenMP as e:
        _fall_back(module, function, nest_id, where, str(e), logging.INFO)
        return e.token
    except Refused as e:
        _fall_back(module, function, nest_id, where, str(e), logging.INFO, e.details)
        if key is None or log.isEnabledFor(logging.INFO):
            return None
        return (REFUSED_LAYOUT if e.by_layout else REFUSED) + (IN_CALL if e.in_call else "")
    except DeviceFailure as e:
        return _fall_back(module, function, nest_id, where, str(e), logging.WARNING)
    except NotOffloadable as e:
        return _fall_back(module, function, nest_id, where, str(e), logging.INFO)
    except Exception as e:  # never a crash: a bug in the JIT must not stop the user's program
        log.debug(traceback.format_exc())
        return _fall_back(module, function, nest_id, where,
                          f"internal error in the GPU JIT ({type(e).__name__}: {e})",
                          logging.WARNING)
    report.record(module, function, nest_id, nest_report)
    calls = RELAUNCHES.call(module, function, scope)
    calls.launches += 1
    calls.host_s += time.perf_counter() - started
    if log.isEnabledFor(logging.INFO):
        log.info("%s: ran on %s: %s (%s)", where, nest_report.ran_on, nest_report.reason,
                 nest_report.details.get("time", ""))
    return results


def openmp_timed(token: int, seconds: float) -> None:
    """From the compiled caller: the OpenMP code of the call the hook answered `token` took
    `seconds` (jitgpu/decide.py measures a close call)."""
    from jitgpu.decide import openmp_timed as record
    trial = record(token, seconds)
    if trial is not None and log.isEnabledFor(logging.INFO):
        log.info("OpenMP call timed at %.3f ms: %s", seconds * 1e3, trial)


def _fall_back(module, function, nest_id, where, reason, level, details=None):
    report.record(module, function, nest_id,
                  report.NestReport(nest_id, "openmp", reason, details or {}))
    log.log(level, "%s: OpenMP (%s)", where, reason)
    return None
