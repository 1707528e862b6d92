"""Run one @gpu nest on the OpenCL device, or say why not (SPEC sections 4, 5, 9).

analysis (nest instance, CSLMAD transfer plan, tiling) -> profitability -> kernel (cache) ->
copy-in -> launch -> error flag -> copy-back -> reductions. Every failure is a `NotOffloadable`
with a reason, and the caller runs the OpenMP code.
"""
from __future__ import annotations

import collections
import dataclasses
import math
import os
import time

import numpy as np

from jitgpu import lmad
from jitgpu.nest import DeviceFailure, NotOffloadable, instantiate, load_nest, loop_dims
from jitgpu.opencl_emit import emit_kernel
from jitgpu.report import NestReport
from unpy import ir

# Profitability (documented in docs/gpu.md): the nest runs on the device when the estimated
# device time (transfers at the measured bandwidth + work at GPU_OPS) beats the estimated
# OpenMP time (work at HOST_OPS_PER_CORE per core). Operations are counted per innermost
# iteration from the IR. UNPY_FORCE_GPU=1 skips the estimate.
HOST_OPS_PER_CORE = 2e9
GPU_OPS = 2e12
CPU_DEVICE_OPS = HOST_OPS_PER_CORE      # an OpenCL CPU device (PoCL) is no faster than OpenMP
LAUNCH_OVERHEAD = 20e-6
# Copies go through pinned staging: measured on the H200, a staged copy of a NumPy array runs at
# 20-24 GB/s where the pinned DMA alone runs at 55 GB/s (gpurts's bandwidth measure).
STAGING_SLOWDOWN = 2.5


def _root_and_range(arr: np.ndarray):
    """The array at the bottom of `arr`'s views, and the bytes [lo, hi) of its memory."""
    from gpurts.boxes import memory_root
    root = memory_root(arr)
    lo, hi = np.lib.array_utils.byte_bounds(root)
    return root, lo, hi


class _UnionMemory:
    """Bytes [lo, hi) that several roots view together, kept alive with them."""

    def __init__(self, roots, lo, hi):
        self.roots = roots
        self.__array_interface__ = {"version": 3, "shape": (hi - lo,), "typestr": "|u1",
                                    "data": (lo, not all(r.flags.writeable for r in roots))}


def group_owner(group, values) -> np.ndarray:
    """An array whose memory holds every box of the group: the root its arrays view, or the
    union of their roots' memory when they view one buffer through different roots (as two
    np.frombuffer of one bytearray do; their memory overlaps, so the union is one range)."""
    found = {}
    for name in group.arrays:
        root, lo, hi = _root_and_range(values[name])
        found[id(root)] = (root, lo, hi)
    lo = min(f[1] for f in found.values())
    hi = max(f[2] for f in found.values())
    for root, root_lo, root_hi in found.values():
        if (root_lo, root_hi) == (lo, hi):
            return root
    return np.asarray(_UnionMemory([f[0] for f in found.values()], lo, hi))


def live_arrays(instance, values):
    arrays = []
    for name in dict.fromkeys(e.array.id for e, _ in instance.accesses):
        arr = values[name]
        _, lo, hi = _root_and_range(arr)
        arrays.append(lmad.LiveArray(name, arr.__array_interface__["data"][0], arr.itemsize,
                                     tuple(arr.shape), tuple(arr.strides), lo, hi))
    return arrays


def ops_per_iteration(nest: ir.Nest) -> float:
    """A rough operation count of the innermost body (arithmetic, calls, memory accesses)."""
    from unpy.typeinfer.reductions import walk_exprs
    count = sum(1 for e in walk_exprs(nest.loop) if isinstance(e, (ir.BinOp, ir.Call,
                                                                   ir.Subscript)))
    return max(count, 1)


def mem_limit(device):
    limit = os.environ.get("UNPY_GPU_MEM_LIMIT")
    device_limit = int(device.global_mem_size * 0.8)
    return min(int(limit), device_limit) if limit else device_limit


def estimate(instance, tiles, device) -> str | None:
    """None if the device is expected to win; otherwise the reason it is not."""
    iterations = math.prod(b.extent for b in instance.boxes.values())
    work = iterations * ops_per_iteration(instance.nest)
    host = work / (HOST_OPS_PER_CORE * (os.cpu_count() or 1))
    moved = sum(g.device_elems * g.itemsize * (g.copy_in + g.copy_back)
                for _, plan in tiles for g in plan.groups)
    h2d, d2h = device.measured_bandwidth()
    rate = GPU_OPS if device.is_gpu else CPU_DEVICE_OPS
    gpu = moved * STAGING_SLOWDOWN / min(h2d, d2h) + work / rate + LAUNCH_OVERHEAD
    if gpu < host:
        return None
    return (f"not profitable: estimated {gpu * 1e3:.3f} ms on the device ({moved} bytes to move) "
            f"vs {host * 1e3:.3f} ms with OpenMP")


