"""index_proof: the array indices of the C++ path that need no check, proved while compiling or
once before their nest at run time; the emitter checks the others (the default of `unpy build`:
neither --unchecked nor --boundscheck).

An index of dimension `d` of `a[...]` is in range when `0 <= index < a.shape[d]` for every
value it takes; lower_arrays marks the ones it generates (`Subscript.in_range`). Here:

- Proved while compiling (added to `in_range`): bounds of the index as linear forms over array
  extents and other names, the loop variables replaced by the bounds of their ranges (`i` of
  `range(lo, hi)` lies in `[lo, hi - 1]`, of a negative step in `[hi + 1, lo]`), a local
  assigned once at the top of the function by its value (`n = a.shape[0]`, `t =
  np.zeros(n)`), a local assigned once anywhere by an allocation of constant extents by
  those (`tmp = np.zeros(3)` in a loop), `min`/`max` by the argument that bounds them,
  `e % k` for a constant k > 0 by `[0, k)`; under `if i > e:` (`<`, `<=`, `>=`, `==`,
  several joined by `and`, the opposite in `else`) a loop variable lies on that side of `e`.
  So `a[i - 1]`, `a[i + 1]` for `i in range(1, n - 1)` with `n = a.shape[0]`; `a[j]` for
  `j in range(i)` inside `i in range(a.shape[0])`; `a[i]` for `i in range(n - 1, -1, -1)`;
  `a[k]` for `k in range(max(0, lo), min(n, hi))`; `a[i - 1]` under `if i > 0:`. A bound
  taken from a loop's range (or a test) must be read from names that the loop's body (the
  branch) does not assign: then it is the same value at the index. The reasoning is over
  exact integers: it assumes that the bounds' own arithmetic does not overflow int64 (within
  2**31 of the limits only for arrays of about 2**63 elements).
- An index that is never >= 0 (`a[-1]`, `a[-1 - i]`) is proved, either way, as
  `index + a.shape[d]`, which replaces it.
- Proved at run time: an outermost nest (a loop no other loop holds, unless it holds a @gpu
  nest, or is sequential and holds prange loops: then each of those) gets an `IndexProof`
  for its other indices that are affine-like
  (`+ - *`, `//` and `%` by a nonzero constant, `min`, `max` of int64 values) in the loop
  variables and in values the nest does not assign, of arrays it does not rebind: each loop
  variable's span over the nest, computed before it from the actual bounds of its range (an
  inner range's from the spans of the outer variables it reads: the bounding box of a
  triangular nest), and each index's span from those, in overflow-checked arithmetic. Where
  every span lies within its dimension (or its loops run no iteration), the C++ code runs
  `proof.nest`, these indices unchecked; else the nest as written, checked. So the blocked
  matrix products `c[i, j]`, `b[k, j]` with `c`, `b` other arrays than the one giving the
  range, `a[i * m + j]`, and `a[2 * i]` for `i in range(n // 2)`.
- Any other index is checked (a gather `a[idx[i]]`, an index the nest computes into a
  variable, one kept in range by a test of another form). So is `a[i - 1]` where `i` starts
  at a constant 0 (Python's wrap to the last element): it would make the run-time proof fail
  every time, so it takes no part in it.

Legal when: always; an index proved in range reads the element a checked one would, and a
nest runs unchecked only where its run-time bounds hold. A register-blocked alternative
(register_blocks, which runs first) reads only elements its nest reads: it is kept, all its
indices in range, where every index of its nest is proved (on `proof.nest` where that takes
the run-time proof), and dropped elsewhere.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Optional

from unpy import ir
from unpy.ir import Array, Scalar
from unpy.loopopt.rewrite import INT64, binop, const, fresh
from unpy.typeinfer.reductions import walk_exprs, walk_stmts

CANDIDATES = 8          # bounds kept per expression (min and max give one per argument)
SMALL = 2 ** 31         # the largest constant and coefficient of a proof while compiling
# Integer types whose values int64 holds exactly.
EXACT_INTS = ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32")


def prove_indices(fn: ir.Function) -> ir.Function:
    """`fn` with the indices proved in range while compiling marked in range, and an
    `IndexProof` on each outermost nest with indices to prove at run time."""
    facts = _FunctionFacts(fn)
    taken = set(fn.locals) | {p.name for p in fn.params}

    def visit(body, where):
        """`where`: the index of the top-level statement holding `body` (None: the top)."""
        out = []
        for k, s in enumerate(body):
            definitions = facts.definitions_before(k if where is None else where)
            if isinstance(s, ir.For) and not _holds_nests(s):
                out.append(_prove_nest(s, facts, definitions, taken))
            elif isinstance(s, (ir.For, ir.While)):
                # A loop holding @gpu nests or prange nests, or a while loop: its own indices
                # alone, each loop inside it a nest of its own.
                own = _prove_nest(dataclasses.replace(s, body=[]), facts, definitions, taken,
                                  nest=False)
                out.append(dataclasses.replace(own, body=visit(s.body, k if where is None
                                                               else where)))
            elif isinstance(s, ir.If):
                own = _prove_nest(dataclasses.replace(s, body=[], orelse=[]), facts,
                                  definitions, taken, nest=False)
                inner = k if where is None else where
                out.append(dataclasses.replace(own, body=visit(s.body, inner),
                                               orelse=visit(s.orelse, inner)))
            else:
                out.append(_prove_nest(s, facts, definitions, taken))
        return out

    return dataclasses.replace(fn, body=visit(fn.body, None))


def _holds_nests(s: ir.For) -> bool:
    """Whether a loop holds @gpu nests, or is sequential and holds prange loops (a time loop,
    a sweep of array statements): each of those is proved on its own, at every iteration.
    A proof of the whole loop would copy its body, nests and all, for checks that stand
    outside the nests' parallel loops (npbench's vadv: 26 array statements in 5 loops, 6500
    lines of C++ that g++ -O3 compiled for over 5 minutes)."""
    return any(isinstance(x, ir.For) and (x.nest_id is not None or
                                          (x.parallel and not s.parallel))
               for x in walk_stmts(s.body))


# --- what the function says about its names ---------------------------------------------------

class _FunctionFacts:
    """The values of the locals assigned once, at the top of the function, from values that do
    not change after (parameters never assigned, extents of arrays never rebound, such
    locals): the statement index where each is assigned, and its value."""

    def __init__(self, fn: ir.Function):
        self.fn = fn
        counts = {}
        for name in _assignments(fn.body):
            counts[name] = counts.get(name, 0) + 1
        params = {p.name for p in fn.params}
        fixed = {p for p in params if p not in counts}
        self.values = {}            # name -> (statement index, value)
        for k, s in enumerate(fn.body):
            if (isinstance(s, ir.Assign) and isinstance(s.target, ir.Name) and not s.atomic
                    and counts.get(s.target.id) == 1 and s.target.id not in params
                    and _reads_only(s.value, fixed)):
                fixed.add(s.target.id)
                self.values[s.target.id] = (k, s.value)

        # Locals assigned once in the whole function (a loop's body too), by an allocation of
        # constant extents (`tmp = np.zeros(3)` in a prange's iteration): those extents
        # wherever they are read (before the assignment ran, the read raises
        # UnboundLocalError first).
        self.allocations = {
            s.target.id: s.value for s in walk_stmts(fn.body)
            if isinstance(s, ir.Assign) and isinstance(s.target, ir.Name)
            and counts.get(s.target.id) == 1 and s.target.id not in params
            and isinstance(s.value, ir.AllocArray) and all(
                isinstance(d, ir.Const) and type(d.value) is int and d.value >= 0
                for d in s.value.shape)}

    def definitions_before(self, index: int) -> dict:
        """name -> value of the locals assigned before top-level statement `index`."""
        return {name: value for name, (k, value) in self.values.items() if k < index}

    def type_of(self, name):
        try:
            return self.fn.variable_type(name)
        except KeyError:
            return None


def _assignments(body) -> list:
    """Every assignment of a name in `body`, one entry each (names, loop variables, `:=`)."""
    names = []
    for s in walk_stmts(body):
        if isinstance(s, (ir.Assign, ir.AugAssign)) and isinstance(s.target, ir.Name):
            names.append(s.target.id)
        elif isinstance(s, ir.For):
            names.append(s.var)
    return names + [e.target.id for e in walk_exprs(body) if isinstance(e, ir.NamedExpr)]


def _reads_only(e, fixed: set) -> bool:
    """Whether `e` computes, without effects, from the names of `fixed` (and array extents)."""
    for x in walk_exprs(e):
        if isinstance(x, ir.Name) and x.id not in fixed:
            return False
        if isinstance(x, ir.ArrayAttr) and x.array.id not in fixed:
            return False
        if isinstance(x, (ir.Subscript, ir.CallCompiled, ir.NamedExpr, ir.View, ir.ArrayCall,
                          ir.StridedView, ir.Reshape)):
            return False
    return True


# --- linear bounds, while compiling ----------------------------------------------------------

@dataclass(frozen=True)
class Linear:
    """`const + sum(coeff * atom)`; an atom is ('shape', array, dim), never negative, or
    ('name', id)."""
    const: int
    terms: tuple = ()

    def plus(self, other: "Linear", sign: int = 1) -> "Linear":
        merged = dict(self.terms)
        for atom, c in other.terms:
            merged[atom] = merged.get(atom, 0) + sign * c
        return Linear(self.const + sign * other.const,
                      tuple(sorted((a, c) for a, c in merged.items() if c)))

    def times(self, k: int) -> "Linear":
        return Linear(self.const * k, tuple((a, c * k) for a, c in self.terms if c * k))

    def small(self) -> bool:
        return abs(self.const) <= SMALL and all(abs(c) <= 1 for _, c in self.terms)

    def never_negative(self) -> bool:
        return self.const >= 0 and all(c > 0 and a[0] == "shape" for a, c in self.terms)


@dataclass(frozen=True)
class _Loop:
    """A loop variable at a place of a nest, where only its loop assigns it. Its values lie at
    or above each of `lows` and at or below each of `highs`: (int64 expression, the loop
    variables where it was evaluated, the names assigned between there and here), the range's
    ends and the values a test compared it with. `first` and `last`: the same as expressions
    of the spans of the nest's run-time proof (None: none), `span` the name of its own."""
    lows: tuple
    highs: tuple
    first: Optional[ir.Expr]
    last: Optional[ir.Expr]
    span: Optional[str]


