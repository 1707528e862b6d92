"""The parts of one plan on several devices at once (SPEC section 6).

`ConcurrentRun` starts one feeding thread per device (a worker kept per device, so that a call
does not pay for a new thread; a caller that only waits runs the last device itself), which
runs that device's parts in order with the executor's `run_part` on the device's own queue:
copies in (straight from pinned NumPy memory, or through pinned staging), enqueues, one finish
per part. pyopencl releases the GIL while it enqueues and waits, and NumPy while it copies, so
the devices, and the OpenMP code of a split nest running meanwhile in the compiled caller,
proceed together. The split plan (`jitgpu.split`) proved that no part writes what another
touches, so nothing needs undoing when one fails and the OpenMP fallback reruns on intact
inputs. A part the plan lets write back on its own (`early`: it overwrites every element it
copies back and reads none of them, so the rerun writes them again) writes back from its
device's thread as soon as its error flag is clear, overlapping the other parts; the others are
written by `finish`, once every device is done and none failed, and `finish` combines the
reductions.

The plan and kernel nests are read by their fields only (gpurts does not import jitgpu).
"""
from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor

from .errors import DeviceError
from .executor import (combine, keep_kit, pin_roots, run_part, run_tiles, tiles_of,
                       write_back)
from .opencl import load_opencl
from .timing import Timings

_workers: dict[str, ThreadPoolExecutor] = {}    # device label -> its feeding thread
_workers_lock = threading.Lock()


def _worker(label: str) -> ThreadPoolExecutor:
    with _workers_lock:
        if label not in _workers:
            _workers[label] = ThreadPoolExecutor(1, thread_name_prefix=f"unpy-feed {label}")
        return _workers[label]


class DeviceRun:
    """What one device's thread did: per part (index in the plan) its writes still to make,
    partials and kit; its Timings; its seconds from start to its last part's end (a finish, or
    the write-back of a part written early); the seconds its early write-backs took; the error
    that stopped it."""

    def __init__(self, label):
        self.label = label
        self.parts = {}
        self.timings = Timings()
        self.seconds = 0.0
        self.written_s = 0.0
        self.error = None


class ConcurrentRun:
    """Carry out `plan` (parts naming their device) with `kernels[k]` = (KernelNest, built
    cl.Kernel), one thread per device of `devices` ({label: Device}); started at once.
    `recipes`: the dict kept with the plan (see `gpurts.executor.execute`). `early`: indices of
    the parts that write back as soon as they succeed (legal only where a failed call's
    fallback writes every element they write again: `jitgpu.split.writes_only_overwrite`).
    `here`: the caller waits for the run anyway (nothing of its own to do meanwhile), so its
    thread runs the last device's parts itself, in `wait`, right after the others are handed
    to their threads: that device starts and ends with no hand-off between threads."""

    def __init__(self, plan, kernels, values, devices, recipes=None, early=frozenset(),
                 here=False, tiled=frozenset(), pin=False):
        self.plan, self.kernels, self.values, self.early = plan, kernels, values, early
        self.tiled = tiled
        # (`pin`: a repeated layout; each part moves only its share)
        self.pinned = pin_roots(devices, plan.parts, values, repeated=True) if pin else 0
        self.recipes = {} if recipes is None else recipes
        self.started = time.perf_counter()
        order = list(dict.fromkeys(part.device for part in plan.parts))
        self.runs = {label: DeviceRun(label) for label in order}
        for index in range(len(plan.parts)):      # made here: the threads only read them
            self.recipes.setdefault(index, {})
        self.here = (devices[order[-1]], self.runs[order[-1]]) if here and order else None
        self.futures = [_worker(label).submit(self._run_device, devices[label], self.runs[label])
                        for label in (order[:-1] if self.here else order)]

    def _run_device(self, device, run: DeviceRun) -> None:
        try:
            if run.label in self.tiled:
                self._run_tiles(device, run)
                return
            for index, (part, (kernel, cl_kernel)) in enumerate(zip(self.plan.parts,
                                                                    self.kernels)):
                if part.device == run.label:
                    writes, partials, kit = run_part(device, part, kernel, cl_kernel,
                                                     self.values, run.timings,
                                                     self.recipes[index])
                    if index in self.early:
                        written = time.perf_counter()
                        write_back(writes, None)
                        run.written_s += time.perf_counter() - written
                        writes = []
                    run.parts[index] = (writes, partials, kit)
        except BaseException as e:      # reported by finish(), in the caller's thread
            run.error = e
        finally:
            run.seconds = time.perf_counter() - self.started

    def _run_tiles(self, device, run: DeviceRun) -> None:
        """The device's parts as overlapped tiles (`tiled`: each writes back on its own, its
        kernel never sets the flag), written back from this thread."""
        tiles = tiles_of(self.plan, self.kernels, run.label)
        staged, kits = run_tiles(device, tiles, self.values, self.recipes, run.timings)
        written = time.perf_counter()
        write_back(staged, None)
        run.written_s += time.perf_counter() - written
        for (index, _, _, _), (kit, _, _) in zip(tiles, kits):
            run.parts[index] = ([], {}, kit)

    def wait(self) -> None:
        if self.here:
            here, self.here = self.here, None
            self._run_device(*here)
        for future in self.futures:
            future.result()

    def finish(self, initial: dict) -> dict:
        """Wait for every device; then write back the parts not written early and return the
        reductions combined from `initial` ({var: value}: the values before the nest, or what
        the OpenMP code of a split nest made of them). Raises the first part's error
        (KernelFlagged, DeviceError), having written nothing but the early parts' results."""
        cl, _ = load_opencl()
        self.wait()
        failed = [run.error for run in self.runs.values() if run.error is not None]
        if failed:
            error = failed[0]
            if isinstance(error, cl.Error):
                raise DeviceError(f"OpenCL error: {error}") from error
            raise error
        results = dict(initial)
        done = [self.runs[part.device].parts[index] for index, part in enumerate(self.plan.parts)]
        # One write-back for the other parts: the straight copies of several devices run
        # together.
        write_back([w for writes, _, _ in done for w in writes], None)
        for index, (part, (kernel, _)) in enumerate(zip(self.plan.parts, self.kernels)):
            _, partials, kit = done[index]
            for var, op, dtype in kernel.reductions:
                results[var] = combine(op, results[var], partials[var], dtype)
            keep_kit(kit, part, self.recipes[index])
        # The kits not kept go back to the pools now, not when the call's report (which holds
        # this run) is replaced: else the next call takes fresh buffers, which the driver maps
        # at first use (H100, stencil f64 8192: a GPU part of 30 to 38 % took 104-119 ms at the
        # second run of new shares, against 7 ms once its buffers came from the pool).
        for run in self.runs.values():
            run.parts.clear()
        return {var: results[var] for _, (kernel, _) in zip(self.plan.parts, self.kernels)
                for var, _, _ in kernel.reductions}

    def seconds(self) -> dict:
        """{device label: seconds from the start to its last part's finish}."""
        return {label: run.seconds for label, run in self.runs.items()}
