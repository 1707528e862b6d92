"""register_tiles: which two levels of a loop nest a register tile takes, and how many copies
of each (R x C), for both back ends (issue 22): each block of the tile computes R consecutive
iterations of the outer level and C of the last, its R x C sums independent chains, so that a
load of an operand that reads the outer level only serves C of them and one that reads the
last level only serves R. The choice is made here, on the shared LoopNest (nest.py), with the
target's cost model; each back end lowers it its own way and checks the form its lowering
takes: the C++ path's register_blocks (tiles on the stack, panels, packed operands,
remainders run as written), the OpenCL path's jitgpu/loopopt/register_tiles (two
unroll_and_jam calls, the last level's copies strided by the work-group)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from unpy.loopopt.nest import LoopNest
from unpy.loopopt.reuse import shared_loads


@dataclass(frozen=True)
class RegisterTile:
    """R x C copies (`rows`, `cols`) of levels `outer` and `last` (their variables `names`)."""
    outer: int
    last: int
    rows: int
    cols: int
    names: tuple

    def __str__(self):
        return f"{self.names[0]} x {self.names[1]}: {self.rows} x {self.cols}"


@dataclass(frozen=True)
class Refusal:
    """Why a nest gets no register tile (or no unroll-and-jam), in a user's words."""
    reason: str


class TileModel(Protocol):
    """A target's cost model of register tiles (unpy/loopopt/cost.py's CpuModel,
    jitgpu/loopopt/cost.py's GpuModel)."""

    def pays(self, nest: LoopNest, outer: int, last: int) -> bool:
        """Whether a tile of levels `outer` and `last` is worth having on this target."""

    def tile(self, nest: LoopNest, outer: int, last: int) -> tuple:
        """(R, C) for a tile of levels `outer` and `last`."""


def register_tile(nest: LoopNest, model: TileModel) -> RegisterTile | Refusal:
    """The register tile of `nest` under `model`: the last level (the columns: unit stride on
    the CPU, coalesced on the GPU) and, of the levels before it where the model says a tile
    pays, the one whose copies share the most loads (the outer one on ties); (R, C) from the
    model. A choice, not a transformation: legal where the lowering's own conditions hold.

    Refused where the nest has fewer than two levels, where a level is unrolled already (its
    copies taken), where no pair of levels pays, or where the model gives a count below 2."""
    levels = nest.levels
    if len(levels) < 2:
        return Refusal("the nest has one parallel level")
    if any(level.copies for level in levels):
        return Refusal("a level is unrolled already")
    last = len(levels) - 1
    paying = [k for k in range(last) if model.pays(nest, k, last)]
    if not paying:
        return Refusal("no operand is shared by one level's copies and another by the "
                       "other's")
    outer = max(paying, key=lambda k: (shared_loads(nest, k), -k))
    rows, cols = model.tile(nest, outer, last)
    if rows < 2 or cols < 2:
        return Refusal(f"the registers allow a tile of {rows} x {cols} only")
    return RegisterTile(outer, last, rows, cols, (levels[outer].var, levels[last].var))
