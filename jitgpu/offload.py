"""Run one @gpu nest on the OpenCL device, or say why not (SPEC sections 4, 5, 9): the glue of
the call-time steps, each a pure function but the last:

    load_nest -> instantiate (nest.py) -> plan_call (plan.py: parts, transfers, verdict)
      -> bind (bind.py: a KernelNest per part) -> optimise (loopopt) -> print_kernel
      (opencl_emit.py) -> build (gpurts kernel cache) -> execute (gpurts/executor.py) -> report

Everything up to the build depends only on the call's layout (array addresses, shapes,
strides, dtypes), its scalars and the device, and is kept for repeated calls (`Prepared`, an LRU
of a few entries). Every failure is a `NotOffloadable` with a reason, and the caller runs the
OpenMP code.
"""
from __future__ import annotations

import collections
import dataclasses
import functools
import gc
import threading
import time
from dataclasses import dataclass, field
from typing import Optional

import numpy as np

from jitgpu.bind import bind, check_supported, device_limits
from jitgpu.loopopt import describe_level, optimise
from jitgpu.loopopt.cost import GpuModel
from jitgpu.nest import (DeviceFailure, NotOffloadable, Refused, Unsupported, instantiate,
                         load_nest)
from jitgpu.opencl_emit import print_kernel
from jitgpu.plan import DeviceFacts, GpuPlan, plan_call
from jitgpu import calls, decide, overlap, rebase, relaunch, residency, search
from jitgpu.answer import Answer, ran_on_device
from jitgpu.report import NestReport, record_ran, record_transfers
from unpy.host_memory import root_range
from unpy.settings import current as current_settings

# The key of the call scope in the values a compiled caller passes (unpy::CallScope).
SCOPE_KEY = relaunch.SCOPE_KEY


@dataclass(frozen=True)
class Prepared:
    """What a call's nest needs before it runs, reused by later calls on the same layout: the
    plan, and per part the kernel nest, its source and its built kernel. `refusal` instead: why
    this layout does not run on the device (the estimate, or an analysis refusal)."""
    plan: Optional[GpuPlan]
    kernels: tuple = ()          # of (KernelNest, source, BuiltKernel)
    refusal: Optional[str] = None
    unsupported: bool = False    # the refusal holds whatever the inputs (nest.Unsupported)
    analysis_s: float = 0.0
    may_flag: bool = True        # a kernel may set its error flag (jitgpu.residency.may_flag)
    trial: Optional[decide.Trial] = None   # a close call, decided by measured calls
    search: Optional[search.Outcome] = None  # the search of the kernel's tuning, so far
    # The search while it times candidates (later calls step it: `_search_step`), else None.
    pending: Optional[search.Pending] = field(default=None, compare=False, repr=False)
    # What the executor remembers for repeated calls on this layout (gpurts.executor).
    recipes: dict = field(default_factory=dict, compare=False, repr=False)
    # The proofs that let launches with other values of the nest's changing scalars use this
    # preparation (jitgpu.relaunch.IndexChecks), or None where they cannot.
    checks: Optional[relaunch.IndexChecks] = field(default=None, compare=False, repr=False)
    # A layout the estimate put on the device: its trial's key, should its first call
    # contradict the estimate (decide.contradicts).
    trial_key: Optional[tuple] = field(default=None, compare=False, repr=False)
    # The nest's scalars that change between launches (jitgpu.relaunch.ScalarRoles.changing),
    # whose values each call sets in the kernels' arguments (`_set_scalars`).
    changing: frozenset = frozenset()

    @property
    def sources(self) -> tuple:
        return tuple(dict.fromkeys(source for _, source, _ in self.kernels))

    # What every call's report says of it, worked out once (a preparation replaced, by a
    # search's choice say, works it out again).
    @functools.cached_property
    def verdict(self) -> str:
        return self.plan.verdict

    @functools.cached_property
    def tuning_note(self) -> str:
        """The loop optimisations applied to its kernel and the search's choice, for reports."""
        note = ""
        if self.plan.opt != "none":
            note += (f"; UNPY_GPU_OPT={self.plan.opt}: "
                     f"{describe_level(self.plan.opt, self.kernels[0][0])}")
        if self.search is not None:
            note += f"; search chose {self.search.summary}"
        return note


