"""The call-time hook of @gpu loop nests (SPEC section 4).

A compiled module calls `run_nest(module, function, nest_id, values)` before the OpenMP code of
each outermost prange nest of a @gpu function. It answers one `jitgpu.answer.Answer`, whose
`kind` says what the caller does: RUN_OPENMP (run the OpenMP code); DONE (the nest ran on the
OpenCL device: its reduction results, and the records the caller replays or relaunches later
calls from); NO_DEVICE (no device can be used at all, or no kernel of the nest can run on it
whatever the inputs, `nest.Unsupported`: the nest skips the hook until UNPY_DEVICE changes);
REFUSED (the analysis or the profitability estimate refused the call's inputs: the nest
skips the hook while the same inputs and switches come again; `by_layout`: inputs of the same
layouts and scalars, at any addresses; `in_call`: until the call ends); SPLIT (the nest is split
across several participants one of which is its own OpenMP code, jitgpu/multi.py: run the
OpenMP code on iterations [lo, hi) of the outer loop, then call
`jitgpu.multi.finish_split(handle, reductions)`); or TIMED_OPENMP (a close call is being
measured, jitgpu/decide.py: run the OpenMP code and report its seconds with
`openmp_timed(token, seconds)`). Every decision goes to the report that `unpython.explain`
shows, and to the 'unpy' logger (UNPY_LOG=info), the estimated and measured times with it.
"""
from __future__ import annotations

import logging
import time
import traceback

from jitgpu import report
from jitgpu.answer import NO_DEVICE, RUN_OPENMP, Answer, refused, timed_openmp
from jitgpu.relaunch import RELAUNCHES, SCOPE_KEY, first_thing
from unpy.settings import Settings
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


def device_spec(module: str, function: str, settings: Settings | None = None) -> str:
    """The participants of a nest: `UNPY_DEVICE` when set, else the function's
    `@unpython.gpu(devices=...)`, else '' (the default: the first GPU). `settings`: the
    call's (default: the current ones)."""
    spec = (settings or current_settings()).device
    if spec:
        return spec
    import unpython
    from jitgpu.nest import python_name
    return unpython._devices.get((module, python_name(module, function)), "")


# gpurts.device's reason for the spec 'none', so that explain says the same either way.
SWITCHED_OFF = "UNPY_DEVICE=none: OpenCL is switched off"


def run_nest(module: str, function: str, nest_id: int, values: dict,
             key: bytes | None = None) -> Answer:
    """The nest's answer (see the module docstring). `key`: the call's inputs as bytes (array
    addresses, shapes, strides, scalars), from the compiled caller. With it, a refusal that
    depends only on the inputs answers REFUSED: the caller skips the hook while the same inputs
    come again (unless every call is logged). A nest launched again in its call with only
    scalars changed is relaunched first thing (jitgpu/relaunch.py)."""
    started = time.perf_counter()
    relaunched = first_thing(module, function, nest_id, values,
                             None if log.isEnabledFor(logging.INFO) else key)
    if relaunched is not None:
        return relaunched
    scope = values.get(SCOPE_KEY, -1)
    where = f"{module}.{function} nest {nest_id}"
    settings = current_settings()
    # `UNPY_DEVICE=none` (which, when set, wins over a function's `@gpu(devices=...)`): decided
    # before any import of the GPU stack (gpurts, pyopencl, the ILP).
    if settings.switched_off:
        _fall_back(module, function, nest_id, where,
                   f"no OpenCL device: {SWITCHED_OFF}", logging.INFO)
        return _no_device()
    try:
        from gpurts.device import DevicesSelection, selection_for
        from jitgpu.decide import TimeOpenMP
        from jitgpu.multi import run_split
        from jitgpu.nest import DeviceFailure, NotOffloadable, Refused, Unsupported
        from jitgpu.offload import run_nest_on_device
    except ImportError as e:    # installed without the extra `gpu` (pyopencl, pulp, highspy)
        _fall_back(module, function, nest_id, where,
                   f"no OpenCL device: the GPU path cannot be imported ({e}; "
                   "pip install 'unpy[gpu]')", logging.INFO)
        return _no_device()

    selection = selection_for(device_spec(module, function, settings))
    # several participants (SPEC section 6, jitgpu/multi.py)
    split = isinstance(selection, DevicesSelection)
    if not (selection.devices if split else selection.device):
        _fall_back(module, function, nest_id, where, f"no OpenCL device: {selection.reason}",
                   logging.INFO)
        # (the report just recorded stays true for the calls NO_DEVICE skips)
        return _no_device()
    try:
        if split:   # the report of a call that the caller finishes comes from finish_split
            answer, nest_report = run_split(module, function, nest_id, values, selection, key,
                                            settings)
            if nest_report is None:
                return answer
        else:
            answer, nest_report = run_nest_on_device(module, function, nest_id, values,
                                                      selection.device, key, settings=settings)
    except TimeOpenMP as e:
        _fall_back(module, function, nest_id, where, str(e), logging.INFO)
        return timed_openmp(e.token)
    except Unsupported as e:
        # (the report recorded stays true for the calls NO_DEVICE skips)
        _fall_back(module, function, nest_id, where, str(e), logging.INFO)
        return _no_device()
    except Refused as e:
        _fall_back(module, function, nest_id, where, str(e), logging.INFO, e.details)
        if key is None or log.isEnabledFor(logging.INFO):
            return RUN_OPENMP
        return refused(e.by_layout, e.in_call)
    except DeviceFailure as e:
        return _fall_back(module, function, nest_id, where, str(e), logging.WARNING)
    except NotOffloadable as e:
        return _fall_back(module, function, nest_id, where, str(e), logging.INFO)
    except Exception as e:  # never a crash: a bug in the JIT must not stop the user's program
        log.debug(traceback.format_exc())
        return _fall_back(module, function, nest_id, where,
                          f"internal error in the GPU JIT ({type(e).__name__}: {e})",
                          logging.WARNING)
    # (the step that ran the nest recorded its report: jitgpu.report.record_ran)
    calls = RELAUNCHES.call(module, function, scope)
    calls.launches += 1
    calls.host_s += time.perf_counter() - started
    if log.isEnabledFor(logging.INFO):
        log.info("%s: ran on %s: %s (%s)", where, nest_report.ran_on, nest_report.reason,
                 nest_report.details.get("time", ""))
    return answer


def openmp_timed(token: int, seconds: float) -> None:
    """From the compiled caller: the OpenMP code of the call the hook answered `token` took
    `seconds` (jitgpu/decide.py measures a close call)."""
    from jitgpu.decide import openmp_timed as record
    trial = record(token, seconds)
    if trial is not None and log.isEnabledFor(logging.INFO):
        log.info("OpenMP call timed at %.3f ms: %s", seconds * 1e3, trial)


def _no_device() -> Answer:
    """NO_DEVICE: the nest stops asking until UNPY_DEVICE changes, unless every call is to be
    logged."""
    return RUN_OPENMP if log.isEnabledFor(logging.INFO) else NO_DEVICE


def _fall_back(module, function, nest_id, where, reason, level, details=None) -> Answer:
    report.record(module, function, nest_id,
                  report.NestReport(nest_id, "openmp", reason, details or {}))
    log.log(level, "%s: OpenMP (%s)", where, reason)
    return RUN_OPENMP
