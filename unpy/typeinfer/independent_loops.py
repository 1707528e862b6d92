"""Inner `range` loops of a prange nest whose iterations are independent
(`ir.For.independent`): a GPU kernel may run them as NDRange levels too, not one after the
other in each work-item (`with_independent_levels`, for each @gpu nest: cpp_emit/module.py's
gpu_nests), and the C++ path's loop optimisations take such a loop as the nest's middle level
(`mark_independent_levels`, for every outermost prange: unpy/loopopt's optimise_for_cpu,
unpy/loopopt/nest.py's cpu_nest), the level register_blocks' blocks span with the prange's.

Users mark the outer loop `prange` and leave the inner one a `range` (as Numba's examples do):

    for i in prange(m):
        for j in range(n):          # independent: each iteration writes c[i, j] alone
            s = 0.0
            for k in range(p):
                s += a[i, k] * b[k, j]
            c[i, j] = s

Only the loops that a kernel could make levels are marked: a `range` that is the last
statement of an outermost prange's body, or of a loop so marked (at most three levels in all,
as unpy.loopopt.nest.parallel_levels takes), after nothing but assignments of scalars that it does
not assign itself (`y0 = int(math.floor(i * sy))`): those are copied into it (`ir.For.sunk`),
and a level computes them in each of its iterations. Its iterations are independent when, for two different
iterations, none reads or writes what the other writes:
- no scalar carries a value from one iteration to the next: every name the body assigns is
  assigned before it is read in the iteration (reductions.UpwardExposed), the loop variable
  is not assigned, and nothing leaves the loop early (`break`, `return`);
- every element written is written by one iteration only, and every element read of an array
  the loop writes is one that its own iteration writes or none writes: the writes pairwise, and
  each read against each write, are *separated* as array_races proves it for a prange (indices
  `c*j + r` with windows narrower than the step, else a linear system without solution);
- no compiled function is called with an array (it could write it).

As array_races does, this compares names, not memory: two names for overlapping memory would
hide a dependence, so jitgpu runs such a loop as a level only where, at the call, no array the
nest writes overlaps another array of the nest (jitgpu.nest.instantiate); the C++ path runs its
register-blocked form only where no array the nest writes overlaps another it reads (the
nest's `disjoint` pairs, checked at run time), else the loops as written."""
from __future__ import annotations

import dataclasses
import itertools

from unpy import ir
from unpy.typeinfer.array_races import _Prange, _Write, element_reads
from unpy.typeinfer.reductions import UpwardExposed, assigned_names, walk_exprs, walk_stmts

MAX_LEVELS = 3


def with_independent_levels(outer: ir.For, sink: bool = True) -> ir.For:
    """The outermost prange `outer` with `independent` set on the `range` loops below its
    perfectly nested pranges that a kernel may add as levels; where not `sink`, only on loops
    that nothing precedes in their parent's body (no statement is moved into a loop: the C++
    path runs the loops as marked)."""
    def mark(loop: ir.For, depth: int) -> ir.For:
        *before, inner = loop.body or [None]
        if depth >= MAX_LEVELS or not isinstance(inner, ir.For) or (before and inner.parallel) \
                or (before and not sink):
            return loop
        if not inner.parallel:
            if not _sinkable(before, inner):
                return loop
            sunk = dataclasses.replace(inner, body=before + inner.body)
            if not independent(sunk):
                return loop
            inner = dataclasses.replace(sunk, independent=True, sunk=len(before))
        return dataclasses.replace(loop, body=before + [mark(inner, depth + 1)])
    return mark(outer, 1)


def mark_independent_levels(fn: ir.Function) -> ir.Function:
    """`fn` with every outermost prange's independent levels marked, no statement sunk
    (`with_independent_levels(..., sink=False)`)."""
    def visit(body):
        out = []
        for s in body:
            if isinstance(s, ir.For) and s.parallel:
                s = with_independent_levels(s, sink=False)
            elif isinstance(s, (ir.For, ir.While)):
                s = dataclasses.replace(s, body=visit(s.body))
            elif isinstance(s, ir.If):
                s = dataclasses.replace(s, body=visit(s.body), orelse=visit(s.orelse))
            out.append(s)
        return out
    return dataclasses.replace(fn, body=visit(fn.body))


def _sinkable(before: list, inner: ir.For) -> bool:
    """Whether the statements `before` the loop may be computed in each of its iterations:
    assignments of scalars, none of a name the loop assigns (so each iteration computes the
    values they had), none making an array."""
    names = {s.target.id for s in before if isinstance(s, ir.Assign)
             and isinstance(s.target, ir.Name)}
    return len(names) == len(before) and not names & (set(assigned_names(inner.body))
                                                      | {inner.var}) and not any(
        isinstance(s.value.type, ir.Array) for s in before) and not any(
        isinstance(e, (ir.AllocArray, ir.CallCompiled, ir.NamedExpr)) for e in walk_exprs(before))


def independent(loop: ir.For) -> bool:
    """Whether no iteration of the `range` loop reads or writes what another writes (above)."""
    step = loop.step.value if isinstance(loop.step, ir.Const) else None
    if loop.parallel or not isinstance(step, int) or not step:
        return False
    body = loop.body
    if _leaves(body) or any(isinstance(s, ir.Return) for s in walk_stmts(body)):
        return False
    if any(isinstance(e, ir.CallCompiled) and any(isinstance(a.type, ir.Array) for a in e.args)
           for e in walk_exprs(body)):
        return False
    assigned = set(assigned_names(body))
    exposed = UpwardExposed()
    exposed.block(body, {loop.var})
    if loop.var in assigned or assigned & set(exposed.exposed):
        return False
    p = _Prange(loop)
    writes = {}
    for s, env, facts in p.writes(body, {}, []):
        element = p.written_element(s.target, env)
        if element is not None:
            writes.setdefault(element[0], []).append(_Write(s, element[1], facts))
    for array, ws in writes.items():
        if not all(p.separated(w, x) for w, x in itertools.combinations_with_replacement(ws, 2)):
            return False
    for array, read, _ in element_reads(p, body, set(writes)):
        if not all(p.separated(read, w) for w in writes[array]):
            return False
    return True


def _leaves(body) -> bool:
    """Whether a `break` of `body` leaves its loop (one inside an inner loop does not)."""
    for s in body:
        if isinstance(s, ir.Break):
            return True
        if isinstance(s, ir.If) and (_leaves(s.body) or _leaves(s.orelse)):
            return True
    return False