_PREPARED = collections.OrderedDict()     # call key -> Prepared, most recent last
_PREPARED_KEPT = 32
# layout up to addresses (jitgpu.rebase) -> (its RelativeLayout, Prepared): apart from
# _PREPARED, whose new addresses every launch of a time loop with new temporaries would push
# them out of.
_LAYOUTS = collections.OrderedDict()
_LAYOUTS_KEPT = 64
_FACTS = {}                               # (device label, UNPY_GPU_MEM_LIMIT, UNPY_PIN) -> facts


def forget() -> None:
    """Forget the prepared layouts (jitgpu/session.py)."""
    _PREPARED.clear()
    _LAYOUTS.clear()


def device_facts(device, settings=None) -> DeviceFacts:
    """The planning facts of `device` under `settings` (default: the current ones)."""
    settings = settings or current_settings()
    key = (device.label, settings.gpu_mem_limit, settings.pin)
    facts = _FACTS.get(key)
    if facts is None:
        facts = _FACTS[key] = DeviceFacts.of(device)
    return facts


def call_key(module, function, nest_id, values, facts, forced, opt) -> tuple:
    """What the preparation of a call depends on: the live layout of every array (addresses
    included, since groups follow overlaps), the scalars, the device and the switches."""
    parts = [module, function, nest_id, facts, forced, opt]
    for name, value in values.items():       # the compiled module's order, the same every call
        if isinstance(value, np.ndarray):
            parts.append((name, value.__array_interface__["data"][0], value.shape,
                          value.strides, value.dtype.str, root_range(value)))
        else:
            parts.append((name, type(value), value))
    return tuple(parts)


