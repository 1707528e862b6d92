"""Built OpenCL programs, cached in memory and on disk (owned by `Device.kernel_cache`).

The key is the sha256 of the source, the build options, and the device's name, platform name and
driver version; a program binary from another driver is never loaded. On disk, under
`$UNPY_CACHE_DIR/opencl` (default `~/.cache/unpy/opencl`), each entry is
`MAGIC + sha256(binary) + binary`; an entry that is corrupt or that the driver refuses is
rebuilt from source and rewritten, never fatal.

Every program is built by `build_program`, on pyopencl's raw program object (`_cl._Program`).
pyopencl's `Program.build` would keep a failed program in a reference cycle (its error is a local
of a frame of its own traceback) that only a later garbage collection breaks, finalising the
failed program and its context at some unrelated point of the caller's code (the segfault of
issue 6 item 4); it would also keep a second copy of each binary in `~/.cache/pyopencl` and
write a temporary file for each failed build on drivers other than PoCL and NVIDIA's.
"""
from __future__ import annotations

import hashlib
import json
import logging
import os
import threading
import time
from dataclasses import dataclass
from typing import NamedTuple

from unpy.atomic_write import write_atomically
from unpy.settings import current as current_settings

from .errors import BuildError
from .opencl import load_opencl

log = logging.getLogger("gpurts")

MAGIC = b"UNPYCL1\0"


def cache_dir() -> str:
    """Where program binaries live: `$UNPY_CACHE_DIR/opencl`, default `~/.cache/unpy/opencl`."""
    return os.path.join(current_settings().cache_root, "opencl")


class BuiltKernel(NamedTuple):
    kernel: object          # a fresh cl.Kernel: its arguments are the caller's own
    cache_hit: bool         # from memory or disk, not compiled now
    build_seconds: float    # time spent getting the program, hit or not


@dataclass
class CacheStats:
    memory_hits: int = 0
    disk_hits: int = 0
    builds: int = 0
    rejected_entries: int = 0   # disk entries found corrupt or refused by the driver


