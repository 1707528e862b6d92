"""lane_split: a work-item's sequential reduction loop split across lanes of its work-group,
for nests with too few parallel iterations to fill a GPU (nbody: one work-item per body)."""
from __future__ import annotations

import dataclasses
import math

import numpy as np

from jitgpu.bind import KernelNest
from jitgpu.loopopt.cost import GpuModel
from jitgpu.loopopt.nodes import (ActiveItem, FirstLane, LaneCombine, LaneIndex, LanePartials,
                                  TileLoad, UnrolledLevel)
from unpy.loopopt.rewrite import binop, const
from unpy.typeinfer.reductions import escapes
from unpy import ir
from unpy.typeinfer.reductions import (UpwardExposed, assigned_names, reads_of,
                                       reduction_form, walk_exprs, walk_stmts)

NUMBERS = ("int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64", "float32",
           "float64")               # the accumulators' dtypes (not bool)


def lane_split(kernel: KernelNest, model: GpuModel = GpuModel()) -> KernelNest:
    """Each parallel iteration gets L work-items, its lanes (neighbours in OpenCL dimension 0,
    the NDRange levels one dimension up, the work-group as large as before): lane l runs the
    iterations `start + l*step`, `start + (l + L)*step`, ... of a sequential loop of the body
    into private partial values of the loop's accumulators (lanes other than 0 start them at
    their operator's identity); the lanes' partials are then combined in local memory (a tree
    over the L lanes, every work-item at every barrier) and lane 0 alone runs the statements
    after the loop (`out[i] = s`). Every lane runs the statements before the loop.

    Applies when the device needs at least the model's `underfill` times the nest's
    work-items (its `fill_items` > 0): L is the smallest power of two with
    work-items * L >= fill_items, at most `max_lanes` and the work-group's size (the device's
    maximum or less); not when L < 2. The nest has at most 2 levels (3 OpenCL dimensions with
    the lanes), no unrolled level and no local tiles (earlier passes took it). The loop is a
    sequential `for` at the top of the innermost parallel body, with a literal step, and at
    least `min_iterations_per_lane` * L iterations at this call (the loops' boxes); where several
    qualify, the one of most iterations (the first on ties); its bounds read no accumulator
    (the lanes evaluate them after restarting their partials). Inside it: only assignments to
    loop-local temporaries (assigned before read in each iteration, not read after the loop;
    the loop variable likewise) and updates of accumulators (`acc = acc op e` with op + - *
    & | ^, `acc = min/max(acc, e)`; a float min/max with `acc` first, whose order-dependent
    nan handling then skips a nan `e` in any order), an accumulator being a private scalar of
    the work-item that the loop reads nowhere else, with one operator, or a prange reduction
    variable; ifs and inner `for` loops; no store to memory, no while, break, continue,
    return, and no other statement. The statements before the loop store to no array and do
    not touch a prange reduction variable (every lane runs them). The body has no break or
    continue of its own. The lanes' scratch (a slot per work-item and accumulator) and the
    reductions' fit the device's local memory.

    Integer results are exact (+ * & | ^ wrap, min/max have no rounding). Floating-point sums
    and products would be re-associated (the lanes' partial sums added in a tree; a float
    min/max among equal values may keep the other sign of a zero), so a loop with a float
    accumulator of its own is split only in a module built with --fastmath; a prange
    reduction variable updated in the loop is unordered anyway (OpenMP's reduction clause). An
    iteration that sets the error flag (division by zero, a math domain error, an index out of
    range) sets it in whichever lane runs it: the host then runs the OpenMP code, which
    raises as the interpreter does. Work-items past the trip counts (the NDRange rounded up
    to the work-group) skip the statements but reach every barrier."""
    body = list(kernel.body)
    lanes = _lanes(kernel, model, model.underfill)
    if lanes is None or any(isinstance(s, TileLoad) for s in walk_stmts(body)):
        return kernel
    chosen = None
    for k, s in enumerate(body):
        if isinstance(s, ir.For):
            found = _splittable(kernel, model, body, k, lanes)
            if found is not None and (chosen is None or found[1] > chosen[1]):
                chosen = (k, found[1], found[0])
    if chosen is None:
        return kernel
    k, _, accumulators = chosen
    if not kernel.fastmath and any(dtype.startswith("float") for _, _, dtype in accumulators):
        # The lanes add a float sum in another order than the loop: a result the interpreter
        # would not give, taken only under --fastmath (issue 19: the GPU path rounds as the
        # interpreter does).
        return kernel
    if not _fits_local_memory(kernel, model, accumulators):
        return kernel
    return _split(kernel, body, k, accumulators, lanes)