def prepare(module, function, nest_id, values, device, facts, forced, opt,
            resident=0, with_data=False, analysed=None) -> Prepared:
    """`resident` (0: no): the call keeps data on the device, so each array gets one layout
    where that is cheap (`jitgpu.residency.one_layout_per_array`), and the copies are shared by
    that many nest calls (`jitgpu.residency.amortised`). `with_data`: its arrays are on the
    device now (`gpurts.residency.on_device_now`): it runs there. `analysed`: a split layout's
    analyses of its ranges (`jitgpu.plan.analysed_transfers`), where a split's participant
    running alone finds the whole loop's."""
    from gpurts.residency import on_device_now
    started = time.perf_counter()
    try:
        nest = load_nest(module, function, nest_id)
        instance = instantiate(nest, values)
        # What no kernel can do (a call of a function of arrays, say) is known before the
        # transfers are planned, and refused for these inputs as the analysis is.
        check_supported(instance, device.has_fp64)
        plan = plan_call(instance, values, facts, nest=f"{module}.{function} nest {nest_id}",
                         forced=forced, opt=opt, analysed=analysed)
        if resident:
            plan = dataclasses.replace(
                residency.amortised(plan, resident, pipelined=not nest.loop.reductions),
                with_data=with_data)
    except DeviceFailure:
        raise
    except NotOffloadable as e:
        return Prepared(None, refusal=str(e), unsupported=isinstance(e, Unsupported))
    roles = relaunch.scalar_roles(nest)
    # A call that keeps data is decided by the estimate alone (jitgpu/decide.py), the whole
    # call measured both ways where a nest is on the device (jitgpu/calls.py): a nest whose
    # work the estimate only floors goes there to be measured so.
    on_device = ((plan.runs_on_device or bool(plan.estimate.floor_only)) if resident
                 else decide.by_estimate(plan))
    trial = trial_key = None
    if not resident:
        trial_key = decide.trial_key(module, function, nest_id, instance, values, facts, opt)
        if on_device and not forced:
            trial = decide.doubted(trial_key)     # its first call contradicted the estimate
    if on_device is None:
        trial = decide.trial_for(trial_key, plan.estimate)
    if trial is not None:
        on_device = trial.on_device is not False
    if not on_device:
        return Prepared(plan, refusal=str(trial) if trial else plan.verdict, trial=trial)
    if resident:
        # Whole views whatever they cost where one plan must serve every value of an index
        # scalar, or where the arrays are on the device already (their whole views are what
        # the call's other nests keep: cavity flow's boundary rows of `p` moved `p` back and
        # forth every sweep in packed layouts of their own).
        plan = residency.one_layout_per_array(
            plan, instance, values, facts,
            float("inf") if roles.indices or with_data or on_device_now(values)
            else residency.MIRROR_FACTOR)
    checks = relaunch.index_checks(instance, roles, plan, values)
    changing = roles.changing
    limits = device_limits(device)
    searched = search.wanted(plan, instance, limits)

    def in_tiles(build, outcome=None):
        """The call in overlapped tiles with their kernels (`build(part)`), or None."""
        tiles = None if resident else overlap.overlapped(plan, instance, values, facts)
        if tiles is None:
            return None
        kernels = tuple(build(part) for part in tiles.parts)
        if not overlap.usable(kernels):
            return None
        return Prepared(tiles, kernels, analysis_s=time.perf_counter() - started,
                        may_flag=False, trial=trial, search=outcome,
                        checks=checks if not roles.indices else None, trial_key=trial_key,
                        changing=changing)

    if not searched:
        tiled = in_tiles(lambda part: build_part(instance, part, values, device, opt))
        if tiled is not None:
            return tiled
    # A searched part is bound once: the default is built from it, the candidates start from it.
    bound = bind_part(instance, plan.parts[0], values, device) if searched else None
    kernels = [build_part(instance, part, values, device, opt, bound if k == 0 else None)
               for k, part in enumerate(plan.parts)]
    outcome = pending = None
    if searched:
        # The default kernel is built: the search only replaces it with a faster candidate,
        # from its record now or once the worker's builds are timed by later calls.
        chosen, outcome, pending = search.start(f"{module}.{function} nest {nest_id}",
                                                plan.parts[0], values, device, opt, bound,
                                                kernels[0], limits, default_runs=True)
        kernels = [chosen]
        if pending is None:
            # A settled search: tiles get its choice (`prepared_call` prepares a large
            # layout again when its search settles).
            tiled = in_tiles(lambda part: search.build_tuned(
                device, bind_part(instance, part, values, device), opt, outcome.tuning),
                outcome)
            if tiled is not None:
                return tiled
    return Prepared(plan, tuple(kernels), analysis_s=time.perf_counter() - started,
                    may_flag=any(residency.may_flag(source) for _, source, _ in kernels),
                    trial=trial, search=outcome, pending=pending, checks=checks,
                    trial_key=trial_key, changing=changing)


def bind_part(instance, part, values, device):
    """The kernel nest of one part of a plan on `device`, before loop optimisations."""
    return bind(instance, part, values, device.has_fp64, device_limits(device))


def build_options(kernel, device) -> list:
    """clBuildProgram's options for `kernel` on `device`: float32 `/` and sqrt correctly
    rounded where the device can, as the CPU path and the interpreter round them, unless the
    module was built with --fastmath. Never -cl-mad-enable or -cl-fast-relaxed-math (and the
    kernel says FP_CONTRACT OFF): the device rounds as the CPU path does, docs/gpu.md."""
    if kernel.fastmath or not getattr(device, "fp32_correctly_rounded", False):
        return []
    return ["-cl-fp32-correctly-rounded-divide-sqrt"]