class _Bounds:
    """Lower and upper linear bounds of integer expressions at one place of a nest."""

    def __init__(self, facts: _FunctionFacts, definitions: dict):
        self.facts = facts
        self.definitions = definitions
        # (expression, loops, frozen, side) by identity -> (expression, loops, bounds): a
        # loop's range is bounded once, not once per index and enclosing loop that reads it
        # (the entry keeps the keys' objects alive, so that no other takes their ids).
        self.memo = {}

    def upper(self, e, loops: dict, frozen: frozenset = frozenset()) -> list:
        return [x for x in self.bounds(e, loops, frozen, 1) if x.small()][:CANDIDATES]

    def lower(self, e, loops: dict, frozen: frozenset = frozenset()) -> list:
        return [x for x in self.bounds(e, loops, frozen, -1) if x.small()][:CANDIDATES]

    def bounds(self, e, loops, frozen, side) -> list:
        """Upper (side 1) or lower (side -1) bounds of `e`. `frozen`: names that must not be
        assigned where `e` was evaluated (the body of the loop whose range it is)."""
        key = (id(e), id(loops), frozen, side)
        if key not in self.memo:
            self.memo[key] = (e, loops, self.computed_bounds(e, loops, frozen, side))
        return self.memo[key][2]

    def computed_bounds(self, e, loops, frozen, side) -> list:
        if isinstance(e, ir.Const):
            return [Linear(int(e.value))] if _is_int(e) else []
        if isinstance(e, ir.Cast):
            return self.bounds(e.value, loops, frozen, side) if _widened(e) else []
        if isinstance(e, ir.Name):
            return self.name_bounds(e, loops, frozen, side)
        if isinstance(e, ir.ArrayAttr):
            return self.extent_bounds(e, frozen, side)
        if not _int64(e):
            return []
        if isinstance(e, ir.UnaryOp) and e.op in ("-", "+"):
            sign = -1 if e.op == "-" else 1
            return [x.times(sign) for x in self.bounds(e.operand, loops, frozen, side * sign)]
        if isinstance(e, ir.BinOp) and e.op in ("+", "-"):
            sign = 1 if e.op == "+" else -1
            left = self.bounds(e.left, loops, frozen, side)
            right = self.bounds(e.right, loops, frozen, side * sign)
            return [a.plus(b, sign) for a in left for b in right][:CANDIDATES]
        if isinstance(e, ir.BinOp) and e.op == "*":
            k, other = _constant_factor(e)
            if k is None:
                return []
            return [x.times(k) for x in self.bounds(other, loops, frozen,
                                                    side if k >= 0 else -side)]
        if isinstance(e, ir.BinOp) and e.op in ("%", "//") and _positive_constant(e.right):
            k = int(_strip(e.right).value)
            if e.op == "%":
                return [Linear(0 if side < 0 else k - 1)]
            # e // k lies in [0, e] where e >= 0.
            if not any(x.never_negative() for x in self.bounds(e.left, loops, frozen, -1)):
                return []
            return [Linear(0)] if side < 0 else self.bounds(e.left, loops, frozen, 1)
        if isinstance(e, ir.Call) and e.func in ("min", "max") and e.args:
            each = [self.bounds(a, loops, frozen, side) for a in e.args]
            if (e.func == "min") == (side > 0):      # any argument bounds it on that side
                return [x for xs in each for x in xs][:CANDIDATES]
            return _dominating(each, side)
        return []

    def name_bounds(self, e: ir.Name, loops, frozen, side) -> list:
        if e.id in frozen:
            return []
        loop = loops.get(e.id)
        if loop is not None:
            return [x for e, outer, assigned in (loop.highs if side > 0 else loop.lows)
                    for x in self.bounds(e, outer, assigned, side)][:CANDIDATES]
        if not _exact_int(e):
            return []
        found = []
        if e.id in self.definitions:
            found = self.bounds(self.definitions[e.id], {}, frozenset(), side)
        return found + [Linear(0, ((("name", e.id), 1),))]

    def extent_bounds(self, e: ir.ArrayAttr, frozen, side) -> list:
        if e.attr != "shape" or e.array.id in frozen:
            return []
        found = [Linear(0, ((("shape", e.array.id, e.dim), 1),))]
        alloc = self.definitions.get(e.array.id, self.facts.allocations.get(e.array.id))
        if isinstance(alloc, ir.AllocArray):     # its extents: raises ValueError if < 0
            found += self.bounds(alloc.shape[e.dim], {}, frozenset(), side)
        return found

    def in_range(self, index, array: ir.Name, dim: int, loops: dict) -> bool:
        """Whether `0 <= index < array.shape[dim]` wherever `index` is evaluated."""
        extent = ir.ArrayAttr(array, "shape", dim, type=Scalar("int64"))
        if not any(x.never_negative() for x in self.lower(index, loops)):
            return False
        return any(n.plus(u, -1).plus(Linear(-1)).never_negative()
                   for n in self.lower(extent, {}) for u in self.upper(index, loops))


