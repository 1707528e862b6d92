"""The OpenCL path's cost model of register tiles and unroll-and-jam (issue 22: one choice of
each for both back ends, unpy/loopopt/register_tiles.py and unroll_and_jam.py, with a cost
model per target; the C++ path's is unpy/loopopt/cost.py): a kernel's private registers per
copy of its body, and the work-items that keep the device full. The constants are the seams
bench/gpu_variants.py patches."""
from __future__ import annotations

import math
from dataclasses import dataclass

from jitgpu.bind import KernelNest
from unpy.loopopt.nest import LoopNest
from unpy.loopopt.reuse import crossed_operands, shared_loads

# (copies of the outer level, copies of the coalesced level) per work-item, shrunk (the larger
# first) until the accumulators fit TILE_REGISTER_BUDGET and the device stays full.
REGISTER_TILE = (8, 4)
# The per-copy private scalars (4-byte registers, 8-byte types count twice) times R x C: an
# f32 8 x 4 block (32 accumulators) fits, an f64 one shrinks to 4 x 4.
TILE_REGISTER_BUDGET = 48
# A register-tiled kernel keeps its device full with fewer work-items than a plain one (each
# has R x C independent accumulators in flight): at least fill_items / FILL_DIVISOR of them.
FILL_DIVISOR = 4
# unroll_and_jam: the per-copy private scalars of the unrolled body (those its jammed loops do
# not share), in registers as above, times the factor, must fit JAM_REGISTER_BUDGET; factors
# tried from the largest.
JAM_REGISTER_BUDGET = 32
JAM_FACTORS = (8, 4, 2)


def _registers(dtypes) -> int:
    """The 4-byte registers of private scalars of `dtypes` (8-byte types count twice), at
    least 1: what each copy of the body adds."""
    return max(1, sum(2 if dtype.endswith("64") else 1 for dtype in dtypes))


@dataclass(frozen=True)
class GpuModel:
    """Register tiles and unroll-and-jam of one bound kernel: `privates` ((name, dtype) of
    its private scalars but loop variables, as the kernel lists them), `items` the work-items
    of its NDRange, `fill_items` those that keep the device full, `chosen` the search's tile
    (jitgpu/search.py) or the caller's, else None."""
    privates: tuple
    items: int
    fill_items: int
    chosen: tuple | None = None

    @staticmethod
    def for_kernel(kernel: KernelNest, tile: tuple | None = None) -> "GpuModel":
        loops = {v.var for v in kernel.loops}
        return GpuModel(tuple((p, dtype) for p, dtype in kernel.privates if p not in loops),
                        math.prod(kernel.global_size), kernel.fill_items,
                        tile or kernel.register_tile or None)

    def pays(self, nest: LoopNest, outer: int, last: int) -> bool:
        """Where the jammed loops load an operand that depends on the outer level and not on
        the last (a[i, k], shared by the last level's copies) and one that depends on the last
        and not on the outer (b[k, j]): R + C loads for R x C iterations, where jamming one
        level saves loads of one operand only (cp's atoms depend on neither: left to
        unroll_and_jam)."""
        return crossed_operands(nest, outer, last)

    def tile(self, nest: LoopNest, outer: int, last: int) -> tuple:
        """The chosen tile, else REGISTER_TILE, the larger count (the coalesced on ties)
        halved until R x C x (per-copy private registers) fits TILE_REGISTER_BUDGET and the
        work-items are at least fill_items / FILL_DIVISOR."""
        if self.chosen:
            return self.chosen
        registers = _registers(dtype for _, dtype in self.privates)
        need = self.fill_items // FILL_DIVISOR
        rows, cols = REGISTER_TILE
        while rows * cols > 1 and (rows * cols * registers > TILE_REGISTER_BUDGET
                                   or self.items // (rows * cols) < need):
            # The larger count first; on ties the coalesced one (the outer's copies, a
            # multiple of 4, read their rows of a local tile as vectors).
            if rows > cols:
                rows //= 2
            else:
                cols //= 2
        return rows, cols

    def jam_level(self, nest: LoopNest) -> int | None:
        """The level with the most loads shared by its copies inside jammed loops (an outer
        level before the innermost on ties: it keeps neighbouring work-items on neighbouring
        elements), None where no level shares a load."""
        last = len(nest.levels) - 1
        best = max((shared_loads(nest, k), k != last, -k) for k in range(len(nest.levels)))
        return None if best[0] == 0 else -best[2]

    def jam_factor(self, nest: LoopNest, level: int, jammed: frozenset) -> int:
        """The largest of JAM_FACTORS within JAM_REGISTER_BUDGET (the privates the jammed
        loops do not share, per copy), halved while it would leave fewer than fill_items
        work-items (a GPU must stay full; measured on an H100: nbody at 65536 unrolled by 8
        ran 3x slower, with 8192 work-items for 132 SMs)."""
        registers = _registers(dtype for p, dtype in dict(self.privates).items()
                               if p not in jammed)
        factor = next((f for f in JAM_FACTORS if f * registers <= JAM_REGISTER_BUDGET), 1)
        while factor > 1 and self.items // factor < self.fill_items:
            factor //= 2
        return factor