def build_part(instance, part, values, device, opt, bound=None) -> tuple:
    """(KernelNest, source, BuiltKernel) of one part of a plan on `device`; `bound`: the part's
    kernel nest from `bind_part`, when the caller has it already."""
    from gpurts import BuildError, build_kernel
    kernel = optimise(bound or bind_part(instance, part, values, device), opt,
                      GpuModel.for_device(device_limits(device)))
    source = print_kernel(kernel)
    try:
        built = build_kernel(device, source, kernel.name, build_options(kernel, device))
    except BuildError as e:
        raise DeviceFailure(f"the OpenCL build failed: {str(e).splitlines()[0]}")
    return kernel, source, built


def prepared_call(module, function, nest_id, values, device, inputs=None,
                  resident=0, with_data=False, settings=None, analysed=None) -> tuple:
    """(Prepared, whether this call prepared it, seconds of its search's step (0.0: none), the
    search's candidate this call runs (search.Trying) or None): repeated calls on the same
    layout reuse the last preparations, and step a pending search (`_search_step`). `inputs`:
    the compiled caller's bytes of the call's array layouts and scalars (`unpy::HookKey`),
    which stand for the arrays and scalars of `values` in the key.
    A call whose inputs differ from an earlier one's only in scalars that change between
    launches (jitgpu/relaunch.py) reuses that one's preparation where its proofs hold for
    this call's values (its family key). `settings`: the call's (default: the current ones)."""
    settings = settings or current_settings()
    facts = device_facts(device, settings)
    forced, opt = settings.force_gpu, settings.gpu_opt
    family = None
    # (the search switch decides the kernel too: jitgpu/search.py)
    if inputs is not None:
        key = (module, function, nest_id, inputs, facts, forced, opt, settings.gpu_search,
               resident) + (("with data",) if with_data else ())
        found = _PREPARED.get(key)
        # (the family only for inputs not seen: a repeated call finds its own key first)
        bytes_ = None if found is not None else relaunch.family_key(
            load_nest(module, function, nest_id), values, inputs)
        if bytes_ is not None:
            family = ("family",) + key[:3] + (bytes_,) + key[4:]
            found = _PREPARED.get(family)
            if found is not None and (_settled_refusal(found) or found.checks is not None and (
                    not found.checks.checks or found.checks.hold(values))):
                _PREPARED.move_to_end(family)
                return found, False, 0.0, None
            family = family if found is None else None
    else:
        key = call_key(module, function, nest_id, values, facts, forced, opt) + (
            settings.gpu_search, resident) + (("with data",) if with_data else ())
    found = _PREPARED.get(key)
    layout = layout_key = None
    if found is None:
        # New addresses: a preparation of the same layout elsewhere in memory, moved here.
        layout = rebase.relative_layout(values)
        if layout is not None:
            layout_key = (module, function, nest_id, layout.key, facts, forced, opt,
                          settings.gpu_search, resident, with_data)
            found = _moved(_LAYOUTS.get(layout_key), layout)
            if found is not None:
                _keep(_PREPARED, key, found, _PREPARED_KEPT)
    if found is not None and found.refusal and found.trial is not None \
            and found.trial.on_device is not False:
        found = None        # kept on OpenMP, its trial measures the device again: prepared anew
    if found is not None:
        try:
            _PREPARED.move_to_end(key)
        except KeyError:          # another thread dropped it meanwhile
            pass
        if found.pending is None:
            return found, False, 0.0, None
        started = time.perf_counter()
        found, trying = _search_step(key, found)
        step_s = time.perf_counter() - started
        if found.pending is None and not found.may_flag and overlap.worth_tiling(found.plan):
            # Its search just settled: prepared again, in tiles built with the choice.
            found = prepare(module, function, nest_id, values, device, facts, forced, opt,
                            resident, with_data, analysed)
            _PREPARED[key] = found
            return found, True, step_s, None
        return found, False, step_s, trying
    found = prepare(module, function, nest_id, values, device, facts, forced, opt, resident,
                    with_data, analysed)
    _after_first_preparation()
    _PREPARED[key] = found
    if layout_key is not None and found.pending is None:
        _keep(_LAYOUTS, layout_key, (layout, found), _LAYOUTS_KEPT)
    if family is not None and (_settled_refusal(found) or found.checks is not None
                               and found.pending is None and found.refusal is None):
        _PREPARED[family] = found       # (the same object: a search's switch updates both)
    while len(_PREPARED) > _PREPARED_KEPT:
        _PREPARED.popitem(last=False)
    return found, True, 0.0, None


