"""contract: a new local array that lives in one nest becomes a scalar of each iteration.

After fusion (unpy/typeinfer/fuse.py), the temporaries of consecutive array statements often
live within one nest: in `d1 = ...; d2 = d1 - s; call[:] = f(d1, d2)` fused into one nest, the
iteration (i) writes d1[i] and reads it back, and nothing else reads d1. Such an array becomes a
private scalar of the nest (`d1[i]` -> `d1__e`), and its allocation goes: no memory traffic, no
device buffer, and the nest is the loop a user would have written.

An array T qualifies in nest N (perfectly nested prange levels v1..vk) when
- T is a local assigned once in the function, by an allocation in N's block (never a view of
  anything, never passed, returned or aliased);
- every other use of T is inside N, with one index tuple naming each level variable once and
  constants otherwise (`T[v1, ..., vk]`, `T[v1, 0]`: each iteration its own element);
- in each iteration the first statement of N's innermost body that mentions T is an
  unconditional `T[v1, ..., vk] = e` with e not reading T (every read sees the iteration's value).

In an array statement in two versions (lower_arrays), the fast nest's temporaries become
scalars the same way, their allocations moved into the general version, which still fills them.

Within a nest's iteration, a reduction loop that repeats an earlier one (the mean that
`a.std(axis=0)` computes again after `a.mean(axis=0)`) takes the earlier one's value when
nothing it reads changed in between.

`contract_temporaries(fn)` is pure: a new Function.
"""
from __future__ import annotations

import dataclasses

from unpy import ir
from unpy.ir import Array, Scalar
from unpy.typeinfer.fuse import _fresh, _rename, chain
from unpy.typeinfer.reductions import assigned_names, walk_exprs, walk_stmts


def contract_temporaries(fn: ir.Function) -> ir.Function:
    fn = ir.copy_tree(fn)
    bindings = {}
    for s in walk_stmts(fn.body):
        if isinstance(s, ir.Assign) and isinstance(s.target, ir.Name):
            bindings.setdefault(s.target.id, []).append(s)
    uses = {}
    for e in walk_exprs(fn.body):
        if isinstance(e, ir.Name):
            uses[e.id] = uses.get(e.id, 0) + 1
    taken = set(uses) | set(fn.locals) | {p.name for p in fn.params} | {
        s.var for s in walk_stmts(fn.body) if isinstance(s, ir.For)}
    new_locals, contracted = {}, []

    def contract(nest, out, general=None):
        innermost = chain(nest)[-1]
        innermost.body = reuse_repeated_loops(innermost.body)
        for alloc in contractible(nest, out, general):
            out.remove(alloc)
            if general is not None:         # the general version still fills the array
                general.body.insert(0, alloc)
            else:
                contracted.append(alloc.target.id)
            scalar = _fresh(f"{alloc.target.id}__e", taken)
            new_locals[scalar] = Scalar(alloc.target.type.dtype)
            replace(nest, alloc.target.id, scalar)

    def block(body):
        out = list(body)
        for s in body:
            if isinstance(s, ir.For) and s.parallel:
                contract(s, out)
            elif (isinstance(s, ir.If) and s.broadcast and len(s.orelse) == 1
                  and isinstance(s.orelse[0], ir.For) and s.orelse[0].parallel):
                # An array statement in two versions (lower_arrays): its fast nest's
                # temporaries, which the general version keeps
                s.body = block(s.body)
                contract(s.orelse[0], out, s)
            elif isinstance(s, (ir.For, ir.While)):
                s.body = block(s.body)
            elif isinstance(s, ir.If):
                s.body, s.orelse = block(s.body), block(s.orelse)
        return out

    def contractible(nest, siblings, general=None):
        levels = [level.var for level in chain(nest)]
        inner = chain(nest)[-1].body
        inside = {}
        for e in walk_exprs(nest):
            if isinstance(e, ir.Subscript) and isinstance(e.array, ir.Name):
                inside.setdefault(e.array.id, []).append(
                    tuple(ir.format_expr(i) for i in e.indices)
                    if own_element(e.indices, levels) else None)
        found = []
        elsewhere = {}          # the general version's uses (its own array there)
        for e in walk_exprs(general.body if general is not None else []):
            if isinstance(e, ir.Name):
                elsewhere[e.id] = elsewhere.get(e.id, 0) + 1
        for name, keys in inside.items():
            binds = bindings.get(name, [])
            if (len(binds) == 1 and isinstance(binds[0].value, ir.AllocArray)
                    and any(b is binds[0] for b in siblings)
                    and None not in keys and len(set(keys)) == 1
                    and uses.get(name, 0) - elsewhere.get(name, 0) == len(keys) + 1
                    and written_first(inner, name)):
                found.append(binds[0])
        return found

    fn.body = block(fn.body)
    if not new_locals:
        return fn
    for name in contracted:
        fn.locals.pop(name, None)
    return dataclasses.replace(fn, locals=dict(fn.locals, **new_locals))