def _dominating(each: list, side: int) -> list:
    """The bounds of one argument that bound every other argument's too (the lower bounds of
    a `min`, the upper bounds of a `max`)."""
    found = []
    for k, xs in enumerate(each):
        for x in xs:
            if all(any(y.plus(x, -1).times(-side).never_negative() for y in ys)
                   for j, ys in enumerate(each) if j != k):
                found.append(x)
    return found[:CANDIDATES]


def _strip(e):
    return e.value if isinstance(e, ir.Cast) else e


def _is_int(e) -> bool:
    return _exact_int(e) and not isinstance(getattr(e, "value", None), bool)


def _exact_int(e) -> bool:
    """An integer that int64 holds exactly (not uint64, not bool)."""
    return isinstance(e.type, Scalar) and e.type.dtype in EXACT_INTS


def _widened(e: ir.Cast) -> bool:
    """A cast of an exact integer to int64: the same value."""
    return _int64(e) and _exact_int(e.value)


def _int64(e) -> bool:
    """An int64 operation: computed in int64 (wrapping), as the spans' arithmetic checks."""
    return isinstance(e.type, Scalar) and e.type.dtype == "int64"


def _positive_constant(e) -> bool:
    e = _strip(e)
    return isinstance(e, ir.Const) and _is_int(e) and e.value > 0


