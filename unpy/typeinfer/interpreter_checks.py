"""Run-time checks that raise what the interpreter raises, placed where it would raise.

The analyses (unpy/typeinfer/unbound_locals.py, python_division.py) compute a `CheckPlan`:
checks attached to expression nodes (an unassigned local read, a Python float divided by zero)
and the flag updates that the checks read. `apply_checks` carries it out: each check becomes
`if <guards> and <failure>: raise Kind(message)` right before the statement that evaluates the
node, its guards being the conditions under which Python evaluates that node at all (the
operands of `and`/`or` before it, the test of an `x if c else y`, the pairs of a chained
comparison before it). A guard is evaluated again by the check, so it must call no compiled
function (a compile error says so); every other expression has no side effects, and an error a
guard raises is the one Python raises there first. A `while` whose test has checks becomes
`while True:` with the checks and `if not test: break` first. A check that starts a `for` body
and reads nothing the loop changes moves before the loop (`_Apply.hoisted`).

Statements gain nothing where the plan has nothing: code that needs no check is unchanged.
"""
from __future__ import annotations

import copy
import dataclasses
from dataclasses import dataclass
from types import MappingProxyType

from unpy import ir
from unpy.typeinfer.lower_logic import calls_compiled
from unpy.typeinfer.reductions import assigned_names, escapes, walk_exprs, walk_stmts
from unpy.typeinfer.types import BOOL


@dataclass(frozen=True)
class Check:
    """Raise `kind(message)` where `failure` (a bool expression, copied into the code) holds."""
    kind: str
    message: str
    failure: object


@dataclass(frozen=True)
class CheckPlan:
    """What `apply_checks` adds; statements and checks are keyed by the id() of a node of the
    function as the analysis saw it."""
    checks: MappingProxyType        # expression -> the Checks due once Python evaluated it
    before: MappingProxyType        # statement -> statements to run before it
    after: MappingProxyType         # statement -> statements to run after it
    loop_start: MappingProxyType    # For -> statements that start its body
    start: tuple                    # statements that start the function
    flags: MappingProxyType         # new local -> its type


def frozen(checks=None, before=None, after=None, loop_start=None, start=(), flags=None):
    def fix(d):
        return MappingProxyType({k: tuple(v) for k, v in (d or {}).items()})
    return CheckPlan(fix(checks), fix(before), fix(after), fix(loop_start), tuple(start),
                     MappingProxyType(dict(flags or {})))


def merged(*plans: CheckPlan) -> CheckPlan:
    """One plan doing what each of `plans` does, in their order."""
    def union(part):
        out = {}
        for p in plans:
            for k, v in getattr(p, part).items():
                out.setdefault(k, []).extend(v)
        return out
    return frozen(union("checks"), union("before"), union("after"), union("loop_start"),
                  sum((p.start for p in plans), ()),
                  {k: v for p in plans for k, v in p.flags.items()})


# --- evaluation order ---------------------------------------------------------------------

def evaluation_order(e, guards=()):
    """(node, guards) for every expression node below `e`, in the order Python evaluates them
    (an operation after its operands). A guard is ('true', x), ('false', x) or
    ('pair', compare, k): x truthy, x falsy, or pair k of a chained comparison true."""
    if e is None or not dataclasses.is_dataclass(e) or isinstance(e, (ir.Scalar, ir.Array)):
        return
    if isinstance(e, ir.BoolOp):
        for k, v in enumerate(e.values):
            yield from evaluation_order(v, guards + tuple(
                ("true" if e.op == "and" else "false", w) for w in e.values[:k]))
    elif isinstance(e, ir.IfExp):
        yield from evaluation_order(e.test, guards)
        yield from evaluation_order(e.body, guards + (("true", e.test),))
        yield from evaluation_order(e.orelse, guards + (("false", e.test),))
    elif isinstance(e, ir.Compare):
        yield from evaluation_order(e.left, guards)
        for k, c in enumerate(e.comparators):
            yield from evaluation_order(c, guards + tuple(("pair", e, j) for j in range(k)))
    else:
        for f in dataclasses.fields(e):
            if f.name in ("type", "loc", "operand_types", "in_range"):
                continue
            value = getattr(e, f.name)
            for x in (value.values() if isinstance(value, dict) else
                      value if isinstance(value, list) else [value]):
                yield from evaluation_order(x, guards)
    yield e, guards


