"""load_elimination: a repeated load in straight-line code reads a private temporary."""
from __future__ import annotations

import dataclasses

from jitgpu.bind import KernelNest
from unpy.loopopt.rewrite import fresh
from unpy.loopopt.nest import ArrayAccess
from unpy import ir


def load_elimination(kernel: KernelNest) -> KernelNest:
    """Within one block of statements (a loop body, a branch, the kernel body), the second and
    later loads of one device index read a private temporary that the first load filled
    (`t = a[...]` just before the statement of the first load). Device indices are compared
    by the values of their parameters at this part. After unroll-and-jam this is
    what loads `b[k, j]` once per `k` for all copies.

    Legal when nothing between the loads can change the element or its address: a store to the
    buffer (any element: views of one buffer may alias), an assignment to a variable of the
    index, or a compound statement (loop, branch) ends the reuse. Only loads that the statement
    evaluates unconditionally define a temporary (not those in the branches of `x if c else
    y`, or after the first operand of `and`/`or`): the hoisted load must be one the code
    makes anyway. Indices with a non-affine term (an IR expression) and bool elements are left
    alone, and so are atomic updates (other work-items change their element: the update reads
    it in memory) and what follows them."""
    table = dict(kernel.accesses)
    taken = ({n for n, _ in kernel.types} | {p for p, _ in kernel.privates}
             | {p.name for p in kernel.free} | {v.var for v in kernel.loops})
    state = _State(table, taken, kernel.longs)
    body = state.block(list(kernel.body))
    if not state.temps:
        return kernel
    types = dict(kernel.types)
    for name, dtype in state.temps:
        types[name] = ir.Scalar(dtype)
    return kernel.replace(body=tuple(body), privates=kernel.privates + tuple(state.temps),
                          types=tuple(types.items()),
                          transforms=kernel.transforms + (
                              f"load_elimination({state.reused} loads)",))


class _State:
    def __init__(self, table, taken, longs):
        self.table, self.taken, self.longs = table, taken, longs
        self.temps = []
        self.reused = 0

    def key(self, e):
        index = self.table.get(e.aid) if isinstance(e, ArrayAccess) else None
        if index is None or e.type.dtype == "bool" or any(t.index is not None
                                                            for t in index.terms):
            return None
        # By value at this part: two accesses of one element have different parameters.
        value = lambda c: self.longs[c] if isinstance(c, str) else c
        return (index.buffer, index.element, value(index.offset),
                tuple((value(t.coeff), t.loop) for t in index.terms))

    def block(self, stmts):
        counts = {}
        for s in stmts:
            if isinstance(s, ir.Assign) and not s.atomic:
                for e in _unconditional_loads(s):
                    k = self.key(e)
                    if k is not None:
                        counts[k] = counts.get(k, 0) + 1
        avail, out = {}, []
        for s in stmts:
            if isinstance(s, ir.Assign) and not s.atomic:
                out += self.statement(s, avail, counts)
            elif isinstance(s, (ir.For, ir.While)):
                out.append(dataclasses.replace(s, body=self.block(s.body)))
                avail.clear()
            elif isinstance(s, ir.If):
                out.append(dataclasses.replace(s, body=self.block(s.body),
                                               orelse=self.block(s.orelse)))
                avail.clear()
            else:
                out.append(s)
                avail.clear()
        return out

    def statement(self, s, avail, counts):
        before = []
        for e in _unconditional_loads(s):
            k = self.key(e)
            if k is not None and k not in avail and counts.get(k, 0) > 1:
                name = fresh(f"{e.array.id}_ld{e.aid}", self.taken)
                self.temps.append((name, e.type.dtype))
                before.append(ir.Assign(ir.Name(name, type=e.type), e, s.loc))
                avail[k] = name

        def replace(n):
            k = self.key(n)
            if k is not None and k in avail:
                self.reused += 1
                return ir.Name(avail[k], type=n.type)
            return n
        value = _replace_loads(s.value, replace)
        target = s.target
        if isinstance(target, ir.Subscript):
            target = dataclasses.replace(target, indices=_replace_loads(target.indices, replace))
        self.reused -= len(before)
        # What this statement changes ends the reuse of what it may change.
        if isinstance(s.target, ir.Subscript) and s.target.aid in self.table:
            buffer = self.table[s.target.aid].buffer
            for k in [k for k in avail if k[0] == buffer]:
                del avail[k]
        elif isinstance(s.target, ir.Name):
            for k in [k for k in avail if any(loop == s.target.id for _, loop in k[3])]:
                del avail[k]
        return before + [dataclasses.replace(s, value=value, target=target)]


def _unconditional_loads(s):
    """The loads an assignment always makes, in evaluation order (inner ones first)."""
    found = []

    def visit(e):
        if isinstance(e, list):
            for x in e:
                visit(x)
        elif isinstance(e, ir.IfExp):
            visit(e.test)
        elif isinstance(e, ir.BoolOp):
            visit(e.values[0])
        elif isinstance(e, ir.Subscript):
            visit(e.indices)
            found.append(e)
        elif dataclasses.is_dataclass(e) and not isinstance(e, (ir.Scalar, ir.Array)):
            for f in dataclasses.fields(e):
                if f.name not in ("type", "loc"):
                    visit(getattr(e, f.name))
    visit(s.value)
    if isinstance(s.target, ir.Subscript):
        visit(s.target.indices)
    return found


def _replace_loads(node, fn):
    """`node` with each load replaced by fn(load) (outer loads first: a replaced load's
    indices are not visited)."""
    if isinstance(node, list):
        return [_replace_loads(x, fn) for x in node]
    if isinstance(node, ir.Subscript):
        new = fn(node)
        if new is not node:
            return new
        return dataclasses.replace(node, indices=_replace_loads(node.indices, fn))
    if not dataclasses.is_dataclass(node) or isinstance(node, (type, ir.Scalar, ir.Array)):
        return node
    return dataclasses.replace(node, **{f.name: _replace_loads(getattr(node, f.name), fn)
                                        for f in dataclasses.fields(node)
                                        if f.name not in ("type", "loc")})
