"""load_elimination: a repeated load in straight-line code reads a temporary that the first
load filled (scalar replacement), for both back ends (issue 22). Which loads read one element,
and which statements may change it, depend on what a target knows of its addresses: a
`LoadRule` per target says so. The OpenCL path's (jitgpu/loopopt/load_elimination.py) compares
device indices by their values at the part; the C++ path's, `CpuLoads`, compares index text
and knows which arrays a nest's `disjoint` pairs keep apart. The C++ path does not run it
today: its copies of a level are tiles that g++ sees through; a jam whose copies are renamed
scalars would need it."""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Hashable, Protocol

from unpy import ir
from unpy.loopopt.effects import CPP
from unpy.loopopt.nest import ArrayAccess
from unpy.loopopt.rewrite import fresh
from unpy.typeinfer.reductions import reads_of, walk_exprs


class LoadRule(Protocol):
    """A target's facts about its loads: which ones read one element, and what ends that."""

    def key(self, load: ArrayAccess) -> Hashable | None:
        """Equal for two loads of one element (where no statement between them changes it or
        its address), None for a load never reused."""

    def kills(self, s: ir.Assign, key) -> bool:
        """Whether statement `s` may change the element of `key` or its address."""


@dataclass(frozen=True)
class ReusedLoads:
    """What eliminate_loads made: the new statements, the temporaries it declared ((name,
    dtype), in order), and how many loads read one of them instead of memory."""
    body: list
    temporaries: list
    reused: int


def eliminate_loads(stmts: list, rule: LoadRule, taken: set) -> ReusedLoads:
    """Within one block of statements (a loop body, a branch, the nest's body), the second and
    later loads of one element (equal `rule.key`s) read a temporary that the first load filled
    (`t = a[...]` just before the statement of the first load; its name from `taken`, which
    it joins). After an unroll-and-jam this is what loads `b[k, j]` once per `k` for all
    copies.

    Legal when nothing between the loads can change the element or its address: a statement
    `rule.kills` for a key, or a compound statement (loop, branch), ends the reuse. Only loads
    that the statement evaluates unconditionally define a temporary (not those in the branches
    of `x if c else y`, or after the first operand of `and`/`or`): the hoisted load must be one
    the code makes anyway. Atomic updates are left alone (other work-items change their
    element: the update reads it in memory), and so is what follows them."""
    state = _State(rule, taken)
    body = state.block(list(stmts))
    return ReusedLoads(body, state.temps, state.reused)


class _State:
    def __init__(self, rule, taken):
        self.rule, self.taken = rule, taken
        self.temps = []
        self.reused = 0

    def block(self, stmts):
        counts = {}
        for s in stmts:
            if isinstance(s, ir.Assign) and not s.atomic:
                for e in unconditional_loads(s):
                    k = self.rule.key(e)
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
        for e in unconditional_loads(s):
            k = self.rule.key(e)
            if k is not None and k not in avail and counts.get(k, 0) > 1:
                name = fresh(f"{e.array.id}_ld{e.aid}", self.taken)
                self.temps.append((name, e.type.dtype))
                before.append(ir.Assign(ir.Name(name, type=e.type), e, s.loc))
                avail[k] = name

        def replace(n):
            k = self.rule.key(n)
            if k is not None and k in avail:
                self.reused += 1
                return ir.Name(avail[k], type=n.type)
            return n
        value = replace_loads(s.value, replace)
        target = s.target
        if isinstance(target, ir.Subscript):
            target = dataclasses.replace(target, indices=replace_loads(target.indices, replace))
        self.reused -= len(before)
        for k in [k for k in avail if self.rule.kills(s, k)]:
            del avail[k]
        return before + [dataclasses.replace(s, value=value, target=target)]


@dataclass(frozen=True)
class CpuLoads:
    """The C++ path's LoadRule, on the statements of a nest whose accesses are numbered
    (nest.py's `cpu_nest`). A load's key is its array's name and the text of its indices (a
    load whose index reads an array element or calls a function has none); `disjoint`: the
    (written, read) pairs of array names the nest's alternative form runs under
    (`ir.For.disjoint`, checked at run time), all other arrays may be views of one buffer.

    A store ends the reuse of its own array's loads (their index text cannot tell elements
    apart) and of every array's not proved disjoint from it; an assignment to a variable of
    the indices ends the reuse of their loads; a call that may have effects (not one of
    effects.CPP's safe calls) ends every reuse."""
    disjoint: frozenset = frozenset()

    def key(self, load: ArrayAccess):
        if not isinstance(load.array, ir.Name) or any(
                isinstance(e, (ir.Subscript, ir.Call)) for e in walk_exprs(load.indices)):
            return None
        return (load.array.id, tuple(ir.format_expr(i) for i in load.indices),
                frozenset(reads_of(load.indices)))

    def kills(self, s: ir.Assign, key) -> bool:
        if any(isinstance(e, ir.Call) and not CPP.safe_call(e.func)
               for e in walk_exprs([s.target, s.value])):
            return True
        if isinstance(s.target, ir.Subscript):
            stored = s.target.array.id
            return stored == key[0] or (stored, key[0]) not in self.disjoint
        return isinstance(s.target, ir.Name) and s.target.id in key[2]


def unconditional_loads(s: ir.Assign) -> list:
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


def replace_loads(node, fn):
    """`node` with each load replaced by fn(load) (outer loads first: a replaced load's
    indices are not visited)."""
    if isinstance(node, list):
        return [replace_loads(x, fn) for x in node]
    if isinstance(node, ir.Subscript):
        new = fn(node)
        if new is not node:
            return new
        return dataclasses.replace(node, indices=replace_loads(node.indices, fn))
    if not dataclasses.is_dataclass(node) or isinstance(node, (type, ir.Scalar, ir.Array)):
        return node
    return dataclasses.replace(node, **{f.name: replace_loads(getattr(node, f.name), fn)
                                        for f in dataclasses.fields(node)
                                        if f.name not in ("type", "loc")})