def _moved(kept, layout) -> Optional[Prepared]:
    """The preparation `kept` ((its layout, Prepared) or None) moved to the memory of the call of
    `layout` (`jitgpu.rebase`), with recipes and kernel objects of its own (the arguments bound
    to a kernel object are its layout's: a replay of the old layout launches it); None where
    there is none to move or it cannot move (a search still times its candidates on the old
    call's data)."""
    from gpurts.kernel_cache import fresh_kernel
    if kept is None or kept[1].pending is not None:
        return None
    old, prepared = kept
    if prepared.plan is None:
        return prepared
    plan = rebase.rebased(prepared.plan, old, layout)
    if plan is None:
        return None
    kernels = tuple((kernel, source, built._replace(kernel=fresh_kernel(built.kernel)))
                    for kernel, source, built in prepared.kernels)
    return dataclasses.replace(prepared, plan=plan, kernels=kernels, recipes={})


def _forget_preparations(trial_key) -> None:
    """Drop the kept preparations of the layout of `trial_key` (here and moved elsewhere in
    memory): its next call prepares it again (rare: a contradicted estimate)."""
    for cache, prepared_of in ((_PREPARED, lambda v: v), (_LAYOUTS, lambda v: v[1])):
        for key in [k for k, v in list(cache.items()) if prepared_of(v).trial_key == trial_key]:
            cache.pop(key, None)


def _keep(cache, key, value, kept) -> None:
    cache[key] = value
    while len(cache) > kept:
        cache.popitem(last=False)


@functools.cache
def _after_first_preparation() -> None:
    """Once per process, after its first preparation: the replay's one-time set-up made now,
    in the first call, which pays for one-time work anyway (the OpenCL entry points through
    cffi, whose C parser loads in 45-55 ms: the call that first recorded a replay took 79 ms
    against 4.8 ms on an H200, nbody f32 65536); then `_freeze_long_lived`."""
    if current_settings().replay:
        from gpurts.record import entry_points
        try:
            entry_points()
        except OSError:
            pass                 # (no loader to open: no replay; the record says why)
    _freeze_long_lived()


def _freeze_long_lived() -> None:
    """The garbage collected, and the objects alive then (the GPU stack's modules, the nests'
    IR, the first plans) frozen (`gc.freeze`), so that Python's full collections no longer
    walk them. Such a collection took 15-30 ms at a random later call while a search ran (an
    H200, mmult 2048 in a fresh process: one call of 16-34 ms among 3.4-6.7 ms ones in each of
    fifteen runs; none in six runs with them frozen:
    bench/results/search-first-calls-gc-h200-2026-11-27.md). `gc.unfreeze()` undoes it."""
    gc.collect()
    gc.freeze()


def _settled_refusal(prepared: Prepared) -> bool:
    """Whether `prepared` keeps the nest on OpenMP for good (no trial still measuring): the same
    answer for other values of the scalars a relaunch changes, which change no trip count or
    bound (Floyd-Warshall's pivot `k` on OpenMP: each new `k` prepared again, 0.75 ms a launch
    on PoCL once more than the 32 layouts kept had come)."""
    return prepared.refusal is not None and (prepared.trial is None
                                             or prepared.trial.on_device is False)


