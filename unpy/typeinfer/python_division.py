"""A Python float divided by zero raises ZeroDivisionError, as in the interpreter.

Python's `float` (and `complex`) raise for `x / 0`, `x // 0`, `x % 0` and `0.0 ** -y`, where
NumPy's scalars give inf or nan. In the interpreter an operation is Python's when both operands
are Python scalars: in the typed IR, weak values (NEP 50; unpy/typeinfer/types.py). Integer
`//`, `%` and `/` raise already (the emitters' helpers); this pass checks the others.

A local can be a Python scalar on some paths and a NumPy one on others: `s = 0.0` and then
`s += a[i]` in a loop is a NumPy float64 after one iteration, but still a Python float when the
loop ran none (`s / n` then raises for n == 0). typeinfer types it as NumPy from the start; here
it gets a flag `s__python`, set after each assignment to whether the value is a Python scalar,
and the check of a division reads it. A prange's reduction has its flag set before the loop,
where the loop runs at all (its update makes the value NumPy's). Where that cannot be told the
flag says "NumPy": a check may then be missing, never one added that Python lacks. Inside a
prange only divisions of values that are always Python scalars are checked: a flag there would
change the nest (its register blocks, its vectorisation) for a case Python rarely meets
(docs/guide.md lists it).

No check where the divisor is proven never zero (a positive constant plus a never-negative
value: `1.0 + x * x`).
"""
from __future__ import annotations

import copy

from unpy import ir
from unpy.typeinfer.interpreter_checks import (Check, compare, conjunction, flag, flag_name, frozen,
                                               int_constant, runs, set_flag, statement_parts,
                                               zero)
from unpy.typeinfer.lower_logic import calls_compiled
from unpy.typeinfer.never_negative import NeverNegative, never_negative_locals
from unpy.typeinfer.reductions import UpwardExposed, walk_exprs, walk_stmts
from unpy.typeinfer.types import BOOL

CHECKED_OPS = ("/", "//", "%", "**")
PRESERVING_CALLS = ("min", "max", "abs")     # a Python scalar's min/max/abs is a Python scalar


def _python_message(op, kind):
    """Python's own message for a zero divisor (this interpreter's wording)."""
    a, b = (1.0, 0.0) if kind == "float" else (1j, 0j)
    if op == "**":
        a, b = (0.0, -1.0) if kind == "float" else (0j, -1)
    try:
        {"/": lambda: a / b, "//": lambda: a // b, "%": lambda: a % b,
         "**": lambda: a ** b}[op]()
    except ZeroDivisionError as e:
        return str(e)
    return None


def _is_python(t) -> bool:
    return isinstance(t, ir.Scalar) and t.weak


class PythonScalars:
    """Whether an expression's value is a Python scalar: True, False, or the set of locals
    whose flags must all say so (mixed locals)."""

    def __init__(self, fn, mixed):
        self.mixed = mixed
        self.params = {p.name: p.type for p in fn.params}

    def of(self, e):
        if isinstance(e, ir.Cast):
            return self.of(e.value)
        if isinstance(e, ir.Name):
            if e.id in self.mixed:
                return frozenset([e.id])
            return _is_python(self.params.get(e.id, e.type))
        if isinstance(e, ir.BinOp):
            return _both(self.of(e.left), self.of(e.right))
        if isinstance(e, ir.UnaryOp) and e.op != "not":
            return self.of(e.operand)
        if isinstance(e, ir.Call) and e.func in PRESERVING_CALLS:
            out = True
            for a in e.args:
                out = _both(out, self.of(a))
            return out
        if isinstance(e, ir.IfExp):
            return _both(self.of(e.body), self.of(e.orelse))    # both: never too many checks
        return _is_python(e.type)


def _both(a, b):
    if a is False or b is False:
        return False
    if a is True:
        return b
    if b is True:
        return a
    return a | b


def _expressions(body, in_prange=False):
    """(expression, whether a prange holds it) of every expression of `body`."""
    for s in body:
        yield from ((e, in_prange) for e in walk_exprs(statement_parts(s)))
        if isinstance(s, (ir.For, ir.While)):
            yield from _expressions(s.body, in_prange or (isinstance(s, ir.For) and s.parallel))
        elif isinstance(s, ir.If):
            yield from _expressions(s.body, in_prange)
            yield from _expressions(s.orelse, in_prange)


def _assignments(body, prange=None):
    """(assignment, the outermost prange holding it or None) of every local."""
    for s in body:
        if isinstance(s, ir.Assign) and isinstance(s.target, ir.Name):
            yield s, prange
        elif isinstance(s, ir.For):
            yield from _assignments(s.body, prange or (s if s.parallel else None))
        elif isinstance(s, ir.While):
            yield from _assignments(s.body, prange)
        elif isinstance(s, ir.If):
            yield from _assignments(s.body, prange)
            yield from _assignments(s.orelse, prange)


def mixed_locals(fn, assignments) -> set:
    """Locals typed as NumPy scalars that some assignment gives a Python scalar."""
    mixed = set()
    while True:
        scalars = PythonScalars(fn, mixed)
        found = {s.target.id for s, _ in assignments
                 if isinstance(s.target.type, ir.Scalar) and not s.target.type.weak
                 and scalars.of(s.value) is not False}
        if found <= mixed:
            return mixed
        mixed |= found


