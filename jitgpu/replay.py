"""Which device calls are replayed from C++, without Python, and when (issue 7, section 3);
the records themselves are the runtime's (gpurts/record.py).

Python decides a call once; when its answer can only be the same for a later call with the
same inputs (array addresses, shapes, strides, scalars: `unpy::HookKey`) and switches, the
hook's answer carries a `Record` (`Answer.replay`), and the compiled caller (`unpy::Replay`)
runs later such calls from it, without the GIL.

    refusal (pure: why a call is not replayable) -> record / record_split (how its copies are
      pinned, the record's budget of calls) -> gpurts.record (the ops, the kits, the record)

The compiled caller replays only while nothing is on the device (`anything_resident()`) and
the epoch (`gpurts.epoch.REPLAY_EPOCH`) is the record's: `unpython.resident` and
`jitgpu.decide.forget` bump it. `UNPY_REPLAY=0` turns replaying off. A set error flag or any
OpenCL error drops the record (its status word) and the call takes the Python path, which
falls back to OpenMP and raises as the interpreter does.

A close call being measured (jitgpu/decide.py) replays one call per device turn (the record's
budget word); C++ times it, and the next Python call hands that time to the trial
(`harvest`), so that small kernels are judged at the speed their repeated calls run: recorded
with their arrays pinned at once (not after REPIN_AFTER replays), and once a replayed time
came, the trial counts no device call through Python.
"""
from __future__ import annotations

from gpurts.executor import part_sources
from gpurts.pins import pinning_on
from gpurts.record import LAST_NS, Record, call_ops, make_record, release, take_part
from unpy.settings import current as current_settings

# A layout replayed this many times is recorded again, with its staged arrays of at least
# REPIN_BYTES pinned, so that its copies skip the staging memcpy. Measured on an H100
# (2026-11-25, replayed calls at n=256, median of 41), pinned at 16384 bytes against staged:
# mmult f64 0.132 against 0.282 ms, syrk f64 0.146 / 0.249, syr2k f64 0.166 / 0.304, mmult f32
# 0.115 / 0.158, cp 0.067 / 0.076. Not at the first record: a pin costs about half a
# millisecond, which a program calling on new arrays every time would pay on every call.
REPIN_AFTER = 8
REPIN_BYTES = 16384


def replay_pin_bytes():
    """`UNPY_REPLAY_PIN_BYTES`: roots of at least this many bytes that a replayed layout would
    stage are pinned at its first record (0: none below `gpurts.pins.PIN_MIN_BYTES`, as every
    call); None (unset, the default): REPIN_BYTES, once the layout is replayed REPIN_AFTER
    times."""
    return current_settings().replay_pin_bytes


def switched_refusal(switched_off: bool, keyed: bool, logging_every_call: bool) -> str | None:
    """Why no call is replayed, whatever ran: the switch, no key from the compiled caller, or
    every call to be logged; or None."""
    if switched_off:
        return "UNPY_REPLAY=0"
    if not keyed:
        return "the compiled caller gives no key of its inputs"
    if logging_every_call:
        return "UNPY_LOG=info logs every call"
    return None


def refusal(plan, applied_plan, trial, keep: bool, kernel, logging_every_call: bool,
            keyed: bool, switched_off: bool = False, searching: bool = False) -> str | None:
    """Why a call that ran on the device is not replayed from C++, or None. `searching`: the
    layout's search (jitgpu/search.py) still times candidates, on calls that come through
    Python."""
    why = switched_refusal(switched_off, keyed, logging_every_call)
    if why is not None:
        return why
    if len(plan.parts) != 1:
        return f"{len(plan.parts)} parts"
    if searching:
        return "the search of this layout is still timing candidates"
    if keep or applied_plan is not plan:
        return "data stays on the device (residency)"
    if trial is not None and trial.on_device is False:
        return "the GPU-vs-OpenMP decision chose OpenMP"
    if kernel.reductions:
        return "the nest has reductions"
    return None


def arm(found: Record, trial) -> None:
    """Let C++ replay any number of calls of `found`; while `trial` (a close call) is measuring,
    one: its time is a device sample that `harvest` hands the trial; once kept on the device,
    `trial.replay_budget()` (the trial watches the kept side); a record to be pinned, up to
    REPIN_AFTER replays in all, after which a call comes through Python again."""
    watch = trial.replay_budget() if trial is not None else None
    if watch == 1:
        found.allow(1)
    elif found.repin:
        found.allow(max(REPIN_AFTER - found.calls, 0))
    else:
        found.allow(-1 if watch is None else watch)


def harvest(prepared, trial) -> None:
    """Hand `trial` (a close call being measured, jitgpu/decide.py) the time of the call C++
    replayed since the last Python call on this layout, as a device sample: the device side
    is then judged at the speed its repeated calls run."""
    found = prepared.recipes.get(0, {}).get("replay")
    if found is not None and found.calls > found.harvested:
        from jitgpu.decide import REPLAYED
        calls, found.harvested = found.calls - found.harvested, found.calls
        trial.record("device", found.words[LAST_NS] * 1e-9, calls, REPLAYED)


def _kept(found, trial, renew: bool = False) -> "Record | str | None":
    """The record so far re-armed for `trial` while live (unless to be made anew, `renew`), why
    a layout whose record failed is not recorded again, or None (record it)."""
    if found is not None and found.live and not renew:
        arm(found, trial)
        return found
    if found is not None and found.failed:
        return "an OpenCL error stopped replaying this layout"
    return None


