"""Pinned host staging memory: `cl.Buffer`s made with ALLOC_HOST_PTR, mapped once for their
lifetime and handed out as NumPy arrays. DMA from such memory runs at the bus's speed; from
pageable NumPy memory it is 3-5x slower (SPEC section 5). Blocks are reused by size class."""
from __future__ import annotations

import threading
import weakref

import numpy as np

from .errors import device_error
from .opencl import load_opencl

_MIN_BLOCK = 4096


def size_class(nbytes: int) -> int:
    """The block size that serves `nbytes`: the next of 4, 5, 6, 7 times a power of two (at
    most 25% more than asked), at least 4 KiB."""
    if nbytes <= _MIN_BLOCK:
        return _MIN_BLOCK
    step = 1 << max(0, (nbytes - 1).bit_length() - 3)
    return -(-nbytes // step) * step


class PinnedPool:
    """The device's pinned staging blocks (owned by `Device.pinned`)."""

    def __init__(self, device):
        self.device = device
        self._lock = threading.RLock()   # re-entrant: a finaliser may run inside `take`
        self._free: dict[int, list] = {}
        self.active_blocks = 0

    def take(self, nbytes: int, dtype=np.uint8) -> np.ndarray:
        """A 1-D array of `nbytes // itemsize` elements on pinned memory. Its block returns to the
        pool when the array and every view of it are gone (a pending non-blocking copy holds a
        reference too), so it is never handed out twice at once."""
        dtype = np.dtype(dtype)
        if nbytes % dtype.itemsize:
            raise ValueError(f"{nbytes} bytes is not a whole number of {dtype} elements")
        if nbytes == 0:
            return np.empty(0, dtype)
        size = size_class(nbytes)
        with self._lock:
            free = self._free.get(size)
            block = free.pop() if free else None
            self.active_blocks += 1
        if block is None:
            try:
                block = self._new_block(size)
            except BaseException:
                with self._lock:
                    self.active_blocks -= 1
                raise
        # frombuffer makes a new root array (its base is a memoryview), so every view of it
        # keeps it alive and the finaliser runs only when the last view is gone.
        array = np.frombuffer(block[1].data, dtype=dtype, count=nbytes // dtype.itemsize)
        weakref.finalize(array, self._give_back, size, block)
        return array

    def _new_block(self, size: int):
        cl, _ = load_opencl()
        mf = cl.mem_flags
        try:
            buffer = cl.Buffer(self.device.context, mf.READ_WRITE | mf.ALLOC_HOST_PTR, size)
            mapped, _ = cl.enqueue_map_buffer(self.device.queue, buffer,
                                              cl.map_flags.READ | cl.map_flags.WRITE,
                                              0, (size,), np.uint8, is_blocking=True)
        except cl.Error as e:
            raise device_error(f"allocating {size} bytes of pinned host memory",
                               self.device, e) from e
        return buffer, mapped

    def _give_back(self, size: int, block) -> None:
        with self._lock:
            self._free.setdefault(size, []).append(block)
            self.active_blocks -= 1

    @property
    def held_blocks(self) -> int:
        with self._lock:
            return sum(len(blocks) for blocks in self._free.values())

    def free_held(self) -> None:
        """Unmap and release the blocks kept for reuse."""
        with self._lock:
            blocks = [b for free in self._free.values() for b in free]
            self._free.clear()
        for _, mapped in blocks:
            mapped.base.release(self.device.queue)


class LazyStaging:
    """A pinned staging array of `nbytes` bytes of `dtype`, taken from the pool only when first
    sliced: a transfer group whose boxes all move straight between pinned NumPy memory and the
    device (`gpurts.pins`) never needs one, and taking a fresh block maps new pinned memory."""

    def __init__(self, pool: PinnedPool, nbytes: int, dtype):
        self.pool, self.nbytes, self.dtype = pool, nbytes, np.dtype(dtype)
        self.itemsize = self.dtype.itemsize
        self._array = None

    @property
    def taken(self) -> bool:
        """Whether the staging has been taken from the pool (first sliced)."""
        return self._array is not None

    def __getitem__(self, key) -> np.ndarray:
        if self._array is None:
            self._array = self.pool.take(self.nbytes, self.dtype)
        return self._array[key]