def _constant_factor(e: ir.BinOp):
    """(k, other) for `k * other` or `other * k` with a constant k, else (None, None)."""
    for k, other in ((e.left, e.right), (e.right, e.left)):
        k = _strip(k)
        if isinstance(k, ir.Const) and _is_int(k):
            return int(k.value), other
    return None, None


# --- spans, at run time ------------------------------------------------------------------------

def _spanned(e, loops: dict, assigned: set):
    """`e` with its loop variables replaced by the names of their spans, where the C++ code can
    compute its span before the nest (no effects, nothing that raises, int64 arithmetic, no
    value the nest assigns); else None."""
    if isinstance(e, ir.Const):
        return e if _is_int(e) else None
    if isinstance(e, ir.Name):
        loop = loops.get(e.id)
        if loop is not None:
            return ir.Name(loop.span, type=Scalar("int64")) if loop.span else None
        return e if e.id not in assigned and _exact_int(e) else None
    if isinstance(e, ir.ArrayAttr):
        return e if e.attr == "shape" and e.array.id not in assigned else None
    if isinstance(e, ir.Cast):
        return _spanned(e.value, loops, assigned) if _widened(e) else None
    if not _int64(e):
        return None
    if isinstance(e, ir.BinOp) and e.op in ("%", "//"):
        right = _strip(e.right)
        if not (isinstance(right, ir.Const) and _is_int(right) and right.value != 0):
            return None
        left = _spanned(e.left, loops, assigned)
        return None if left is None else dataclasses.replace(e, left=left, right=right)
    if isinstance(e, ir.BinOp) and e.op in ("+", "-", "*"):
        left, right = _spanned(e.left, loops, assigned), _spanned(e.right, loops, assigned)
        return None if left is None or right is None else \
            dataclasses.replace(e, left=left, right=right)
    if isinstance(e, ir.UnaryOp) and e.op in ("-", "+"):
        operand = _spanned(e.operand, loops, assigned)
        return None if operand is None else dataclasses.replace(e, operand=operand)
    if isinstance(e, ir.Call) and e.func in ("min", "max") and e.args:
        args = [_spanned(a, loops, assigned) for a in e.args]
        return None if any(a is None for a in args) else dataclasses.replace(e, args=args)
    return None


