"""Tree rewriting helpers of the loop optimisations of both back ends (unpy/loopopt for the
C++ path, jitgpu/loopopt for the kernels): new IR trees, never edits in place."""
from __future__ import annotations

import dataclasses

from unpy import ir
from unpy.ir import Scalar
from unpy.typeinfer.reductions import walk_stmts

SKIPPED = ("type", "loc", "reductions")


def transform(node, fn):
    """A copy of `node` rebuilt bottom-up, each dataclass node replaced by `fn(rebuilt node)`
    (fn returns its argument to keep it)."""
    if isinstance(node, list):
        return [transform(x, fn) for x in node]
    if isinstance(node, tuple):
        return tuple(transform(x, fn) for x in node)
    if not dataclasses.is_dataclass(node) or isinstance(node, (type, ir.Scalar, ir.Array)):
        return node
    changes = {f.name: transform(getattr(node, f.name), fn)
               for f in dataclasses.fields(node) if f.name not in SKIPPED}
    return fn(dataclasses.replace(node, **changes))


def with_alternatives(fn: ir.Function, parallel_form, serial_form=None) -> ir.Function:
    """`fn` with the alternative forms a pass gives its loops (`ir.For.blocked`, run where the
    pairs of `.disjoint` do not overlap): `parallel_form(loop, fn, taken, new_locals)` for each
    outermost prange loop, `serial_form` (if any) for each serial loop outside them, whose body
    is visited where it gives none; each returns (blocked, disjoint, the transform's name, which
    `ir.For.transforms` records last) or None, may take fresh names from `taken` and adds the
    locals it makes to `new_locals`. A loop that has an alternative keeps it (the first
    pass's)."""
    taken = set(fn.locals) | {p.name for p in fn.params}
    new_locals = dict(fn.locals)

    def alternative(s, form):
        found = None if s.blocked or form is None else form(s, fn, taken, new_locals)
        return dataclasses.replace(s, blocked=found[0], disjoint=found[1],
                                   transforms=s.transforms + [found[2]]) if found else None

    def visit(body):
        out = []
        for s in body:
            if isinstance(s, ir.For) and s.parallel:
                out.append(alternative(s, parallel_form) or s)
            elif isinstance(s, ir.For):
                out.append(alternative(s, serial_form)
                           or dataclasses.replace(s, body=visit(s.body)))
            elif isinstance(s, ir.While):
                out.append(dataclasses.replace(s, body=visit(s.body)))
            elif isinstance(s, ir.If):
                out.append(dataclasses.replace(s, body=visit(s.body), orelse=visit(s.orelse)))
            else:
                out.append(s)
        return out

    body = visit(fn.body)
    return dataclasses.replace(fn, body=body, locals=new_locals)


def rename(node, names: dict):
    """`node` with the variables of `names` (old -> new) renamed: reads, assignments, loop
    variables, the targets of `NamedExpr`."""
    def fn(n):
        if isinstance(n, ir.Name) and n.id in names:
            return dataclasses.replace(n, id=names[n.id])
        if isinstance(n, ir.For) and n.var in names:
            return dataclasses.replace(n, var=names[n.var])
        return n
    return transform(node, fn) if names else node


def has_stmt(body, kinds) -> bool:
    """Whether a statement of one of `kinds` is anywhere in `body`."""
    return any(isinstance(s, kinds) for s in walk_stmts(body))


def fresh(base: str, taken: set) -> str:
    """A variable name from `base` that is not in `taken` (which it joins)."""
    name, n = base, 1
    while name in taken:
        name, n = f"{base}_{n}", n + 1
    taken.add(name)
    return name


INT64 = Scalar("int64")


def name(id_: str, dtype: str = "int64") -> ir.Name:
    return ir.Name(id_, type=Scalar(dtype))


def const(value: int) -> ir.Const:
    return ir.Const(value, type=INT64)


def binop(op: str, a, b, dtype: str = "int64") -> ir.BinOp:
    return ir.BinOp(op, a, b, type=Scalar(dtype))


def assign(target: str, value, dtype: str = "int64") -> ir.Assign:
    return ir.Assign(name(target, dtype), value)