def _search_step(key, prepared: Prepared) -> tuple:
    """(the prepared layout after its pending search took this call's turn
    (`search.Pending.turn`), the candidate this call runs or None): the Outcome brought up to
    date, and once the search is over, the chosen kernel in place of the default (its own
    recipes: the executor's kept arguments are the kernel's), or the search dropped where it
    was abandoned."""
    step = prepared.pending.turn(prepared.recipes.setdefault(0, {}))
    if step is None:                 # another call is taking its turn
        return prepared, None
    outcome, chosen, over, trying = step
    if not over:
        if outcome == prepared.search:
            return prepared, trying
        updated = dataclasses.replace(prepared, search=outcome)
    elif chosen is None or chosen is prepared.kernels[0]:
        updated = dataclasses.replace(prepared, search=outcome, pending=None)
    else:
        updated = dataclasses.replace(prepared, kernels=(chosen,), search=outcome,
                                      pending=None, recipes={},
                                      may_flag=residency.may_flag(chosen[1]))
    if _PREPARED.get(key) is prepared:
        _PREPARED[key] = updated
    return updated, trying


def run_nest_on_device(module, function, nest_id, values, device, key=None, measure=True,
                       replayable=None, settings=None, analysed=None
                       ) -> tuple[Answer, NestReport]:
    """(answer DONE, report) when the nest ran on the device; raises NotOffloadable.
    `measure`: a close call is measured (jitgpu/decide.py; the hook answers TIMED_OPENMP
    for its OpenMP calls); False (a split's participant alone, which the split's shares time
    against the others): a close call not yet measured runs where the estimate leans.
    `replayable` (default: `measure`): later calls with the same inputs may replay this one
    from C++ (jitgpu/replay.py), as when a split has settled on this device alone. The
    search's worker starts nothing meanwhile (`search.foreground`): neither a build, which
    would hold up this call's own, nor Python work, which would hold the GIL from it.
    `settings`: the call's, read once by the hook (default: the current ones). `analysed`:
    see `prepare`."""
    with search.foreground():
        return _run_nest_on_device(module, function, nest_id, values, device, key, measure,
                                   measure if replayable is None else replayable,
                                   settings or current_settings(), analysed)


def _ask_openmp(trial, scope):
    """The answer of a call whose nest its close call's trial times with OpenMP (its call's
    choice, where it keeps data, is then not settled by this call)."""
    calls.undecided(scope)
    return decide.ask_openmp(trial)


