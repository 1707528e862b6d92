"""The one executor of a GPU plan: runs each part of a `jitgpu.plan.GpuPlan` with its built kernel.

Per part, on the queue of the part's device, everything is enqueued without waiting: the
copy-in of each group (large boxes of pinned NumPy memory straight, the rest gathered into
pinned staging in chunks, each chunk's DMA overlapping the next gather:
`Transfers.gather_to_device`), the zeroed error flag, the launch, the flag's read-back, the
copy back into staging of each written group that has staged destinations, the reductions'
partial results; then one `finish`. Only when the flag is clear do the results go into NumPy
memory (`write_back`: from staging, or straight from the device buffer). Parts run one
after the other, each written back before the next copies in (a part may copy back more than it
writes and must carry the earlier parts' results); when a later part fails, the earlier ones are
undone, so that the OpenMP fallback reruns on intact inputs.

Device buffers come from `Device.pool` and staging from `Device.pinned`: both are reused across
calls by size class; a small part keeps its own with the plan's recipe (`KEEP_BYTES`), and then
also skips zeroing the error flag, which its last run left clear. The plan and kernel nests
are read by their fields only (duck-typed: gpurts does not import jitgpu).

Residency (`plan.residency`, `gpurts.residency`): a group may use the buffer of a device copy
the residency table holds (no copy-in), and a group may stay on the device after the run: its
buffer goes to the table, and a write's copy-back is delayed until the host needs the data.
"""
from __future__ import annotations

import math
import threading
import weakref

import numpy as np

from unpy.host_memory import group_span, memory_root, reused_groups

from .boxes import copy_parallel
from .errors import DeviceError, device_error
from .kernel_cache import fresh_kernel
from .opencl import load_opencl
from .pins import PINS
from .residency import TABLE, group_keys
from .staging import LazyStaging
from .timing import Timings
from .transfer import DeviceRange, write_back


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


def _whole_view(box, group, values, dtype):
    """The name of the group's array that is exactly the box (same first element, shape and
    strides, the staging dtype), or None: such a box is copied from and to the array itself,
    with no view of its memory to make."""
    for name in group.arrays:
        arr = values[name]
        if (arr.dtype == dtype and tuple(box.shape) == arr.shape
                and tuple(box.strides) == arr.strides
                and box.host_addr == arr.__array_interface__["data"][0]):
            return name
    return None


def _sources(group, values, dtype, recipe):
    """[(element offset in staging, a Box in the owner's memory or a whole array)] for the
    group's boxes, and the owner. `recipe` (a dict kept with the plan) remembers which boxes are
    whole arrays: the same for every call on the same layout."""
    if "whole" not in recipe:
        recipe["whole"] = [_whole_view(box, group, values, dtype) for box in group.boxes]
    owner, sources = None, []
    for box, name in zip(group.boxes, recipe["whole"]):
        if name is not None:
            sources.append((box.device_offset, values[name]))
            continue
        if owner is None:
            owner = (memory_root(values[group.arrays[0]]) if len(group.arrays) == 1
                     else group_owner(group.arrays, values))
        sources.append((box.device_offset, box))
    return owner, sources


def part_sources(part, values, recipe) -> dict:
    """{group: (owner, sources, itemsize)} of a part's groups, as `run_part` gathers them (a
    replay record, gpurts/record.py, copies the same boxes)."""
    found = {}
    for k, g in enumerate(part.transfers.groups):
        dtype = values[g.arrays[0]].dtype
        found[k] = (*_sources(g, values, dtype, recipe.setdefault(k, {})), dtype.itemsize)
    return found