def tile_instance(instance, bounds):
    """The nest restricted to one tile of its parallel loops (bounds in normalised space)."""
    if bounds is None:
        return instance
    boxes = dict(instance.boxes)
    for var, (lo, hi) in bounds.items():
        box = boxes[var]
        if box.parallel:
            boxes[var] = dataclasses.replace(box, lo=box.lo + box.step * lo, extent=hi - lo)
    trips = [boxes[level.var].extent for level in instance.levels]
    return dataclasses.replace(instance, boxes=boxes, trip_counts=trips)


def plan_transfers(instance, values, device):
    """[(tile bounds or None, TransferPlan)]: one plan, or tiles when one does not fit the memory
    limit or a group does not fit one device buffer (4.4)."""
    loops = loop_dims(instance)
    arrays = live_arrays(instance, values)
    accesses = [a for _, a in instance.accesses]
    limit = mem_limit(device)
    tiles = _plan_within(loops, arrays, accesses, limit)
    if any(g.device_bytes > device.max_alloc for _, plan in tiles for g in plan.groups):
        # Each group is one buffer: tiles whose groups together fit the largest buffer do.
        tiles = _plan_within(loops, arrays, accesses, min(limit, device.max_alloc))
    return tiles


def _plan_within(loops, arrays, accesses, limit):
    plan = lmad.analyse(loops, arrays, accesses, mem_limit=limit)
    if isinstance(plan, lmad.Refusal) and plan.over_memory:
        plan = lmad.tile_plan(loops, arrays, accesses, limit)
    if isinstance(plan, lmad.Refusal):
        raise NotOffloadable(plan.reason)
    return plan if isinstance(plan, list) else [(None, plan)]


_ANALYSES = collections.OrderedDict()     # call key -> Analysis, most recent last
_ANALYSES_KEPT = 32


def _call_key(module, function, nest_id, values, device):
    """What the analysis of a call depends on: the live layout of every array (addresses
    included, since groups follow overlaps), the scalars, and the device's memory limit."""
    parts = [module, function, nest_id, device.label, mem_limit(device)]
    for name, value in sorted(values.items()):
        if isinstance(value, np.ndarray):
            _, lo, hi = _root_and_range(value)
            parts.append((name, value.__array_interface__["data"][0], value.shape,
                          value.strides, value.dtype.str, lo, hi))
        else:
            parts.append((name, type(value).__name__, value))
    return tuple(parts)


@dataclasses.dataclass
class Analysis:
    """What a call's nest needs before it runs: reused by later calls on the same arrays."""
    instance: object
    tiles: list              # [(tile bounds or None, TransferPlan)]
    not_profitable: object   # None, or why the estimate prefers OpenMP
    kernels: dict = dataclasses.field(default_factory=dict)  # tile -> (Kernel, built kernel)


def analyse_call(module, function, nest_id, values, device) -> Analysis:
    """The analysis of a call; repeated calls on the same arrays reuse the last analyses (an LRU
    of a few entries) and the kernels made for them."""
    key = _call_key(module, function, nest_id, values, device)
    if key in _ANALYSES:
        _ANALYSES.move_to_end(key)
        return _ANALYSES[key]
    instance = instantiate(load_nest(module, function, nest_id), values)
    if any(n == 0 for n in instance.trip_counts):
        raise NotOffloadable("the parallel loop has no iterations")
    tiles = plan_transfers(instance, values, device)
    for _, plan in tiles:
        for g in plan.groups:
            if any(values[name].itemsize != g.itemsize for name in g.arrays):
                raise NotOffloadable(f"group of {', '.join(g.arrays)} mixes element sizes")
    _ANALYSES[key] = Analysis(instance, tiles, estimate(instance, tiles, device))
    if len(_ANALYSES) > _ANALYSES_KEPT:
        _ANALYSES.popitem(last=False)
    return _ANALYSES[key]


