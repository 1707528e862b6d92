"""unroll_inner: unrolling of the innermost sequential loops, with a remainder loop (the
paper's section 3.4, after unroll-and-jam)."""
from __future__ import annotations

import dataclasses

from jitgpu.bind import KernelNest
from jitgpu.loopopt.cost import GpuModel
from jitgpu.loopopt.rewrite import AccessCopies
from jitgpu.loopopt.view import index_reads
from unpy.loopopt.rewrite import assign, binop, const, fresh, has_stmt, name, rename, transform
from unpy.loopopt.nest import ArrayAccess
from unpy import ir
from unpy.typeinfer.reductions import assigned_names, reads_of, walk_exprs, walk_stmts


def unroll_inner(kernel: KernelNest, model: GpuModel = GpuModel(),
                 factor: int | None = None) -> KernelNest:
    """Each innermost sequential `for` loop (no loop inside it) runs `factor` iterations per
    trip of a main loop, then the iterations left over in a remainder loop (the original
    loop), so any trip count works:

        k_lo = start; k_hi = stop
        for k in range(k_lo, k_hi - (U-1)*step, U*step):     # every copy a real iteration
            body;  k__1 = k + step;  body[k -> k__1];  ...;  k_lo = k + U*step
        for k in range(k_lo, k_hi, step):                    # the remainder
            body

    The copies run in the original order, one after another, and share every private but the
    loop variable: an accumulator is updated `s += x0; s += x1; ...` exactly as before (no
    reassociation), so the results are the interpreter's. Each copy's variable `k__u` is a loop
    variable of its own (same normalisation as k), so its accesses have device indices of their
    own (new ids); `vector_loads` reads `k__u = k + u*step` to merge their loads.

    Legal when the loop's step is a literal (its sign decides the loop condition), the body has
    no loop, while, break or continue, and does not assign the loop variable (the copies'
    variables are then `k + u*step` throughout); bounds are evaluated once, before the loops,
    as the loop does; where the loop variable is read after the loop, each main trip leaves it
    at its last copy's value (as the original loop leaves it). `factor` None: the model's
    `unroll_factor` where set (jitgpu/search.py's choice for a one-level nest, applied to every
    innermost loop whatever its loads; 1: none unrolled), else the largest of its
    inner_factors whose extra copies' loads (distinct accesses that depend on the loop
    variable) fit its inner_register_budget; a loop of at most one iteration at this call is
    left alone."""
    state = _Unroll(kernel, model, factor or model.unroll_factor)
    body = state.block(list(kernel.body), list(kernel.body))
    if not state.done:
        return kernel
    types = dict(kernel.types)
    for var, dtype in state.new_privates:
        types[var] = ir.Scalar(dtype)
    return kernel.replace(
        body=tuple(body), accesses=kernel.accesses + tuple(state.accesses.added),
        privates=kernel.privates + tuple(state.new_privates), types=tuple(types.items()),
        loops=kernel.loops + tuple(state.new_loops),
        transforms=kernel.transforms + tuple(state.done))


class _Unroll:
    def __init__(self, kernel, model, factor):
        self.kernel, self.model, self.factor = kernel, model, factor
        self.accesses = AccessCopies(kernel)
        self.taken = ({n for n, _ in kernel.types} | {p for p, _ in kernel.privates}
                      | {p.name for p in kernel.free} | {v.var for v in kernel.loops})
        self.new_privates, self.new_loops, self.done = [], [], []

    def block(self, stmts, whole):
        out = []
        for s in stmts:
            if isinstance(s, ir.For) and self.legal(s):
                factor = self.factor or self.choose(s)
                if factor >= 2:
                    out += self.unroll(s, factor, whole)
                    continue
            if isinstance(s, (ir.For, ir.While)):
                s = dataclasses.replace(s, body=self.block(s.body, whole))
            elif isinstance(s, ir.If):
                s = dataclasses.replace(s, body=self.block(s.body, whole),
                                        orelse=self.block(s.orelse, whole))
            out.append(s)
        return out

    def legal(self, s) -> bool:
        return (isinstance(s.step, ir.Const) and isinstance(s.step.value, int)
                and s.step.value != 0 and s.var in {v.var for v in self.kernel.loops}
                and not has_stmt(s.body, (ir.For, ir.While, ir.Break, ir.Continue))
                and s.var not in assigned_names(s.body)
                and self.kernel.loop(s.var).extent > 1)

    def choose(self, s) -> int:
        table = self.accesses.table
        loads = {e.aid: e.type.dtype for e in walk_exprs(s.body) if isinstance(e, ArrayAccess)
                 and e.aid in table and s.var in index_reads(table[e.aid])}
        cost = sum(2 if dtype.endswith("64") else 1 for dtype in loads.values())
        return next((f for f in self.model.inner_factors
                     if (f - 1) * max(cost, 1) <= self.model.inner_register_budget), 1)

    def unroll(self, s, factor, whole):
        var, step = s.var, s.step.value
        lo = fresh(f"{var}__lo", self.taken)
        hi = fresh(f"{var}__hi", self.taken)
        self.new_privates += [(lo, "int64"), (hi, "int64")]
        loopvar = self.kernel.loop(var)
        main = []
        for u in range(factor):
            if u == 0:
                main += list(s.body)
                continue
            copy = fresh(f"{var}__{u}", self.taken)
            self.new_privates.append((copy, "int64"))
            self.new_loops.append(dataclasses.replace(loopvar, var=copy))
            main.append(assign(copy, binop("+", name(var), const(u * step))))
            main += [self.copy(x, var, copy) for x in s.body]
        main.append(assign(lo, binop("+", name(var), const(factor * step))))
        if var in reads_of(_outside(whole, s)):
            main.append(assign(var, binop("+", name(var), const((factor - 1) * step))))
        main_loop = dataclasses.replace(
            s, start=name(lo), stop=binop("-", name(hi), const((factor - 1) * step)),
            step=const(factor * step), body=main)
        rest = dataclasses.replace(s, start=name(lo), stop=name(hi))
        self.done.append(f"unroll_inner({var}, {factor})")
        return [ir.Assign(name(lo), s.start, s.loc), ir.Assign(name(hi), s.stop, s.loc),
                main_loop, rest]

    def copy(self, stmt, var, copy):
        names = {var: copy}
        return transform(rename(stmt, names), self.accesses.renamer(names, {var}))


def _outside(body, loop):
    """The expressions of `body` outside `loop` (to see whether its variable is read after)."""
    exprs = []
    for s in walk_stmts(body):
        if s is loop:
            continue
        if any(s is x for x in walk_stmts(loop.body)):
            continue
        if isinstance(s, ir.Assign):
            exprs += [s.value, s.target]
        elif isinstance(s, ir.For):
            exprs += [s.start, s.stop, s.step]
        elif isinstance(s, (ir.If, ir.While)):
            exprs.append(s.test)
    return exprs
