"""What the analysis hands to the kernel emitter and the runtime: groups of boxes
(`unpy.host_memory.Box`), device maps.

All offsets and strides of a group are counted in units of the group's `itemsize` bytes; that is
the arrays' itemsize, except in a 'span'/'extent' group mixing item sizes or misaligned views,
where it is the largest unit that divides every address (the kernel then reinterprets bytes).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

CASES = ("1d", "1d-equal-stride", "rcslmad", "theorem2", "ilp", "span", "extent")


@dataclass(frozen=True)
class Refusal:
    """Why the nest is not offloaded, in words a user understands. `over_memory` marks the one
    reason that tiling (section 4.4) can cure."""
    reason: str
    over_memory: bool = False

    def __str__(self):
        return self.reason


@dataclass(frozen=True)
class DeviceMap:
    """Device element of an access in buffer `group`: `offset + sum c * var` over `loop_coeffs`
    (normalised loop variables), or, when `dim_strides` is set, `offset + sum index_d *
    dim_strides[d]` over the access's own index values (the buffer mirrors host memory)."""
    group: int
    offset: int
    loop_coeffs: Optional[tuple] = None
    dim_strides: Optional[tuple] = None

    def __post_init__(self):
        assert (self.loop_coeffs is None) != (self.dim_strides is None)


@dataclass
class TransferGroup:
    """One connected component of the overlap graph, with one device buffer."""
    arrays: tuple
    case: str
    itemsize: int
    device_elems: int
    touched_elems: int
    touched_exact: bool
    copy_in: bool
    copy_back: bool
    boxes: list                  # of unpy.host_memory.Box, each with its device_offset
    note: str = ""          # why this case, for explain()
    ref_ids: tuple = ()

    def __post_init__(self):
        assert self.case in CASES, self.case

    @property
    def device_bytes(self) -> int:
        return self.device_elems * self.itemsize

    def describe(self) -> str:
        moves = "in+out" if self.copy_in and self.copy_back else (
            "in" if self.copy_in else "out" if self.copy_back else "none")
        touched = "" if self.touched_exact else "~"
        return (f"{', '.join(self.arrays)}: {self.case}, {format_bytes(self.device_bytes)} "
                f"({self.device_elems} elements for {touched}{self.touched_elems} touched), "
                f"{len(self.boxes)} box(es), copy {moves}; {self.note}")


@dataclass
class TransferPlan:
    groups: list
    maps: dict = field(default_factory=dict)   # ref_id -> DeviceMap

    def device_map(self, ref_id: int) -> DeviceMap:
        """The device address of an access. An empty iteration space has no groups and no
        maps: the runtime launches nothing then."""
        return self.maps[ref_id]

    @property
    def device_bytes(self) -> int:
        return sum(g.device_bytes for g in self.groups)

    def describe(self) -> str:
        if not self.groups:
            return "no transfers"
        return "\n".join(f"group {k}: {g.describe()}" for k, g in enumerate(self.groups))


def format_bytes(n: int) -> str:
    for unit, size in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if n >= size:
            return f"{n / size:.1f} {unit}"
    return f"{n} B"