# A part whose groups take at most this many bytes keeps its staging, device buffers and error
# flag with its recipe for the next call on the same layout (at most KEPT_KITS sets): taking them
# from the pools again, and binding the kernel's arguments anew, costs more host time than a
# small part's copies (measured on an H100: a 768 KiB mmult part spent 0.2-0.35 ms per call
# there, of 0.7 ms in all).
KEEP_BYTES = 16 << 20
KEPT_KITS = 2
# A larger part whose arrays all move straight from pinned NumPy memory (its staging never taken)
# keeps its kit too, so that a repeated call reuses its buffers and can be replayed from C++
# (jitgpu/replay.py): on an H100 the Python path of an mmult at 2048 spent 0.3-0.7 ms per call
# beyond its copies and kernel. Such kits hold at most this fraction of a device's memory in
# all (a program calling on ever new arrays would otherwise pin a kit per layout).
KEEP_DEVICE_FRACTION = 8
_large_kept = {}           # device label -> bytes of device buffers that large kept kits hold
_large_lock = threading.Lock()


class _Kit:
    """The staging, device buffers, error flag and reduction buffers of one run of a part."""

    def __init__(self, device, part, kernel, values, resident=None):
        pinned, pool = device.pinned, device.pool
        self.device = device
        self.large_counted = False     # counted in _large_kept (until the kit is freed)
        self.staging, self.buffers, self.partials = {}, {}, {}
        resident = resident or {}
        for k, g in enumerate(part.transfers.groups):
            dtype = values[g.arrays[0]].dtype
            self.staging[k] = LazyStaging(pinned, max(g.device_elems, 1) * dtype.itemsize, dtype)
            self.buffers[k] = (resident[k] if k in resident
                               else pool.allocate(self.staging[k].nbytes))
        self.flag = np.zeros(1, np.int32)
        self.flag_buf = pool.allocate(4)
        self.flag_clear = False        # whether the device's flag is known to hold 0
        groups_total = math.prod(gs // ls for gs, ls in zip(kernel.global_size,
                                                             kernel.local_size))
        for p in kernel.params:
            if p.kind == "partial":
                host = np.empty(groups_total, p.dtype)
                self.partials[p.name] = (pool.allocate(host.nbytes), host)


def _take_kit(device, part, kernel, values, recipe, resident=None) -> _Kit:
    """`resident`: {group: buffer} of groups whose device copy the residency table holds; a
    kept kit gets those, and new buffers where it handed its own to the table."""
    spare = recipe.get("kits")
    kit = None
    if spare:
        try:
            kit = spare.pop()
        except IndexError:     # another thread took the last one
            pass
    if kit is None:
        return _Kit(device, part, kernel, values, resident)
    for k, buffer in (resident or {}).items():
        kit.buffers[k] = buffer
    for k, buffer in kit.buffers.items():
        if buffer is None:
            kit.buffers[k] = device.pool.allocate(kit.staging[k].nbytes)
    return kit


def keep_kit(kit, part, recipe, resident=False) -> None:
    """Keep a small part's kit for the next call; with residency any part's (its buffers
    belong to the table, so it holds staging and the error flag only)."""
    if kit.flag_clear and (resident or _may_keep(kit)):
        spare = recipe.setdefault("kits", [])
        if len(spare) < KEPT_KITS:
            spare.append(kit)
            return
    bound = recipe.get("bound")
    if bound is not None and bound[0] is kit:
        # Not kept: let its buffers go back to the pools now, for the next call to reuse. Held
        # one call longer, the second call took fresh ones, which a driver maps at first use:
        # a 96 MiB add2 on PoCL took 111 ms on its second call, 29 ms later (40 ms now); on an
        # H200 the first two calls of a 96 MiB mmult took 43 ms each, the later ones 8 ms.
        recipe.pop("bound", None)


