"""The loop nest both back ends' loop optimisations read (issue 22): its parallel levels, its
body of unpy.ir statements, and per access the variables its address reads. Symbolic: the C++
path makes it at build time (`cpu_nest`), the GPU path from a nest bound at the call
(jitgpu/loopopt/view.py); each back end's passes keep their own facts (bounds' values, the
NDRange, the cost model) and ask this description the questions both share (unpy/loopopt/reuse.py).

Accesses are `ArrayAccess`es: `ir.Subscript`s with a stable id, so that a description and the
statements it describes name the same access.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from unpy import ir
from unpy.loopopt.rewrite import transform
from unpy.typeinfer.reductions import assigned_names, reads_of


@dataclass
class ArrayAccess(ir.Subscript):
    """An `ir.Subscript` of a loaded nest, with its stable access id `aid`: the order of the
    Subscripts in a depth-first walk of the nest's loop (`walk_exprs`). Every per-access table
    (the GPU transfer analysis's `Access.ref_id`, the device maps, the kernel's access table,
    `LoopNest.addresses`) is keyed by it, never by the identity of an IR node; a loop
    transformation that copies or rewrites statements keeps the ids of the accesses it keeps."""
    aid: int = -1


def number_accesses(node, counter=None):
    """A copy of an IR tree whose Subscripts are `ArrayAccess`es numbered in walk order."""
    counter = [0] if counter is None else counter
    if isinstance(node, list):
        return [number_accesses(x, counter) for x in node]
    if not dataclasses.is_dataclass(node) or isinstance(node, type) or isinstance(
            node, (ir.Scalar, ir.Array)):
        return node
    if isinstance(node, ir.Subscript):
        aid = counter[0]
        counter[0] += 1
        return ArrayAccess(node.array, number_accesses(node.indices, counter), node.loc,
                           node.type, aid=aid)
    changes = {f.name: number_accesses(getattr(node, f.name), counter)
               for f in dataclasses.fields(node) if f.name not in ("type", "loc")}
    return dataclasses.replace(node, **changes)


def accesses_of(node):
    """The ArrayAccess nodes below `node` (loads and stores)."""
    found = []

    def fn(n):
        if isinstance(n, ArrayAccess):
            found.append(n)
        return n
    transform(node, fn)
    return found


def parallel_levels(loop: ir.For):
    """The perfectly nested outer pranges (at most 3): the NDRange dimensions. An inner level
    whose bounds use outer variables (a triangular nest) runs over its bounding box, with the
    real bounds as a guard."""
    levels = [loop]
    while len(levels) < 3:
        body = levels[-1].body
        if len(body) != 1 or not isinstance(body[0], ir.For) or not body[0].parallel:
            break
        levels.append(body[0])
    return levels


@dataclass(frozen=True)
class Level:
    """A level of the nest whose iterations are independent (a prange; on the GPU an NDRange
    dimension), outermost first. `guarded`: its bounds read an outer level's variable (a
    triangle). `copies`: the variables of the copies an unroll-and-jam made of it, `strided`
    where they are spaced by the work-group's size (jitgpu/loopopt/register_tiles.py)."""
    var: str
    guarded: bool = False
    copies: tuple = ()
    strided: bool = False


@dataclass(frozen=True)
class Address:
    """Where an access reads or writes: array `array`, at an address that reads the variables
    `names`; `dims`: the variables each index reads, outermost dimension first, where known
    (None: a flattened address, as a device buffer's)."""
    array: str
    names: frozenset
    dims: tuple | None = None

    def oriented(self, first: str, last: str) -> bool:
        """Whether the address is a matrix element whose row index reads `first` and not
        `last`, and whose column index `last` and not `first` (`a[i, k]` for i, k)."""
        return (self.dims is not None and len(self.dims) == 2
                and first in self.dims[0] and last not in self.dims[0]
                and last in self.dims[1] and first not in self.dims[1])

    def __str__(self):
        dims = "" if self.dims is None else " by dimension " + " | ".join(
            ", ".join(sorted(d)) or "-" for d in self.dims)
        return f"{self.array} reads {{{', '.join(sorted(self.names))}}}{dims}"


@dataclass(frozen=True)
class LoopNest:
    """A loop nest as the loop optimisations see it: `levels` (of Level), `body` (the unpy.ir
    statements inside the innermost level, their Subscripts ArrayAccesses), `addresses` ((aid,
    Address) of each access of the body that has one), `privates` (the names of the scalars
    each iteration has its own of) and `reductions` (the names of the reduction variables)."""
    levels: tuple
    body: tuple
    addresses: tuple
    privates: frozenset
    reductions: frozenset = frozenset()

    def address(self, aid: int) -> Address | None:
        return dict(self.addresses).get(aid)

    def __str__(self):
        lines = []
        for k, level in enumerate(self.levels):
            extra = (" (guarded)" if level.guarded else "") + (
                f" copies {', '.join(level.copies)}" if level.copies else "") + (
                " strided" if level.strided else "")
            lines.append(f"level {k}: {level.var}{extra}")
        lines += [f"access {aid}: {address}" for aid, address in self.addresses]
        if self.privates:
            lines.append(f"privates: {', '.join(sorted(self.privates))}")
        if self.reductions:
            lines.append(f"reductions: {', '.join(sorted(self.reductions))}")
        return "\n".join(lines)


def address_of(e: ir.Subscript) -> Address:
    """The address of an access of the statement IR: what each of its indices reads."""
    dims = tuple(frozenset(reads_of(index)) for index in e.indices)
    return Address(e.array.id if isinstance(e.array, ir.Name) else None,
                   frozenset().union(*dims), dims)


def cpu_nest(outer: ir.For, with_middle: bool = True, middle_proved: bool = False) -> LoopNest:
    """The LoopNest of an outermost prange nest of the C++ path: the prange and, where its body
    is one loop whose iterations are independent (a prange, or a range loop that
    typeinfer/independent_loops proved so: `For.independent`, which optimise_for_cpu marks on
    every outermost prange) and `with_middle`, that loop (the middle level of register_blocks'
    blocks; interchange's strips jam it instead), with the accesses of the innermost level's
    body numbered in walk order. Its privates are the names that body assigns (loop variables
    too) but the levels' reductions. `middle_proved`: the caller proved what its use of that
    loop as a level needs (register_blocks: the sums apart from the nest's stores)."""
    levels, body_loops = [Level(outer.var)], []
    body = outer.body
    if with_middle and len(body) == 1 and isinstance(body[0], ir.For) and (
            body[0].parallel or body[0].independent or middle_proved):
        middle = body[0]
        bounds = [middle.start, middle.stop, middle.step]
        levels.append(Level(middle.var, outer.var in reads_of(bounds)))
        body_loops.append(middle)
        body = middle.body
    body = number_accesses(list(body))
    addresses = {}
    for e in accesses_of(body):
        addresses.setdefault(e.aid, address_of(e))
    reductions = frozenset(r.var for loop in (outer, *body_loops) for r in loop.reductions)
    return LoopNest(tuple(levels), tuple(body), tuple(sorted(addresses.items())),
                    frozenset(assigned_names(body)) - reductions, reductions)
