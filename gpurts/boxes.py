"""Moving strided boxes of host memory between NumPy memory and packed arrays.

A `Box` (unpy/host_memory.py) names the elements a transfer group touches (from a CSLMAD: a
base address and per-dimension counts and byte strides); here it is read in the memory of a
NumPy array, the owner, that holds it. The box is checked to lie inside the memory the owner
views before any view of it is made, so a wrong box is a ValueError, never a stray read or
write. Packed order is C order of the box's index, whichever way the box is copied (plain,
rectangular, gathered), so the device layout does not depend on the copy path.
"""
from __future__ import annotations

import functools
import itertools
import math
import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np
from numpy.lib.array_utils import byte_bounds

from unpy.host_memory import Box, address, memory_root


def _check_inside(owner: np.ndarray, box: Box, itemsize: int) -> None:
    lo, hi = box.byte_span(itemsize)
    if lo == hi:
        return
    start, end = byte_bounds(memory_root(owner))
    if lo < start or hi > end:
        base = address(owner)
        raise ValueError(f"box {box} (bytes [{lo - base}, {hi - base}) from the array's first "
                         f"element) leaves the array's memory (bytes [{start - base}, "
                         f"{end - base}))")


class _Memory:
    """Exposes raw memory to NumPy through the array interface, keeping `owner` alive. This is
    what `numpy.lib.stride_tricks.as_strided` builds on; as_strided itself cannot start a view at
    another byte than its array's first element, nor change the dtype of a strided array."""

    def __init__(self, owner: np.ndarray, address: int, shape, strides, dtype: np.dtype):
        self.owner = owner
        self.__array_interface__ = {
            "version": 3, "data": (address, not owner.flags.writeable),
            "shape": tuple(shape), "strides": tuple(strides),
            "typestr": dtype.str, "descr": dtype.descr}


def box_view(owner: np.ndarray, box: Box, dtype=None) -> np.ndarray:
    """A NumPy view of the box's elements (of `dtype`, default the owner's). Raises ValueError if
    the box leaves the memory the owner views. Writable only if the owner is."""
    dtype = owner.dtype if dtype is None else np.dtype(dtype)
    _check_inside(owner, box, dtype.itemsize)
    if box.size == 0:
        return np.empty(box.shape, dtype)
    return np.asarray(_Memory(owner, box.host_addr, box.shape, box.strides, dtype))


def byte_window(owner: np.ndarray, lo: int, hi: int) -> np.ndarray:
    """The bytes at addresses [lo, hi), in the owner's memory, as a contiguous uint8 array
    (checked)."""
    return box_view(owner, Box(lo, (hi - lo,), (1,)), np.uint8)


@dataclass(frozen=True)
class Rect:
    """A box as an OpenCL rectangular copy: `region` = (row bytes, rows, slices) and
    `host_pitches` = (row pitch, slice pitch), starting at the box's first byte."""
    region: tuple[int, int, int]
    host_pitches: tuple[int, int]


def rect_of(box: Box, itemsize: int) -> Rect | None:
    """The rectangular copy that moves the box, or None when there is none: the box must have
    at most 3 dimensions of extent > 1 with positive strides, contiguous rows (innermost stride
    = itemsize), rows not overlapping, and a slice pitch that is a multiple of the row pitch
    (an OpenCL rule)."""
    box = box.squeezed()
    if box.size == 0 or not 1 <= len(box.shape) <= 3 or box.strides[-1] != itemsize:
        return None
    shape = (1,) * (3 - len(box.shape)) + box.shape
    strides = (0,) * (3 - len(box.strides)) + box.strides
    row_bytes = shape[2] * itemsize
    row_pitch = strides[1] if shape[1] > 1 else row_bytes
    slice_pitch = strides[0] if shape[0] > 1 else row_pitch * shape[1]
    if row_pitch < row_bytes or slice_pitch < row_pitch * shape[1] or slice_pitch % row_pitch:
        return None
    return Rect((row_bytes, shape[1], shape[0]), (row_pitch, slice_pitch))


def split_box(box: Box, itemsize: int, max_bytes: int) -> list[tuple[int, Box]]:
    """The box cut, in C order, into sub-boxes of at most `max_bytes` (at least one element
    each), with the packed index of each one's first element. Cuts go along the outermost axis
    whose trailing sub-box fits, so every piece is a box of the same kind as the whole."""
    if box.size == 0:
        return []
    shape, strides = box.shape, box.strides
    trailing = [math.prod(shape[k + 1:]) for k in range(len(shape))]
    k = next((k for k in range(len(shape)) if trailing[k] * itemsize <= max_bytes), None)
    if k is None:   # a 0-d box, or one element larger than max_bytes
        k = len(shape) - 1
        if k < 0:
            return [(0, box)]
    step = max(1, max_bytes // (trailing[k] * itemsize))
    pieces, packed = [], 0
    for lead in itertools.product(*map(range, shape[:k])):
        first = box.host_addr + sum(i * s for i, s in zip(lead, strides))
        for start in range(0, shape[k], step):
            piece = Box(first + start * strides[k], (min(step, shape[k] - start), *shape[k + 1:]),
                        strides[k:])
            pieces.append((packed, piece))
            packed += piece.size
    return pieces


_PARALLEL_BYTES = 4 << 20
COPY_THREADS = min(8, os.cpu_count() or 1)


@functools.lru_cache(maxsize=None)
def _copy_threads() -> ThreadPoolExecutor:
    return ThreadPoolExecutor(COPY_THREADS, thread_name_prefix="gpurts-copy")


def copy_parallel(dst: np.ndarray, src: np.ndarray) -> None:
    """`dst[...] = src`, split along the longest axis over several threads for large arrays:
    NumPy releases the GIL while it copies, and one thread moves strided memory at about a
    quarter of the bus's speed (SPEC section 5)."""
    if dst.nbytes < _PARALLEL_BYTES or COPY_THREADS == 1 or dst.ndim == 0:
        dst[...] = src
        return
    axis = int(np.argmax(dst.shape))
    cuts = np.linspace(0, dst.shape[axis], min(COPY_THREADS, dst.shape[axis]) + 1).astype(int)

    def copy_part(a: int, b: int) -> None:
        part = (slice(None),) * axis + (slice(a, b),)
        dst[part] = src[part]

    for done in [_copy_threads().submit(copy_part, a, b) for a, b in zip(cuts[:-1], cuts[1:])]:
        done.result()


def gather_box(owner: np.ndarray, box: Box, packed: np.ndarray) -> np.ndarray:
    """Copy the box's elements into `packed` (contiguous, at least `box.size` elements of the
    owner's dtype) in C order; returns the filled part, shaped like the box."""
    out = packed[:box.size].reshape(box.shape)
    copy_parallel(out, box_view(owner, box, packed.dtype))
    return out


def require_writable(owner: np.ndarray) -> None:
    """Raise ValueError, as NumPy does, before anything is written into a read-only array."""
    if not owner.flags.writeable:
        raise ValueError("assignment destination is read-only")


def scatter_box(packed: np.ndarray, owner: np.ndarray, box: Box) -> None:
    """Copy `packed` (C order, `box.size` elements first) back into the box's elements. Raises
    ValueError, as NumPy does, when the owner is read-only. Where the box covers an element more
    than once (a zero stride), that element gets one of its values."""
    require_writable(owner)
    view = box_view(owner, box, packed.dtype)
    copy_parallel(view, packed[:box.size].reshape(box.shape))
