"""Records of device calls that the compiled caller replays from C++ without Python
(`unpy::Replay`): the mechanism, part of the runtime; jitgpu/replay.py decides which calls are
recorded and when.

A record is a call's OpenCL commands as a flat int64 list (its header, then its ops), with the
entry points of the libOpenCL that pyopencl loaded (found through cffi):

    copies (pure: each copy one contiguous host range <-> one device buffer range) ->
      part_ops (pure: one part's ops on its queue, in phases) -> call_ops (pure: the parts of
      a call together: every part started before any is waited for, every error flag checked
      before any read into NumPy memory) -> take_part (takes the part's kept kit, binds a
      kernel of its own) -> make_record (keeps every object the words name)

A record owns its kits (staging, device buffers, error flag) and kernels, so no Python-path
call of the same layout touches them while C++ may replay; all records' kits together stay
within an eighth of a device's memory (`replay_budget`). A set error flag or any OpenCL error
drops the record (its status word).

The plan's parts are read by their fields only (gpurts does not import jitgpu).
"""
from __future__ import annotations

import os
import threading
import weakref
from dataclasses import dataclass

import numpy as np

from .epoch import REPLAY_EPOCH
from .executor import bind_args, take_bound_kit
from .kernel_cache import fresh_kernel
from .opencl import load_opencl
from .pins import PINS
from unpy.host_memory import Box, memory_root

# A record's status word: replaying, dropped for a set error flag (the data's doing: a later
# call may record again), dropped for an OpenCL error (the layout's: not recorded again).
LIVE, FLAGGED, FAILED = 0, 1, 2
# The words of a record before its ops (unpy::Replay in unpy_runtime.hpp reads them so);
# TOTAL_NS, FASTEST_NS, LAST_NS: the replayed calls' times, from before the first copy in to
# after the last copy out (the host's work and the device's together); BUDGET: the calls C++
# may still replay (-1: any number; a close call being measured replays one call at a time).
(STATUS, CALLS, EPOCH, EPOCH_ADDRESS, WRITE, READ, LAUNCH, FINISH, QUEUE, TOTAL_NS, FASTEST_NS,
 LAST_NS, BUDGET, OP_WORDS) = range(14)
# Ops: COPY dst src bytes | WRITE buffer offset bytes host | READ buffer offset bytes host |
# LAUNCH kernel dims g0 g1 g2 l0 l1 l2 | FINISH | FLAG host int32 (set: drop the record) |
# QUEUE queue (the ops after it go to that queue: a split's devices; the header's QUEUE first).
OP_COPY, OP_WRITE, OP_READ, OP_LAUNCH, OP_FINISH, OP_FLAG, OP_QUEUE = range(1, 8)

# Bytes of the kits that records hold, in all (`replay_budget`).
_held = {"bytes": 0}
_lock = threading.Lock()


def replay_budget(device) -> int:
    """What the records' kits may hold together when a record for `device` is made."""
    return int(device.cl_device.global_mem_size) // 8



@dataclass(frozen=True)
class Copy:
    """One contiguous host range <-> one range of group `group`'s device buffer; `staged`:
    through the kit's pinned staging at the same offset (a memcpy on the host)."""
    group: int
    host: int                 # first byte
    nbytes: int
    device_offset: int        # bytes
    staged: bool
    copy_in: bool
    copy_back: bool


def copies(groups, sources, transfers, pin_bytes: int = 0) -> list | str:
    """The call's copies ([Copy]), or why one is not a contiguous range. `sources`: per group
    (owner, [(element offset, a Box in the owner's memory or a whole array)], itemsize), as the
    executor gathers them (`gpurts.executor._sources`). Each box goes the way the Python path sends it
    (`Transfers._copy_path`); with `pin_bytes`, smaller roots are pinned (a repeated call pays
    the pin once)."""
    out = []
    for k, g in enumerate(groups):
        if not (g.copy_in or g.copy_back):
            continue
        owner, group_sources, itemsize = sources[k]
        for offset, source in group_sources:
            if isinstance(source, np.ndarray):
                source_owner, box = source, Box.of_array(source)
            else:
                source_owner, box = owner, source
            if not box.is_packed(itemsize):
                return f"a copy of {', '.join(g.arrays)} is strided"
            lo, hi = box.byte_span(itemsize)
            if hi == lo:
                continue                # (OpenCL refuses copies of no bytes)
            path = transfers._copy_path(source_owner, box, False, itemsize)
            if path == "staged" and pin_bytes and _pin(transfers.device, source_owner,
                                                        hi - lo, pin_bytes):
                path = "plain"
            if path == "rect":
                return f"a copy of {', '.join(g.arrays)} is rectangular"
            out.append(Copy(k, lo, hi - lo, offset * itemsize, path == "staged",
                            g.copy_in, g.copy_back))
    return out


