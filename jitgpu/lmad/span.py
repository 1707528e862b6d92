"""The whole address span of a group: the 'span' and 'extent' cases.

The paper keeps this "very conservative estimate" unimplemented (section 4.3). unpy uses it
(SPEC section 5) where no packed layout applies, or where one would not be smaller: the device
buffer mirrors the host bytes `[lo, hi)` of the group, one contiguous copy each way, and every
access keeps its host indexing, `offset + sum index_d * stride_d`. It is always correct, so it
also serves accesses with non-affine indices ('extent': the array's whole view, which a NumPy
array always knows), arrays of different item sizes sharing memory, and misaligned views.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from unpy.host_memory import Box

from .boxes import make_box
from .transfer import DeviceMap


def mirror_unit(arrays: list, lo: int) -> int:
    """The largest element size dividing every item size, every array's distance from `lo` and
    every stride that moves (the itemsize itself for ordinary arrays)."""
    return math.gcd(*[a.itemsize for a in arrays], *[a.data_addr - lo for a in arrays],
                    *[s for a in arrays for n, s in zip(a.shape, a.strides) if n > 1])


@dataclass(frozen=True)
class MirrorLayout:
    """Device element e holds host bytes `[lo + e*unit, lo + (e+1)*unit)`."""
    lo: int
    hi: int
    unit: int

    @property
    def size(self) -> int:
        return (self.hi - self.lo) // self.unit

    def box(self) -> Box:
        return make_box(self.lo, (self.size,), (self.unit,), 0, self.unit)

    def device_map(self, group: int, arr) -> DeviceMap:
        """Host indexing rescaled: a stride that never moves (extent 1) may not divide."""
        strides = tuple(s // self.unit if s % self.unit == 0 else 0 for s in arr.strides)
        return DeviceMap(group, (arr.data_addr - self.lo) // self.unit, dim_strides=strides)
