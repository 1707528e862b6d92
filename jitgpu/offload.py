"""Run one @gpu nest on the OpenCL device, or say why not (SPEC sections 4, 5, 9).

analysis (nest instance, CSLMAD transfer plan, tiling) -> profitability -> kernel (cache) ->
copy-in -> launch -> error flag -> copy-back -> reductions. Every failure is a `NotOffloadable`
with a reason, and the caller runs the OpenMP code.
"""
from __future__ import annotations

import logging
import math
import os
import time

import numpy as np

from jitgpu import lmad
from jitgpu.nest import NotOffloadable, instantiate, load_nest, loop_dims
from jitgpu.opencl_emit import emit_kernel
from jitgpu.report import NestReport
from unpy import ir

log = logging.getLogger("unpy")

# Profitability (documented in docs/gpu.md): the nest runs on the device when the estimated
# device time (transfers at the measured bandwidth + work at DEVICE_OPS) beats the estimated
# OpenMP time (work at HOST_OPS_PER_CORE per core). Operations are counted per innermost
# iteration from the IR. UNPY_FORCE_GPU=1 skips the estimate.
HOST_OPS_PER_CORE = 2e9
GPU_OPS = 2e12
CPU_DEVICE_OPS = HOST_OPS_PER_CORE      # an OpenCL CPU device (PoCL) is no faster than OpenMP
LAUNCH_OVERHEAD = 20e-6


def _root_and_range(arr: np.ndarray):
    root = arr
    while isinstance(root.base, np.ndarray):
        root = root.base
    lo, hi = np.lib.array_utils.byte_bounds(root)
    return root, lo, hi


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


def decide(instance, plan, device) -> str | None:
    """None if the device is expected to win; otherwise the reason it is not."""
    if os.environ.get("UNPY_FORCE_GPU") == "1":
        return None
    iterations = math.prod(b.extent for b in instance.boxes.values())
    work = iterations * ops_per_iteration(instance.nest)
    host = work / (HOST_OPS_PER_CORE * (os.cpu_count() or 1))
    moved = sum(g.device_elems * g.itemsize * (g.copy_in + g.copy_back) for g in plan.groups)
    h2d, d2h = device.measured_bandwidth()
    rate = GPU_OPS if device.is_gpu else CPU_DEVICE_OPS
    gpu = moved / min(h2d, d2h) + work / rate + LAUNCH_OVERHEAD
    if gpu < host:
        return None
    return (f"not profitable: estimated {gpu * 1e3:.3f} ms on the device ({moved} bytes to move) "
            f"vs {host * 1e3:.3f} ms with OpenMP")