def _pin(device, owner, nbytes, pin_bytes) -> bool:
    root = memory_root(owner)
    return root.nbytes >= pin_bytes and PINS.ensure(device, root, nbytes, min_bytes=pin_bytes)


@dataclass(frozen=True)
class PartOps:
    """One part's ops in the phases a call runs them in: `start` (copies in, the launch, the
    flag's read, the reads that may come before the flag is known), `flag` (its check, after
    the queue's finish), `straight` (reads into NumPy memory once the flag is known clear, then
    a finish), `out` (the staged results copied out)."""
    queue: int
    start: list
    flag: list
    straight: list
    out: list


def part_ops(copy_list, buffers, staging, kernel_handle, global_size, local_size,
             flag_buffer, flag_host, may_flag: bool, queue: int = 0) -> PartOps:
    """The ops of one part on its queue (see the OP_ codes), in phases (PartOps). `buffers`,
    `staging`: per group, the device buffer's handle and the staging's first byte."""
    start = []
    for c in copy_list:
        if c.copy_in and c.staged:
            start += [OP_COPY, staging[c.group] + c.device_offset, c.host, c.nbytes]
            start += [OP_WRITE, buffers[c.group], c.device_offset, c.nbytes,
                      staging[c.group] + c.device_offset]
        elif c.copy_in:
            start += [OP_WRITE, buffers[c.group], c.device_offset, c.nbytes, c.host]
    dims = len(global_size)
    pad = [1] * (3 - dims)
    start += [OP_LAUNCH, kernel_handle, dims, *global_size, *pad, *local_size, *pad]
    if may_flag:
        start += [OP_READ, flag_buffer, 0, 4, flag_host]
    straight, out = [], []
    for c in copy_list:
        if not c.copy_back:
            continue
        target = staging[c.group] + c.device_offset if c.staged else c.host
        read = [OP_READ, buffers[c.group], c.device_offset, c.nbytes, target]
        if c.staged or not may_flag:
            start += read
        else:
            straight += read           # into NumPy memory only once the flag is known clear
        if c.staged:
            out += [OP_COPY, c.host, staging[c.group] + c.device_offset, c.nbytes]
    return PartOps(queue, start, [OP_FLAG, flag_host] if may_flag else [], straight, out)


def op_words(copy_list, buffers, staging, kernel_handle, global_size, local_size,
             flag_buffer, flag_host, may_flag: bool) -> list:
    """The ops of one call on one queue (part_ops' phases in turn)."""
    return call_ops([part_ops(copy_list, buffers, staging, kernel_handle, global_size,
                              local_size, flag_buffer, flag_host, may_flag)])


def call_ops(parts: list) -> list:
    """The ops of a call of `parts` (PartOps), each on its queue: every part started before
    any is waited for (the devices run together), every flag checked before any read into
    NumPy memory (a flagged call is rerun by the Python path on intact inputs), then the
    staged results copied out."""
    several = len(parts) > 1

    def on(p, ops):
        return [OP_QUEUE, p.queue] + ops if several and ops else ops
    ops = [w for p in parts for w in on(p, p.start)]
    ops += [w for p in parts for w in on(p, [OP_FINISH])]
    ops += [w for p in parts for w in p.flag]
    if any(p.straight for p in parts):
        ops += [w for p in parts for w in on(p, p.straight)]
        ops += [w for p in parts if p.straight for w in on(p, [OP_FINISH])]
    return ops + [w for p in parts for w in p.out]


class Record:
    """What C++ replays: `words` (int64: the header, then the ops), and every object they
    name, held so that nothing is freed while the compiled caller may replay."""

    def __init__(self, words, keep, nbytes, repin=False):
        self.harvested = 0            # replayed calls whose time a trial has had
        self.words = np.array(words, np.int64)
        self.address = self.words.ctypes.data
        self.keep = keep
        self.nbytes = nbytes
        self.repin = repin            # to be recorded again with pins (jitgpu/replay.py)

    @property
    def live(self) -> bool:
        return self.words[STATUS] == LIVE and self.words[EPOCH] == REPLAY_EPOCH[0]

    @property
    def failed(self) -> bool:
        return self.words[STATUS] == FAILED

    @property
    def calls(self) -> int:
        """Calls replayed from this record so far."""
        return int(self.words[CALLS])

    def allow(self, calls: int) -> None:
        """Let C++ replay `calls` more calls (-1: any number)."""
        self.words[BUDGET] = calls

    def seconds(self) -> tuple:
        """(fastest, mean) seconds of the replayed calls, each measured by the compiled caller
        around its copies and kernel (0 before any)."""
        calls = self.calls
        if not calls:
            return 0.0, 0.0
        return self.words[FASTEST_NS] * 1e-9, self.words[TOTAL_NS] * 1e-9 / calls


