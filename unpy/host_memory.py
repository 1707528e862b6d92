"""Host memory as planning (jitgpu) and the runtime (gpurts) both see it: strided boxes of bytes,
the bytes a box spans, the array whose memory holds a view, and the groups a plan's parts move.

It imports only NumPy, so that both packages may import it while planning imports nothing of
the runtime and the runtime nothing of jitgpu (tests/test_layering.py).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np


def byte_span(start: int, shape, strides, itemsize: int) -> tuple[int, int]:
    """[lo, hi) of the bytes of the elements `start + sum(i_d * strides[d])`, `0 <= i_d <
    shape[d]`, of `itemsize` bytes each; (start, start) when there is none. Strides may be
    negative or zero."""
    if 0 in shape:
        return start, start
    lo = hi = start
    for n, s in zip(shape, strides):
        if s < 0:
            lo += (n - 1) * s
        else:
            hi += (n - 1) * s
    return lo, hi + itemsize


@dataclass(frozen=True)
class Box:
    """Host element `(i_0, ..., i_k)`, `0 <= i_d < shape[d]`, at byte address `host_addr +
    sum(i_d * strides[d])`; strides may be negative or zero. A transfer group's box is held in C
    order on the device from element `device_offset` of the group's buffer (a box that no buffer
    holds, as the runtime's pieces of a copy, leaves it 0)."""
    host_addr: int
    shape: tuple[int, ...]
    strides: tuple[int, ...]
    device_offset: int = 0

    def __post_init__(self):
        object.__setattr__(self, "shape", tuple(int(n) for n in self.shape))
        object.__setattr__(self, "strides", tuple(int(s) for s in self.strides))
        if len(self.shape) != len(self.strides):
            raise ValueError(f"box shape {self.shape} and strides {self.strides} differ in length")
        if any(n < 0 for n in self.shape):
            raise ValueError(f"negative extent in box shape {self.shape}")

    @classmethod
    def of_array(cls, view: np.ndarray) -> "Box":
        """The box of all of `view`'s elements."""
        return cls(address(view), view.shape, view.strides)

    @property
    def size(self) -> int:
        return math.prod(self.shape)

    def byte_span(self, itemsize: int) -> tuple[int, int]:
        """[lo, hi) of the bytes the box touches (`byte_span`)."""
        return byte_span(self.host_addr, self.shape, self.strides, itemsize)

    def squeezed(self) -> "Box":
        """The same elements without dimensions of extent 1 (their strides mean nothing)."""
        keep = [d for d, n in enumerate(self.shape) if n != 1]
        return replace(self, shape=[self.shape[d] for d in keep],
                       strides=[self.strides[d] for d in keep])

    def is_packed(self, itemsize: int) -> bool:
        """Whether the box's elements lie in one contiguous run, in C order."""
        box = self.squeezed()
        expected = itemsize
        for n, s in zip(reversed(box.shape), reversed(box.strides)):
            if s != expected:
                return False
            expected *= n
        return True


def address(a: np.ndarray) -> int:
    """The byte address of `a`'s first element."""
    return a.__array_interface__["data"][0]


def memory_root(a: np.ndarray) -> np.ndarray:
    """The array at the bottom of `a`'s chain of views: its memory holds every view of it."""
    while isinstance(a.base, np.ndarray):
        a = a.base
    return a


def root_range(a: np.ndarray) -> tuple[int, int]:
    """The bytes [lo, hi) of the memory at the bottom of `a`'s views (cheap when the root is
    contiguous, as NumPy's own allocations are)."""
    root = memory_root(a)
    if root.flags.c_contiguous:
        lo = address(root)
        return lo, lo + root.nbytes
    return np.lib.array_utils.byte_bounds(root)


def group_span(group) -> tuple[int, int]:
    """[lo, hi) of the host bytes a transfer group's boxes cover; (0, 0) when they cover none."""
    spans = [box.byte_span(group.itemsize) for box in group.boxes if box.size]
    if not spans:
        return 0, 0
    return min(lo for lo, _ in spans), max(hi for _, hi in spans)


def layout_key(group, device_label: str) -> tuple:
    """What must be equal for a device buffer to serve another transfer group: the device, the
    element size and the boxes with their places in the buffer."""
    return (device_label, group.itemsize, group.device_elems,
            tuple((b.host_addr, b.shape, b.strides, b.device_offset) for b in group.boxes))


def reused_groups(parts) -> tuple:
    """Per part (tiles run in this order on one device), {group: (earlier part, its group)}
    of the groups that an earlier part copies in alike (the same arrays, boxes and buffer
    layout) and neither writes: in an overlapped run the earlier part's buffer serves, with no
    copy of its own (mmult's b, which every row tile reads whole, is copied by the first tile;
    in tiles of rows and columns, a row tile's rows of a by its first column tile and a column
    tile's columns of b by its first row tile). Each points at the part that copies it."""
    owners, found = {}, []
    for index, part in enumerate(parts):
        mine = {}
        for k, g in enumerate(part.transfers.groups):
            if not g.copy_in or g.copy_back:
                continue
            key = (g.arrays, g.itemsize, g.device_elems, tuple(g.boxes))
            if key in owners:
                mine[k] = owners[key]
            else:
                owners[key] = (index, k)
        found.append(mine)
    return tuple(found)


def distinct_groups(parts) -> list:
    """The groups of `parts`, a group an earlier part copies for them (`reused_groups`)
    once."""
    reused = reused_groups(parts)
    return [g for index, part in enumerate(parts) for k, g in enumerate(part.transfers.groups)
            if k not in reused[index]]


# A box of more lines than this is covered by its byte span (`byte_runs`).
MAX_RUNS = 1 << 18


def byte_runs(box: Box, itemsize: int) -> np.ndarray:
    """[[lo, hi)] (an (n, 2) int64 array) of bytes that together are exactly the bytes of the
    box's elements: one run per line of its contiguous dimension (the one of stride
    `itemsize`), else one per element; the box's byte span alone where that would be more than
    MAX_RUNS runs (a cover, no longer exact). Runs may meet where the box overlaps itself."""
    if box.size == 0:
        return np.empty((0, 2), np.int64)
    dims = [(n, s) for n, s in zip(box.shape, box.strides) if n > 1 and s != 0]
    inner = min(range(len(dims)), key=lambda d: abs(dims[d][1]), default=None)
    length, start = itemsize, box.host_addr
    if inner is not None and abs(dims[inner][1]) == itemsize:
        n, s = dims.pop(inner)
        length = n * itemsize
        if s < 0:
            start += (n - 1) * s
    if math.prod(n for n, _ in dims) > MAX_RUNS:
        return np.array([box.byte_span(itemsize)], np.int64)
    starts = np.full((1,), start, np.int64)
    for n, s in dims:
        starts = (starts[:, None] + np.arange(n, dtype=np.int64) * s).ravel()
    return np.stack([starts, starts + length], axis=1)