def _may_keep(kit) -> bool:
    """A kit of at most KEEP_BYTES is kept; a larger one whose staging was never taken, while
    the large kits kept on its device stay within 1/KEEP_DEVICE_FRACTION of its memory (counted
    once per kit, until the kit is freed)."""
    nbytes = sum(a.nbytes for a in kit.staging.values())
    if nbytes <= KEEP_BYTES:
        return True
    if any(a.taken for a in kit.staging.values()):
        return False
    if kit.large_counted:
        return True
    label = kit.device.label
    with _large_lock:
        if _large_kept.get(label, 0) + nbytes > (int(kit.device.cl_device.global_mem_size)
                                                 // KEEP_DEVICE_FRACTION):
            return False
        _large_kept[label] = _large_kept.get(label, 0) + nbytes
    kit.large_counted = True
    weakref.finalize(kit, _release_large, label, nbytes)
    return True


def _release_large(label, nbytes) -> None:
    with _large_lock:
        _large_kept[label] -= nbytes


def take_bound_kit(recipe):
    """The kit the last run bound and kept (`keep_kit`), now the caller's own (a replay record,
    jitgpu/replay.py), or None."""
    bound = recipe.get("bound")
    if bound is None:
        return None
    try:
        recipe.get("kits", []).remove(bound[0])
    except ValueError:       # not kept, or another thread took it
        return None
    recipe.pop("bound", None)
    return bound[0]


def _scalar_arg(value, dtype: str):
    return np.array(value, dtype=np.uint8 if dtype == "bool" else np.dtype(dtype))[()]


def _converted_args(cl, kernel, recipe) -> dict:
    """{position: value} of the scalars, longs and local memory, converted once per recipe."""
    args = recipe.get("args")
    if args is None:
        args = {}
        for position, p in enumerate(kernel.params):
            if p.kind == "scalar":
                args[position] = _scalar_arg(p.value, p.dtype)
            elif p.kind == "long":
                args[position] = np.int64(p.value)
            elif p.kind == "local":
                args[position] = cl.LocalMemory(
                    math.prod(kernel.local_size) * np.dtype(p.dtype).itemsize)
        recipe["args"] = args
    return args


def scalar_positions(kernel, names) -> tuple:
    """((position, name, dtype), ...) of the kernel's scalar parameters among `names`."""
    return tuple((position, p.name, p.dtype) for position, p in enumerate(kernel.params)
                 if p.kind == "scalar" and p.name in names)


def set_scalars(cl_kernel, kernel, recipe, positions, values) -> None:
    """The recipe's scalar arguments at `positions` (`scalar_positions`) set to this launch's
    `values`; those that changed are set on `cl_kernel` too where the recipe bound it. The
    only step of a relaunch with other scalars (jitgpu/relaunch.py): the plan, the buffers and
    the other arguments are the recipe's already."""
    cl, _ = load_opencl()
    args = _converted_args(cl, kernel, recipe)
    bound = recipe.get("bound")
    live = bound is not None and bound[1] is cl_kernel
    for position, name, dtype in positions:
        new = _scalar_arg(values[name], dtype)
        old = args[position]
        if old == new and new != 0:        # (a zero may change sign; NaN never equals)
            continue
        args[position] = new
        if live:
            cl_kernel.set_arg(position, new)


def relaunch(device, cl_kernel, kernel, values, partials=None) -> dict:
    """Enqueue a kernel whose arguments are bound already (its buffers on the device, its
    results kept there, its error flag never set): the whole launch, nothing waited for but
    its reductions' partial results (`partials`: {var: (buffer, host)} it is bound to), which
    are combined with their initial `values`. Returns {reduction var: result}."""
    cl, _ = load_opencl()
    try:
        cl.enqueue_nd_range_kernel(device.queue, cl_kernel, kernel.global_size,
                                   kernel.local_size)
        if not kernel.reductions:
            return {}
        for buffer, host in partials.values():
            cl.enqueue_copy(device.queue, host, buffer, is_blocking=False)
        device.queue.finish()
    except cl.Error as e:
        raise device_error("running the kernel", device, e) from e
    return {var: combine(op, values[var], partials[var][1], dtype)
            for var, op, dtype in kernel.reductions}


def bind_args(cl, cl_kernel, kernel, kit, recipe, buffers=None, partials=None) -> None:
    """Bind the kernel's arguments to the kit's buffers and partial results (or `buffers`,
    {group: buffer}, and `partials`, {var: (buffer, host)}) and the recipe's scalars."""
    args = _converted_args(cl, kernel, recipe)
    buffers = kit.buffers if buffers is None else buffers
    partials = kit.partials if partials is None else partials
    for position, p in enumerate(kernel.params):
        if p.kind == "buffer":
            cl_kernel.set_arg(position, buffers[p.group])
        elif p.kind == "flag":
            cl_kernel.set_arg(position, kit.flag_buf)
        elif p.kind == "partial":
            cl_kernel.set_arg(position, partials[p.name][0])
        else:
            cl_kernel.set_arg(position, args[position])


def bound_copy(kernel, recipe, device):
    """(a kernel of its own bound as the recipe's bound kernel is: the same buffers, error
    flag and scalars, but reductions' partial results of its own; those buffers; its partials
    {var: (device buffer, host array)}), for a caller that launches it without the recipe's
    lock (a relaunch from C++, jitgpu/relaunch.py); call with the recipe's lock held."""
    cl, _ = load_opencl()
    kit, cl_kernel, buffers = recipe["bound"]
    own = fresh_kernel(cl_kernel)
    partials = {}
    for var, (_, host) in kit.partials.items():
        mine = np.empty_like(host)
        partials[var] = (device.pool.allocate(mine.nbytes), mine)
    bind_args(cl, own, kernel, kit, recipe, dict(zip(kit.buffers, buffers)), partials)
    return own, buffers, partials


def run_part(device, part, kernel, cl_kernel, values, timings, recipe=None, residency=None,
             log=None):
    """Stage in, launch, stage out into staging, with one finish. Returns the writes into NumPy
    memory ([(packed elements, destination array)]) for the caller to make, the reductions'
    partial results {var: array} and the kit (staging, buffers) they live in. Raises
    KernelFlagged, DeviceError. `residency` (a plan's ResidencyPlan, under the table's lock):
    groups that reuse a device copy of the table, groups whose buffer the table keeps after the
    run (`keep_resident` hands them over); `log`: copies counted per array."""
    cl, _ = load_opencl()
    transfers, queue = device.transfers, device.queue
    groups = part.transfers.groups
    recipe = {} if recipe is None else recipe
    if residency is None and TABLE.entries:
        # A run that made no residency decisions (another caller of run_part) must not read
        # host memory a device copy is newer than, nor leave a device copy older than it.
        TABLE.flush_and_drop([group_span(g) for g in groups])
    resident = None
    if residency is not None and residency.keeps:
        resident = {}
        for r in residency.groups:
            if r.reuse:
                g = groups[r.group]
                span, rest = group_keys(g)
                resident[r.group] = TABLE.entry_at(*span, (device.label, *rest)).buffer
    kit = _take_kit(device, part, kernel, values, recipe, resident)
    staging, buffers = kit.staging, kit.buffers
    sources, owners = {}, {}
    for k, g in enumerate(groups):
        owners[k], sources[k] = _sources(g, values, staging[k].dtype, recipe.setdefault(k, {}))
        if g.copy_in:
            transfers.gather_to_device(owners[k], sources[k], staging[k], buffers[k],
                                       timings=timings)
            if log is not None:
                log.add(g.arrays, 0)
    # A kernel that cannot set its error flag (residency.flagless), whose results all stay
    # on the device, is not waited for: the queue runs in order, so what next reads its
    # buffers (a nest, a copy back) comes after it.
    flagless = resident is not None and residency.flagless
    if not kit.flag_clear:
        kit.flag[0] = 0
        transfers.to_device(kit.flag, kit.flag_buf, timings=timings)
    kit.flag_clear = flagless
    try:
        lock = recipe.get("lock") or recipe.setdefault("lock", threading.Lock())
        with lock:
            # The kernel object keeps its arguments: bound again only for another kit or
            # other buffers (residency hands a kit the table's).
            bound = recipe.get("bound")
            now = tuple(kit.buffers.values())
            if bound is None or bound[0] is not kit or bound[1] is not cl_kernel \
                    or any(a is not b for a, b in zip(bound[2], now)):
                bind_args(cl, cl_kernel, kernel, kit, recipe)
                recipe["bound"] = (kit, cl_kernel, now)
            event = cl.enqueue_nd_range_kernel(queue, cl_kernel, kernel.global_size,
                                               kernel.local_size)
    except cl.Error as e:
        raise device_error("launching the kernel", device, e) from e
    timings.record("kernel", event)
    if flagless and not kit.partials and not any(g.copy_back or g.copy_in for g in groups):
        # (no copy in either: the kit's staging, reused by the next call, is not in flight)
        kit.kept = _kept_destinations(residency, owners, sources, staging)
        return [], {}, kit
    if not flagless:
        transfers.from_device(kit.flag_buf, kit.flag, is_blocking=False, timings=timings)
    back = {k: transfers.copy_back_writes(buffers[k], owners[k], sources[k], staging[k],
                                          timings=timings)
            for k, g in enumerate(groups) if g.copy_back}
    for buf, host in kit.partials.values():
        transfers.from_device(buf, host, is_blocking=False, timings=timings)
    try:
        queue.finish()
    except cl.Error as e:
        raise device_error("running the kernel", device, e) from e
    timings.settle()
    if kit.flag[0]:
        raise KernelFlagged(FLAG_MESSAGE)
    kit.flag_clear = True
    writes = []
    for k, g in enumerate(groups):
        if g.copy_back:
            writes += back[k]
            if log is not None:
                log.add(g.arrays, 1)
    if resident is not None:
        kit.kept = _kept_destinations(residency, owners, sources, staging)
    return writes, {var: host for var, (_, host) in kit.partials.items()}, kit


def _kept_destinations(residency, owners, sources, staging) -> dict:
    """{group: where its copy-back goes, (owner, sources, dtype), views made when it happens}
    of the groups that stay on the device (None for a group the kernel does not write)."""
    return {r.group: (owners[r.group], sources[r.group], staging[r.group].dtype)
            if r.written else None for r in residency.groups if r.keep}


def keep_resident(device, part, kit, residency, scope, log) -> None:
    """Hand the buffers of the groups that stay on the device to the residency table."""
    for r in residency.groups:
        if r.keep:
            g = part.transfers.groups[r.group]
            TABLE.keep(device, g, kit.buffers[r.group], kit.staging[r.group].dtype,
                       kit.staging[r.group].nbytes, kit.kept[r.group], r.written, scope, log)
            kit.buffers[r.group] = None          # the table's now
    # The kit outlives the call (kept with its plan): holding the host arrays too would keep
    # a call's temporaries alive, so the next call's allocations got new memory, a new layout
    # and a new preparation every time (softmax's `e`: 30 ms a call on an H100).
    kit.kept = {}


def combine(op, initial, partials, dtype):
    """The final pass of a reduction: the initial value combined with every group's part, in
    order (a sum or product folded from the left, as the compiled caller's relaunch combines
    them, unpy::relaunch_combine)."""
    values = np.asarray(partials, dtype=dtype)
    init = np.asarray(initial, dtype=dtype)[()]
    if op in ("+", "*"):
        fold = np.add if op == "+" else np.multiply
        return fold.accumulate(np.concatenate([[init], values]).astype(dtype),
                               dtype=dtype)[-1]
    if op == "min":
        m = values.min() if values.size else init
        return m if m < init else init
    if op == "max":
        m = values.max() if values.size else init
        return m if m > init else init
    ufunc = {"&": np.bitwise_and, "|": np.bitwise_or, "^": np.bitwise_xor}[op]
    return ufunc.reduce(np.concatenate([[init], values]).astype(dtype))


def execute(plan, kernels, values, devices, recipes=None, scope=None, log=None) -> tuple:
    """Carry out `plan`: part k with `kernels[k]` = (KernelNest, built cl.Kernel) on
    `devices[part.device]`. Returns ({reduction var: result}, Timings). Raises KernelFlagged
    (the error flag) or DeviceError, with NumPy memory as before the call. `recipes`: a dict
    kept with the plan, where the executor remembers what repeated calls on the same layout
    share (which boxes are whole arrays). A plan with residency decisions (`plan.residency`)
    runs under the residency table's lock: the entries it names are copied back and dropped
    first, and the groups it keeps become entries of call `scope` (`log`: its copies)."""
    residency = getattr(plan, "residency", None)
    if residency is None and getattr(plan, "overlap", False):
        return _execute_overlapped(plan, kernels, values, devices, recipes, log)
    if residency is None:
        return _execute(plan, kernels, values, devices, recipes, None, scope, log)
    with TABLE.lock:
        if residency.flush:
            TABLE.flush_and_drop(residency.flush)
        return _execute(plan, kernels, values, devices, recipes, residency, scope, log)


def _execute(plan, kernels, values, devices, recipes, residency, scope, log) -> tuple:
    cl, _ = load_opencl()
    timings = Timings()
    results = {}
    recipes = {} if recipes is None else recipes
    undo = [] if len(plan.parts) > 1 else None
    try:
        for index, (part, (kernel, cl_kernel)) in enumerate(zip(plan.parts, kernels)):
            recipe = recipes.setdefault(index, {})
            device = devices[part.device]
            writes, partials, kit = run_part(device, part, kernel, cl_kernel, values, timings,
                                             recipe, residency, log)
            write_back(writes, undo)
            for var, op, dtype in kernel.reductions:
                results[var] = combine(op, results.get(var, values[var]), partials[var], dtype)
            if residency is not None and residency.keeps:
                keep_resident(device, part, kit, residency, scope, log)
                keep_kit(kit, part, recipe, resident=True)
            else:
                keep_kit(kit, part, recipe)
    except BaseException as e:
        for saved, dst in reversed(undo or []):
            copy_parallel(dst, saved)
        if isinstance(e, cl.Error):
            raise DeviceError(f"OpenCL error: {e}") from e
        raise
    return results, timings


def _execute_overlapped(plan, kernels, values, devices, recipes, log) -> tuple:
    """Carry out a plan of tiles whose copies overlap the other tiles' kernels (`plan.overlap`,
    jitgpu/overlap.py; see `run_tiles`)."""
    timings = Timings()
    device = devices[plan.parts[0].device]
    staged, kits = run_tiles(device, tiles_of(plan, kernels), values, recipes, timings, log)
    write_back(staged)
    for kit, part, recipe in kits:
        keep_kit(kit, part, recipe)
    return {}, timings


def tiles_of(plan, kernels, label=None) -> list:
    """[(index in the plan, part, kernel nest, cl.Kernel)] of the plan's parts (on the device
    `label` only, if given), as `run_tiles` takes them."""
    return [(index, part, kernel, cl_kernel) for index, (part, (kernel, cl_kernel))
            in enumerate(zip(plan.parts, kernels)) if label is None or part.device == label]


def run_tiles(device, tiles, values, recipes, timings, log=None) -> tuple:
    """Run tiles ([(index in the plan, part, kernel nest, cl.Kernel)], all on `device`) with
    each tile's copies beside the other tiles' kernels: the tiles' kernels never set their
    error flag and have no reductions, each tile writes only what no other tile touches and
    overwrites all of it. Three in-order queues of the device: each tile's copies in on the
    first, its kernel on the device's own queue once they are done, its copies back on the
    third once the kernel is done; so tile k's kernel runs while tile k+1 copies in and tile
    k-1 copies back, each direction on its own DMA engine. Copies back go straight into
    NumPy memory as soon as they arrive (a failed call's rerun overwrites them). A group an
    earlier tile copied alike (`reused_groups`) is that tile's buffer, not copied again: every
    tile's buffers live until the run ends. Returns the staged writes, for the caller's
    `write_back`, and [(kit, part, recipe)] to keep."""
    cl, _ = load_opencl()
    send, receive = device.side_transfers
    queues = (send.queue, device.queue, receive.queue)
    parts = [part for _, part, _, _ in tiles]
    # Each tile moves only a fraction of an array, under PIN_MIN_FRACTION with 4 tiles or more
    # (on an H100 stencil f64 8192 then went through staging: 36 ms in 4 tiles, 16 ms in 2):
    # the tiles together count.
    pin_roots({part.device: device for part in parts}, parts, values)
    reused = reused_groups(parts)
    kits, staged, backs = [], [], []
    try:
        for (index, part, kernel, cl_kernel), mine in zip(tiles, reused):
            recipe = recipes.setdefault(index, {})
            # A group an earlier tile copied alike is its buffer, not copied again (the copies
            # in run in order, so this tile's kernel finds it there).
            first = {k: kits[t][0].buffers[h] for k, (t, h) in mine.items()}
            kit = _take_kit(device, part, kernel, values, recipe, first)
            kits.append((kit, part, recipe))
            groups = part.transfers.groups
            sources, owners = {}, {}
            for k, g in enumerate(groups):
                owners[k], sources[k] = _sources(g, values, kit.staging[k].dtype,
                                                 recipe.setdefault(k, {}))
                if g.copy_in and k not in first:
                    send.gather_to_device(owners[k], sources[k], kit.staging[k],
                                          kit.buffers[k], timings=timings)
                    if log is not None:
                        log.add(g.arrays, 0)
            cl.enqueue_barrier(device.queue, wait_for=[cl.enqueue_marker(send.queue)])
            with recipe.get("lock") or recipe.setdefault("lock", threading.Lock()):
                bind_args(cl, cl_kernel, kernel, kit, recipe)
                recipe["bound"] = (kit, cl_kernel, tuple(kit.buffers.values()))
                event = cl.enqueue_nd_range_kernel(device.queue, cl_kernel, kernel.global_size,
                                                   kernel.local_size)
            timings.record("kernel", event)
            backs.append((event, kit, groups, owners, sources))
        # The copies back are enqueued after every kernel: enqueued between them, each held up
        # the next tile's kernel until it was done (an H200, mmult f32 8192 in 4 tiles: every
        # kernel started only after the tile before had copied back, 1.2 ms each).
        for event, kit, groups, owners, sources in backs:
            cl.enqueue_barrier(receive.queue, wait_for=[event])
            for k, g in enumerate(groups):
                if not g.copy_back:
                    continue
                for source, dst in receive.copy_back_writes(kit.buffers[k], owners[k],
                                                            sources[k], kit.staging[k],
                                                            timings=timings):
                    if isinstance(source, DeviceRange):
                        source.copy()              # straight into NumPy memory, now
                    else:
                        staged.append((source, dst))
                if log is not None:
                    log.add(g.arrays, 1)
        for queue in queues:
            queue.finish()
    except BaseException as e:
        # Nothing stays in flight into NumPy memory the OpenMP rerun writes.
        for queue in queues:
            try:
                queue.finish()
            except cl.Error:
                pass
        if isinstance(e, cl.Error):
            raise DeviceError(f"OpenCL error: {e}") from e
        raise
    timings.settle()
    for kit, _, _ in kits:
        kit.flag_clear = True       # (the kernels never write the flag)
    return staged, kits


def pin_roots(devices, parts, values, repeated=False) -> int:
    """Pin the arrays `parts` move (`devices`: {label: Device}), counting what all of them move
    of each array against `gpurts.pins.PIN_MIN_FRACTION`; `repeated`: whatever they move
    (a layout called again and again pays a pin once, its staging every call). Returns how
    many arrays it pinned now."""
    moved, roots = {}, {}
    for part in parts:
        for g in part.transfers.groups:
            if g.copy_in or g.copy_back:
                root = memory_root(values[g.arrays[0]])
                key = np.lib.array_utils.byte_bounds(root)
                roots[key] = (root, devices[part.device])
                moved[key] = moved.get(key, 0) + g.device_bytes
    pinned = 0
    for key, (root, device) in roots.items():
        if not PINS.is_pinned(root):
            pinned += PINS.ensure(device, root, root.nbytes if repeated else moved[key])
    return pinned