def _run_nest_on_device(module, function, nest_id, values, device, key, measure, replayable,
                        settings, analysed):
    from gpurts import DeviceError
    from gpurts.executor import KernelFlagged, execute
    from jitgpu import replay

    from gpurts.residency import TABLE, enabled, on_device_now

    started = time.perf_counter()
    # The compiled caller's call scope (unpy::CallScope): data may stay on the device until
    # the call ends or the host needs it (SPEC section 8).
    scope = values.pop(SCOPE_KEY, None)
    keep = scope is not None and scope > 0 and enabled()
    share = residency.nest_calls_share(module, function, scope) if keep else None
    prepared, first_call, step_s, trying = prepared_call(module, function, nest_id, values,
                                                         device, key, share or keep,
                                                         settings=settings, analysed=analysed)
    if prepared.refusal and keep and prepared.plan is not None \
            and on_device_now(values):
        # Kept off the device by its estimate, while its arrays are there: prepared for the
        # device (its estimate's refusals only: what cannot run there stays refused), and run
        # there where it finds them in its own layouts (else it would copy them anyway).
        with_data, first_again, step_s, trying_there = prepared_call(
            module, function, nest_id, values, device, key, share or keep, True, settings,
            analysed)
        first_call = first_call or first_again
        if not with_data.refusal and residency.reuses_entries(
                with_data.plan, *TABLE.snapshot(), may_flag=with_data.may_flag):
            prepared, trying = with_data, trying_there
    if prepared.unsupported:
        raise Unsupported(prepared.refusal)
    prepared_s = time.perf_counter() - started if first_call else 0.0
    if first_call:
        relaunch.RELAUNCHES.call(module, function, scope if scope is not None else -1
                                 ).prepared += 1
    if prepared.refusal and measure and prepared.trial is not None \
            and prepared.trial.watches_openmp():
        raise _ask_openmp(prepared.trial, scope)    # kept on OpenMP, watched (decide.py)
    if prepared.refusal:
        # The first call of a function that keeps data does not know yet how many nest calls
        # share its copies: its refusal holds for the rest of this call only (a time loop's
        # first call would otherwise ask here at every launch: 30-60 us each).
        if keep and share is None:
            calls.undecided(scope)
            raise Refused(prepared.refusal, by_layout=prepared.plan is not None, in_call=True)
        # By layout only for a nest alone in its call: the nests of a call that keeps data are
        # skipped together, once a call, by the call's own choice (jitgpu/calls.py), where
        # refusals remembered nest by nest would check the switches at every launch (H100,
        # the corpus at its test size: 2-3x slower calls than OpenMP's).
        raise Refused(prepared.refusal, by_layout=prepared.plan is not None and not keep)
    trial = prepared.trial
    if trial is not None and measure:
        replay.harvest(prepared, trial)     # a replayed call's time is a device sample
    if trial is not None and trial.on_device is None and not measure:
        if not prepared.plan.profitable:
            raise Refused(prepared.plan.verdict)
        trial = None
    if trial is not None and trial.on_device is False:
        raise (_ask_openmp(trial, scope) if measure and trial.watches_openmp()
               else Refused(str(trial), by_layout=not keep))
    if trial is not None and trial.on_device is None and trial.wants_openmp():
        raise _ask_openmp(trial, scope)
    log = None
    if scope is not None and scope > 0:
        log = TABLE.log(scope)
        record_transfers(module, function, log)
    entries, held = TABLE.state
    # (nothing on the device and nothing to keep: the plan as prepared)
    plan = prepared.plan if not (entries or held or keep) else residency.apply_residency(
        prepared.plan, entries, held, keep=keep, may_flag=prepared.may_flag)
    # A search's candidate runs as this call's kernel (its recipe its own), else the layout's.
    run = prepared if trying is None else dataclasses.replace(
        prepared, kernels=(trying.kernel,), recipes={0: trying.recipe})
    _set_scalars(run, values)
    label = device.label
    try:
        results, timings = execute(plan, [(k, built.kernel) for k, _, built in run.kernels],
                                   values, {label: device}, run.recipes, scope, log)
    except KernelFlagged as e:
        if prepared.pending is not None:
            prepared.pending.abandon(str(e))
        raise NotOffloadable(str(e)) from None
    except DeviceError as e:
        if trying is not None:
            prepared.pending.failed(trying.label)
        raise DeviceFailure(str(e)) from e
    total_s = time.perf_counter() - started
    if prepared.pending is not None:     # the search's sample of the kernel this call ran
        prepared.pending.ran(trying.label if trying else prepared.pending.first.label,
                             timings.kernel_seconds)
    clear = keep and decide.by_estimate(prepared.plan) is True   # (the call's choice)
    if keep:
        calls.nest_ran(scope, clear, prepared.plan.estimate.device_s, prepared_s + step_s,
                       openmp_s=prepared.plan.estimate.host_s)
    if trial is not None:
        trial.record("device", total_s - prepared_s - step_s)
    elif first_call and prepared.trial_key is not None and decide.contradicts(
            prepared.plan, timings.h2d_seconds + timings.kernel_seconds + timings.d2h_seconds):
        # Measured both ways from the next call on (this one is the device's uncounted one).
        trial = decide.trial_for(prepared.trial_key, prepared.plan.estimate)
        trial.record("device", total_s - prepared_s - step_s)
        replayable = False
        _forget_preparations(prepared.trial_key)    # (prepared anew, with the trial)
    nest_report = _report(module, function, nest_id, label, device_facts(device, settings),
                          plan, run, timings, total_s, first_call, trial)
    replay_record = relaunch_record = None
    if replayable:
        nest_report.replay = replay.offer(device, plan, prepared, values, keep, key,
                                          settings.replay)
        if isinstance(nest_report.replay, replay.Record):
            replay_record = nest_report.replay
        elif trial is not None:
            trial.not_replayed()        # its calls through Python are the evidence again
    if keep and key is not None and trying is None:
        nest_report.relaunch = relaunch.offer(
            module, function, nest_id, scope, key, values, settings, device, plan,
            prepared, prepared.checks, clear)
        if nest_report.relaunch is not None:
            relaunch_record = nest_report.relaunch.record
    return ran_on_device(results, replay_record, relaunch_record), nest_report