def run_nest_on_device(module, function, nest_id, values, device):
    """(reduction results, report) when the nest ran on the device; raises NotOffloadable."""
    from gpurts import DeviceError, BuildError, Timings, build_kernel
    from gpurts.boxes import Box as HostBox, gather_box, scatter_box
    from gpurts.opencl import load_opencl
    cl, _ = load_opencl()

    started = time.perf_counter()
    nest = load_nest(module, function, nest_id)
    instance = instantiate(nest, values)
    if any(n == 0 for n in instance.trip_counts):
        raise NotOffloadable("the parallel loop has no iterations")
    accesses = [a for _, a in instance.accesses]
    plan = lmad.analyse(loop_dims(instance), live_arrays(instance, values), accesses,
                        mem_limit=mem_limit(device))
    if isinstance(plan, lmad.Refusal):
        raise NotOffloadable(plan.reason)
    for g in plan.groups:
        for name in g.arrays:
            if values[name].itemsize != g.itemsize:
                raise NotOffloadable(f"group of {', '.join(g.arrays)} mixes element sizes")
    analysis_s = time.perf_counter() - started
    why_not = decide(instance, plan, device)
    if why_not:
        raise NotOffloadable(why_not)

    kernel = emit_kernel(instance, plan, values, device.has_fp64)
    try:
        built = build_kernel(device, kernel.source, kernel.name, [])
    except BuildError as e:
        raise NotOffloadable(f"the OpenCL build failed: {str(e).splitlines()[0]}")

    queue = device.queue
    timings = Timings()
    owners = {}
    for g_index, g in enumerate(plan.groups):
        owners[g_index] = _root_and_range(values[g.arrays[0]])[0]
    try:
        buffers = {}
        staging = {}
        for g_index, g in enumerate(plan.groups):
            dtype = values[g.arrays[0]].dtype
            buffers[g_index] = device.pool.allocate(max(g.device_elems, 1) * g.itemsize)
            packed = np.empty(max(g.device_elems, 1), dtype)
            staging[g_index] = packed
            if g.copy_in:
                owner = owners[g_index]
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
            elif arg.kind == "flag":
                cl_kernel.set_arg(position, flag_buf)
            elif arg.kind == "partial":
                size = groups_total * np.dtype(arg.dtype).itemsize
                partials[arg.name] = (device.pool.allocate(size), np.empty(groups_total, arg.dtype))
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
        for g_index, g in enumerate(plan.groups):
            if g.copy_back:
                packed = staging[g_index]
                ev = cl.enqueue_copy(queue, packed, buffers[g_index], is_blocking=True)
                timings.record("d2h", ev, packed.nbytes)
        results = {}
        for var, op, dtype in kernel.reductions:
            buf, host = partials[var]
            timings.record("d2h", cl.enqueue_copy(queue, host, buf, is_blocking=True), host.nbytes)
            results[var] = _combine(op, values[var], host, dtype)
        # Scatter back to NumPy memory only after every device step succeeded.
        for g_index, g in enumerate(plan.groups):
            if g.copy_back:
                owner = owners[g_index]
                base = owner.__array_interface__["data"][0]
                for box in g.boxes:
                    part = staging[g_index][box.device_offset:box.device_offset + box.size]
                    scatter_box(part, owner, HostBox(box.host_addr - base, box.shape, box.strides))
    except DeviceError as e:
        raise NotOffloadable(str(e))
    except cl.Error as e:
        raise NotOffloadable(f"OpenCL error: {e}")

    total_s = time.perf_counter() - started
    touched = sum(g.touched_elems * g.itemsize for g in plan.groups)
    details = {
        "groups": [f"{', '.join(g.arrays)}: case {g.case}, {g.device_elems} elements "
                   f"({g.device_elems * g.itemsize} B), copy-in {g.copy_in}, "
                   f"copy-back {g.copy_back}" for g in plan.groups],
        "ndrange": f"global {kernel.global_size}, local {kernel.local_size}",
        "bytes": f"moved {timings.h2d_bytes + timings.d2h_bytes} B (h2d {timings.h2d_bytes}, "
                 f"d2h {timings.d2h_bytes}), distinct touched {touched} B",
        "time": (f"analysis {analysis_s * 1e3:.3f} ms, OpenCL build "
                 f"{'cache hit' if built.cache_hit else 'compiled'} "
                 f"{built.build_seconds * 1e3:.3f} ms, h2d {timings.h2d_seconds * 1e3:.3f} ms, "
                 f"kernel {timings.kernel_seconds * 1e3:.3f} ms, d2h "
                 f"{timings.d2h_seconds * 1e3:.3f} ms, total {total_s * 1e3:.3f} ms"),
    }
    report = NestReport(nest_id, device.label, "analysis succeeded and offload is worth it"
                        if os.environ.get("UNPY_FORCE_GPU") != "1" else
                        "UNPY_FORCE_GPU=1", details)
    report.timings = {"analysis": analysis_s, "build": built.build_seconds,
                      "h2d": timings.h2d_seconds, "kernel": timings.kernel_seconds,
                      "d2h": timings.d2h_seconds, "total": total_s,
                      "bytes_moved": timings.h2d_bytes + timings.d2h_bytes,
                      "bytes_touched": touched}
    return results, report


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
