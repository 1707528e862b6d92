"""Copies between host memory and device buffers, for one device (owned by `Device.transfers`).

Plain copies take contiguous host arrays. A strided box of a NumPy array's memory
(`box_to_device`, `box_from_device`) lands packed in C order on the device, whichever way it
moves: a small box straight from NumPy memory, in one plain copy when it is one contiguous run or
one rectangular copy when it is a 2-D/3-D box with contiguous rows; anything else, and every large
box, through pinned staging memory in chunks, the host copy (gather or scatter, over several
threads) of one chunk overlapping the DMA of the next. Measured on an H200 through this module
(2026-11, 512 MiB float64 array): pinned DMA 55 GB/s each way; straight from or to pageable NumPy
memory 7-8 GB/s to the device and 3-15 GB/s back, plain or rectangular; staged in 32 MiB chunks
over 8 threads, 24/20 GB/s (to/from) for the whole array, 22/18 for a box of long rows, 13/11 for
every other element. So for large boxes staging wins even where one rectangular copy would do.
Every copy adds its bytes to the counters, and to a `Timings` when one is given.
"""
from __future__ import annotations

import numpy as np

from .boxes import (Box, byte_window, copy_parallel, gather_box, is_packed, rect_of,
                    require_writable, scatter_box, split_box)
from .errors import device_error
from .opencl import load_opencl

# Boxes larger than this go through pinned staging, in chunks of CHUNK_BYTES.
STAGE_BYTES = 1 << 20
CHUNK_BYTES = 32 << 20
# Rows shorter than this are gathered: a DMA engine moves short rows slowly.
MIN_RECT_ROW_BYTES = 64


def _check_contiguous(host: np.ndarray) -> None:
    if not (host.flags.c_contiguous or host.flags.f_contiguous):
        raise ValueError("a plain copy needs a contiguous host array; use box_to_device or "
                         "box_from_device for strided memory")