def counting_up(fn) -> set:
    """Loop variables never negative: every loop of that name counts up from a constant >= 0,
    and nothing else assigns it."""
    loops = [s for s in walk_stmts(fn.body) if isinstance(s, ir.For)]
    assigned = {s.target.id for s in walk_stmts(fn.body)
                if isinstance(s, ir.Assign) and isinstance(s.target, ir.Name)}
    up = lambda loop: (int_constant(loop.start) or 0) >= 0 and \
        int_constant(loop.start) is not None and (int_constant(loop.step) or 0) > 0
    names = {loop.var for loop in loops} - assigned
    return {n for n in names if all(up(loop) for loop in loops if loop.var == n)}


def _never_negative(e, prover, up) -> bool:
    if isinstance(e, ir.Cast) and e.value.type.dtype[0] in "iu":
        e = e.value
        return (isinstance(e, ir.Name) and e.id in up) or isinstance(e, ir.ArrayAttr) or \
            (isinstance(e, ir.Const) and e.value >= 0)
    return prover.proves(e)


def _never_zero(e, prover, up) -> bool:
    """`e` is never zero: a nonzero constant, or a positive one plus a never-negative value
    (`1.0 + x * x`, `t + 1.0` for a loop variable `t` counting up from 0)."""
    if isinstance(e, ir.Cast) and (e.type.dtype == "float64" or e.value.type.dtype[0] in "iu"):
        return _never_zero(e.value, prover, up)
    if isinstance(e, ir.Const):
        return e.value != 0
    if isinstance(e, ir.BinOp) and e.op == "+":
        positive = lambda x: isinstance(x, ir.Const) and not isinstance(x.value, complex) \
            and x.value > 0
        return (positive(e.left) and _never_negative(e.right, prover, up)) or \
            (positive(e.right) and _never_negative(e.left, prover, up))
    return False


def python_division_plan(fn: ir.Function, errors):
    """The checks and flags that make Python scalar divisions by zero raise
    ZeroDivisionError (an interpreter_checks.CheckPlan)."""
    assignments = list(_assignments(fn.body))
    mixed = mixed_locals(fn, assignments)
    scalars = PythonScalars(fn, mixed)
    prover = up = None
    flags = {name: flag_name(fn, name, "python") for name in sorted(mixed)}
    checks, needed = {}, set()
    for e, in_prange in _expressions(fn.body):
        if not (isinstance(e, ir.BinOp) and e.op in CHECKED_OPS and isinstance(e.type, ir.Scalar)):
            continue
        kind = "float" if e.type.dtype.startswith("float") else \
            "complex" if e.type.dtype.startswith("complex") else None
        if kind is None or (kind == "complex" and e.op != "/"):
            continue                    # integers raise already
        python = _both(scalars.of(e.left), scalars.of(e.right))
        if python is False or (python is not True and in_prange):
            continue        # in a prange only the static case: see the module's docstring
        if prover is None:
            prover, up = NeverNegative(fn, never_negative_locals(fn)), counting_up(fn)
        if _never_zero(e.right, prover, up) if e.op != "**" else prover.proves(e.right):
            continue
        dtype = e.type.dtype
        if e.op == "**":
            failure = [compare(copy.deepcopy(e.left), "==", zero(dtype, e.loc)),
                       compare(copy.deepcopy(e.right), "<", zero(dtype, e.loc))]
        else:
            failure = [compare(copy.deepcopy(e.right), "==", zero(dtype, e.loc))]
        if python is not True:
            needed |= python
            failure = [flag(flags[n], e.loc) for n in sorted(python)] + failure
        checks[id(e)] = [Check("ZeroDivisionError", _python_message(e.op, kind),
                               conjunction(failure, e.loc))]
    return frozen(checks=checks, **_flag_updates(fn, assignments, scalars, flags, needed))


def _flag_updates(fn, assignments, scalars, flags, needed) -> dict:
    """The flags of `needed` locals set after their assignments (a prange's reductions: before
    it), with the locals their values depend on needed too."""
    while True:
        more = set()
        for s, _ in assignments:
            python = scalars.of(s.value)
            if s.target.id in needed and python not in (True, False):
                more |= python - needed
        if not more:
            break
        needed |= more
    after, before = {}, {}
    exposed = {}
    for s, prange in assignments:
        name = s.target.id
        if name not in needed:
            continue
        python = scalars.of(s.value)
        if prange is not None:
            if id(prange) not in exposed:
                finder = UpwardExposed()
                finder.block(prange.body, {prange.var})
                exposed[id(prange)] = finder.exposed
            if name in exposed[id(prange)]:
                # A reduction: NumPy's once an update ran, unless the update is a Python one.
                if python is not True:
                    update = set_flag(flags[name], False, s.loc)
                    if not calls_compiled([prange.start, prange.stop, prange.step]):
                        update = ir.If(runs(prange), [update], [], s.loc)
                    before.setdefault(id(prange), []).append(update)
                continue
        if python in (True, False):
            value = python
        elif python == {name}:
            continue                    # as Python as it was
        else:
            value = conjunction([flag(flags[n], s.loc) for n in sorted(python)], s.loc)
        after.setdefault(id(s), []).append(set_flag(flags[name], value, s.loc))
    return {"after": after, "before": before,
            "flags": {flags[n]: BOOL for n in needed}}