def _lanes(kernel: KernelNest, model: GpuModel, underfill: int) -> int | None:
    """The lanes a parallel iteration gets where the device needs `underfill` times the nest's
    work-items or more: the smallest power of two that fills the device, at most max_lanes and
    the work-group's size; None where the nest may not be split (or fewer than 2 lanes)."""
    ndim = len(kernel.levels)
    group = math.prod(kernel.local_size)
    items = math.prod(kernel.global_size)
    fill = model.fill_items
    if (fill <= 0 or items * underfill > fill or ndim >= 3
            or len(kernel.global_size) != ndim                      # split already
            or any(isinstance(level, UnrolledLevel) for level in kernel.levels)
            or escapes(list(kernel.body))):
        return None
    lanes = 1
    while items * lanes < fill and lanes < min(model.max_lanes, group):
        lanes *= 2
    return lanes if lanes >= 2 else None


def lane_split_tiles(kernel: KernelNest, model: GpuModel = GpuModel()) -> KernelNest:
    """lane_split for a loop that local_tiles staged in tiles (nbody at 65536 bodies, or its
    halves on two GPUs: too few work-items to fill the device, too many to give up the tiles):
    the lanes split each tile's iterations (lane l runs the tile's iterations l, l + L, ...),
    while the whole group loads the tiles as before; the lanes' partials start before the
    tile loop and are combined after it, then lane 0 alone runs what followed the loop.

    Applies where the device needs at least `tiled_underfill` times the nest's work-items, with
    lane_split's lanes and its conditions on the loop (the tile's inner loop), the statements
    before it and after it (the tile loop's guarded neighbours), and the floats' --fastmath;
    also: every tile of the kernel is rowless (each element read by every work-item of the
    group: its load and reads depend on the group's size, which the split keeps, not on the
    levels' local sizes, which it shrinks), the tile loop is not inside a group's guard
    (a triangular nest's), and the tiles and the lanes' scratch fit the local memory
    together. Every work-item still reaches every barrier: the tile loads', the combination's."""
    body = list(kernel.body)
    lanes = _lanes(kernel, model, model.tiled_underfill)
    tiles = [t for s in walk_stmts(body) if isinstance(s, TileLoad) for t in s.tiles]
    if lanes is None or not tiles or any(t.level is not None for t in tiles):
        return kernel
    k = next((k for k, s in enumerate(body) if _tile_loop(s) is not None), None)
    if k is None or any(_tile_loop(s) is not None for s in body[k + 1:]):
        return kernel
    tile_loop, after = body[k], body[k + 1:]
    if after and not (len(after) == 1 and _guarded_block(after[0]) is not None):
        return kernel
    inner = _tile_loop(tile_loop)
    before = [t for s in body[:k] for t in (_guarded_block(s) or [s])]
    after = _guarded_block(after[0]) if after else []
    flat = before + [inner] + after
    found = _splittable(kernel, model, flat, len(before), lanes)
    if found is None:
        return kernel
    accumulators = tuple(found[0])
    if not kernel.fastmath and any(dtype.startswith("float") for _, _, dtype in accumulators):
        return kernel
    tile_bytes = sum(t.elements * np.dtype(t.dtype).itemsize for t in tiles)
    if not _fits_local_memory(kernel, model, accumulators, tile_bytes):
        return kernel
    loads, guarded, barrier = tile_loop.body
    split = dataclasses.replace(guarded, body=[_lane_loop(inner, lanes)])
    new_body = body[:k]
    if accumulators:
        new_body.append(ir.If(ActiveItem(), [LanePartials(accumulators, inner.loc)], [],
                              inner.loc))
    new_body += [dataclasses.replace(tile_loop, body=[loads, split, barrier]),
                 LaneCombine(accumulators, lanes, inner.loc)]
    if after:
        new_body.append(ir.If(ir.BoolOp("and", [ActiveItem(), FirstLane()],
                                        type=ir.Scalar("bool")), after, [], inner.loc))
    global_size, local_size = _lane_ndrange(kernel, lanes)
    return kernel.replace(
        body=tuple(new_body), global_size=global_size, local_size=local_size,
        transforms=kernel.transforms + (f"lane_split({inner.var}, {lanes} lanes, in tiles)",))


