"""register_tiles: each work-item computes an R x C block of a two-level nest's iterations
(beyond the paper's section 3.4: the register blocking of SGEMM-like kernels on GPUs)."""
from __future__ import annotations

import math

from jitgpu.bind import KernelNest
from jitgpu.loopopt.nodes import UnrolledLevel
from jitgpu.loopopt.unroll_and_jam import _is_loop, _itemsize, unroll_and_jam
from jitgpu.loopopt.view import loop_nest
from unpy.loopopt.effects import OPENCL, cannot_raise
from unpy.loopopt.nest import ArrayAccess
from unpy.loopopt.reuse import crossed_operands, shared_loads
from unpy.typeinfer.reductions import escapes

# (copies of the outer level, copies of the coalesced level) per work-item, shrunk (the larger
# first) until the accumulators fit REGISTER_BUDGET and the device stays full.
REGISTER_TILE = (8, 4)
# The per-copy private scalars (4-byte registers, 8-byte types count twice) times R x C: an
# f32 8 x 4 block (32 accumulators) fits, an f64 one shrinks to 4 x 4.
REGISTER_BUDGET = 48
# A register-tiled kernel keeps its device full with fewer work-items than a plain one (each
# has R x C independent accumulators in flight): at least fill_items / FILL_DIVISOR of them.
FILL_DIVISOR = 4


def register_tiles(kernel: KernelNest, tile: tuple | None = None) -> KernelNest:
    """Unroll-and-jam two NDRange levels at once: the outer level by R (consecutive copies,
    as unroll_and_jam), the last, coalesced level by C with its copies spaced by the
    work-group's local size along it (`UnrolledLevel.strided`: for each copy, neighbouring
    work-items still touch neighbouring elements, so every load and store stays coalesced).
    The inner product's loop is jammed: per iteration a work-item loads R elements of one
    operand and C of the other and makes R x C multiply-adds into R x C private accumulators;
    local_tiles (after it) then stages both operands' tiles for the group's R*L x C*L block.

    Legal where unroll_and_jam is, for each level (see its docstring), and: the nest has at
    least two levels, neither unrolled yet; the last level's local size is above 1. Copies
    beyond a level's trip count recompute the level's copy 0 (their stores guarded: any trip
    count, not only multiples). In a triangular nest a combination of copies can be inside the
    levels' boxes but outside the guard: it runs the body on in-box elements with its stores
    and reduction updates guarded, so the body must not be able to raise (only + - * and
    comparisons, unchecked affine accesses, casts to float, min/max/abs; no while).

    Applies when the jammed loops load an operand that depends on the outer level and not on
    the last (a[i, k], shared by the last level's copies) and one that depends on the last and
    not on the outer (b[k, j]): R + C loads for R x C iterations, where jamming one level
    saves loads of one operand only (cp's atoms depend on neither: left to unroll_and_jam).
    `tile` (else `kernel.register_tile`: jitgpu/search.py's choice) None: REGISTER_TILE, the
    larger count (the coalesced on ties) halved until R x C x (per-copy private registers)
    fits REGISTER_BUDGET and the work-items are at least fill_items / FILL_DIVISOR; unchanged
    (unroll_and_jam then decides alone) if either count falls below 2 (a tile of (1, 1))."""
    levels = kernel.levels
    if len(levels) < 2 or any(isinstance(lv, UnrolledLevel) for lv in levels):
        return kernel
    body = list(kernel.body)
    last = len(levels) - 1
    if kernel.local_size[0] < 2 or escapes(body):
        return kernel
    nest = loop_nest(kernel)
    others = [k for k in range(last) if crossed_operands(nest, k, last)]
    if not others:
        return kernel
    outer = max(others, key=lambda k: (shared_loads(nest, k), -k))
    if any(lv.guard is not None for lv in levels) and not _cannot_raise(kernel):
        return kernel
    rows, cols = tile or kernel.register_tile or _fit(kernel)
    if rows < 2 or cols < 2:
        return kernel
    jammed = unroll_and_jam(kernel, level=last, factor=cols, strided=True)
    if jammed is kernel:
        return kernel
    tiled = unroll_and_jam(jammed, level=outer, factor=rows)
    if tiled is jammed:
        return kernel
    return tiled.replace(transforms=kernel.transforms + (
        f"register_tiles({levels[outer].var} x {levels[last].var}: {rows} x {cols})",))


def _fit(kernel) -> tuple:
    """REGISTER_TILE shrunk to the register budget and the device's fill."""
    cost = max(1, sum(2 if _itemsize(dtype) == 8 else 1 for p, dtype in kernel.privates
                      if not _is_loop(kernel, p)))
    items = math.prod(kernel.global_size)
    need = kernel.fill_items // FILL_DIVISOR
    rows, cols = REGISTER_TILE
    while rows * cols > 1 and (rows * cols * cost > REGISTER_BUDGET
                               or items // (rows * cols) < need):
        # The larger count first; on ties the coalesced one (the outer's copies, a multiple
        # of 4, read their rows of a local tile as vectors).
        if rows > cols:
            rows //= 2
        else:
            cols //= 2
    return rows, cols


def _cannot_raise(kernel) -> bool:
    """Whether no statement of the body can set the error flag (a checked index, a division,
    a float-to-int cast, a math function: effects.OPENCL) or loop forever: a triangular nest's
    combinations of copies outside its guard run it (their stores guarded)."""
    table = dict(kernel.accesses)

    def unchecked(e):
        return (isinstance(e, ArrayAccess) and e.aid in table
                and all(t.bound is None for t in table[e.aid].terms))
    return cannot_raise(list(kernel.body), OPENCL, unchecked)
