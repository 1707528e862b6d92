"""cache_tiles: a prange nest of two levels that reads (or writes) one matrix along its rows
and another (or the same) along its columns (`b[i, j] = a[i, j] + a[j, i]`, `b[i, j] =
a[j, i]`) gets an alternative form for the C++ path that walks both levels in square tiles
of TILE x TILE iterations (TILE: CpuModel.cache_tile), so that the rows a tile reads across
(a[j, i] for TILE values of j) stay in cache while its TILE values of i use them, instead of
one cache line read per element of a column:

    for i in prange(lo, hi):                    for ib in prange(lo, hi, TILE):
        for j in range(start(i), stop(i)):          iend = min(ib + TILE, hi)
            b[i, j] = a[i, j] + a[j, i]    ->       jlo, jhi = the bounds of j over the tile's rows
                                                    for jb in range(jlo, jhi, TILE):
                                                        for i in range(ib, iend):
                                                            for j in range(max(jb, start(i)),
                                                                           min(jb + TILE, stop(i))):
                                                                b[i, j] = a[i, j] + a[j, i]

Each `i` runs its iterations of j in their order (ascending, tile after tile) with the same
operations: only iterations of different `i`, iterations of a prange (independent: SPEC
section 2), interleave. So the results are the interpreter's, bit for bit.

Legal when (checked here): the prange has step 1 and no reductions; its body is the inner
loop alone (range or prange), step 1, whose bounds read the outer variable at most, growing
or shrinking with it (`direction`: their extremes over a tile's rows are at its first and
last rows: triangles `range(i)`, `range(i, n)`, bands `range(i + 1, min(i + w, n))`), and
values the nest does not assign, no array element; the inner loop's body
is assignments of scalars and array elements and ifs (no atomic update, loop, `break`,
`continue`, `return`, `raise`, rebound array), with expressions that cannot raise
(register_blocks' plain expressions), whose scalars are temporaries of one iteration
(assigned before they are read in it: no value flows from one j to the next that tiles
would interleave); the function does not read the inner loop's variable after the nest.
Fires where some matrix is indexed `[i, j]` (i not in the last index, j in it) and some
`[j, i]`. Nests that interchange (or register_blocks) gave a form keep it."""
from __future__ import annotations

import dataclasses

from unpy import ir
from unpy.ir import Scalar
from unpy.loopopt.cost import CpuModel
from unpy.loopopt.effects import private_scalars
from unpy.loopopt.interchange import (assigned_scalars, read_outside, straight_statements,
                                      subscripts)
from unpy.loopopt.nest import LoopNest, cpu_nest
from unpy.loopopt.register_blocks import plain_expressions, substitute, unit_step
from unpy.loopopt.rewrite import assign, binop, const, fresh, name, with_alternatives
from unpy.typeinfer.reductions import assigned_names, reads_of, walk_stmts

def cache_tiles(fn: ir.Function, model: CpuModel) -> ir.Function:
    """`fn` with a tiled alternative on each outermost prange nest of the legal form, of
    `model.cache_tile` iterations of each level."""
    def tiled(s, fn, taken, new_locals):
        found = _tiled(s, fn, taken, new_locals, model.cache_tile)
        tile = model.cache_tile
        return (found, [], f"cache_tiles({s.var} x {s.body[0].var}: {tile} x {tile})") \
            if found else None
    return with_alternatives(fn, tiled)


def crosses(nest: LoopNest, i: str, j: str) -> bool:
    """Whether some matrix of the nest is read along its rows by `j` (`[i, j]`) and some
    along its columns (`[j, i]`)."""
    addresses = [address for _, address in nest.addresses]
    return (any(a.oriented(i, j) for a in addresses)
            and any(a.oriented(j, i) for a in addresses))


def direction(e, i: str):
    """1 where `e` grows with `i`, -1 where it shrinks, 0 where it does not read `i`, None
    where it may do neither (its extremes over a range of `i` are then not at the ends): sums
    and differences of `i`, values not reading it, and min and max of those."""
    if i not in reads_of(e):
        return 0
    if isinstance(e, ir.Name):
        return 1
    if isinstance(e, ir.Cast):
        return direction(e.value, i)
    if isinstance(e, ir.UnaryOp) and e.op == "-":
        inner = direction(e.operand, i)
        return None if inner is None else -inner
    parts = []
    if isinstance(e, ir.BinOp) and e.op in ("+", "-"):
        right = direction(e.right, i)
        parts = [direction(e.left, i), right if right is None or e.op == "+" else -right]
    elif isinstance(e, ir.Call) and e.func in ("min", "max"):
        parts = [direction(x, i) for x in e.args]
    signs = {p for p in parts if p != 0}
    return signs.pop() if parts and None not in signs and len(signs) == 1 else None


def _tiled(outer: ir.For, fn, taken, new_locals, tile_size: int):
    """The tiled statements of `outer`, or None where it is not of the legal form."""
    if not (unit_step(outer) and not outer.reductions and len(outer.body) == 1):
        return None
    inner = outer.body[0]
    if not (isinstance(inner, ir.For) and unit_step(inner) and not inner.reductions):
        return None
    i, j = outer.var, inner.var
    nest_assigned = set(assigned_names(outer.body)) | {i}
    bounds = [inner.start, inner.stop]
    if set(reads_of(bounds)) & nest_assigned - {i} or subscripts(bounds) \
            or any(direction(e, i) is None for e in bounds):
        return None
    scalars = set(assigned_scalars(inner.body))
    if not straight_statements(inner.body) or any(isinstance(s, ir.For)
                                                  for s in walk_stmts(inner.body)) \
            or not plain_expressions(outer.body) or scalars & {i, j} \
            or not private_scalars(inner.body, scalars) or read_outside(fn, outer, j):
        return None
    if not crosses(cpu_nest(outer), i, j):
        return None

    int64 = Scalar("int64")
    ib, iend, jb, jlo, jhi = (fresh(f"unpy_{x}", taken) for x in (f"{i}b", f"{i}end",
                                                                    f"{j}b", f"{j}lo", f"{j}hi"))
    for v in (ib, iend, jb, jlo, jhi):
        new_locals[v] = int64
    tile = const(tile_size)

    def at_rows(e, pick):
        """`pick` (min or max) of the bound `e` over the tile's rows."""
        if i not in reads_of(e):
            return e
        last = binop("-", name(iend), const(1))
        return ir.Call(pick, [substitute(e, i, name(ib)), substitute(e, i, last)], type=int64)

    def clipped(e, pick, edge):
        """The bound `e` of row i within the tile's columns [jb, jend)."""
        return edge if i not in reads_of(e) else ir.Call(pick, [edge, e], type=int64)
    jend = ir.Call("min", [binop("+", name(jb), tile), name(jhi)], type=int64)
    columns = dataclasses.replace(inner, start=clipped(inner.start, "max", name(jb)),
                                  stop=clipped(inner.stop, "min", jend), parallel=False)
    rows = ir.For(i, name(ib), name(iend), const(1), [columns])
    body = [assign(iend, ir.Call("min", [binop("+", name(ib), tile), outer.stop], type=int64)),
            assign(jlo, at_rows(inner.start, "min")),
            assign(jhi, at_rows(inner.stop, "max")),
            ir.For(jb, name(jlo), name(jhi), tile, [rows])]
    return [ir.For(ib, outer.start, outer.stop, tile, body, parallel=True, loc=outer.loc)]
