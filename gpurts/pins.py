"""Page-locked NumPy memory: the user's arrays made DMA-fast in place, so that large copies go
straight between NumPy memory and the device at the bus's speed, with no staging copy.

An OpenCL buffer made with USE_HOST_PTR over a root array's memory page-locks that memory for
the driver, and every later plain or rectangular copy from or to it runs as pinned DMA. The pin
buffer itself is never used by a kernel: it only holds the pages locked while the array lives,
and is released when the root array is garbage (a weak reference), never earlier (a copy in
flight keeps a view of the root, so the root outlives it).
Measured on an H100 through NVIDIA's OpenCL (driver 580, 2026-11-23, 128 MiB float64 arrays):
plain copies 47-53 GB/s each way and rectangular copies of an interior 2-D box 51-54 GB/s, vs
7-10 GB/s from pageable memory and 14 GB/s through staging; a pin costs 0.4 ms plus about
40 us per MiB (5 ms for 128 MiB of touched memory), takes no device memory, and helps every
context of the process. Pinning pays only where host and device memories differ, so by default
(`UNPY_PIN` unset or `auto`) only devices without host-unified memory pin; `UNPY_PIN=1` pins on
every device (the tests run the direct copies on a CPU device so), `UNPY_PIN=0` never.
"""
from __future__ import annotations

import ctypes
import os
import threading
import weakref

import numpy as np
from numpy.lib.array_utils import byte_bounds

from unpy.settings import current as current_settings

from .opencl import load_opencl

# Roots smaller than this are not pinned: for them the pin costs more than a few copies save.
PIN_MIN_BYTES = 1 << 20
# A root is pinned only when a copy moves at least this fraction of it: a small box of a huge
# array goes through staging rather than lock gigabytes of pages.
PIN_MIN_FRACTION = 0.25


def _pin_budget() -> int:
    """Bytes of host memory that may be locked at once: a quarter of the machine's memory."""
    try:
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE") // 4
    except (ValueError, OSError):
        return 4 << 30


def pinning_on(device) -> bool:
    """Whether copies for `device` pin NumPy memory (`UNPY_PIN`, see the module docstring)."""
    mode = current_settings().pin
    if mode in ("0", "1"):
        return mode == "1"
    return not device.cl_device.host_unified_memory


class Pins:
    """The process's pinned roots (`PINS`): {(first byte, end): pin buffer}."""

    def __init__(self):
        self._lock = threading.Lock()
        self._pins: dict[tuple[int, int], object] = {}
        self._refused: set[tuple[int, int]] = set()
        self.budget = _pin_budget()
        self.pinned_bytes = 0

    def is_pinned(self, root: np.ndarray) -> bool:
        return byte_bounds(root) in self._pins

    def ensure(self, device, root: np.ndarray, moved_bytes: int,
               min_bytes: int | None = None) -> bool:
        """Whether `root`'s memory is page-locked, pinning it now (through `device`'s context)
        when pinning is on for the device, the root has at least `min_bytes` (default
        PIN_MIN_BYTES; a replayed layout, jitgpu/replay.py, may pin smaller roots: it pays the
        pin once), the copy moves enough of it and the budget allows."""
        key = byte_bounds(root)
        if key in self._pins:
            return True
        size = key[1] - key[0]
        smallest = PIN_MIN_BYTES if min_bytes is None else min_bytes
        if (size < smallest or moved_bytes < PIN_MIN_FRACTION * size
                or key in self._refused or not pinning_on(device)):
            return False
        with self._lock:
            if key in self._pins:
                return True
            if self.pinned_bytes + size > self.budget:
                return False
            buffer = self._pin(device, key)
            if buffer is None:
                self._refused.add(key)       # the driver would not: staging it is, for good
                return False
            self._pins[key] = buffer
            self.pinned_bytes += size
        weakref.finalize(root, self._unpin, key)
        return True

    @staticmethod
    def _pin(device, key):
        cl, _ = load_opencl()
        # The buffer sees the memory through ctypes, not the root, so it does not keep the root
        # alive (the finaliser releases it when the root goes).
        memory = (ctypes.c_char * (key[1] - key[0])).from_address(key[0])
        try:
            return cl.Buffer(device.context, cl.mem_flags.READ_WRITE | cl.mem_flags.USE_HOST_PTR,
                             hostbuf=memory)
        except (cl.Error, ValueError, TypeError):
            return None

    def _unpin(self, key) -> None:
        with self._lock:
            buffer = self._pins.pop(key, None)
            if buffer is not None:
                self.pinned_bytes -= key[1] - key[0]
        if buffer is not None:
            buffer.release()


PINS = Pins()
