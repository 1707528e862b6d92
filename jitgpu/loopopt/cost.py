"""The OpenCL path's cost model of its loop optimisations, one frozen value per device (issue
22: one choice of register tiles and of unroll-and-jam for both back ends,
unpy/loopopt/register_tiles.py and unroll_and_jam.py, with a cost model per target; the C++
path's is unpy/loopopt/cost.py): what the device says of itself (`GpuModel.for_device`), the
first call's search's choices (jitgpu/search.py's Tuning edits the model), and the constants
of register_tiles, unroll_and_jam, local_tiles, lane_split and unroll_inner. The passes read
it (`optimise(kernel, level, model)`); `KernelModel` is the model applied to one bound kernel,
as the shared choices ask it."""
from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

from jitgpu.bind import KernelNest
from unpy.loopopt.nest import LoopNest
from unpy.loopopt.reuse import crossed_operands, shared_loads

DEFAULT_LOCAL_MEM = 32 * 1024       # OpenCL's minimum CL_DEVICE_LOCAL_MEM_SIZE


@dataclass(frozen=True)
class GpuModel:
    """The loop optimisations' facts of one OpenCL device and their constants. Frozen: a
    variant is `model.replace(...)` (the search's candidates, bench/gpu_variants.py, tests)."""
    # The device (jitgpu.bind.device_limits): the work-items it needs in flight to be full
    # (0: no minimum; unroll_and_jam, register_tiles and lane_split keep the NDRange at least
    # that large, or split it), its local memory per work-group (unknown: OpenCL's minimum;
    # local_tiles and lane_split fit it), its (max constant buffer bytes, max constant args)
    # (constant_space: (0, 0) unknown, none chosen).
    fill_items: int = 0
    local_mem: int = DEFAULT_LOCAL_MEM
    constant_space: tuple = (0, 0)

    # The first call's search's choices (jitgpu/search.py): the register tile (R, C)
    # register_tiles makes (None: its own fit; (1, 1): none), and the factor unroll_inner
    # unrolls innermost loops by (None: its own fit; 1: none; set for one-level nests).
    register_tile: tuple | None = None
    unroll_factor: int | None = None

    # register_tiles: (copies of the outer level, copies of the coalesced level) per
    # work-item, shrunk (the larger first) until the accumulators fit tile_register_budget and
    # the device stays full. The per-copy private scalars (4-byte registers, 8-byte types count
    # twice) times R x C must fit it: an f32 8 x 4 block (32 accumulators) fits, an f64 one
    # shrinks to 4 x 4. A register-tiled kernel keeps its device full with fewer work-items
    # than a plain one (each has R x C independent accumulators in flight): at least
    # fill_items / fill_divisor of them.
    tile_shape: tuple = (8, 4)
    tile_register_budget: int = 48
    fill_divisor: int = 4

    # unroll_and_jam: the per-copy private scalars of the unrolled body (those its jammed loops
    # do not share), in registers as above, times the factor, must fit jam_register_budget;
    # factors tried from the largest.
    jam_register_budget: int = 32
    jam_factors: tuple = (8, 4, 2)

    # local_tiles. Iterations per tile when a tile has rows (a row of the work-group's rows x
    # this many iterations); tiles without rows (every work-item reads the same element) take
    # up to rowless_tile_iterations, at most one per work-item of the group (each loads one
    # element per tile); 0: none. H100, f32 2048, 32 against 16: mmult 2.20 ms vs 3.69, syrk
    # 1.23 vs 1.34.
    row_tile_iterations: int = 32
    rowless_tile_iterations: int = 256
    # A loop of fewer iterations at this call is not tiled (its loads may be cheaper from the
    # caches than a tile's barriers; cp at n=256 has 16 atoms): not measured yet, off (2).
    min_tiled_iterations: int = 2
    # Local memory for the tiles: at most this share of the device's (room left for a
    # reduction's scratch), at most local_budget. Measured on an H100 (48 KiB, 2026-11-23,
    # n=2048, kernel ms, with register_tiles' default blocks): 44 KiB against 24 KiB (half,
    # which left room for a second work-group per compute unit): mmult f32 0.835 vs 0.876, f64
    # 2.37 vs 2.55, syrk f32 0.90 vs 0.97, f64 1.08 vs 1.16, syr2k f32 2.01 vs 2.58, f64 2.29
    # vs 3.88.
    local_fraction: float = 0.95
    local_budget: int = 44 * 1024
    # Vector reads of a tile column's rows: float4, double2 (0: none).
    tile_vector_bytes: int = 16

    # lane_split. At most a warp of lanes: a parallel iteration's lanes stay in one.
    max_lanes: int = 32
    # Only a nest this many times too small for the device is split: on an H100 (fill 135168)
    # nbody at 4096 bodies ran its kernel 3-9x faster split, but at 65536 the split lost its
    # local tiles and ran slower with 2 or 4 lanes: f32 4.32 / 4.44 ms against 3.18, f64
    # 10.75 / 10.23 against 10.26 (2026-11-25). An eighth keeps the halves of 65536 bodies on
    # two GPUs (32768 each) unsplit.
    underfill: int = 8
    # A loop local_tiles staged is split where the device needs this many times the nest's
    # work-items (lane_split_tiles). Kernel ms on an H200 (fill 135168), nbody --fastmath, no
    # lanes against the lanes chosen (2026-11-27): f32 32768 bodies (a half of 65536 on two
    # GPUs) 1.31 against 0.87 (8 lanes), 65536 3.18 / 2.99 (4), 131072 11.90 / 10.99 (2); f64
    # 2.85 / 1.81, 7.12 / 6.70, 27.2 / 25.8.
    tiled_underfill: int = 1
    # Fewer iterations per lane: the combination's barriers cost more than they save.
    min_iterations_per_lane: int = 16

    # unroll_inner: the extra copies' loads in flight (4-byte registers, 8-byte elements count
    # twice), times `factor - 1`, must fit inner_register_budget; factors tried from the
    # largest.
    inner_factors: tuple = (4, 2)
    inner_register_budget: int = 32

    @staticmethod
    def for_device(limits) -> "GpuModel":
        """The model of the device of `limits` (jitgpu.bind.device_limits: None where unknown),
        the constants as in DEFAULT."""
        limits = tuple(limits or ())
        return DEFAULT.replace(
            fill_items=limits[2] if len(limits) > 2 else 0,
            constant_space=tuple(limits[3:5]) if len(limits) > 4 else (0, 0),
            local_mem=(limits[5] or DEFAULT_LOCAL_MEM) if len(limits) > 5 else DEFAULT_LOCAL_MEM)

    def replace(self, **changes) -> "GpuModel":
        return dataclasses.replace(self, **changes)

    def of(self, kernel: KernelNest, tile: tuple | None = None) -> "KernelModel":
        """The model applied to `kernel` (its private scalars, its NDRange), the register tile
        `tile` where given, else the search's."""
        loops = {v.var for v in kernel.loops}
        return KernelModel(self, tuple((p, dtype) for p, dtype in kernel.privates
                                       if p not in loops),
                           math.prod(kernel.global_size), tile or self.register_tile or None)


