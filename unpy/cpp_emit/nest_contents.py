"""What of a @gpu nest's arrays the device need not move, known from the function's code alone
(jitgpu leaves these copies out of its plans; `ir.Nest.undefined` and `.dead_after`):

- arrays holding nothing defined when the nest starts: those the function allocated with
  `np.empty` (its own, or one lowering made for an array expression's temporary) and left
  untouched since. Every element the nest reads it must first write, as in the interpreter,
  where they are garbage too, so nothing is copied in (softmax's `e = np.exp(...)`: 128 MiB of
  page faults and pinning per call on an H100, for nothing);
- arrays nobody reads after the nest: local arrays that die with the call (`dying_locals`) and
  that no statement which may run after the nest mentions: nothing is copied back;
- nests alone in their call (`lone_nests`): no other nest can run in the same call, before or
  after, so data left on the device would serve nobody: such a nest copies back at once and may
  be replayed from C++ (softmax's else-branch nest, beside the three nests of the branch that
  broadcasts its length-1 rows).

A name counts as untouched from its allocation until any statement (but a nest that starts
with it so, which itself writes it) mentions it; the allocation must be in the nest's block or
an enclosing one with no loop between them (a loop's second iteration sees what its first
wrote). A nest inside a loop may be followed by the loop's own statements. Whatever is not
provably so is left out: copied as before."""
from __future__ import annotations

from unpy import ir
from unpy.ir import Array
from unpy.typeinfer.reductions import reads_of, walk_exprs, walk_stmts


def dying_locals(fn: ir.Function) -> list:
    """Local arrays that die with the call: only ever bound to a new allocation, never
    returned, never bound to another name (`x = tmp`, a view of it) and never passed to a
    compiled function (which could hand them back)."""
    params = {p.name for p in fn.params}
    escaping = set()
    bound_otherwise = set()
    for s in walk_stmts(fn.body):
        if isinstance(s, ir.Return) and s.value is not None:
            escaping.update(reads_of(s.value))
        if isinstance(s, ir.Assign) and isinstance(s.target, ir.Name) \
                and not isinstance(s.value, ir.AllocArray):
            bound_otherwise.add(s.target.id)
            if isinstance(s.value.type, (Array, ir.TupleType)):   # `t = (x, y)` keeps x, y
                escaping.update(reads_of(s.value))
    for e in walk_exprs(fn.body):
        if isinstance(e, ir.CallCompiled):
            escaping.update(reads_of(e.args))
        elif isinstance(e, ir.NamedExpr):
            bound_otherwise.add(e.target.id)
    return [name for name, t in fn.locals.items() if isinstance(t, Array)
            and name not in params and name not in escaping and name not in bound_otherwise]


def _mentioned(node) -> set:
    names = {e.id for e in walk_exprs(node) if isinstance(e, ir.Name)}
    if isinstance(node, ir.For):
        names.add(node.var)
    return names


def _is_nest(s) -> bool:
    return isinstance(s, ir.For) and s.nest_id is not None


def undefined_at_nests(fn: ir.Function) -> dict:
    """{nest_id: sorted names of the arrays whose contents are undefined when the nest starts}."""
    found: dict = {}

    def block(body: list, fresh: set) -> None:
        fresh = set(fresh)
        for s in body:
            if _is_nest(s):
                found[s.nest_id] = sorted(fresh & _mentioned(s))
            elif isinstance(s, ir.Assign) and isinstance(s.target, ir.Name) \
                    and isinstance(s.value, ir.AllocArray):
                fresh -= _mentioned(s.value)
                if s.value.fill == "empty":
                    fresh.add(s.target.id)
                    continue
            elif isinstance(s, ir.If):
                block(s.body, fresh)
                block(s.orelse, fresh)
            elif isinstance(s, (ir.For, ir.While)):
                block(s.body, set())
            fresh -= _mentioned(s)

    block(fn.body, set())
    return found


def dead_after_nests(fn: ir.Function) -> dict:
    """{nest_id: sorted names of the local arrays the nest mentions that nothing reads after
    it}."""
    dying = set(dying_locals(fn))
    found: dict = {}

    def block(body: list, after: set) -> None:
        later = set(after)
        for s in reversed(body):
            if _is_nest(s):
                found[s.nest_id] = sorted((dying & _mentioned(s)) - later)
            elif isinstance(s, ir.If):
                block(s.body, later)
                block(s.orelse, later)
            elif isinstance(s, (ir.For, ir.While)):
                block(s.body, later | _mentioned(s))
            later |= _mentioned(s)

    block(fn.body, set())
    return found


def lone_nests(fn: ir.Function) -> set:
    """The nest ids of the nests that no other nest of the function can run with in one call:
    outside every loop, and on another branch of an `if` than each other nest."""
    paths = {}          # nest id -> ((id of an If, branch), ...), None inside a loop

    def block(body: list, path, looping: bool) -> None:
        for s in body:
            if _is_nest(s):
                paths[s.nest_id] = None if looping else path
            elif isinstance(s, ir.If):
                block(s.body, path + ((id(s), 0),), looping)
                block(s.orelse, path + ((id(s), 1),), looping)
            elif isinstance(s, (ir.For, ir.While)):
                block(s.body, path, True)

    block(fn.body, (), False)

    def exclusive(p, q) -> bool:
        branches = dict(p)
        return any(branches.get(node, branch) != branch for node, branch in q)

    return {n for n, p in paths.items() if p is not None and all(
        q is not None and exclusive(p, q) for m, q in paths.items() if m != n)}
