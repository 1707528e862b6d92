"""Index arithmetic for boxes: clipping a monotone box to an address range, simplifying a box.

A box whose addresses grow strictly in C order (an RCSLMAD with sorted strides, Theorem 1) meets
an address range in a contiguous range of C-order positions, which splits into at most
`2 * ndim - 1` sub-boxes. Stretched layouts (figure 7, the ILP's G') may cover addresses beyond
the group's interval; clipping keeps copies inside memory that the arrays really own.
"""
from __future__ import annotations

import bisect
import math

from unpy.host_memory import Box


def split_c_range(shape: tuple, start: int, stop: int) -> list:
    """Sub-boxes that cover C-order positions [start, stop) of `shape`, in order, as
    `(first_position, dim, count)`: indices before `dim` fixed at those of `first_position`,
    `count` steps along `dim`, all of every later dimension."""
    pieces = []

    def cover(dim, offset, lo, hi):
        if lo >= hi:
            return
        inner = math.prod(shape[dim + 1:])
        if lo % inner == 0 and hi % inner == 0:
            pieces.append((offset + lo, dim, (hi - lo) // inner))
            return
        first_row, last_row = lo // inner, hi // inner
        if first_row == last_row:
            cover(dim + 1, offset + first_row * inner, lo % inner, hi % inner)
            return
        if lo % inner:
            cover(dim + 1, offset + first_row * inner, lo % inner, inner)
            first_row += 1
        if last_row > first_row:
            pieces.append((offset + first_row * inner, dim, last_row - first_row))
        cover(dim + 1, offset + last_row * inner, 0, hi % inner)

    assert shape, "a box has at least one dimension"
    cover(0, 0, start, stop)
    return pieces


def unravel(position: int, shape: tuple) -> tuple:
    index = []
    for n in reversed(shape):
        position, i = divmod(position, n)
        index.append(i)
    return tuple(reversed(index))


def clip_monotone(base: int, shape: tuple, strides: tuple, lo: int, hi: int) -> list:
    """The part of the box `base + sum idx_k * strides_k` with addresses in [lo, hi), as
    `(first_position, addr, shape, strides)` sub-boxes; the box's addresses must grow in C order."""
    def addr(position):
        return base + sum(i * s for i, s in zip(unravel(position, shape), strides))

    positions = range(math.prod(shape))
    start = bisect.bisect_left(positions, lo, key=addr)
    stop = bisect.bisect_left(positions, hi, key=addr)
    pieces = []
    for first, dim, count in split_c_range(shape, start, stop):
        pieces.append((first, addr(first), (count,) + tuple(shape[dim + 1:]),
                       tuple(strides[dim:])))
    return pieces


def make_box(host_addr: int, shape: tuple, strides: tuple, device_offset: int,
             itemsize: int) -> Box:
    """A Box with the same elements in the same order, in its simplest form: dimensions of
    extent 1 dropped and dimensions that continue each other merged (so a contiguous range is
    one dimension of stride `itemsize`, which the runtime copies directly)."""
    dims = [(n, s) for n, s in zip(shape, strides) if n != 1]
    merged = []
    for n, s in dims:
        if merged and merged[-1][1] == s * n:
            merged[-1] = (merged[-1][0] * n, s)
        else:
            merged.append((n, s))
    if not merged:
        merged = [(1, itemsize)]
    return Box(host_addr, tuple(n for n, _ in merged), tuple(s for _, s in merged), device_offset)
