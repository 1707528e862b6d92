"""Copies between host memory and device buffers, for one device (owned by `Device.transfers`).

Plain copies take contiguous host arrays. A strided box of a NumPy array's memory
(`box_to_device`, `box_from_device`) lands packed in C order on the device, whichever way it
moves: straight from or to NumPy memory, in one plain copy when it is one contiguous run or one
rectangular copy when it is a 2-D/3-D box with contiguous rows, when it is small or its array's
memory is pinned (`gpurts.pins`: then the copy runs at the bus's speed); anything else through
pinned staging memory in chunks, the host copy (gather or scatter, over several threads) of one
chunk overlapping the DMA of the next. Measured on an H100 through this module (2026-11-23, 128
MiB float64 array): pinned DMA 53 GB/s each way; straight from or to pageable NumPy memory
7-10 GB/s; staged 12-14 GB/s (the host copy into staging reaches only 22 GB/s over 8 threads
there); straight from or to pinned NumPy memory 47-54 GB/s, plain or rectangular.
Every copy adds its bytes to the counters, and to a `Timings` when one is given.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from unpy.host_memory import Box, memory_root

from .boxes import (box_view, byte_window, copy_parallel, gather_box, rect_of, require_writable,
                    scatter_box, split_box)
from .errors import device_error
from .opencl import load_opencl
from .pins import PINS

# Boxes larger than this go through pinned staging, in chunks of CHUNK_BYTES.
STAGE_BYTES = 1 << 20
CHUNK_BYTES = 32 << 20
# Rows shorter than this are gathered: a DMA engine moves short rows slowly (and, for a large
# box of pinned memory, gathering over several threads beats the DMA of rows shorter than
# PINNED_ROW_BYTES).
MIN_RECT_ROW_BYTES = 64
PINNED_ROW_BYTES = 512


def _check_contiguous(host: np.ndarray) -> None:
    if not (host.flags.c_contiguous or host.flags.f_contiguous):
        raise ValueError("a plain copy needs a contiguous host array; use box_to_device or "
                         "box_from_device for strided memory")


class Transfers:
    """The device's copies and their byte counters (owned by `Device.transfers`)."""

    def __init__(self, device, queue=None):
        self.device = device
        self.queue = device.queue if queue is None else queue
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

    def _rect(self, owner: np.ndarray, box: Box, buffer, offset_bytes: int, itemsize: int):
        """The arguments of a rectangular copy of `box` (of elements of `itemsize` bytes)
        to/from packed memory in `buffer`."""
        rect = rect_of(box, itemsize)
        if rect is None:
            raise ValueError(f"box {box} is not a rectangle with contiguous rows")
        row_bytes, rows, slices = rect.region
        self._check_fits(buffer, offset_bytes, row_bytes * rows * slices)
        window = byte_window(owner, box.host_addr, box.byte_span(itemsize)[1])
        return window, dict(buffer_origin=(offset_bytes, 0, 0), host_origin=(0, 0, 0),
                            region=rect.region, buffer_pitches=(row_bytes, row_bytes * rows),
                            host_pitches=rect.host_pitches)

    def copy_rect_to_device(self, owner: np.ndarray, box: Box, buffer, offset_bytes: int = 0,
                            *, timings=None, wait_for=None, itemsize=None):
        """Copy a 2-D/3-D box of the owner's memory with contiguous rows (see `rect_of`) into
        `buffer` at `offset_bytes`, packed, in one rectangular copy; returns the event. The
        box's elements have `itemsize` bytes (default: the owner's)."""
        itemsize = itemsize or owner.itemsize
        window, rect = self._rect(owner, box, buffer, offset_bytes, itemsize)
        nbytes = box.size * itemsize
        return self._enqueue(
            f"copying a {box.shape} box to the device", "h2d", nbytes, timings,
            lambda cl: cl.enqueue_copy(self.queue, buffer, window, **rect,
                                       is_blocking=False, wait_for=wait_for))

    def copy_rect_from_device(self, buffer, owner: np.ndarray, box: Box, offset_bytes: int = 0,
                              *, is_blocking=True, timings=None, wait_for=None, itemsize=None):
        """The reverse of `copy_rect_to_device`: packed data at `offset_bytes` of `buffer` into
        the box's elements."""
        require_writable(owner)
        itemsize = itemsize or owner.itemsize
        window, rect = self._rect(owner, box, buffer, offset_bytes, itemsize)
        nbytes = box.size * itemsize
        return self._enqueue(
            f"copying a {box.shape} box from the device", "d2h", nbytes, timings,
            lambda cl: cl.enqueue_copy(self.queue, window, buffer, **rect,
                                       is_blocking=is_blocking, wait_for=wait_for))

    def _copy_path(self, owner: np.ndarray, box: Box, small_straight: bool = True,
                   itemsize=None) -> str:
        """'plain' or 'rect' (straight between NumPy memory and the device), or 'staged', for
        a box of elements of `itemsize` bytes (default: the owner's). `small_straight=False`:
        a small box is staged too (a group's small boxes are gathered into one staging buffer
        and moved by one DMA)."""
        itemsize = itemsize or owner.itemsize
        nbytes = box.size * itemsize
        small = nbytes <= STAGE_BYTES
        if small and not small_straight:
            return "staged"
        if not small and not PINS.ensure(self.device, memory_root(owner), nbytes):
            return "staged"
        if box.is_packed(itemsize):
            return "plain"
        rect = rect_of(box, itemsize)
        if rect is not None and rect.region[0] >= (MIN_RECT_ROW_BYTES if small
                                                   else PINNED_ROW_BYTES):
            return "rect"
        return "staged"

    def _straight(self, owner: np.ndarray, box: Box, buffer, offset_bytes: int, timings,
                  to_device: bool, is_blocking=False, small_straight=True, itemsize=None):
        """The box copied straight to or from `buffer` when its path allows (see `_copy_path`):
        the copy's event, else None."""
        itemsize = itemsize or owner.itemsize
        path = self._copy_path(owner, box, small_straight, itemsize)
        if path == "staged":
            return None
        return self._copy_by(path, owner, box, buffer, offset_bytes, timings, to_device,
                             is_blocking, itemsize)

    def _copy_by(self, path: str, owner: np.ndarray, box: Box, buffer, offset_bytes: int,
                 timings, to_device: bool, is_blocking, itemsize: int):
        """The straight copy of a box whose path (`_copy_path`) is 'plain' or 'rect'."""
        if path == "rect":
            if to_device:
                return self.copy_rect_to_device(owner, box, buffer, offset_bytes,
                                                timings=timings, itemsize=itemsize)
            return self.copy_rect_from_device(buffer, owner, box, offset_bytes,
                                              is_blocking=is_blocking, timings=timings,
                                              itemsize=itemsize)
        lo, hi = box.byte_span(itemsize)
        window = byte_window(owner, lo, hi)
        if to_device:
            return self.to_device(window, buffer, offset_bytes, timings=timings)
        return self.from_device(buffer, window, offset_bytes, is_blocking=is_blocking,
                                timings=timings)

    def _staging_blocks(self, owner: np.ndarray, pieces) -> list[np.ndarray]:
        """Two pinned blocks for the chunks (one while there is only one chunk)."""
        largest = max(piece.size for _, piece in pieces)
        return [self.staging(largest * owner.itemsize, owner.dtype)
                for _ in range(min(2, len(pieces)))]

    def box_to_device(self, owner: np.ndarray, box: Box, buffer, offset_bytes: int = 0, *,
                      timings=None):
        """Copy the box's elements (of the owner's dtype) into `buffer` at `offset_bytes`,
        packed in C order; returns the event of the last copy (the queue is in order)."""
        event = self._straight(owner, box, buffer, offset_bytes, timings, to_device=True)
        if event is not None:
            return event
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
        group, an array or a `LazyStaging`, of a dtype that may differ from the owner's where one buffer is viewed with
        several dtypes) and copy it into `buffer` at the same offsets, in chunks of about
        CHUNK_BYTES: the DMA of a chunk runs while the next is gathered (over several threads
        for large chunks). Gaps between boxes go along with their chunk. A large box of pinned
        memory (`gpurts.pins`) is copied straight instead. Returns the copies' events; nothing
        waits."""
        itemsize = packed.itemsize
        events, start, end = [], None, 0

        def send(lo, hi):
            events.append(self.to_device(packed[lo:hi], buffer, lo * itemsize, timings=timings))

        for offset, source in sorted(sources, key=lambda os_: os_[0]):
            whole = isinstance(source, np.ndarray)
            source_owner, box = ((source, Box.of_array(source)) if whole
                                 else (owner, source))
            event = self._straight(source_owner, box, buffer, offset * itemsize, timings,
                                   to_device=True, small_straight=False, itemsize=itemsize)
            if event is not None:       # a large box of pinned memory: no staging
                if start is not None and end > start:
                    send(start, end)
                start = None
                events.append(event)
                continue
            source_owner = owner
            if whole and source.nbytes <= CHUNK_BYTES:
                pieces = [(0, source)]
            else:
                if whole:   # a large array: in chunks of its own
                    source_owner, source = source, box
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

    def copy_back_writes(self, buffer, owner: np.ndarray, sources, staging, *,
                         timings=None) -> list:
        """How the packed data of `buffer` goes back into `sources` (as `gather_to_device`
        takes them), for `write_back`: [(what to copy from, host view)], a `DeviceRange` for a
        large box of pinned memory (copied straight, later), else its piece of `staging` (an
        array or a `LazyStaging`), which is read from the device now (not waited for: the
        caller finishes the queue before it writes anything). Raises ValueError, as NumPy does, when the owner is read-only."""
        writes, staged = [], False
        itemsize = staging.itemsize
        for offset, source in sources:
            if isinstance(source, np.ndarray):
                source_owner, box, view = source, Box.of_array(source), source
            else:
                require_writable(owner)
                source_owner, box = owner, source
                view = box_view(owner, box, staging.dtype)
            path = self._copy_path(source_owner, box, False, itemsize)
            if path != "staged":
                writes.append((DeviceRange(self, path, buffer, offset * itemsize, source_owner,
                                           box, itemsize, timings), view))
            else:
                staged = True
                writes.append((staging[offset:offset + view.size], view))
        if staged:
            self.from_device(buffer, staging[:], is_blocking=False, timings=timings)
        return writes

    def box_from_device(self, buffer, owner: np.ndarray, box: Box, offset_bytes: int = 0, *,
                        timings=None):
        """Copy packed data at `offset_bytes` of `buffer` back into the box's elements; done on
        return. Raises ValueError, as NumPy does, when the owner is read-only."""
        require_writable(owner)
        event = self._straight(owner, box, buffer, offset_bytes, timings, to_device=False,
                               is_blocking=True)
        if event is not None:
            return event
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


@dataclass(frozen=True)
class DeviceRange:
    """Packed data at `offset_bytes` of a device buffer that goes straight into a box of the
    owner's memory (see `Transfers.copy_back_writes`)."""
    transfers: Transfers
    path: str                 # 'plain' or 'rect' (`Transfers._copy_path`)
    buffer: object
    offset_bytes: int
    owner: np.ndarray
    box: Box
    itemsize: int
    timings: object = None

    def copy(self):
        """Enqueue the copy; returns its event."""
        return self.transfers._copy_by(self.path, self.owner, self.box, self.buffer,
                                       self.offset_bytes, self.timings, False, False,
                                       self.itemsize)


def write_back(writes, undo=None) -> None:
    """Copy `writes` ([(packed elements or a DeviceRange, destination view)], see
    `Transfers.copy_back_writes`) into NumPy memory; done on return. With an `undo` list, first
    save there what each destination held."""
    events = []
    for source, dst in writes:
        straight = isinstance(source, DeviceRange)
        if undo is not None or not straight:
            for event in events:     # in order: destinations may overlap
                event.wait()
            events.clear()
        if undo is not None:
            undo.append((dst.copy(), dst))
        if straight:
            events.append(source.copy())
        else:
            copy_parallel(dst, source.reshape(dst.shape))
    for event in events:
        event.wait()
