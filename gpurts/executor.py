"""The one executor of a GPU plan: runs each part of a `jitgpu.plan.GpuPlan` with its built kernel.

Per part, on the queue of the part's device, everything is enqueued without waiting: the
copy-in of each group (gathered into pinned staging in chunks, each chunk's DMA overlapping the
next gather: `Transfers.gather_to_device`), the zeroed error flag, the launch, the flag's
read-back, each written group's copy back into its staging, the reductions' partial results;
then one `finish`. Only when the flag is clear do the results go into NumPy memory. Parts run one
after the other, each written back before the next copies in (a part may copy back more than it
writes and must carry the earlier parts' results); when a later part fails, the earlier ones are
undone, so that the OpenMP fallback reruns on intact inputs.

Device buffers come from `Device.pool` and staging from `Device.pinned`: both are reused across
calls by size class. The plan and kernel nests are read by their fields only (duck-typed: gpurts
does not import jitgpu).
"""
from __future__ import annotations

import math

import numpy as np

from .boxes import Box, gather_box, memory_root, scatter_box
from .errors import DeviceError, device_error
from .opencl import load_opencl
from .timing import Timings


class KernelFlagged(Exception):
    """The kernel met a case the CPU path raises an error for; its results were dropped."""


FLAG_MESSAGE = ("the kernel met a case the CPU path raises an error for (division by zero, math "
                "domain, index out of range)")


class _UnionMemory:
    """Bytes [lo, hi) that several roots view together, kept alive with them."""

    def __init__(self, roots, lo, hi):
        self.roots = roots
        self.__array_interface__ = {"version": 3, "shape": (hi - lo,), "typestr": "|u1",
                                    "data": (lo, not all(r.flags.writeable for r in roots))}


def group_owner(arrays, values) -> np.ndarray:
    """An array whose memory holds every box of the group of `arrays`: the root they view, or the
    union of their roots' memory when they view one buffer through different roots (as two
    np.frombuffer of one bytearray do; their memory overlaps, so the union is one range)."""
    found = {}
    for name in arrays:
        root = memory_root(values[name])
        lo, hi = np.lib.array_utils.byte_bounds(root)
        found.setdefault((lo, hi), root)
    lo = min(r[0] for r in found)
    hi = max(r[1] for r in found)
    if (lo, hi) in found:
        return found[(lo, hi)]
    return np.asarray(_UnionMemory(list(found.values()), lo, hi))


def _host_boxes(group, owner):
    base = owner.__array_interface__["data"][0]
    return [(box.device_offset, Box(box.host_addr - base, box.shape, box.strides))
            for box in group.boxes]


def run_part(device, part, kernel, cl_kernel, values, timings):
    """Stage in, launch, stage out into staging, with one finish. Returns the writes into NumPy
    memory ([(packed elements, owner, host box)]) for the caller to make, and the reductions'
    partial results {var: array}. Raises KernelFlagged, DeviceError."""
    cl, _ = load_opencl()
    transfers, queue = device.transfers, device.queue
    groups = part.transfers.groups
    buffers, staging, owners = {}, {}, {}
    for k, g in enumerate(groups):
        owners[k] = owner = group_owner(g.arrays, values)
        dtype = values[g.arrays[0]].dtype
        staging[k] = packed = device.pinned.take(max(g.device_elems, 1) * dtype.itemsize, dtype)
        buffers[k] = device.pool.allocate(packed.nbytes)
        if g.copy_in:
            transfers.gather_to_device(owner, _host_boxes(g, owner), packed, buffers[k],
                                       timings=timings)
    flag = np.zeros(1, np.int32)
    flag_buf = device.pool.allocate(4)
    transfers.to_device(flag, flag_buf, timings=timings)
    groups_total = math.prod(gs // ls for gs, ls in zip(kernel.global_size, kernel.local_size))
    partials = {}
    try:
        for position, p in enumerate(kernel.params):
            if p.kind == "buffer":
                cl_kernel.set_arg(position, buffers[p.group])
            elif p.kind == "scalar":
                dtype = np.uint8 if p.dtype == "bool" else np.dtype(p.dtype)
                cl_kernel.set_arg(position, np.array(p.value, dtype=dtype)[()])
            elif p.kind == "long":
                cl_kernel.set_arg(position, np.int64(p.value))
            elif p.kind == "flag":
                cl_kernel.set_arg(position, flag_buf)
            elif p.kind == "partial":
                host = np.empty(groups_total, p.dtype)
                partials[p.name] = (device.pool.allocate(host.nbytes), host)
                cl_kernel.set_arg(position, partials[p.name][0])
            elif p.kind == "local":
                cl_kernel.set_arg(position, cl.LocalMemory(
                    math.prod(kernel.local_size) * np.dtype(p.dtype).itemsize))
        event = cl.enqueue_nd_range_kernel(queue, cl_kernel, kernel.global_size,
                                           kernel.local_size)
    except cl.Error as e:
        raise device_error("launching the kernel", device, e) from e
    timings.record("kernel", event)
    transfers.from_device(flag_buf, flag, is_blocking=False, timings=timings)
    for k, g in enumerate(groups):
        if g.copy_back:
            transfers.from_device(buffers[k], staging[k], is_blocking=False, timings=timings)
    for var, (buf, host) in partials.items():
        transfers.from_device(buf, host, is_blocking=False, timings=timings)
    try:
        queue.finish()
    except cl.Error as e:
        raise device_error("running the kernel", device, e) from e
    if flag[0]:
        raise KernelFlagged(FLAG_MESSAGE)
    writes = []
    for k, g in enumerate(groups):
        if g.copy_back:
            for offset, box in _host_boxes(g, owners[k]):
                writes.append((staging[k][offset:offset + box.size], owners[k], box))
    return writes, {var: host for var, (_, host) in partials.items()}


def write_back(writes, undo) -> None:
    """Scatter `writes` ([(packed elements, owner array, host box)]) into NumPy memory; with an
    `undo` list, first save there what each box held."""
    for packed, owner, box in writes:
        if undo is not None:
            saved = np.empty_like(packed)
            gather_box(owner, box, saved)
            undo.append((saved, owner, box))
        scatter_box(packed, owner, box)


def combine(op, initial, partials, dtype):
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


def execute(plan, kernels, values, devices) -> tuple:
    """Carry out `plan`: part k with `kernels[k]` = (KernelNest, built cl.Kernel) on
    `devices[part.device]`. Returns ({reduction var: result}, Timings). Raises KernelFlagged
    (the error flag) or DeviceError, with NumPy memory as before the call."""
    cl, _ = load_opencl()
    timings = Timings()
    results = {}
    undo = [] if len(plan.parts) > 1 else None
    try:
        for part, (kernel, cl_kernel) in zip(plan.parts, kernels):
            writes, partials = run_part(devices[part.device], part, kernel, cl_kernel, values,
                                        timings)
            write_back(writes, undo)
            for var, op, dtype in kernel.reductions:
                results[var] = combine(op, results.get(var, values[var]), partials[var], dtype)
    except BaseException as e:
        write_back(reversed(undo or []), None)
        if isinstance(e, cl.Error):
            raise DeviceError(f"OpenCL error: {e}") from e
        raise
    return results, timings
