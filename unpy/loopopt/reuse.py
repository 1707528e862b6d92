"""Which loads of a LoopNest (unpy/loopopt/nest.py) the copies of a level would share: the
analyses behind unroll-and-jam and register tiles, on either back end's description of a nest.

A level's copies run an inner loop once between them (it is jammed) where the loop's bounds
read neither the level's variable nor a variable the body assigns; inside a jammed loop, a
load whose address reads neither the level's variable nor a per-copy private is made once
for every copy."""
from __future__ import annotations

from unpy import ir
from unpy.loopopt.nest import Address, LoopNest, accesses_of
from unpy.loopopt.rewrite import has_stmt
from unpy.typeinfer.reductions import reads_of, walk_stmts


def jammable(s, var: str, assigned: set) -> bool:
    """Whether statement `s` is a loop the copies of level `var` may run once between them."""
    return (isinstance(s, ir.For)
            and not set(reads_of([s.start, s.stop, s.step])) & (assigned | {var})
            and not has_stmt(s.body, (ir.While, ir.Break, ir.Continue)))


def jammed_loops(body, var: str, assigned: set):
    """The variables of the loops jammed (reached from the body through jammed loops only), or
    None when one of them is also the variable of a loop run per copy."""
    jammed, copied = set(), set()

    def visit(stmts, in_jam):
        for s in stmts:
            if in_jam and jammable(s, var, assigned):
                jammed.add(s.var)
                visit(s.body, True)
            else:
                copied.update(x.var for x in walk_stmts([s]) if isinstance(x, ir.For))
    visit(body, True)
    return None if jammed & copied else jammed


def depends(address: Address, names: set) -> bool:
    """Whether the address reads one of `names`."""
    return bool(address.names & names)


def loads_of(stmt):
    """The accesses a statement reads: its value's, and a stored subscript's indices'."""
    if isinstance(stmt, ir.Assign):
        loads = accesses_of(stmt.value)
        if isinstance(stmt.target, ir.Subscript):
            loads += accesses_of(stmt.target.indices)
        return loads
    return accesses_of(stmt)


def shared_loads(nest: LoopNest, k: int) -> int:
    """How many loads inside jammed loops do not depend on level k's variable nor on a
    private: one load serves every copy."""
    var = nest.levels[k].var
    privates = set(nest.privates)
    jammed = jammed_loops(list(nest.body), var, privates)
    if jammed is None:
        return 0
    table = dict(nest.addresses)
    count = 0

    def visit(stmts, inside):
        nonlocal count
        for s in stmts:
            if jammable(s, var, privates):
                visit(s.body, True)
            elif inside:
                loads = [e for e in loads_of(s) if e.aid in table]
                count += sum(not depends(table[e.aid], (privates - jammed) | {var})
                             for e in loads)
    visit(list(nest.body), False)
    return count


def crossed_operands(nest: LoopNest, outer: int, last: int) -> bool:
    """Whether the loops jammed for both levels load an element of the outer level's iteration
    that the last level's copies share (a[i, k]), and one of the last level's that the outer's
    share (b[k, j])."""
    privates = set(nest.privates)
    names = (nest.levels[outer].var, nest.levels[last].var)
    jammed = [jammed_loops(list(nest.body), var, privates) for var in names]
    if None in jammed:
        return False
    loops = jammed[0] & jammed[1]
    table = dict(nest.addresses)
    seen = set()

    def visit(stmts, inside):
        for s in stmts:
            if isinstance(s, ir.For) and s.var in loops:
                visit(s.body, True)
            elif inside:
                for e in loads_of(s):
                    if e.aid not in table:
                        continue
                    address = table[e.aid]
                    if depends(address, privates - loops - set(names)):
                        continue            # a per-copy private: not shared by any copies
                    seen.add(tuple(depends(address, {v}) for v in names))
    visit(list(nest.body), False)
    return (True, False) in seen and (False, True) in seen
