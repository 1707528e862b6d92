"""Lower chained comparisons and value-returning `and`/`or` into IR that every C-family printer
spells alike (SPEC section 3: Python's evaluation order and short-circuiting).

After this pass every `Compare` has one operator and every `BoolOp` is of type bool:

- `a < b < c` becomes `(a < b) and (b < c)`: the bool `and` stops at the first false
  comparison, as Python does.
- `x and y` of a non-bool type becomes `y if x else x`, `x or y` becomes `x if x else y`: the
  result is an operand itself, and later operands run only when needed.

Both forms use one operand twice. An operand without a call of a compiled function is simply
repeated: the IR has no other side effects, and an error it raises (a zero divisor, an index out
of range, a math domain error) the first evaluation raises already, so the second one computes
the same value. The C compilers merge the two evaluations. An operand that calls a compiled
function (which may write arrays, and costs a call) is evaluated once into a new local with
`NamedExpr`, `(t := f(x))`; so is a chain's middle operand when any operand of the chain calls
one, since C leaves the order of the two sides of a comparison open and a call on one side could
change an array element that the repeated operand on the other side reads. Compiled calls never
reach the GPU, so the OpenCL kernels never need such locals.

Runs after type inference: the lowering depends on the type of `and`/`or`, and keeps each
comparison's operand types.
"""
from __future__ import annotations

import copy
import dataclasses

from unpy import ir
from unpy.ir import Scalar
from unpy.typeinfer.reductions import walk_exprs


def calls_compiled(e) -> bool:
    return any(isinstance(x, ir.CallCompiled) for x in walk_exprs(e))


def unchangeable(e) -> bool:
    """A value no call can change: a compiled function cannot assign its caller's variables."""
    if isinstance(e, ir.Cast):
        return unchangeable(e.value)
    return isinstance(e, (ir.Const, ir.Name, ir.ArrayAttr))


class LogicLowering:
    def __init__(self, fn: ir.Function):
        self.fn = fn
        self.taken = {p.name for p in fn.params} | set(fn.locals)
        self.counter = 0

    def run(self):
        self.fn.body = self.rewrite(self.fn.body)

    def rewrite(self, node):
        """`node` with its expressions lowered, bottom-up (statements are changed in place)."""
        if isinstance(node, list):
            return [self.rewrite(x) for x in node]
        if not dataclasses.is_dataclass(node) or isinstance(node, (Scalar, ir.Array)):
            return node
        for f in dataclasses.fields(node):
            if f.name not in ("type", "loc", "reductions", "operand_types"):
                setattr(node, f.name, self.rewrite(getattr(node, f.name)))
        if isinstance(node, ir.Compare) and len(node.ops) > 1:
            return self.chain(node)
        if isinstance(node, ir.BoolOp) and node.type.dtype != "bool":
            return self.value_boolop(node.op, node.values, node.type)
        return node

    def twice(self, e, bind: bool):
        """Two uses of `e` that evaluate it once: the first computes it, the second reads it."""
        if not bind or unchangeable(e):
            return e, copy.deepcopy(e)
        self.counter += 1
        while f"unpy_t{self.counter}" in self.taken:
            self.counter += 1
        name = f"unpy_t{self.counter}"
        self.taken.add(name)
        t = e.type
        self.fn.locals[name] = t
        return ir.NamedExpr(ir.Name(name, e.loc, t), e, e.loc, t), ir.Name(name, e.loc, t)

    def chain(self, e):
        """`a < b < c` -> `(a < b) and (b < c)`, with `b` evaluated once."""
        bind = calls_compiled(e)
        left, parts = e.left, []
        last = len(e.ops) - 1
        for k, (op, right, pair) in enumerate(zip(e.ops, e.comparators, e.operand_types)):
            now, later = self.twice(right, bind) if k < last else (right, None)
            parts.append(ir.Compare(left, [op], [now], e.loc, e.type, [pair]))
            left = later
        return ir.BoolOp("and", parts, e.loc, e.type)

    def value_boolop(self, op, values, t):
        """`x and rest` -> `rest if x else x`; `x or rest` -> `x if x else rest`."""
        if len(values) == 1:
            return values[0]
        first, again = self.twice(values[0], calls_compiled(values[0]))
        rest = self.value_boolop(op, values[1:], t)
        if op == "and":
            return ir.IfExp(first, rest, again, values[0].loc, t)
        return ir.IfExp(first, again, rest, values[0].loc, t)


def lower_logic(fn: ir.Function):
    """Rewrite chained comparisons and value-returning `and`/`or` of a typed function."""
    LogicLowering(fn).run()