# The constants every device's model starts from (`for_device`); bench/gpu_variants.py and
# tests that run kernels through the call path set a variant here.
DEFAULT = GpuModel()


def _registers(dtypes) -> int:
    """The 4-byte registers of private scalars of `dtypes` (8-byte types count twice), at
    least 1: what each copy of the body adds."""
    return max(1, sum(2 if dtype.endswith("64") else 1 for dtype in dtypes))


@dataclass(frozen=True)
class KernelModel:
    """Register tiles and unroll-and-jam of one bound kernel under `model`: `privates` ((name,
    dtype) of its private scalars but loop variables, as the kernel lists them), `items` the
    work-items of its NDRange, `chosen` the search's tile or the caller's, else None."""
    model: GpuModel
    privates: tuple
    items: int
    chosen: tuple | None = None

    def pays(self, nest: LoopNest, outer: int, last: int) -> bool:
        """Where the jammed loops load an operand that depends on the outer level and not on
        the last (a[i, k], shared by the last level's copies) and one that depends on the last
        and not on the outer (b[k, j]): R + C loads for R x C iterations, where jamming one
        level saves loads of one operand only (cp's atoms depend on neither: left to
        unroll_and_jam)."""
        return crossed_operands(nest, outer, last)

    def tile(self, nest: LoopNest, outer: int, last: int) -> tuple:
        """The chosen tile, else the model's tile_shape, the larger count (the coalesced on
        ties) halved until R x C x (per-copy private registers) fits tile_register_budget and
        the work-items are at least fill_items / fill_divisor."""
        if self.chosen:
            return self.chosen
        model = self.model
        registers = _registers(dtype for _, dtype in self.privates)
        need = model.fill_items // model.fill_divisor
        rows, cols = model.tile_shape
        while rows * cols > 1 and (rows * cols * registers > model.tile_register_budget
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
        """The largest of jam_factors within jam_register_budget (the privates the jammed
        loops do not share, per copy), halved while it would leave fewer than fill_items
        work-items (a GPU must stay full; measured on an H100: nbody at 65536 unrolled by 8
        ran 3x slower, with 8192 work-items for 132 SMs)."""
        model = self.model
        registers = _registers(dtype for p, dtype in dict(self.privates).items()
                               if p not in jammed)
        factor = next((f for f in model.jam_factors
                       if f * registers <= model.jam_register_budget), 1)
        while factor > 1 and self.items // factor < model.fill_items:
            factor //= 2
        return factor
