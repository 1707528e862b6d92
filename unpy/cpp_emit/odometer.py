"""Positions unravelled incrementally (an odometer) instead of by a division per element.

`for v in a.flat`, `enumerate(a.flat)`, `zip(a.flat, b.flat)` and `np.ndindex(a.shape)` become a
loop over the C-order positions k whose body reads the indices of k
(typeinfer/array_calls.py flat_indices): `k // (n1 * n2)`, `k // n2 % n1`, `k % n2`, each an
integer division (two, with Python's rounding, for `unpy::floordiv`/`unpy::mod`) per element
and index: a 96^3 sum over np.ndindex spent 6x Numba's time there.

In a loop over k with step 1 that does not assign k, every expression `E // c` and `E % c`
where E is k or such an `E' // c'`, and c is the same in every iteration (constants, names and
array shapes the loop does not assign, their products) has a pair of counters (q, r) =
(E // c, E % c). The first iteration computes them by division (unpy::floordiv, unpy::mod, as
the expressions would); each later one adds 1 to the r of each pair of E = k, and where r
reaches c, sets it to 0 and adds 1 to q, which is E' for the pairs of `E' = E // c` (k goes up
by 1, so E // c goes up by 0 or 1 and E % c by 1 or back to 0: Python's floor rounding, any sign
of k, for c > 0). The counters run only where every c is positive, tested once before the loop;
elsewhere each expression is computed as written (a zero c raises where Python would, a
negative c keeps Python's signs). The update is at the top of each iteration, so `continue`
needs nothing; `break` leaves them unused. The IR is unchanged: the GPU path, the index proofs
and the race checks see the expressions as written; only their C++ text is the counter, as
`(ok ? q : <the expression>)`."""
from __future__ import annotations

from dataclasses import dataclass, field

from unpy import ir
from unpy.ir import Array, Scalar
from unpy.typeinfer.reductions import assigned_names, walk_exprs


@dataclass
class Pair:
    """The counters of `E // c` (q) and `E % c` (r); `parent` is the pair whose q is E (None
    where E is the loop variable)."""
    key: str
    source: str             # the key of E
    divisor: ir.Expr
    parent: "Pair | None"
    q: str = ""
    r: str = ""
    children: list = field(default_factory=list)


@dataclass
class Odometer:
    pairs: list             # in order: each after its parent
    nodes: dict             # id(expression) -> (pair, "q" or "r")


def _int64(e) -> bool:
    return isinstance(e.type, Scalar) and e.type.dtype == "int64"


def _invariant(e, assigned, types) -> bool:
    """Whether `e` is the same in every iteration of the loop: an integer constant, a name
    of an integer the loop does not assign, a shape or size of an array it does not assign,
    products of those."""
    if isinstance(e, ir.Cast):
        return isinstance(e.value.type, Scalar) and e.value.type.dtype[0] in "iu" and \
            _invariant(e.value, assigned, types)
    if isinstance(e, ir.Const):
        return isinstance(e.value, int) and not isinstance(e.value, bool)
    if isinstance(e, ir.Name):
        return e.id not in assigned and isinstance(types.get(e.id), Scalar) and \
            types[e.id].dtype[0] in "iu"
    if isinstance(e, ir.ArrayAttr):
        return e.attr in ("shape", "size") and isinstance(e.array, ir.Name) and \
            e.array.id not in assigned and isinstance(types.get(e.array.id), Array)
    if isinstance(e, ir.BinOp) and e.op == "*":
        return _invariant(e.left, assigned, types) and _invariant(e.right, assigned, types)
    return False


def odometer(loop: ir.For, fn: ir.Function) -> Odometer | None:
    """The counters of `loop`'s unravelled positions (see above), or None: a loop of step 1
    that does not assign its variable, with at least one `k // c` or `k % c` of a positive or
    unknown c in its body."""
    if not (isinstance(loop.step, ir.Const) and loop.step.value == 1):
        return None
    types = {**fn.locals, **{p.name: p.type for p in fn.params}}
    if not (isinstance(types.get(loop.var), Scalar) and types[loop.var].dtype == "int64"):
        return None
    assigned = set(assigned_names(loop.body))
    if loop.var in assigned:
        return None
    pairs, nodes = {}, {}

    def source(e):
        """The key of E (the loop variable, or a pair's q), found or made; else None."""
        if isinstance(e, ir.Name) and e.id == loop.var:
            return loop.var, None
        if isinstance(e, ir.BinOp) and e.op == "//":
            found = pair_of(e)
            if found is not None:
                return found.key, found
        return None, None

    def pair_of(e):
        """The pair of `E // c` or `E % c`, found or made; else None."""
        if not (isinstance(e, ir.BinOp) and e.op in ("//", "%") and _int64(e) and
                _int64(e.left) and _invariant(e.right, assigned, types)):
            return None
        if isinstance(e.right, ir.Const) and e.right.value <= 0:
            return None
        key_of_source, parent = source(e.left)
        if key_of_source is None:
            return None
        key = f"({key_of_source}) // ({ir.format_expr(e.right)})"
        if key not in pairs:
            pairs[key] = Pair(key, key_of_source, e.right, parent)
            if parent is not None:
                parent.children.append(pairs[key])
        return pairs[key]

    for e in walk_exprs(loop.body):
        found = pair_of(e)
        if found is not None:
            nodes[id(e)] = (found, "q" if e.op == "//" else "r")
    if not nodes:
        return None
    ordered = []

    def visit(p):
        ordered.append(p)
        for c in p.children:
            visit(c)
    for p in pairs.values():
        if p.parent is None:
            visit(p)
    return Odometer(ordered, nodes)