def run_nest_on_device(module, function, nest_id, values, device):
    """(reduction results, report) when the nest ran on the device; raises NotOffloadable."""
    from gpurts import BuildError, DeviceError, Timings, build_kernel
    from gpurts.opencl import load_opencl
    cl, _ = load_opencl()

    started = time.perf_counter()
    analysis = analyse_call(module, function, nest_id, values, device)
    instance, tiles, kernels = analysis.instance, analysis.tiles, analysis.kernels
    analysis_s = time.perf_counter() - started
    if analysis.not_profitable and os.environ.get("UNPY_FORCE_GPU") != "1":
        raise NotOffloadable(analysis.not_profitable)

    timings = Timings()
    results, builds = {}, []
    # Each tile's results go into NumPy memory before the next tile copies in: a tile may copy
    # back more than it writes (a whole-extent group, a packed region with gaps), and must then
    # carry the earlier tiles' results, not stale copies. `undo` restores NumPy memory when a
    # later tile fails, so that the fallback reruns on intact inputs.
    undo = []
    try:
        for index, (bounds, plan) in enumerate(tiles):
            if index in kernels:
                kernel, built = kernels[index]
                built = built._replace(cache_hit=True, build_seconds=0.0)
            else:
                kernel = emit_kernel(tile_instance(instance, bounds), plan, values,
                                     device.has_fp64)
                try:
                    built = build_kernel(device, kernel.source, kernel.name, [])
                except BuildError as e:
                    raise DeviceFailure(f"the OpenCL build failed: {str(e).splitlines()[0]}")
                kernels[index] = (kernel, built)
            builds.append(built)
            writes, partials = run_kernel(device, kernel, built, plan, values, timings)
            write_back(writes, undo if len(tiles) > 1 else None)
            for var, op, dtype in kernel.reductions:
                start = results.get(var, values[var])
                results[var] = _combine(op, start, partials[var], dtype)
    except BaseException as e:
        write_back(reversed(undo), None)
        if isinstance(e, DeviceError):
            raise DeviceFailure(str(e)) from e
        if isinstance(e, cl.Error):
            raise DeviceFailure(f"OpenCL error: {e}") from e
        raise

    total_s = time.perf_counter() - started
    build_s = sum(b.build_seconds for b in builds)
    hits = sum(b.cache_hit for b in builds)
    plans = [plan for _, plan in tiles]
    touched = sum(g.touched_elems * g.itemsize for p in plans for g in p.groups)
    details = {
        "groups": [f"{', '.join(g.arrays)}: case {g.case}, {g.device_elems} elements "
                   f"({g.device_elems * g.itemsize} B), copy-in {g.copy_in}, "
                   f"copy-back {g.copy_back}" for g in plans[0].groups],
        "ndrange": f"global {kernel.global_size}, local {kernel.local_size}"
                   + (f", {len(tiles)} tiles" if len(tiles) > 1 else ""),
        "bytes": f"moved {timings.h2d_bytes + timings.d2h_bytes} B (h2d {timings.h2d_bytes}, "
                 f"d2h {timings.d2h_bytes}), distinct touched {touched} B",
        "time": (f"analysis {analysis_s * 1e3:.3f} ms, OpenCL build "
                 f"({hits}/{len(builds)} cache hits) {build_s * 1e3:.3f} ms, "
                 f"h2d {timings.h2d_seconds * 1e3:.3f} ms, kernel "
                 f"{timings.kernel_seconds * 1e3:.3f} ms, d2h {timings.d2h_seconds * 1e3:.3f} ms,"
                 f" total {total_s * 1e3:.3f} ms"),
    }
    forced = os.environ.get("UNPY_FORCE_GPU") == "1"
    reason = ("UNPY_FORCE_GPU=1 (profitability not checked)" if forced else
              "the transfer analysis succeeded and the estimate favours the device")
    opt = os.environ.get("UNPY_GPU_OPT", "none")
    if opt != "none":
        reason += f"; UNPY_GPU_OPT={opt}: loop optimisations are not implemented, naive kernel"
    report = NestReport(nest_id, device.label, reason, details, {
        "analysis": analysis_s, "build": build_s, "cache_hits": hits,
        "h2d": timings.h2d_seconds, "kernel": timings.kernel_seconds,
        "d2h": timings.d2h_seconds, "total": total_s, "tiles": len(tiles),
        "bytes_moved": timings.h2d_bytes + timings.d2h_bytes, "bytes_touched": touched})
    return results, report


def write_back(writes, undo):
    """Scatter `writes` ([(packed elements, owner array, host box)]) into NumPy memory; with an
    `undo` list, first save there what each box held."""
    from gpurts.boxes import gather_box, scatter_box
    for part, owner, box in writes:
        if undo is not None:
            saved = np.empty_like(part)
            gather_box(owner, box, saved)
            undo.append((saved, owner, box))
        scatter_box(part, owner, box)