def reuse_repeated_loops(body) -> list:
    """`body` with each `r2 = c; for k2 in range(..): r2 = r2 op f(k2)` that repeats an earlier
    such pair (up to the names r and k) replaced by `r2 = r1`, where the statements between
    assign none of the names and write none of the arrays the earlier pair reads."""
    out, seen = [], []            # seen: (text, r1, names read, position in out)
    k = 0
    while k < len(body):
        pair = _accumulation(body, k)
        if pair is not None:
            text, r, reads = pair
            for other_text, r1, other_reads, at in seen:
                if other_text == text and _unchanged(out[at + 2:], other_reads | {r1}):
                    t = body[k].target.type
                    out.append(ir.Assign(ir.Name(r, body[k].loc, t),
                                         ir.Name(r1, body[k].loc, t), body[k].loc))
                    k += 2
                    break
            else:
                seen.append((text, r, reads, len(out)))
                out += body[k:k + 2]
                k += 2
            continue
        out.append(body[k])
        k += 1
    return out


def _accumulation(body, k):
    """(its text with r and k renamed, r, the names it reads) when body[k:k+2] is
    `r = constant; for k in range(...): <assignments of r only>`, else None."""
    if k + 1 >= len(body):
        return None
    init, loop = body[k], body[k + 1]
    if not (isinstance(init, ir.Assign) and isinstance(init.target, ir.Name)
            and isinstance(init.value, ir.Const) and isinstance(loop, ir.For)
            and not loop.parallel and set(assigned_names(loop.body)) == {init.target.id}
            and not any(isinstance(s, (ir.For, ir.While)) for s in loop.body)):
        return None
    r = init.target.id
    renamed = _rename([init, loop], {r: "__R", loop.var: "__K"})
    text = "\n".join(ir.format_stmts(renamed))
    reads = {e.id for e in walk_exprs(loop) if isinstance(e, ir.Name)} - {r, loop.var}
    return text, r, reads


def _unchanged(stmts, names) -> bool:
    if set(assigned_names(stmts)) & names:
        return False
    return not any(isinstance(s, ir.Assign) and isinstance(s.target, ir.Subscript)
                   and s.target.array.id in names for s in walk_stmts(stmts))


def own_element(indices, levels) -> bool:
    """Indices naming one element per iteration: each level variable once, as an index of
    its own, and constants (`t[i, 0]` of a keepdims row reduction)."""
    names = [i.id for i in indices if isinstance(i, ir.Name)]
    return sorted(names) == sorted(levels) and all(
        isinstance(i, (ir.Name, ir.Const)) for i in indices)


def written_first(body, name) -> bool:
    """Whether the first statement of `body` that mentions array `name` assigns an element of
    it, unconditionally, from a value that does not read it."""
    for s in body:
        if not any(isinstance(e, ir.Name) and e.id == name for e in walk_exprs(s)):
            continue
        return (isinstance(s, ir.Assign) and isinstance(s.target, ir.Subscript)
                and s.target.array.id == name
                and not any(isinstance(e, ir.Name) and e.id == name
                            for e in walk_exprs([s.value] + s.target.indices)))
    return False


def replace(node, array, scalar):
    """Every `array[...]` below `node` (in place) as the Name `scalar`."""
    for f in dataclasses.fields(node):
        if f.name in ("type", "loc", "reductions", "fused", "blas"):
            continue
        value = getattr(node, f.name)
        if isinstance(value, list):
            setattr(node, f.name, [_swap(x, array, scalar) for x in value])
            for x in getattr(node, f.name):
                if dataclasses.is_dataclass(x) and not isinstance(x, (Scalar, Array)):
                    replace(x, array, scalar)
        elif dataclasses.is_dataclass(value) and not isinstance(value, (Scalar, Array)):
            new = _swap(value, array, scalar)
            setattr(node, f.name, new)
            if new is value:
                replace(value, array, scalar)


def _swap(x, array, scalar):
    if isinstance(x, ir.Subscript) and isinstance(x.array, ir.Name) and x.array.id == array:
        return ir.Name(scalar, x.loc, Scalar(x.type.dtype))
    return x
