"""Loop optimisations of a bound kernel nest (the paper's section 3.4), chosen by `UNPY_GPU_OPT`
(none, load, unroll, all).

Each optimisation is a pure function `(KernelNest, GpuModel) -> KernelNest` in a module of its
own in this package (its docstring says when it is legal; it returns the nest unchanged where it
does not apply), listed in PASSES under the levels that run it; `optimise` applies them in
order, and each that changed the nest names itself in `KernelNest.transforms` (the explain
report prints them). `none` is the paper's naive kernel. The model (jitgpu/loopopt/cost.py) is
what the passes know of the device (its fill, local and constant memory), the search's choices
and their constants; the kernel nest is what they transform.

How a pass edits a KernelNest (jitgpu/bind.py): it builds new IR statements for `body` (never
changing the old ones in place; `dataclasses.replace`), keeps the `ArrayAccess.aid` of every access
it keeps, gives each access it creates a new id (above every id in `accesses`) with its
`DeviceIndex` added to `accesses`, declares new work-item variables in `privates` (and their
types in `types`), adds `long` parameters it needs to `params` (kind 'long', with their values),
and returns `kernel.replace(...)`. The printer (opencl_emit.print_kernel) prints whatever the
nest holds; the executor reads only `params`, the NDRange and `reductions`.
"""
from __future__ import annotations

import collections
import dataclasses
import re

from jitgpu.bind import KernelNest
from jitgpu.loopopt.const_buffers import const_buffers
from jitgpu.loopopt.constant_space import constant_space
from jitgpu.loopopt.cost import GpuModel
from jitgpu.loopopt.lane_split import lane_split, lane_split_tiles
from jitgpu.loopopt.load_elimination import load_elimination
from jitgpu.loopopt.local_tiles import local_tiles
from jitgpu.loopopt.register_tiles import register_tiles
from jitgpu.loopopt.unroll_and_jam import unroll_and_jam
from jitgpu.loopopt.unroll_inner import unroll_inner
from jitgpu.loopopt.vector_loads import structure_loads, vector_loads


def _device_free(fn):
    """A pass that reads nothing of the model, as PASSES calls a pass."""
    return lambda kernel, model: fn(kernel)


# (name, levels that run it, function (KernelNest, GpuModel) -> KernelNest), applied in order.
PASSES: tuple = (
    ("const_buffers", ("load", "unroll", "all"), _device_free(const_buffers)),
    ("register_tiles", ("all",), register_tiles),           # both levels; else the next
    ("unroll_and_jam", ("unroll", "all"), unroll_and_jam),
    ("lane_split", ("all",), lane_split),                   # where the others left too few
    ("local_tiles", ("all",), local_tiles),                 # after the copies it shares
    ("lane_split_tiles", ("all",), lane_split_tiles),       # too few, but tiled: in the tiles
    ("unroll_inner", ("unroll", "all"), unroll_inner),     # innermost loop outward (3.4)
    ("load_elimination", ("load", "all"), _device_free(load_elimination)),
    ("vector_loads", ("load", "all"), _device_free(vector_loads)),  # lanes of loads still made
    # (vector_loads does it in the others)
    ("structure_loads", ("unroll",), _device_free(structure_loads)),
    ("constant_space", ("load", "unroll", "all"), constant_space),  # sees the vector loads
)


def passes(level: str) -> list:
    return [(name, fn) for name, levels, fn in PASSES if level in levels]


def describe_level(level: str, kernel: KernelNest | None = None) -> str:
    """What `level` did to `kernel` (the transforms it applied), or what it would run."""
    if kernel is not None:
        if not kernel.transforms:
            return "no loop optimisation applies, naive kernel"
        return "loop optimisations applied: " + ", ".join(kernel.transforms)
    names = [name for name, _ in passes(level)]
    if not names:
        return "naive kernel"
    return "loop optimisations " + ", ".join(names)


def optimise(kernel: KernelNest, level: str, model: GpuModel | None = None) -> KernelNest:
    """The kernel nest with the optimisations of `level` applied under `model` (by default a
    device of no known limits: GpuModel()) (pure: remembered by the kernel's text and the model,
    since a call whose arrays are new, as the temporaries of array statements are, binds the
    same kernel again: tens of ms a call for a tiled product). The first values of the parallel
    levels (`unpy_lo<k>`) are left out of the text: no pass reads them (the loops name them),
    and the tiles of an overlapped call and the parts of a split differ in nothing else, so they
    are optimised once (mmult split over two GPUs in 4 tiles each: 8 optimisations of 0.1-1.2 s
    each at the first call before)."""
    model = model or GpuModel()
    chosen = tuple(passes(level))
    starts = {p.name: p.value for p in kernel.params if _LEVEL_START.fullmatch(p.name)}
    key = (repr(_with_starts(kernel, dict.fromkeys(starts, 0))), chosen, model)
    found = _OPTIMISED.get(key)
    if found is not None:
        _OPTIMISED.move_to_end(key)
        return _with_starts(found, starts)
    for _, fn in chosen:
        kernel = fn(kernel, model)
    _OPTIMISED[key] = kernel
    if len(_OPTIMISED) > _OPTIMISED_KEPT:
        _OPTIMISED.popitem(last=False)
    return kernel


_LEVEL_START = re.compile(r"unpy_lo\d+")


def _with_starts(kernel: KernelNest, starts: dict) -> KernelNest:
    """`kernel` with the values of its level-start parameters set from `starts`."""
    params = tuple(dataclasses.replace(p, value=starts[p.name]) if p.name in starts else p
                   for p in kernel.params)
    return kernel if params == kernel.params else kernel.replace(params=params)


# (repr of a bound kernel, passes, model) -> the optimised kernel
_OPTIMISED = collections.OrderedDict()
_OPTIMISED_KEPT = 256