class KernelCache:
    def __init__(self, device):
        self.device = device
        self.stats = CacheStats()
        self._programs: dict[str, object] = {}   # key -> program, or (message, log) of a failure
        self._lock = threading.Lock()

    def key(self, source: str, options) -> str:
        d = self.device
        fields = [source, list(options), d.name, d.platform_name, d.driver_version]
        return hashlib.sha256(json.dumps(fields).encode()).hexdigest()

    def clear_memory(self) -> None:
        """Forget the programs (and build failures) held in memory; the disk entries stay."""
        with self._lock:
            self._programs.clear()

    def build(self, source: str, kernel_name: str, options=(), aside=False) -> BuiltKernel:
        """The kernel `kernel_name` of `source` built with `options`; raises `BuildError` with
        the build log when the source does not build or has no such kernel. `aside`: a build
        off the calls' path, made by the device's build process where it has one
        (`Device.build_aside`: this process then only loads the binary). The lock is held
        only to look up and to keep: a build (or a load from disk) runs outside it, so that a
        thread building one source (jitgpu/search.py's worker) does not hold up another's
        lookups and builds; two threads building the same source at once both build it, and
        the first kept is the one kept (the same program)."""
        cl, _ = load_opencl()
        options = [str(o) for o in options]
        key = self.key(source, options)
        start = time.perf_counter()
        with self._lock:
            program = self._programs.get(key)
            if isinstance(program, tuple):   # failed before: the same source fails again
                raise BuildError(*program)
            if program is not None:
                self.stats.memory_hits += 1
        hit = program is not None
        if program is None:
            program = self._load(key, options)
            hit = program is not None
            if program is None:
                try:
                    program = self._built(source, options, aside)
                except BuildError as e:
                    with self._lock:
                        self.stats.builds += 1
                        self._programs[key] = (e.message, e.log)
                    raise
                self._store(key, program)
            with self._lock:
                if hit:
                    self.stats.disk_hits += 1
                else:
                    self.stats.builds += 1
                program = self._programs.setdefault(key, program)
        try:
            kernel = cl.Kernel(program, kernel_name)
            if aside and not hit:
                # Finished for the device now, not at its first launch (on a call's path:
                # NVIDIA's driver compiles a loaded program's PTX when first asked).
                kernel.get_work_group_info(cl.kernel_work_group_info.WORK_GROUP_SIZE,
                                           self.device.cl_device)
        except cl.Error as e:
            raise BuildError(f"the OpenCL program has no kernel {kernel_name!r}", str(e)) from e
        return BuiltKernel(kernel, hit, time.perf_counter() - start)

    def _built(self, source: str, options: list[str], aside: bool):
        """The program compiled from `source`: by the build process where `aside` and the
        device has one that can, else here."""
        builder = self.device.build_aside if aside else None
        binary = builder.build(source, options) if builder is not None else None
        if binary is not None:
            return build_program(self.device, options, binary=binary)
        return build_program(self.device, options, source=source)

    def _path(self, key: str) -> str:
        return os.path.join(cache_dir(), key + ".clbin")

    def _load(self, key: str, options: list[str]):
        """The program from the disk entry, or None when there is none or it is unusable."""
        cl, _ = load_opencl()
        path = self._path(key)
        try:
            with open(path, "rb") as f:
                data = f.read()
        except OSError:
            return None
        binary = data[len(MAGIC) + 32:]
        if data[:len(MAGIC)] != MAGIC or hashlib.sha256(binary).digest() != data[len(MAGIC):
                                                                                 len(MAGIC) + 32]:
            return self._reject(path, "corrupt")
        try:
            return build_program(self.device, options, binary=binary)
        except BuildError as e:
            return self._reject(path, f"refused by the driver: {e}")

    def _reject(self, path: str, why: str) -> None:
        with self._lock:
            self.stats.rejected_entries += 1
        log.info("gpurts: rebuilding kernel cache entry %s (%s)", path, why)
        return None

    def _store(self, key: str, program) -> None:
        """Write the program's binary for the device; a cache that cannot be written is skipped."""
        cl, _ = load_opencl()
        try:
            binary = program.get_info(cl.program_info.BINARIES)[0]
            if not binary:
                return
            write_atomically(self._path(key), MAGIC + hashlib.sha256(binary).digest() + binary)
        except (OSError, cl.Error) as e:
            log.info("gpurts: kernel cache not written (%s)", e)


def build_program(device, options, source: str | None = None, binary: bytes | None = None):
    """The program built for `device` (a `Device`) from OpenCL C `source` or from a device
    `binary`; raises `BuildError` with the build log when it does not build. A failed program is
    released before the error leaves: its only references are this frame's."""
    cl, _ = load_opencl()
    program, log = None, ""
    try:
        program = (cl._cl._Program(device.context, source) if binary is None else
                   cl._cl._Program(device.context, [device.cl_device], [binary]))
        program._build(options=" ".join(options).encode(), devices=[device.cl_device])
        return program
    except cl.Error as e:
        status = str(e)
    if program is not None:
        try:
            log = program.get_build_info(device.cl_device, cl.program_build_info.LOG).strip()
        except cl.Error:
            pass
    del program
    raise BuildError(f"OpenCL build failed on {device.label} ({status})", log)


def fresh_kernel(kernel):
    """Another kernel object of `kernel`'s program and function, its arguments its own (a
    bound kernel's are its caller's: a replay or relaunch launches it as bound)."""
    cl, _ = load_opencl()
    return cl.Kernel(kernel.get_info(cl.kernel_info.PROGRAM), kernel.function_name)


def build_kernel(device, source: str, kernel_name: str, options=(), aside=False) -> BuiltKernel:
    """`(kernel, cache_hit, build_seconds)` for `kernel_name` of `source` on `device`, through
    the device's kernel cache; `aside`: a build off the calls' path (`KernelCache.build`)."""
    return device.kernel_cache.build(source, kernel_name, options, aside)
