"""Device buffers, reused by size class: `pyopencl.tools.MemoryPool` over an
`ImmediateAllocator` (which makes the device commit the memory at allocation, so running out of
memory shows here and not at the first kernel). A `PooledBuffer` goes back to the pool when it is
garbage-collected or `release()`d."""
from __future__ import annotations

from .errors import DeviceError, device_error
from .opencl import load_opencl

class BufferPool:
    """The device's buffer pool (owned by `Device.pool`)."""

    def __init__(self, device):
        cl, _ = load_opencl()
        self.device = device
        self._pool = cl.tools.MemoryPool(cl.tools.ImmediateAllocator(device.queue))

    def allocate(self, nbytes: int):
        """A device buffer of at least `nbytes` bytes (a `pyopencl.tools.PooledBuffer`, usable
        wherever a `cl.Buffer` is). Raises `DeviceError` when the device cannot hold it."""
        cl, _ = load_opencl()
        if nbytes < 0:
            raise ValueError(f"negative buffer size {nbytes}")
        if nbytes > self.device.max_alloc:
            raise DeviceError(
                f"out of device memory: {nbytes} bytes is more than one buffer may hold on "
                f"{self.device.label} (max_alloc {self.device.max_alloc})")
        try:
            return self._pool.allocate(nbytes)
        except cl.Error as e:
            raise device_error(f"allocating {nbytes} bytes", self.device, e) from e

    @property
    def held_blocks(self) -> int:
        """Free blocks kept for reuse."""
        return self._pool.held_blocks

    @property
    def active_blocks(self) -> int:
        """Blocks handed out and not yet given back."""
        return self._pool.active_blocks

    def free_held(self) -> None:
        """Give the held (free) blocks back to the device."""
        self._pool.free_held()