# --- one nest ----------------------------------------------------------------------------------

@dataclass
class _Decisions:
    """What the walk of one nest found, per subscript (by identity) and dimension: the indices
    proved while compiling and those the run-time bounds prove, each None (in range as it is)
    or the index that is (`index + a.shape[d]` for a negative one); whether an index stays
    checked."""
    static: dict
    at_run_time: dict
    bounds: list
    spans: list
    seen: set
    checked: bool = False


def _prove_nest(s, facts: _FunctionFacts, definitions: dict, taken: set, nest=True):
    """Statement `s` with its proofs: an outermost nest (`nest`), or a statement outside loops
    (or the header of one holding nests of their own), which has no run-time proof."""
    assigned = set(_assignments([s]))
    found = _Decisions({}, {}, [], [], set())
    walker = _NestWalker(_Bounds(facts, definitions), facts, assigned, found, taken)
    walker.statement(s, {})
    static = _marked(s, found.static)
    if not (nest and isinstance(s, ir.For)):
        return static
    # An alternative form copies the nest's indices as written: one that Python wraps (`-1`,
    # `i - n`) would read before the array there, so such a nest keeps no alternative.
    wraps = any(index is not None for dims in (found.static, found.at_run_time)
                for changes in dims.values() for index in changes.values())
    if not found.bounds:
        return _blocked_where_proved(static, not (found.checked or wraps))
    both = {k: {**found.static.get(k, {}), **found.at_run_time.get(k, {})}
            for k in set(found.static) | set(found.at_run_time)}
    nest = _blocked_where_proved(_marked(s, both), not (found.checked or wraps))
    bounds = list({(ir.format_expr(b.index), b.array.id, b.dim): b
                   for b in found.bounds}.values())
    proof = ir.IndexProof(_used_spans(found.spans, bounds), bounds, nest)
    outer = _blocked_where_proved(static, False)
    return dataclasses.replace(outer, proof=proof, transforms=outer.transforms + [
        f"prove_indices({len(bounds)} bound(s) at run time)"])