def _tile_loop(s):
    """The tiled loop of local_tiles' tile loop `s` (`for tile: load; if active: for ...;
    barrier`), else None."""
    if not (isinstance(s, ir.For) and len(s.body) == 3 and isinstance(s.body[0], TileLoad)):
        return None
    guarded = _guarded_block(s.body[1])
    if guarded is None or len(guarded) != 1 or not isinstance(guarded[0], ir.For):
        return None
    return guarded[0]


def _guarded_block(s):
    """The statements of `if <the work-item is real>: ...` (local_tiles' guard), else None."""
    if isinstance(s, ir.If) and isinstance(s.test, ActiveItem) and not s.orelse:
        return list(s.body)
    return None


def _lane_loop(loop, lanes):
    """`loop` run by one lane of `lanes`: its iterations lane, lane + lanes, ..."""
    step = loop.step.value
    return dataclasses.replace(
        loop, start=binop("+", loop.start, binop("*", LaneIndex(), const(step))),
        step=const(step * lanes))


def _splittable(kernel, model, body, k, lanes):
    """(accumulators, iterations) where `body[k]` may be split over `lanes`, else None."""
    loop, before, after = body[k], body[:k], body[k + 1:]
    if loop.parallel or not (isinstance(loop.step, ir.Const) and type(loop.step.value) is int
                             and loop.step.value != 0):
        return None
    var = next((v for v in kernel.loops if v.var == loop.var), None)
    if var is None or var.extent < model.min_iterations_per_lane * lanes:
        return None
    reduced = {var: op for var, op, _ in kernel.reductions}
    if any(isinstance(s, ir.Assign) and isinstance(s.target, ir.Subscript)
           for s in walk_stmts(before)):
        return None
    if set(reads_of(before)) & set(reduced):
        return None
    accumulators = _accumulators(kernel, loop, reduced)
    if accumulators is None:
        return None
    # The bounds are evaluated once, after the lanes' partials restart at the identity (nest.py
    # refuses bounds computed in the nest today; the split must not depend on that).
    if {a for a, _, _ in accumulators} & set(reads_of([loop.start, loop.stop])):
        return None
    # What each iteration computes for itself (the loop's and inner loops' variables, the
    # temporaries) is lane 0's last value after the split loop, not the loop's: unread there.
    exposed = UpwardExposed()
    exposed.block(after, set())
    local = (set(assigned_names(loop.body)) | {loop.var}) - {a for a, _, _ in accumulators}
    if local & set(exposed.exposed):
        return None
    return accumulators, var.extent


def _accumulators(kernel, loop, reduced):
    """The loop's private accumulators as (name, op, dtype), or None where the loop's body is
    not a reduction the lanes may split."""
    for s in walk_stmts(loop.body):
        if isinstance(s, ir.Assign):
            if not isinstance(s.target, ir.Name):
                return None                        # a store: each element once, in order
        elif isinstance(s, ir.For):
            if s.parallel:
                return None
        elif not isinstance(s, (ir.If, ir.Pass)):
            return None                            # while, break, continue, return, calls
    if any(isinstance(e, ir.NamedExpr) for e in walk_exprs(loop.body)):
        return None
    exposed = UpwardExposed()
    exposed.block(loop.body, {loop.var})
    assigned = set(assigned_names(loop.body))
    privates = dict(kernel.privates)
    found = []
    for name in exposed.exposed:
        if name not in assigned:
            continue                               # read-only in the loop
        op = _update_op(loop.body, name)
        if op is None:
            return None
        if name in reduced:
            if reduced[name] != op:
                return None
            continue                               # the reductions' epilogue combines it
        dtype = privates.get(name)
        if dtype not in NUMBERS or (op in ("&", "|", "^") and dtype.startswith("float")):
            return None
        if op in ("min", "max") and dtype.startswith("float") and not _first_argument(
                loop.body, name):
            return None
        found.append((name, op, dtype))
    return found


