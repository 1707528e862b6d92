"""inline_calls: a call of a compiled function whose body is one `return e`, `e` a scalar
expression of its parameters (`def at_twice(a, i): return a[i] * 2`), replaced by `e` with the
call's arguments for the parameters, where each argument is a name or a constant of its
parameter's type and `e` has the function's return type. index_proof then sees the callee's
indices in the caller's loops (`out[i] = at_twice(a, i)` in `for i in prange(a.shape[0])`:
`a[i]` proved, where the call checked it at every iteration), and the loop vectorises.

Legal when: always, for such calls. A name or a constant neither changes anything nor raises,
so reading it where the body reads its parameter (once, twice or never) is the value the call
would have been given; the body's operations run where the call would, in the same order, and
raise the same errors (an index out of range, a division by zero, a math error) at the same
point, the IndexError's message naming the caller's array. `e` holds only expressions that do
not depend on which function runs them: names of the parameters, constants, operators, element
reads, array extents, casts, math calls and calls of compiled functions (which stay calls: the
result is not visited again, so recursion inlines one level at most)."""
from __future__ import annotations

import dataclasses

from unpy import ir
from unpy.ir import Scalar
from unpy.loopopt.rewrite import transform
from unpy.typeinfer.reductions import walk_exprs

# The expression nodes an inlined body may hold.
INLINED = (ir.Const, ir.Name, ir.BinOp, ir.UnaryOp, ir.Compare, ir.BoolOp, ir.IfExp,
           ir.Subscript, ir.ArrayAttr, ir.Cast, ir.Call, ir.CallCompiled)


def inline_calls(fn: ir.Function, functions: dict) -> ir.Function:
    """`fn` with the calls of `functions` (name -> ir.Function) whose body is one `return e`
    replaced by `e` (see the module's docstring)."""
    bodies = {name: e for name, f in functions.items()
              if (e := _returned_expression(f)) is not None}
    if not any(isinstance(e, ir.CallCompiled) and e.func in bodies for e in walk_exprs(fn.body)):
        return fn

    def inline(node):
        if not isinstance(node, ir.CallCompiled) or node.func not in bodies:
            return node
        callee = functions[node.func]
        params = [p.name for p in callee.params]
        if len(node.args) != len(params) or not all(
                isinstance(a, (ir.Name, ir.Const)) and _same_values(a.type, p.type)
                for a, p in zip(node.args, callee.params)):
            return node
        # (typed as the parameter: an int literal's or a range variable's weak int64 is the
        # parameter's int64)
        given = {p.name: dataclasses.replace(a, type=p.type)
                 for a, p in zip(node.args, callee.params)}
        return transform(bodies[node.func],
                         lambda x: given[x.id] if isinstance(x, ir.Name) else x)

    return ir.Function(**{**fn.__dict__, "body": transform(fn.body, inline)})


def _returned_expression(f: ir.Function):
    """`e` where `f`'s body is `return e`, `e` of f's (scalar) return type, made of INLINED
    nodes whose names are f's parameters; else None."""
    if (len(f.body) != 1 or not isinstance(f.body[0], ir.Return) or f.body[0].value is None
            or f.returns_none or not isinstance(f.return_type, Scalar)):
        return None
    e = f.body[0].value
    params = {p.name for p in f.params}
    # (exact types: not a Call's subclasses, a print or a call through Python)
    if e.type != f.return_type or not all(
            type(x) in INLINED and (type(x) is not ir.Name or x.id in params)
            for x in walk_exprs(e)):
        return None
    return e


def _same_values(given, declared) -> bool:
    """Whether an argument of type `given` is passed unchanged to a parameter of type
    `declared`: the same type, a weak scalar (a Python int or float) of the same dtype too."""
    if isinstance(given, Scalar) and isinstance(declared, Scalar):
        return given.dtype == declared.dtype
    return given == declared
