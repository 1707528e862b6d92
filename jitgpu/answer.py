"""The hook's answer to the compiled caller (SPEC section 4): one frozen value whose `kind` says
what the caller does next, with the fields that kind needs.

`unpy::gpu_hook` (unpy/cpp_emit/unpy_python.cpp) reads `kind` once and switches on it
(`unpy::AnswerKind` there has the same numbers); `unpy::SplitRange::finish` reads the answer of
`jitgpu.multi.finish_split` the same way. The answers without data are shared instances
(`RUN_OPENMP`, `NO_DEVICE`, the four refusals): the hook is asked at every launch that C++ does
not skip, and most answers are these.
"""
from __future__ import annotations

import enum
from dataclasses import dataclass


class Kind(enum.IntEnum):
    """What the compiled caller does with the nest (unpy::AnswerKind: the same numbers)."""
    RUN_OPENMP = 0      # run the nest's OpenMP code
    DONE = 1            # the device ran the whole nest: `results` holds its reductions
    NO_DEVICE = 2       # no device can be used: skip the hook until the switches change
    REFUSED = 3         # refused these inputs: skip the hook while they come again (below)
    SPLIT = 4           # the devices run their parts: run the OpenMP code on [lo, hi), then
                        # hand the reductions to jitgpu.multi.finish_split(handle, ...)
    TIMED_OPENMP = 5    # run the OpenMP code, timed, and report its seconds with
                        # jitgpu.hook.openmp_timed(token, seconds) (jitgpu/decide.py)


@dataclass(frozen=True, slots=True)
class Answer:
    """What the compiled caller does with a nest: `kind`, and that kind's fields (the others
    keep their defaults)."""
    kind: Kind
    # DONE: the nest's reduction results {variable: value}; `replay`: the record C++ replays
    # later calls with the same inputs from (gpurts.record.Record, unpy::Replay); `relaunch`:
    # the one it relaunches later launches in the same call from (jitgpu.relaunch.Record,
    # unpy::Relaunch). None: no record (the nest's earlier one is stale, or dropped).
    results: dict | None = None
    replay: object = None
    relaunch: object = None
    # REFUSED: for any arrays of the same layouts with the same scalars, at any addresses
    # (nest.Refused.by_layout), not only the same inputs; for the rest of the call only
    # (nest.Refused.in_call), not for good.
    by_layout: bool = False
    in_call: bool = False
    # SPLIT: the outer loop's iterations [lo, hi) that the OpenMP code runs, with `spare` fewer
    # threads (one core feeds each device); `handle`: the split call, for finish_split.
    lo: int = 0
    hi: int = 0
    spare: int = 0
    handle: int = 0
    # TIMED_OPENMP: the trial's number for openmp_timed.
    token: int = 0


RUN_OPENMP = Answer(Kind.RUN_OPENMP)
NO_DEVICE = Answer(Kind.NO_DEVICE)
_REFUSALS = {(by_layout, in_call): Answer(Kind.REFUSED, by_layout=by_layout, in_call=in_call)
             for by_layout in (False, True) for in_call in (False, True)}


def ran_on_device(results: dict, replay=None, relaunch=None) -> Answer:
    """The device ran the nest (records: see Answer)."""
    return Answer(Kind.DONE, results, replay, relaunch)


def refused(by_layout: bool = False, in_call: bool = False) -> Answer:
    """The shared answer of a refusal of this scope."""
    return _REFUSALS[bool(by_layout), bool(in_call)]


def split_range(lo: int, hi: int, spare: int, handle: int) -> Answer:
    return Answer(Kind.SPLIT, lo=lo, hi=hi, spare=spare, handle=handle)


def timed_openmp(token: int) -> Answer:
    return Answer(Kind.TIMED_OPENMP, token=token)