def _update_op(body, name):
    """The one operator by which every assignment of `name` in `body` updates it, where the
    statements read `name` nowhere else; else None."""
    ops, updates = set(), 0
    for s in walk_stmts(body):
        if isinstance(s, ir.Assign) and s.target.id == name:
            form = reduction_form(s)
            if form is None or name in reads_of(form[2]):
                return None
            ops.add(form[1])
            updates += 1
    reads = sum(1 for n in _read_names(body) if n == name)
    return ops.pop() if len(ops) == 1 and reads == updates else None


def _read_names(body):
    """The names the statements read (not the targets they assign)."""
    for s in walk_stmts(body):
        if isinstance(s, ir.Assign):
            yield from reads_of(s.value)
        elif isinstance(s, ir.For):
            yield from reads_of([s.start, s.stop, s.step])
        elif isinstance(s, (ir.If, ir.While)):
            yield from reads_of(s.test)


def _first_argument(body, name) -> bool:
    """Whether every min/max update of `name` has it as the first argument (`min(acc, e)`
    keeps acc on ties and where e is a nan, in any order of the e's)."""
    for s in walk_stmts(body):
        if isinstance(s, ir.Assign) and s.target.id == name:
            value = s.value.value if isinstance(s.value, ir.Cast) else s.value
            first = value.args[0]
            first = first.value if isinstance(first, ir.Cast) else first
            if not (isinstance(first, ir.Name) and first.id == name):
                return False
    return True


def _fits_local_memory(kernel, model, accumulators, other_bytes=0) -> bool:
    """Whether the lanes' scratch (a slot per work-item and accumulator, and the reductions')
    fits the device's local memory beside `other_bytes` (the tiles)."""
    scratch = [dtype for _, _, dtype in accumulators] + [d for _, _, d in kernel.reductions]
    need = math.prod(kernel.local_size) * sum(np.dtype(dtype).itemsize for dtype in scratch)
    return need + other_bytes <= model.local_mem


def _split(kernel, body, k, accumulators, lanes):
    loop = body[k]
    split = _lane_loop(loop, lanes)
    accumulators = tuple(accumulators)
    partials = [LanePartials(accumulators, loop.loc)] if accumulators else []
    new_body = [ir.If(ActiveItem(), body[:k] + partials + [split], [], loop.loc),
                LaneCombine(accumulators, lanes, loop.loc)]
    if body[k + 1:]:
        new_body.append(ir.If(ir.BoolOp("and", [ActiveItem(), FirstLane()],
                                        type=ir.Scalar("bool")), body[k + 1:], [], loop.loc))
    global_size, local_size = _lane_ndrange(kernel, lanes)
    return kernel.replace(
        body=tuple(new_body), global_size=global_size, local_size=local_size,
        transforms=kernel.transforms + (f"lane_split({loop.var}, {lanes} lanes)",))


def _lane_ndrange(kernel, lanes):
    """(global size, local size) with the lanes in dimension 0: the levels' local sizes shrink,
    the outermost first (as bind.local_size does), so that the work-group keeps its size."""
    ndim = len(kernel.levels)
    local = list(kernel.local_size)
    while math.prod(local) * lanes > math.prod(kernel.local_size):
        d = max(d for d in range(ndim) if local[d] > 1)
        local[d] //= 2
    longs = kernel.longs
    sizes = []
    for d in range(ndim):
        n = longs[f"unpy_n{ndim - 1 - d}"]
        sizes.append(max(1, -(-n // local[d])) * local[d])
    return (lanes,) + tuple(sizes), (lanes,) + tuple(local)