def record(device, part, kernel, built_kernel, values, recipe, group_sources, may_flag,
           trial=None):
    """A Record of the call just run (the part's kit taken from `recipe`), armed for `trial`,
    or why not (str). `group_sources`: per group (owner, sources, itemsize), as `copies`
    takes them."""
    found = recipe.get("replay")
    # A close call being measured judges the device by its replays (jitgpu/decide.py): they
    # run pinned at once, as the layout's replays will once it proves repeated.
    measuring = trial is not None and trial.on_device is None
    repinning = found is not None and found.live and found.repin and (
        found.calls >= REPIN_AFTER or measuring)
    kept = _kept(found, trial, repinning)
    if kept is not None:
        return kept
    explicit = replay_pin_bytes()
    pin_bytes = explicit if explicit is not None else (
        REPIN_BYTES if repinning or measuring else 0)
    taken = take_part(device, part, kernel, built_kernel, recipe, group_sources, may_flag,
                       pin_bytes)
    if isinstance(taken, str):
        return taken
    ops, keep, nbytes, copy_list = taken
    # Staged copies that pins could take later, once the layout proves repeated.
    repin = (explicit is None and not repinning and not measuring and pinning_on(device)
             and any(c.staged and c.nbytes >= REPIN_BYTES for c in copy_list))
    found = make_record(call_ops([ops]), device.queue.int_ptr, keep, nbytes, repin)
    arm(found, trial)
    recipe["replay"] = found
    return found


def record_split(parts, found=None) -> "Record | str":
    """A Record of a split call just run, its parts (device, part, kernel, built kernel,
    recipe, group sources, may_flag) on their devices' queues together, or why not (str);
    `found`: the split's record so far (re-armed while live). Its copies pinned at once: a
    split is recorded only once its shares settled, after calls of the same layout."""
    kept = _kept(found, None)
    if kept is not None:
        return kept
    explicit = replay_pin_bytes()
    taken = []
    try:
        for device, part, kernel, built_kernel, recipe, group_sources, may_flag in parts:
            one = take_part(device, part, kernel, built_kernel, recipe, group_sources,
                             may_flag, REPIN_BYTES if explicit is None else explicit)
            if isinstance(one, str):
                return one
            taken.append(one)
    finally:
        if len(taken) < len(parts):
            for _, _, nbytes, _ in taken:
                release(nbytes)
    found = make_record(call_ops([ops for ops, _, _, _ in taken]), taken[0][0].queue,
                    tuple(keep for _, keep, _, _ in taken), sum(n for _, _, n, _ in taken))
    arm(found, None)
    return found


def offer(device, applied_plan, prepared, values, keep: bool, key, replay_on: bool
          ) -> "Record | str":
    """After a call of the hook ran on the device: a Record that the compiled caller replays
    while the same inputs come again, or why not (for `unpython.explain`). `replay_on`: the
    call's UNPY_REPLAY. Never raises."""
    import logging
    kernel, _, built = prepared.kernels[0]
    why = refusal(prepared.plan, applied_plan, prepared.trial, keep, kernel,
                  logging.getLogger("unpy").isEnabledFor(logging.INFO), key is not None,
                  not replay_on, prepared.pending is not None)
    if why is not None:
        return why
    recipe = prepared.recipes.setdefault(0, {})
    try:
        return record(device, applied_plan.parts[0], kernel, built.kernel, values, recipe,
                      part_sources(applied_plan.parts[0], values, recipe), prepared.may_flag,
                      prepared.trial)
    except Exception as e:      # never a crash: the Python path stays
        return f"no record ({type(e).__name__}: {e})"


def offer_split(devices, prepared, values, inputs, settled: bool, replay_on: bool
                ) -> "Record | str":
    """After a split call the devices ran alone (jitgpu/multi.py): the Record that the compiled
    caller replays later calls with the same inputs from, every device's part on its queue,
    or why not (str; never raises). Through Python each part gathers and enqueues its arrays
    on its thread (H200 x2, nbody f32 65536: about 1.1 ms a call beyond the one-device call's
    0.14 ms). Only once the shares settled (`settled`): replayed calls teach the Balance
    nothing. `replay_on`: the call's UNPY_REPLAY."""
    import logging
    from jitgpu.residency import may_flag
    kernels, recipes = prepared.kernels, prepared.recipes
    why = (switched_refusal(not replay_on, inputs is not None,
                            logging.getLogger("unpy").isEnabledFor(logging.INFO))
           or ("the shares are still moving" if not settled
               else "its parts run as overlapped tiles" if prepared.tiled
               else "the nest has reductions" if any(k.reductions for k, _, _ in kernels)
               else None))
    if why is not None:
        return why
    try:
        found = record_split(
            [(devices[part.device], part, kernel, built.kernel, recipes[k],
              part_sources(part, values, recipes[k]), may_flag(source))
             for k, (part, (kernel, source, built)) in
             enumerate(zip(prepared.split.plan.parts, kernels))],
            recipes.get("replay"))
    except Exception as e:      # never a crash: the Python path stays
        return f"no record ({type(e).__name__}: {e})"
    if not isinstance(found, str):
        recipes["replay"] = found   # (beside the parts' recipes, as one device's in its own)
    return found