class _NestWalker:
    """Walks one nest with the loop variables known at each place, deciding each index."""

    def __init__(self, bounds: _Bounds, facts, assigned: set, found: _Decisions, taken: set):
        self.bounds = bounds
        self.facts = facts
        self.assigned = assigned
        self.found = found
        self.taken = taken

    def statement(self, s, loops):
        if isinstance(s, ir.For):
            self.expressions([s.start, s.stop, s.step], loops)
            self.statements(s.body, self.enter(s, loops))
        elif isinstance(s, ir.While):
            self.expressions(s.test, loops)
            self.statements(s.body, loops)
        elif isinstance(s, ir.If):
            self.expressions(s.test, loops)
            self.statements(s.body, self.narrowed(s.test, loops, frozenset(
                _assignments(s.body))))
            self.statements(s.orelse, self.narrowed(_negated(s.test), loops, frozenset(
                _assignments(s.orelse))))
        elif isinstance(s, (ir.Assign, ir.AugAssign)):
            self.expressions([s.target, s.value], loops)
        elif isinstance(s, (ir.Return, ir.ExprStmt)):
            self.expressions(s.value, loops)

    def statements(self, body, loops):
        for s in body:
            self.statement(s, loops)

    def enter(self, s: ir.For, loops: dict) -> dict:
        """The loop variables inside `s`: its own where only the loop assigns it, with the
        values of its range."""
        inner = dict(loops)
        inner.pop(s.var, None)
        step = _strip(s.step)
        assigned = frozenset(_assignments(s.body))
        if not (isinstance(step, ir.Const) and _is_int(step) and step.value != 0) or \
                s.var in assigned or \
                getattr(self.facts.type_of(s.var), "dtype", None) != "int64":
            return inner
        if step.value > 0:
            first, last = s.start, binop("-", s.stop, const(1))
        else:
            first, last = binop("+", s.stop, const(1)), s.start
        inner[s.var] = self.loop(s.var, ((first, loops, assigned),), ((last, loops, assigned),),
                                 _spanned(first, loops, self.assigned),
                                 _spanned(last, loops, self.assigned))
        return inner

    def loop(self, var, lows, highs, first, last) -> _Loop:
        """A loop variable's values, with a span in the run-time proof where both ends have
        one."""
        span = None
        if first is not None and last is not None:
            span = fresh(f"unpy_span_{var}", self.taken)
            self.found.spans.append(ir.LoopSpan(span, var, first, last))
        return _Loop(lows, highs, first, last, span)

    def narrowed(self, test, loops: dict, assigned: frozenset) -> dict:
        """The loop variables where `test` holds: each compared with a value (`i > 0`,
        `i < n - 1`, both with `and`) lies on that side of it. The value is read from names
        the branch (`assigned`) does not assign."""
        if isinstance(test, ir.BoolOp) and test.op == "and":
            for part in test.values:
                loops = self.narrowed(part, loops, assigned)
            return loops
        found = _comparison(test)
        if found is None or found[0] not in loops or found[1] == "!=":
            return loops
        var, op, value = found
        if set(_names(value)) & (assigned | {var}):
            return loops
        loop = loops[var]
        lows, highs, first, last = loop.lows, loop.highs, loop.first, loop.last
        if op in (">", ">=", "=="):
            low = binop("+", value, const(1)) if op == ">" else value
            lows += ((low, loops, assigned),)
            first = _larger(first, _spanned(low, loops, self.assigned), "max")
        if op in ("<", "<=", "=="):
            high = binop("-", value, const(1)) if op == "<" else value
            highs += ((high, loops, assigned),)
            last = _larger(last, _spanned(high, loops, self.assigned), "min")
        inner = dict(loops)
        inner[var] = self.loop(var, lows, highs, first, last)
        return inner

    def expressions(self, node, loops):
        for e in walk_exprs(node):
            if isinstance(e, ir.Subscript):
                self.subscript(e, loops)

    def subscript(self, e: ir.Subscript, loops):
        found = self.found
        if id(e) in found.seen:         # one node in two places: proved in neither
            found.static.pop(id(e), None)
            found.at_run_time.pop(id(e), None)
            found.checked = True
            return
        found.seen.add(id(e))
        if not isinstance(e.array.type, Array):
            return
        for d, index in enumerate(e.indices):
            if d in e.in_range:
                continue
            extent = ir.ArrayAttr(e.array, "shape", d, type=INT64)
            # An index that is never >= 0 is in range as `index + a.shape[d]`.
            negative = any(u.plus(Linear(1)).times(-1).never_negative()
                           for u in self.bounds.upper(index, loops))
            wrapped = binop("+", index, extent) if negative else None
            if self.bounds.in_range(wrapped or index, e.array, d, loops):
                found.static.setdefault(id(e), {})[d] = wrapped
                continue
            spanned = None
            if e.array.id not in self.assigned and not _never_in_range(index, loops):
                spanned = _spanned(wrapped or index, loops, self.assigned)
            if spanned is None:
                found.checked = True
            else:
                found.at_run_time.setdefault(id(e), {})[d] = wrapped
                found.bounds.append(ir.IndexBound(spanned, e.array, d))