_ENTRY_POINTS = ("clEnqueueWriteBuffer", "clEnqueueReadBuffer", "clEnqueueNDRangeKernel",
                 "clFinish", "clSetKernelArg")


def entry_points(*names) -> tuple:
    """The addresses of OpenCL functions (of _ENTRY_POINTS) in the libOpenCL that pyopencl
    loaded (another loader's handles would mean nothing), through cffi: the loader is opened
    only if it is loaded already (RTLD_NOLOAD)."""
    global _entries
    if _entries is None:
        import cffi
        ffi = cffi.FFI()
        # Only the functions' addresses are taken (the compiled caller calls them).
        ffi.cdef("".join(f"int {name}(void);" for name in _ENTRY_POINTS))
        lib = ffi.dlopen(opencl_loader_path(), ffi.RTLD_NOLOAD | ffi.RTLD_LAZY)
        _entries = {name: int(ffi.cast("uintptr_t", getattr(lib, name)))
                    for name in _ENTRY_POINTS}
    return tuple(_entries[name] for name in names)


def opencl_loader_path() -> str:
    """The OpenCL loader pyopencl's extension is linked with: the copy its wheel carries
    (pyopencl/.libs or pyopencl.libs, named libOpenCL-<hash>.so.*), else the system's
    (libOpenCL.so.1, found by its soname once loaded). Raises OSError when pyopencl has none."""
    import glob
    import pyopencl
    package = os.path.dirname(pyopencl.__file__)
    for folder in (os.path.join(package, ".libs"), package + ".libs"):
        found = sorted(glob.glob(os.path.join(folder, "libOpenCL*.so*")))
        if found:
            return found[0]
    return "libOpenCL.so.1"


_entries = None


def kept_kit(recipe):
    """The kit the last run bound and kept for the next call (`executor.keep_kit`)."""
    bound = recipe.get("bound")
    return bound[0] if bound is not None and bound[0] in recipe.get("kits", ()) else None


def release(nbytes) -> None:
    with _lock:
        _held["bytes"] -= nbytes


def take_part(device, part, kernel, built_kernel, recipe, group_sources, may_flag,
               pin_bytes):
    """(PartOps, what they name, kit bytes held, copies) of one part on `device`, its kit
    taken from `recipe` and counted in the records' budget; or why not (str)."""
    cl, _ = load_opencl()
    kept = kept_kit(recipe)
    if kept is None:
        return "the part's buffers are not kept between calls (too large)"
    copy_list = copies(part.transfers.groups, group_sources, device.transfers, pin_bytes)
    if isinstance(copy_list, str):
        return copy_list
    nbytes = sum(s.nbytes for s in kept.staging.values())
    with _lock:
        if _held["bytes"] + nbytes > replay_budget(device):
            return "the replayed layouts hold their budget of device memory"
        _held["bytes"] += nbytes
    try:
        kit = take_bound_kit(recipe)
        if kit is None:
            raise LookupError("another call took the part's buffers")
        # A kernel of its own: the Python path's rebinds its arguments for its own kits.
        own_kernel = fresh_kernel(built_kernel)
        bind_args(cl, own_kernel, kernel, kit, recipe)
        # (staging is taken only for the groups that go through it: a large layout's arrays
        # move straight from pinned NumPy memory)
        staged = {c.group for c in copy_list if c.staged}
        staging = {k: s[:].__array_interface__["data"][0] if k in staged else 0
                   for k, s in kit.staging.items()}
        buffers = {k: b.int_ptr for k, b in kit.buffers.items()}
        ops = part_ops(copy_list, buffers, staging, own_kernel.int_ptr, kernel.global_size,
                       kernel.local_size, kit.flag_buf.int_ptr, kit.flag.ctypes.data, may_flag,
                       device.queue.int_ptr)
    except Exception:
        release(nbytes)
        raise
    return ops, (kit, own_kernel, device, kit.staging), nbytes, copy_list


def make_record(ops, queue, keep, nbytes, repin=False) -> Record:
    header = [LIVE, 0, int(REPLAY_EPOCH[0]), REPLAY_EPOCH.ctypes.data,
              *entry_points("clEnqueueWriteBuffer", "clEnqueueReadBuffer",
                            "clEnqueueNDRangeKernel", "clFinish"),
              queue, 0, 0, 0, 0, len(ops)]
    found = Record(header + ops, keep, nbytes, repin)
    weakref.finalize(found, release, nbytes)
    return found
