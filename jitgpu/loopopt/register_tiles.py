"""register_tiles: each work-item computes an R x C block of a two-level nest's iterations
(beyond the paper's section 3.4: the register blocking of SGEMM-like kernels on GPUs)."""
from __future__ import annotations

from jitgpu.bind import KernelNest
from jitgpu.loopopt.cost import GpuModel
from jitgpu.loopopt.unroll_and_jam import unroll_and_jam
from jitgpu.loopopt.view import loop_nest
from unpy.loopopt.effects import OPENCL, cannot_raise
from unpy.loopopt.nest import ArrayAccess
from unpy.loopopt.register_tiles import Refusal, register_tile
from unpy.typeinfer.reductions import escapes


def register_tiles(kernel: KernelNest, model: GpuModel = GpuModel(),
                   tile: tuple | None = None) -> KernelNest:
    """Unroll-and-jam two NDRange levels at once, the register tile unpy/loopopt/register_tiles.py
    chooses with the OpenCL path's cost model (jitgpu/loopopt/cost.py's GpuModel): the outer
    level by R (consecutive copies, as unroll_and_jam), the last, coalesced level by C with its
    copies spaced by the work-group's local size along it (`UnrolledLevel.strided`: for each
    copy, neighbouring work-items still touch neighbouring elements, so every load and store
    stays coalesced). The inner product's loop is jammed: per iteration a work-item loads R
    elements of one operand and C of the other and makes R x C multiply-adds into R x C
    private accumulators; local_tiles (after it) then stages both operands' tiles for the
    group's R*L x C*L block.

    Legal where unroll_and_jam is, for each level (see its docstring), and: the nest has at
    least two levels, neither unrolled yet; the last level's local size is above 1. Copies
    beyond a level's trip count recompute the level's copy 0 (their stores guarded: any trip
    count, not only multiples). In a triangular nest a combination of copies can be inside the
    levels' boxes but outside the guard: it runs the body on in-box elements with its stores
    and reduction updates guarded, so the body must not be able to raise (only + - * and
    comparisons, unchecked affine accesses, casts to float, min/max/abs; no while).

    Applies when the model says a tile pays (KernelModel.pays: crossed operands, a[i, k] and
    b[k, j]), of the outer level whose copies share the most loads. `tile` (else
    `model.register_tile`: jitgpu/search.py's choice) None: KernelModel.tile, the model's
    tile_shape shrunk to the registers and the device's fill; unchanged (unroll_and_jam then
    decides alone) if either count falls below 2 (a tile of (1, 1))."""
    if len(kernel.levels) < 2 or kernel.local_size[0] < 2 or escapes(list(kernel.body)):
        return kernel
    choice = register_tile(loop_nest(kernel), model.of(kernel, tile))
    if isinstance(choice, Refusal):
        return kernel
    if any(lv.guard is not None for lv in kernel.levels) and not _cannot_raise(kernel):
        return kernel
    jammed = unroll_and_jam(kernel, model, level=choice.last, factor=choice.cols, strided=True)
    if jammed is kernel:
        return kernel
    tiled = unroll_and_jam(jammed, model, level=choice.outer, factor=choice.rows)
    if tiled is jammed:
        return kernel
    return tiled.replace(transforms=kernel.transforms + (f"register_tiles({choice})",))


def _cannot_raise(kernel) -> bool:
    """Whether no statement of the body can set the error flag (a checked index, a division,
    a float-to-int cast, a math function: effects.OPENCL) or loop forever: a triangular nest's
    combinations of copies outside its guard run it (their stores guarded)."""
    table = dict(kernel.accesses)

    def unchecked(e):
        return (isinstance(e, ArrayAccess) and e.aid in table
                and all(t.bound is None for t in table[e.aid].terms))
    return cannot_raise(list(kernel.body), OPENCL, unchecked)