def _larger(bound, other, pick):
    """`pick` (max, min) of two spanned ends: either one where the other has no span."""
    if bound is None or other is None:
        return bound if other is None else other
    return ir.Call(pick, [bound, other], type=INT64)


def _comparison(test):
    """(loop variable, op, value) of `var op value` or `value op var` (op as seen from the
    variable) for an int64 comparison, else None."""
    if not (isinstance(test, ir.Compare) and len(test.ops) == 1):
        return None
    left, op, right = _strip(test.left), test.ops[0], _strip(test.comparators[0])
    if not all(_exact_int(x) for x in (left, right)):
        return None
    flipped = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "==": "==", "!=": "!="}
    if isinstance(left, ir.Name):
        return left.id, op, right
    if isinstance(right, ir.Name):
        return right.id, flipped[op], left
    return None


def _negated(test):
    """The test of the `else` branch, where it is a single comparison; else None."""
    if isinstance(test, ir.Compare) and len(test.ops) == 1:
        opposite = {"<": ">=", "<=": ">", ">": "<=", ">=": "<", "==": "!=", "!=": "=="}
        return dataclasses.replace(test, ops=[opposite[test.ops[0]]])
    return None


def _never_in_range(index, loops: dict) -> bool:
    """`v + c` (or `v - c`) whose first value, that of a loop starting at a constant, is < 0
    and that is not negative throughout: out of range where it first runs (Python's wrap of
    `a[i - 1]` at `i = 0`), so a run-time proof would always fail."""
    index = _strip(index)
    shift = 0
    if isinstance(index, ir.BinOp) and index.op in ("+", "-") and _int64(index):
        k = _strip(index.right)
        if not (isinstance(k, ir.Const) and _is_int(k)):
            return False
        shift = int(k.value) if index.op == "+" else -int(k.value)
        index = _strip(index.left)
    if not isinstance(index, ir.Name) or index.id not in loops:
        return False
    first = _strip(loops[index.id].first)
    return isinstance(first, ir.Const) and _is_int(first) and first.value + shift < 0