class Transfers:
    """The device's copies and their byte counters (owned by `Device.transfers`)."""

    def __init__(self, device):
        self.device = device
        self.queue = device.queue
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
            event = cl.enqueue_marker(self.queue) if nbytes == 0 else copy(cl)
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
            lambda cl: cl.enqueue_copy(self.queue, buffer, host, dst_offset=offset_bytes,
                                       is_blocking=False, wait_for=wait_for))

    def from_device(self, buffer, host: np.ndarray, offset_bytes: int = 0, *, is_blocking=True,
                    timings=None, wait_for=None):
        """Copy `host.nbytes` bytes at `offset_bytes` of `buffer` into a contiguous host array;
        returns the event (done on return unless `is_blocking=False`)."""
        _check_contiguous(host)
        self._check_fits(buffer, offset_bytes, host.nbytes)
        return self._enqueue(
            f"copying {host.nbytes} bytes from the device", "d2h", host.nbytes, timings,
            lambda cl: cl.enqueue_copy(self.queue, host, buffer, src_offset=offset_bytes,
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
            lambda cl: cl.enqueue_copy(self.queue, buffer, window, **rect,
                                       is_blocking=False, wait_for=wait_for))

    def copy_rect_from_device(self, buffer, owner: np.ndarray, box: Box, offset_bytes: int = 0,
                              *, is_blocking=True, timings=None, wait_for=None):
        """The reverse of `copy_rect_to_device`: packed data at `offset_bytes` of `buffer` into
        the box's elements."""
        require_writable(owner)
        window, rect = self._rect(owner, box, buffer, offset_bytes)
        nbytes = box.size * owner.itemsize
        return self._enqueue(
            f"copying a {box.shape} box from the device", "d2h", nbytes, timings,
            lambda cl: cl.enqueue_copy(self.queue, window, buffer, **rect,
                                       is_blocking=is_blocking, wait_for=wait_for))

    def _copy_path(self, owner: np.ndarray, box: Box) -> str:
        if box.size * owner.itemsize <= STAGE_BYTES:
            if is_packed(box, owner.itemsize):
                return "plain"
            rect = rect_of(box, owner.itemsize)
            if rect is not None and rect.region[0] >= MIN_RECT_ROW_BYTES:
                return "rect"
        return "staged"

    def _staging_blocks(self, owner: np.ndarray, pieces) -> list[np.ndarray]:
        """Two pinned blocks for the chunks (one while there is only one chunk)."""
        largest = max(piece.size for _, piece in pieces)
        return [self.staging(largest * owner.itemsize, owner.dtype)
                for _ in range(min(2, len(pieces)))]

    def box_to_device(self, owner: np.ndarray, box: Box, buffer, offset_bytes: int = 0, *,
                      timings=None):
        """Copy the box's elements (of the owner's dtype) into `buffer` at `offset_bytes`,
        packed in C order; returns the event of the last copy (the queue is in order)."""
        path = self._copy_path(owner, box)
        if path == "rect":
            return self.copy_rect_to_device(owner, box, buffer, offset_bytes, timings=timings)
        if path == "plain":
            lo, hi = box.byte_span(owner.itemsize)
            return self.to_device(byte_window(owner, lo, hi), buffer, offset_bytes,
                                  timings=timings)
        pieces = split_box(box, owner.itemsize, CHUNK_BYTES)
        if not pieces:
            return self.to_device(np.empty(0, owner.dtype), buffer, offset_bytes, timings=timings)
        blocks = self._staging_blocks(owner, pieces)
        in_flight = [None] * len(blocks)
        for i, (start, piece) in enumerate(pieces):
            b = i % len(blocks)
            if in_flight[b] is not None:
                in_flight[b].wait()   # its DMA is done: the block may be refilled
            packed = gather_box(owner, piece, blocks[b])
            in_flight[b] = self.to_device(packed, buffer, offset_bytes + start * owner.itemsize,
                                          timings=timings)
        return in_flight[(len(pieces) - 1) % len(blocks)]

    def gather_to_device(self, owner: np.ndarray, sources, packed: np.ndarray, buffer, *,
                         timings=None) -> list:
        """Gather `sources` (`[(element offset in packed, source)]`, a source being a Box of the
        owner's memory, or an array copied whole) into `packed` (pinned staging for the whole
        group, of a dtype that may differ from the owner's where one buffer is viewed with
        several dtypes) and copy it into `buffer` at the same offsets, in chunks of about
        CHUNK_BYTES: the DMA of a chunk runs while the next is gathered (over several threads
        for large chunks). Gaps between boxes go along with their chunk. Returns the copies'
        events; nothing waits."""
        itemsize = packed.itemsize
        events, start, end = [], None, 0

        def send(lo, hi):
            events.append(self.to_device(packed[lo:hi], buffer, lo * itemsize, timings=timings))

        for offset, source in sorted(sources, key=lambda os_: os_[0]):
            source_owner = owner
            if isinstance(source, np.ndarray) and source.nbytes <= CHUNK_BYTES:
                pieces = [(0, source)]
            else:
                if isinstance(source, np.ndarray):   # a large array: in chunks of its own
                    source_owner, source = source, Box(0, source.shape, source.strides)
                pieces = split_box(source, itemsize, CHUNK_BYTES)
            for position, piece in pieces:
                lo = offset + position
                if isinstance(piece, np.ndarray):
                    copy_parallel(packed[lo:lo + piece.size].reshape(piece.shape), piece)
                else:
                    gather_box(source_owner, piece, packed[lo:])
                if start is None:
                    start = end = lo
                end = max(end, lo + piece.size)
                if (end - start) * itemsize >= CHUNK_BYTES:
                    send(start, end)
                    start = None
        if start is not None and end > start:
            send(start, end)
        return events

    def box_from_device(self, buffer, owner: np.ndarray, box: Box, offset_bytes: int = 0, *,
                        timings=None):
        """Copy packed data at `offset_bytes` of `buffer` back into the box's elements; done on
        return. Raises ValueError, as NumPy does, when the owner is read-only."""
        require_writable(owner)
        path = self._copy_path(owner, box)
        if path == "rect":
            return self.copy_rect_from_device(buffer, owner, box, offset_bytes, timings=timings)
        if path == "plain":
            lo, hi = box.byte_span(owner.itemsize)
            return self.from_device(buffer, byte_window(owner, lo, hi), offset_bytes,
                                    timings=timings)
        pieces = split_box(box, owner.itemsize, CHUNK_BYTES)
        if not pieces:
            return self.from_device(buffer, np.empty(0, owner.dtype), offset_bytes,
                                    timings=timings)
        blocks = self._staging_blocks(owner, pieces)
        previous = None
        for i, (start, piece) in enumerate(pieces):
            block = blocks[i % len(blocks)]
            event = self.from_device(buffer, block[:piece.size],
                                     offset_bytes + start * owner.itemsize, is_blocking=False,
                                     timings=timings)
            if previous is not None:   # scatter the last chunk while this one is read
                _finish_scatter(*previous, owner)
            previous = (event, block, piece)
        _finish_scatter(*previous, owner)
        return event


def _finish_scatter(event, block: np.ndarray, piece: Box, owner: np.ndarray) -> None:
    event.wait()
    scatter_box(block, owner, piece)