def run_kernel(device, kernel, built, plan, values, timings):
    """Copy in, launch, check the error flag, copy back into staging. Returns the writes into
    NumPy memory, [(packed elements, owner array, host box)], for the caller to make once the
    kernel succeeded, and the reductions' per-group partial results."""
    from gpurts.boxes import Box as HostBox, gather_box
    from gpurts.opencl import load_opencl
    cl, _ = load_opencl()
    queue = device.queue
    buffers, staging, owners = {}, {}, {}
    for g_index, g in enumerate(plan.groups):
        owner = group_owner(g, values)
        owners[g_index] = owner
        dtype = values[g.arrays[0]].dtype
        packed = device.pinned.take(max(g.device_elems, 1) * dtype.itemsize, dtype)
        staging[g_index] = packed
        buffers[g_index] = device.pool.allocate(packed.nbytes)
        if g.copy_in:
            base = owner.__array_interface__["data"][0]
            for box in g.boxes:
                part = packed[box.device_offset:box.device_offset + box.size]
                gather_box(owner, HostBox(box.host_addr - base, box.shape, box.strides), part)
            ev = cl.enqueue_copy(queue, buffers[g_index], packed, is_blocking=False)
            timings.record("h2d", ev, packed.nbytes)
    flag = np.zeros(1, np.int32)
    flag_buf = device.pool.allocate(4)
    timings.record("h2d", cl.enqueue_copy(queue, flag_buf, flag, is_blocking=False), 4)
    groups_total = math.prod(gs // ls for gs, ls in zip(kernel.global_size, kernel.local_size))
    partials = {}
    cl_kernel = built.kernel
    for position, arg in enumerate(kernel.args):
        if arg.kind == "buffer":
            cl_kernel.set_arg(position, buffers[arg.group])
        elif arg.kind == "scalar":
            dtype = np.uint8 if arg.dtype == "bool" else np.dtype(arg.dtype)
            cl_kernel.set_arg(position, np.array(values[arg.name], dtype=dtype)[()])
        elif arg.kind == "long":
            cl_kernel.set_arg(position, np.int64(kernel.long_args[arg.name]))
        elif arg.kind == "flag":
            cl_kernel.set_arg(position, flag_buf)
        elif arg.kind == "partial":
            host = np.empty(groups_total, arg.dtype)
            partials[arg.name] = (device.pool.allocate(host.nbytes), host)
            cl_kernel.set_arg(position, partials[arg.name][0])
        elif arg.kind == "local":
            cl_kernel.set_arg(position, cl.LocalMemory(
                math.prod(kernel.local_size) * np.dtype(arg.dtype).itemsize))
    ev = cl.enqueue_nd_range_kernel(queue, cl_kernel, kernel.global_size, kernel.local_size)
    timings.record("kernel", ev)
    cl.enqueue_copy(queue, flag, flag_buf, is_blocking=True)
    if flag[0]:
        raise NotOffloadable("the kernel met a case the CPU path raises an error for "
                             "(division by zero, math domain, index out of range)")
    writes = []
    for g_index, g in enumerate(plan.groups):
        if not g.copy_back:
            continue
        packed, owner = staging[g_index], owners[g_index]
        ev = cl.enqueue_copy(queue, packed, buffers[g_index], is_blocking=True)
        timings.record("d2h", ev, packed.nbytes)
        base = owner.__array_interface__["data"][0]
        for box in g.boxes:
            part = packed[box.device_offset:box.device_offset + box.size]
            writes.append((part, owner, HostBox(box.host_addr - base, box.shape, box.strides)))
    results = {}
    for var, (buf, host) in partials.items():
        timings.record("d2h", cl.enqueue_copy(queue, host, buf, is_blocking=True), host.nbytes)
        results[var] = host
    return writes, results


def _combine(op, initial, partials, dtype):
    """The final pass of a reduction: the initial value combined with every group's part."""
    values = np.asarray(partials, dtype=dtype)
    init = np.asarray(initial, dtype=dtype)[()]
    if op == "+":
        return (init + values.sum(dtype=dtype))[()]
    if op == "*":
        return (init * values.prod(dtype=dtype))[()]
    if op == "min":
        m = values.min() if values.size else init
        return m if m < init else init
    if op == "max":
        m = values.max() if values.size else init
        return m if m > init else init
    ufunc = {"&": np.bitwise_and, "|": np.bitwise_or, "^": np.bitwise_xor}[op]
    return ufunc.reduce(np.concatenate([[init], values]).astype(dtype))