def _set_scalars(prepared, values) -> None:
    """This call's values of the nest's changing scalars in each part's kernel arguments: a
    preparation made for other values (jitgpu/relaunch.py) serves this call."""
    changing = prepared.changing
    if not changing:
        return
    from gpurts.executor import scalar_positions, set_scalars
    for index, (kernel, _, built) in enumerate(prepared.kernels):
        positions = scalar_positions(kernel, changing)
        if positions:
            recipe = prepared.recipes.setdefault(index, {})
            with recipe.get("lock") or recipe.setdefault("lock", threading.Lock()):
                set_scalars(built.kernel, kernel, recipe, positions, values)


def _report(module, function, nest_id, label, facts, plan, prepared, timings, total_s,
            first_call, trial=None) -> NestReport:
    """The report of a call that ran on the device, recorded (`jitgpu.report.record_ran`). Its
    details and timings are worked out when first read (reading the events' times costs more
    than the rest of a small call)."""
    analysis_s = prepared.analysis_s if first_call else 0.0
    builds = [built for _, _, built in prepared.kernels]
    build_s = sum(b.build_seconds for b in builds) if first_call else 0.0
    hits = sum(b.cache_hit for b in builds) if first_call else len(builds)

    def details_and_timings():
        kernel = prepared.kernels[0][0]
        moved = timings.h2d_bytes + timings.d2h_bytes
        h2d_s, kernel_s, d2h_s = timings.h2d_seconds, timings.kernel_seconds, timings.d2h_seconds
        peak = min(facts.h2d, facts.d2h)
        rate = moved / total_s if total_s > 0 else 0.0
        details = {
            "groups": [f"{', '.join(g.arrays)}: case {g.case}, {g.device_elems} elements "
                       f"({g.device_elems * g.itemsize} B), copy-in {g.copy_in}, "
                       f"copy-back {g.copy_back}" for g in plan.parts[0].transfers.groups],
            "ndrange": f"global {kernel.global_size}, local {kernel.local_size} over "
                       + ", ".join(level.var for level in kernel.levels)
                       + (f", {len(plan.parts)} {'overlapped ' if plan.overlap else ''}tiles"
                          if len(plan.parts) > 1 else ""),
            "bytes": f"moved {moved} B (h2d {timings.h2d_bytes}, d2h {timings.d2h_bytes}), "
                     f"distinct touched {plan.touched_bytes} B; {rate / 1e9:.2f} GB/s over the "
                     f"call vs a measured link peak of {peak / 1e9:.2f} GB/s",
            "time": (f"analysis {analysis_s * 1e3:.3f} ms, OpenCL build "
                     f"({hits}/{len(builds)} cache hits) {build_s * 1e3:.3f} ms, "
                     f"h2d {h2d_s * 1e3:.3f} ms, kernel {kernel_s * 1e3:.3f} ms, "
                     f"d2h {d2h_s * 1e3:.3f} ms, total {total_s * 1e3:.3f} ms"),
        }
        if prepared.search is not None:
            details["search"] = str(prepared.search)
        return details, {
            "analysis": analysis_s, "build": build_s, "cache_hits": hits,
            "h2d": h2d_s, "kernel": kernel_s, "d2h": d2h_s, "total": total_s,
            "tiles": len(plan.parts), "bytes_moved": moved, "bytes_touched": plan.touched_bytes,
            "gb_per_s": rate / 1e9, "link_peak_gb_per_s": peak / 1e9}

    reason = (str(trial) if trial else prepared.verdict if plan is prepared.plan
              else plan.verdict) + prepared.tuning_note
    return record_ran(module, function, nest_id, label, reason, details_and_timings,
                      plan=plan, sources=prepared.sources)
