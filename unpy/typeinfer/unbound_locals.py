"""Reads of a local that Python may find unassigned: UnboundLocalError, as the interpreter.

A definite-assignment analysis over the typed IR (before lower_arrays): at each read of a
local it knows whether every path to the read assigned it ("must") and whether any did ("may").

- Every path did: nothing changes (the common case costs nothing).
- No path did: a compile error (the interpreter would always raise there).
- Some did: the local gets a flag `x__assigned`, set after each assignment that may be its
  first, and the read gets the check `if not x__assigned: raise UnboundLocalError(...)`
  (unpy/typeinfer/interpreter_checks.py places it, under the conditions Python reads it at).
  A checked read leaves the local assigned on the paths that go on.

A `for` loop may run zero times: a local first assigned in its body (the loop variable too) is
not assigned after it. Inside a prange a flag is only read: a local the iterations assign and
read before every path assigned it is refused by unpy/typeinfer/reductions.py (it would carry a
value from an earlier iteration), and one they assign and the code after the loop reads is
refused there too; so no flag is set inside a prange. A check inside a prange that runs on the
GPU sets the kernel's error flag, and the OpenMP code then runs the nest and raises.
"""
from __future__ import annotations

import re

from unpy import ir
from unpy.typeinfer.interpreter_checks import (Check, evaluation_order, flag, flag_name, frozen,
                                               int_constant, negation, runs, set_flag,
                                               statement_parts)
from unpy.typeinfer.lower_logic import calls_compiled
from unpy.typeinfer.reductions import assigned_names
from unpy.typeinfer.types import BOOL


def _join(*states):
    states = [s for s in states if s is not None]
    if not states:
        return None
    must = frozenset.intersection(*(s[0] for s in states))
    may = frozenset.union(*(s[1] for s in states))
    return must, may


def runs_at_least_once(loop: ir.For) -> bool:
    start, stop, step = (int_constant(x) for x in (loop.start, loop.stop, loop.step))
    return None not in (start, stop, step) and step != 0 and len(range(start, stop, step)) > 0


class DefiniteAssignment:
    def __init__(self, fn: ir.Function):
        self.maybe = []             # Name nodes read where some path did not assign them
        self.never = []             # Name nodes read where no path assigned them
        self.first = []             # (statement, name) that may assign `name` first
        self.loops = []             # per enclosing loop: the states at its breaks, continues
        self.in_prange = 0
        params = frozenset(p.name for p in fn.params)
        self.locals = set(fn.locals) - params
        self.entry = (params, params)

    def reads(self, exprs, state):
        must, may = state
        for part in exprs:
            for node, guards in evaluation_order(part):
                if not isinstance(node, ir.Name) or node.id not in self.locals or \
                        node.id in must:
                    continue
                (self.maybe if node.id in may else self.never).append(node)
                if not guards:      # checked: on the paths that go on it is assigned
                    must = must | {node.id}
        return must, may

    def assign(self, s, name, state):
        must, may = state
        if name not in must and not self.in_prange:
            self.first.append((s, name))
        return must | {name}, may | {name}

    def block(self, body, state):
        for s in body:
            if state is None:
                break               # after return, break or continue: never runs
            state = self.stmt(s, state)
        return state

    def stmt(self, s, state):
        state = self.reads(statement_parts(s) if not isinstance(s, ir.While) else [], state)
        if isinstance(s, ir.Assign) and isinstance(s.target, ir.Name):
            return self.assign(s, s.target.id, state)
        if isinstance(s, (ir.Return, ir.Raise)):
            return None
        if isinstance(s, (ir.Break, ir.Continue)):
            self.loops[-1][isinstance(s, ir.Continue)].append(state)
            return None
        if isinstance(s, ir.If):
            return _join(self.block(s.body, state), self.block(s.orelse, state))
        if isinstance(s, ir.For):
            return self.for_loop(s, state)
        if isinstance(s, ir.While):
            return self.while_loop(s, state)
        return state

    def loop_body(self, loop, entry):
        # Every assignment of the body may come before a read of a later iteration.
        must, may = entry
        entry = (must, may | set(assigned_names(loop.body)))
        self.loops.append(([], []))
        self.in_prange += isinstance(loop, ir.For) and loop.parallel
        try:
            end = self.block(loop.body, entry)
        finally:
            self.in_prange -= isinstance(loop, ir.For) and loop.parallel
        breaks, continues = self.loops.pop()
        return end, breaks, continues

    def for_loop(self, loop, state):
        entry = self.assign(loop, loop.var, state)      # its flag is set before the loop
        end, breaks, continues = self.loop_body(loop, entry)
        zero_trips = None if runs_at_least_once(loop) else state
        return _join(zero_trips, end, *breaks, *continues)

    def while_loop(self, loop, state):
        must, may = state
        may = may | set(assigned_names(loop.body))
        tested = self.reads([loop.test], (must, may))
        _, breaks, _ = self.loop_body(loop, tested)    # a continue goes back to the test
        forever = isinstance(loop.test, ir.Const) and bool(loop.test.value)
        return _join(None if forever else tested, *breaks)


def python_name(name: str) -> str:
    """The name as written (typeinfer renames a name bound again to another type `x__v1`)."""
    return re.sub(r"__v\d+$", "", name)


def unbound_message(name: str) -> str:
    return f"cannot access local variable '{name}' where it is not associated with a value"


def unbound_locals_plan(fn: ir.Function, errors):
    """The checks and flags that make reads of possibly unassigned locals raise
    UnboundLocalError (an interpreter_checks.CheckPlan); raises CompileError for a read no
    path assigns."""
    analysis = DefiniteAssignment(fn)
    analysis.block(fn.body, analysis.entry)
    if analysis.never:
        node = analysis.never[0]
        name = python_name(node.id)
        raise errors.error(
            f"'{name}' is read here, but no path to this line assigns it: the interpreter "
            f"would raise UnboundLocalError ({unbound_message(name)}); assign it first", node.loc)
    flagged = {node.id for node in analysis.maybe}
    if not flagged:
        return frozen()
    flags = {name: flag_name(fn, name, "assigned") for name in sorted(flagged)}
    checks = {}
    for node in analysis.maybe:
        checks[id(node)] = [Check("UnboundLocalError", unbound_message(python_name(node.id)),
                                  negation(flag(flags[node.id], node.loc)))]
    after, before, loop_start = {}, {}, {}
    for s, name in analysis.first:
        if name not in flags:
            continue
        update = set_flag(flags[name], True, s.loc)
        if not isinstance(s, ir.For):
            after.setdefault(id(s), []).append(update)
        elif not calls_compiled([s.start, s.stop, s.step]):
            # The loop variable is assigned when the loop runs at all: set once, before it.
            before.setdefault(id(s), []).append(ir.If(runs(s), [update], [], s.loc))
        elif not s.parallel:
            loop_start.setdefault(id(s), []).append(update)
        else:
            raise errors.error(f"'{python_name(name)}' may be read after this prange without "
                               "having been assigned (if it runs no iteration), and its range "
                               "calls a compiled function; assign the range's bounds to "
                               "variables first", s.loc)
    start = [set_flag(f, False, fn.loc) for f in flags.values()]
    return frozen(checks=checks, before=before, after=after, loop_start=loop_start, start=start,
                  flags={f: BOOL for f in flags.values()})
