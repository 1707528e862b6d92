"""Copies between host memory and device buffers, for one device (owned by `Device.transfers`).

Plain copies take contiguous host arrays; a strided box of a NumPy array's memory moves by the
cheapest way that keeps packed C order on the device (`box_to_device`, `box_from_device`): one
plain copy when it is one contiguous run, a rectangular copy when it is a 2-D/3-D box with
contiguous rows, else a gather into pinned staging memory (a scatter back from it). Every call
adds its bytes to the counters, and to a `Timings` when one is given.
"""
from __future__ import annotations

import numpy as np

from .boxes import Box, byte_window, gather_box, is_packed, rect_of, scatter_box
from .errors import device_error
from .opencl import load_opencl

# Rows shorter than this go through a gather: a DMA engine moves short rows slowly.
MIN_RECT_ROW_BYTES = 64


def _check_contiguous(host: np.ndarray) -> None:
    if not (host.flags.c_contiguous or host.flags.f_contiguous):
        raise ValueError("a plain copy needs a contiguous host array; use box_to_device or "
                         "box_from_device for strided memory")


class Transfers:
    def __init__(self, device):
        self.device = device
        self.h2d_bytes = 0
        self.d2h_bytes = 0
        self.h2d_calls = 0
        self.d2h_calls = 0

    def staging(self, nbytes: int, dtype=np.uint8) -> np.ndarray:
        """A 1-D array on pinned host memory (see `PinnedPool.take`)."""
        return self.device.pinned.take(nbytes, dtype)

    def _enqueue(self, what: str, phase: str, nbytes: int, timings, copy):
        cl, _ = load_opencl()
        try:
            event = cl.enqueue_marker(self.device.queue) if nbytes == 0 else copy(cl)
        except cl.Error as e:
            raise device_error(what, self.device, e) from e
        if phase == "h2d":
            self.h2d_bytes += nbytes
            self.h2d_calls += 1
        else:
            self.d2h_bytes += nbytes
            self.d2h_calls += 1
        if timings is not None:
            timings.record(phase, event, nbytes)
        return event

    @staticmethod
    def _check_fits(buffer, offset_bytes: int, nbytes: int) -> None:
        if offset_bytes < 0 or offset_bytes + nbytes > buffer.size:
            raise ValueError(f"{nbytes} bytes at offset {offset_bytes} do not fit a device "
                             f"buffer of {buffer.size} bytes")

    def to_device(self, host: np.ndarray, buffer, offset_bytes: int = 0, *, timings=None,
                  wait_for=None):
        """Copy a contiguous host array into `buffer` at `offset_bytes`; returns the event (the
        copy runs on; the event keeps `host` alive until it is done)."""
        _check_contiguous(host)
        self._check_fits(buffer, offset_bytes, host.nbytes)
        return self._enqueue(
            f"copying {host.nbytes} bytes to the device", "h2d", host.nbytes, timings,
            lambda cl: cl.enqueue_copy(self.device.queue, buffer, host, dst_offset=offset_bytes,
                                       is_blocking=False, wait_for=wait_for))

    def from_device(self, buffer, host: np.ndarray, offset_bytes: int = 0, *, is_blocking=True,
                    timings=None, wait_for=None):
        """Copy `host.nbytes` bytes at `offset_bytes` of `buffer` into a contiguous host array;
        returns the event (done on return unless `is_blocking=False`)."""
        _check_contiguous(host)
        self._check_fits(buffer, offset_bytes, host.nbytes)
        return self._enqueue(
            f"copying {host.nbytes} bytes from the device", "d2h", host.nbytes, timings,
            lambda cl: cl.enqueue_copy(self.device.queue, host, buffer, src_offset=offset_bytes,
                                       is_blocking=is_blocking, wait_for=wait_for))

    def _rect(self, owner: np.ndarray, box: Box, buffer, offset_bytes: int):
        """The arguments of a rectangular copy of `box` to/from packed memory in `buffer`."""
        rect = rect_of(box, owner.itemsize)
        if rect is None:
            raise ValueError(f"box {box} is not a rectangle with contiguous rows")
        row_bytes, rows, slices = rect.region
        self._check_fits(buffer, offset_bytes, row_bytes * rows * slices)
        window = byte_window(owner, box.offset, box.byte_span(owner.itemsize)[1])
        return window, dict(buffer_origin=(offset_bytes, 0, 0), host_origin=(0, 0, 0),
                            region=rect.region, buffer_pitches=(row_bytes, row_bytes * rows),
                            host_pitches=rect.host_pitches)

    def copy_rect_to_device(self, owner: np.ndarray, box: Box, buffer, offset_bytes: int = 0,
                            *, timings=None, wait_for=None):
        """Copy a 2-D/3-D box of the owner's memory with contiguous rows (see `rect_of`) into
        `buffer` at `offset_bytes`, packed, in one rectangular copy; returns the event."""
        window, rect = self._rect(owner, box, buffer, offset_bytes)
        nbytes = box.size * owner.itemsize
        return self._enqueue(
            f"copying a {box.shape} box to the device", "h2d", nbytes, timings,
            lambda cl: cl.enqueue_copy(self.device.queue, buffer, window, **rect,
                                       is_blocking=False, wait_for=wait_for))

    def copy_rect_from_device(self, buffer, owner: np.ndarray, box: Box, offset_bytes: int = 0,
                              *, is_blocking=True, timings=None, wait_for=None):
        """The reverse of `copy_rect_to_device`: packed data at `offset_bytes` of `buffer` into
        the box's elements."""
        if not owner.flags.writeable:
            raise ValueError("assignment destination is read-only")
        window, rect = self._rect(owner, box, buffer, offset_bytes)
        nbytes = box.size * owner.itemsize
        return self._enqueue(
            f"copying a {box.shape} box from the device", "d2h", nbytes, timings,
            lambda cl: cl.enqueue_copy(self.device.queue, window, buffer, **rect,
                                       is_blocking=is_blocking, wait_for=wait_for))

    def _copy_path(self, owner: np.ndarray, box: Box) -> str:
        if is_packed(box, owner.itemsize):
            return "plain"
        rect = rect_of(box, owner.itemsize)
        if rect is not None and rect.region[0] >= MIN_RECT_ROW_BYTES:
            return "rect"
        return "gather"

    def box_to_device(self, owner: np.ndarray, box: Box, buffer, offset_bytes: int = 0, *,
                      timings=None):
        """Copy the box's elements (of the owner's dtype) into `buffer` at `offset_bytes`,
        packed in C order, the cheapest way; returns the event."""
        path = self._copy_path(owner, box)
        if path == "rect":
            return self.copy_rect_to_device(owner, box, buffer, offset_bytes, timings=timings)
        if path == "plain":
            lo, hi = box.byte_span(owner.itemsize)
            host = byte_window(owner, lo, hi)
        else:
            host = gather_box(owner, box, self.staging(box.size * owner.itemsize, owner.dtype))
        return self.to_device(host, buffer, offset_bytes, timings=timings)

    def box_from_device(self, buffer, owner: np.ndarray, box: Box, offset_bytes: int = 0, *,
                        timings=None):
        """Copy packed data at `offset_bytes` of `buffer` back into the box's elements; done on
        return. Raises ValueError, as NumPy does, when the owner is read-only."""
        if not owner.flags.writeable:
            raise ValueError("assignment destination is read-only")
        path = self._copy_path(owner, box)
        if path == "rect":
            return self.copy_rect_from_device(buffer, owner, box, offset_bytes, timings=timings)
        if path == "plain":
            lo, hi = box.byte_span(owner.itemsize)
            return self.from_device(buffer, byte_window(owner, lo, hi), offset_bytes,
                                    timings=timings)
        staged = self.staging(box.size * owner.itemsize, owner.dtype)
        event = self.from_device(buffer, staged, offset_bytes, timings=timings)
        scatter_box(staged, owner, box)
        return event