def statement_parts(s) -> list:
    """The expressions a statement evaluates itself (not its nested bodies), in order."""
    if isinstance(s, ir.Assign):
        return [s.value] + ([] if isinstance(s.target, ir.Name) else [s.target])
    if isinstance(s, ir.For):
        return [s.start, s.stop, s.step]
    if isinstance(s, (ir.If, ir.While)):
        return [s.test]
    if isinstance(s, (ir.Return, ir.ExprStmt)):
        return [] if s.value is None else [s.value]
    return []


# --- building IR ----------------------------------------------------------------------------

def truth(e):
    e = copy.deepcopy(e)
    return e if e.type.dtype == "bool" else ir.Cast(e, e.loc, BOOL)


def negation(e):
    return ir.UnaryOp("not", e, e.loc, BOOL)


def conjunction(parts, loc):
    return parts[0] if len(parts) == 1 else ir.BoolOp("and", parts, loc, BOOL)


def flag(name, loc=(0, 0)):
    return ir.Name(name, loc, BOOL)


def flag_name(fn: ir.Function, name: str, what: str) -> str:
    """A new local `name__what` (a bool saying `what` of `name`), named like no other."""
    new = f"{name}__{what}"
    while new in fn.locals or any(p.name == new for p in fn.params):
        new += "_"
    return new


def set_flag(name, value, loc):
    """`name = value` (value: a bool or a bool expression)."""
    v = ir.Const(value, loc, BOOL) if isinstance(value, bool) else value
    return ir.Assign(flag(name, loc), v, loc)


def compare(left, op, right):
    """`left op right` of two scalars of one dtype."""
    dtype = left.type.dtype
    return ir.Compare(left, [op], [right], left.loc, BOOL, [[dtype, dtype]])


def zero(dtype, loc):
    value = 0j if dtype.startswith("complex") else 0.0 if dtype.startswith("float") else 0
    return ir.Const(value, loc, ir.Scalar(dtype))


def int_constant(e):
    """The value of an integer constant (converted or not), else None."""
    e = e.value if isinstance(e, ir.Cast) else e
    return e.value if isinstance(e, ir.Const) and type(e.value) is int else None


def runs(loop: ir.For):
    """A bool expression: `loop` runs at least one iteration (its bounds evaluated again)."""
    start, stop, step = (copy.deepcopy(x) for x in (loop.start, loop.stop, loop.step))
    constant = int_constant(step)
    if constant is not None:
        return compare(start, "<" if constant > 0 else ">", stop)
    upward = conjunction([compare(step, ">", zero(step.type.dtype, loop.loc)),
                          compare(start, "<", stop)], loop.loc)
    downward = conjunction([compare(copy.deepcopy(step), "<", zero(step.type.dtype, loop.loc)),
                            compare(copy.deepcopy(start), ">", copy.deepcopy(stop))], loop.loc)
    return ir.BoolOp("or", [upward, downward], loop.loc, BOOL)


def guard_condition(g):
    kind = g[0]
    if kind == "true":
        return truth(g[1])
    if kind == "false":
        return negation(truth(g[1]))
    _, cmp, k = g
    operands = [cmp.left] + cmp.comparators
    return ir.Compare(copy.deepcopy(operands[k]), [cmp.ops[k]],
                      [copy.deepcopy(operands[k + 1])], cmp.loc, BOOL, [cmp.operand_types[k]])