def _used_spans(spans: list, bounds: list) -> list:
    """The spans that the bounds read, directly or through other spans, outer ones first."""
    by_name = {s.name: s for s in spans}
    needed, todo = set(), [n for b in bounds for n in _names(b.index) if n in by_name]
    while todo:
        name = todo.pop()
        if name not in needed:
            needed.add(name)
            todo += [n for n in _names([by_name[name].first, by_name[name].last])
                     if n in by_name]
    return [s for s in spans if s.name in needed]


def _names(node) -> list:
    return [x.id for x in walk_exprs(node) if isinstance(x, ir.Name)]


def _marked(node, changes: dict):
    """A copy of `node` whose subscripts of `changes` (by identity: dimension -> None or a
    new index) have those dimensions in range (with the new index)."""
    if isinstance(node, list):
        return [_marked(x, changes) for x in node]
    if not dataclasses.is_dataclass(node) or isinstance(node, (type, ir.Scalar, ir.Array)):
        return node
    fields = {f.name: _marked(getattr(node, f.name), changes)
              for f in dataclasses.fields(node) if f.name not in ("type", "loc", "reductions")}
    copy = dataclasses.replace(node, **fields)
    if isinstance(node, ir.Subscript) and id(node) in changes:
        dims = changes[id(node)]
        copy.in_range = sorted(set(node.in_range) | set(dims))
        copy.indices = [x if dims.get(d) is None else dims[d]
                        for d, x in enumerate(copy.indices)]
    return copy


def _blocked_where_proved(nest: ir.For, proved: bool) -> ir.For:
    """`nest` with its register-blocked form (and those of the nests inside it) kept, every
    index in range, where all its indices are proved; else dropped."""
    def visit(s):
        if isinstance(s, ir.If):
            return dataclasses.replace(s, body=[visit(x) for x in s.body],
                                       orelse=[visit(x) for x in s.orelse])
        if isinstance(s, ir.While):
            return dataclasses.replace(s, body=[visit(x) for x in s.body])
        if not isinstance(s, ir.For):
            return s
        blocked = _all_in_range(s.blocked) if proved else []
        # (the blocked form's pass is the last transform recorded: rewrite.with_alternatives)
        transforms = s.transforms[:-1] if s.blocked and not blocked else s.transforms
        return dataclasses.replace(s, body=[visit(x) for x in s.body], blocked=blocked,
                                   disjoint=s.disjoint if blocked else [],
                                   transforms=transforms)
    return visit(nest)


def _all_in_range(body: list) -> list:
    return _marked(body, {id(e): {d: None for d in range(len(e.indices))}
                          for e in walk_exprs(body) if isinstance(e, ir.Subscript)})