def guard_nodes(g):
    if g[0] == "pair":
        operands = [g[1].left] + g[1].comparators
        return [operands[g[2]], operands[g[2] + 1]]
    return [g[1]]


# --- the executor ---------------------------------------------------------------------------

class _Apply:
    def __init__(self, plan: CheckPlan, errors):
        self.plan = plan
        self.errors = errors
        self.made = set()           # id() of the checks made (If statements)

    def checks_of(self, exprs) -> list:
        out = []
        for part in exprs:
            for node, guards in evaluation_order(part):
                for c in self.plan.checks.get(id(node), ()):
                    if any(calls_compiled(x) for g in guards for x in guard_nodes(g)) or \
                            calls_compiled(c.failure):
                        raise self.errors.error(
                            f"this may raise {c.kind} in Python ({c.message}), and checking "
                            "it here would call a compiled function a second time; assign "
                            "that call's value to a variable first", node.loc)
                    test = conjunction([guard_condition(g) for g in guards]
                                       + [copy.deepcopy(c.failure)], node.loc)
                    check = ir.If(test, [ir.Raise(c.kind, c.message, node.loc)], [], node.loc)
                    self.made.add(id(check))
                    out.append(check)
        return out

    def hoisted(self, loop) -> list:
        """The checks at the start of `loop`'s body (before anything that may leave the
        iteration or raise) whose tests read nothing the loop changes and no array element:
        moved before the loop, where they fire if it runs at all (as Python raises in its first
        iteration). A `1.0 / dt` in a nest then costs nothing per iteration, and a kernel has
        no error to flag."""
        changed = set(assigned_names(loop.body)) | {loop.var}
        moved = []
        for s in loop.body:
            if id(s) not in self.made:
                if escapes([s], (ir.Break, ir.Continue, ir.Return, ir.Raise)) or \
                        any(isinstance(x, ir.Raise) for x in walk_stmts([s])):
                    break
                continue
            if any(isinstance(e, (ir.Subscript, ir.View, ir.Masked, ir.ArrayCall,
                                  ir.CallCompiled, ir.StridedView, ir.Reshape))
                   or (isinstance(e, ir.Name) and e.id in changed) for e in walk_exprs(s.test)):
                break
            moved.append(s)
        if not moved:
            return []
        loop.body = [s for s in loop.body if all(s is not m for m in moved)]
        out = []
        for check in moved:
            test = conjunction([runs(loop), check.test], check.loc)
            hoisted = ir.If(test, check.body, [], check.loc)
            self.made.add(id(hoisted))
            out.append(hoisted)
        return out

    def block(self, body) -> list:
        out = []
        for s in body:
            out += self.plan.before.get(id(s), ())
            checks = self.checks_of(statement_parts(s))
            if isinstance(s, (ir.For, ir.While)):
                s.body = list(self.plan.loop_start.get(id(s), ())) + self.block(s.body)
                if isinstance(s, ir.For) and not calls_compiled([s.start, s.stop, s.step]):
                    checks += self.hoisted(s)
            elif isinstance(s, ir.If):
                s.body, s.orelse = self.block(s.body), self.block(s.orelse)
            if isinstance(s, ir.While) and checks:
                # The test runs before every iteration: so do its checks.
                leave = ir.If(negation(truth(s.test)), [ir.Break(s.loc)], [], s.loc)
                s.body = checks + [leave] + s.body
                s.test = ir.Const(True, s.loc, BOOL)
                checks = []
            out += checks
            out.append(s)
            out += self.plan.after.get(id(s), ())
        return out


def apply_checks(fn: ir.Function, plan: CheckPlan, errors):
    """Carry out `plan` on `fn` in place."""
    if not (plan.checks or plan.before or plan.after or plan.loop_start or plan.start):
        return
    fn.body = list(plan.start) + _Apply(plan, errors).block(fn.body)
    fn.locals.update(plan.flags)
