"""A @gpu loop nest at call time: the embedded IR, its NDRange levels, its loops' bounding boxes
and its array accesses as affine forms over normalised loop variables (paper section 4.2).

Every loop variable `v` of the nest becomes a normalised variable over `[0, extent)` with
`v = lo + step * v_n`. For the parallel levels that is exact; for inner sequential loops whose
bounds depend on outer variables (triangular nests) it is the bounding box, a superset.
"""
from __future__ import annotations

import dataclasses
import functools
import sys
from dataclasses import dataclass, field

from jitgpu.lmad import Access, AffineForm, LoopDim
from unpy import ir
from unpy.typeinfer.reductions import escapes, reads_of, walk_exprs, walk_stmts


class NotOffloadable(Exception):
    """The nest cannot run on the device; the message says why, for the user."""


class Refused(NotOffloadable):
    """Refused on grounds that depend only on the call's inputs (array layouts, scalars) and the
    switches: the analysis or the profitability estimate. The same inputs are refused again.
    `details`: what the nest's report shows beside the reason (a split's share history)."""

    def __init__(self, reason: str, details: dict | None = None):
        super().__init__(reason)
        self.details = details or {}


class DeviceFailure(NotOffloadable):
    """The device failed the nest (build error, out of memory, lost device): the user hears of
    it by default (SPEC section 10), not only with UNPY_LOG=info."""


@dataclass
class LoopBox:
    var: str
    lo: int          # value of the variable at v_n = 0
    step: int
    extent: int      # v_n ranges over [0, extent)
    parallel: bool


@dataclass
class NestInstance:
    """One call's view of a nest: bounds and accesses with the live values substituted."""
    nest: ir.Nest
    levels: list                   # the collapsed outer prange loops (NDRange dims), outermost first
    guarded: set                   # vars of levels whose real bounds depend on outer levels
    boxes: dict                    # var -> LoopBox
    accesses: list                 # of (ArrayAccess, Access), Access.ref_id == ArrayAccess.aid
    trip_counts: list              # per level
    scalars: dict = field(default_factory=dict)


@dataclass
class ArrayAccess(ir.Subscript):
    """An `ir.Subscript` of a loaded nest, with its stable access id `aid`: the order of the
    Subscripts in a depth-first walk of the nest's loop (`walk_exprs`). Every per-access table
    (the transfer analysis's `Access.ref_id`, the device maps, the kernel's access table) is
    keyed by it, never by the identity of an IR node; a loop transformation that copies or
    rewrites statements keeps the ids of the accesses it keeps."""
    aid: int = -1


def number_accesses(node, counter=None):
    """A copy of an IR tree whose Subscripts are `ArrayAccess`es numbered in walk order."""
    counter = [0] if counter is None else counter
    if isinstance(node, list):
        return [number_accesses(x, counter) for x in node]
    if not dataclasses.is_dataclass(node) or isinstance(node, type) or isinstance(
            node, (ir.Scalar, ir.Array)):
        return node
    if isinstance(node, ir.Subscript):
        aid = counter[0]
        counter[0] += 1
        return ArrayAccess(node.array, number_accesses(node.indices, counter), node.loc,
                           node.type, aid=aid)
    changes = {f.name: number_accesses(getattr(node, f.name), counter)
               for f in dataclasses.fields(node) if f.name not in ("type", "loc")}
    return dataclasses.replace(node, **changes)


@functools.lru_cache(maxsize=None)
def _load(json_text: str) -> ir.Nest:
    nest = ir.from_json(json_text)
    return dataclasses.replace(nest, loop=number_accesses(nest.loop))


def load_nest(module: str, function: str, nest_id: int) -> ir.Nest:
    texts = getattr(sys.modules[module], "__unpy_nests__")[function]
    return _load(texts[nest_id])


def python_name(module: str, function: str) -> str:
    """The name Python calls compiled function `function` by: its own, unless it is one of
    several signatures of a function (unpy/pipeline.py names each `name_sigK`)."""
    info = getattr(sys.modules.get(module), "__unpy_functions__", {}).get(function)
    return info["name"] if info else function


def parallel_levels(loop: ir.For):
    """The perfectly nested outer pranges (at most 3): the NDRange dimensions. An inner level
    whose bounds use outer variables (a triangular nest) runs over its bounding box, with the
    real bounds as a guard."""
    levels = [loop]
    while len(levels) < 3:
        body = levels[-1].body
        if len(body) != 1 or not isinstance(body[0], ir.For) or not body[0].parallel:
            break
        levels.append(body[0])
    return levels


def range_length(start, stop, step):
    if step > 0:
        return max(0, (stop - start + step - 1) // step)
    return max(0, (start - stop - step - 1) // (-step))


# --- evaluation of scalar expressions over live values and intervals -----------------------

class Interval:
    __slots__ = ("lo", "hi")

    def __init__(self, lo, hi):
        self.lo, self.hi = lo, hi


def interval(e, env, boxes):
    """Integer bounds [lo, hi] of an expression over the loop boxes, or None if unknown."""
    if isinstance(e, ir.Cast):
        return interval(e.value, env, boxes)
    if isinstance(e, ir.Const) and isinstance(e.value, (int, bool)):
        return Interval(int(e.value), int(e.value))
    if isinstance(e, ir.Name):
        if e.id in boxes:
            b = boxes[e.id]
            if b.extent <= 0:
                return None
            last = b.lo + b.step * (b.extent - 1)
            return Interval(min(b.lo, last), max(b.lo, last))
        value = env.get(e.id)
        if isinstance(value, (int, bool)) or hasattr(value, "__index__"):
            return Interval(int(value), int(value))
        return None
    if isinstance(e, ir.ArrayAttr):
        arr = env.get(e.array.id)
        if arr is None:
            return None
        v = arr.shape[e.dim] if e.attr == "shape" else arr.size
        return Interval(v, v)
    if isinstance(e, ir.BinOp) and e.op in ("+", "-", "*"):
        a, b = interval(e.left, env, boxes), interval(e.right, env, boxes)
        if a is None or b is None:
            return None
        if e.op == "+":
            return Interval(a.lo + b.lo, a.hi + b.hi)
        if e.op == "-":
            return Interval(a.lo - b.hi, a.hi - b.lo)
        products = [a.lo * b.lo, a.lo * b.hi, a.hi * b.lo, a.hi * b.hi]
        return Interval(min(products), max(products))
    if isinstance(e, ir.UnaryOp) and e.op in ("-", "+"):
        a = interval(e.operand, env, boxes)
        if a is None or e.op == "+":
            return a
        return Interval(-a.hi, -a.lo)
    if isinstance(e, ir.BinOp) and e.op == "%":
        a, b = interval(e.left, env, boxes), interval(e.right, env, boxes)
        if a is None or b is None or b.lo != b.hi or b.lo == 0:
            return None
        d = b.lo                            # Python's modulo takes the divisor's sign
        if d > 0:
            return a if 0 <= a.lo and a.hi < d else Interval(0, d - 1)
        return a if d < a.lo and a.hi <= 0 else Interval(d + 1, 0)
    if isinstance(e, ir.BinOp) and e.op == "//":
        a, b = interval(e.left, env, boxes), interval(e.right, env, boxes)
        if a is None or b is None or b.lo != b.hi or b.lo == 0:
            return None
        q = [a.lo // b.lo, a.hi // b.lo]
        return Interval(min(q), max(q))
    if isinstance(e, ir.Call) and e.func in ("min", "max") and e.args:
        parts = [interval(a, env, boxes) for a in e.args]
        if any(p is None for p in parts):
            return None
        pick = min if e.func == "min" else max
        return Interval(pick(p.lo for p in parts), pick(p.hi for p in parts))
    return None


def evaluate(e, env):
    """The value of a loop-invariant integer expression, or None."""
    iv = interval(e, env, {})
    return iv.lo if iv is not None and iv.lo == iv.hi else None


# --- affine forms ---------------------------------------------------------------------------

def affine(e, env, boxes):
    """`e` as {normalised var: coeff} plus a constant, or None if not affine in the loop vars."""
    if isinstance(e, ir.Cast):
        return affine(e.value, env, boxes)
    if isinstance(e, ir.Name) and e.id in boxes:
        b = boxes[e.id]
        return ({e.id: b.step} if b.step else {}), b.lo
    value = evaluate(e, env)
    if value is not None:
        return {}, value
    if isinstance(e, ir.BinOp) and e.op in ("+", "-"):
        a, b = affine(e.left, env, boxes), affine(e.right, env, boxes)
        if a is None or b is None:
            return None
        sign = 1 if e.op == "+" else -1
        coeffs = dict(a[0])
        for v, c in b[0].items():
            coeffs[v] = coeffs.get(v, 0) + sign * c
        return {v: c for v, c in coeffs.items() if c}, a[1] + sign * b[1]
    if isinstance(e, ir.BinOp) and e.op == "*":
        a, b = affine(e.left, env, boxes), affine(e.right, env, boxes)
        if a is None or b is None:
            return None
        if not a[0]:
            a, b = b, a
        if b[0]:
            return None          # product of two loop-dependent terms
        k = b[1]
        return {v: c * k for v, c in a[0].items() if c * k}, a[1] * k
    if isinstance(e, ir.UnaryOp) and e.op in ("-", "+"):
        a = affine(e.operand, env, boxes)
        if a is None:
            return None
        sign = -1 if e.op == "-" else 1
        return {v: sign * c for v, c in a[0].items()}, sign * a[1]
    return None


def affine_form(e, env, boxes, assigned):
    """An `AffineForm` for an index expression, or None (non-affine, or uses a variable the nest
    assigns)."""
    if set(reads_of(e)) & assigned:
        return None
    found = affine(e, env, boxes)
    if found is None:
        return None
    coeffs, const = found
    return AffineForm(const, tuple(sorted(coeffs.items())))


# --- instantiation --------------------------------------------------------------------------

def instantiate(nest: ir.Nest, env: dict) -> NestInstance:
    """Bind the nest to live values: loop boxes, trip counts, accesses."""
    loop = nest.loop
    levels = parallel_levels(loop)
    assigned = {s.target.id for s in walk_stmts(loop.body)
                if isinstance(s, ir.Assign) and isinstance(s.target, ir.Name)}
    boxes, trips, guarded = {}, [], set()
    for level in levels:
        if set(reads_of([level.start, level.stop, level.step])) & set(boxes):
            box = dataclasses.replace(_bounding_box(level, env, boxes, assigned), parallel=True)
            guarded.add(level.var)
        else:
            start, stop, step = (evaluate(x, env) for x in (level.start, level.stop, level.step))
            if None in (start, stop, step) or step == 0:
                raise NotOffloadable("the bounds of the parallel loops are not known at the call")
            box = LoopBox(level.var, start, step, range_length(start, stop, step), True)
        trips.append(box.extent)
        boxes[level.var] = box
    inner_body = levels[-1].body
    for s in walk_stmts(inner_body):
        if isinstance(s, ir.For):
            if s.var in {level.var for level in levels} or s.var in assigned:
                raise NotOffloadable(f"loop variable '{s.var}' is reused or assigned in the nest")
            box = _bounding_box(s, env, boxes, assigned)
            # Several loops over one variable (`for k ...` twice): the hull of their boxes.
            boxes[s.var] = _hull(boxes[s.var], box) if s.var in boxes else box
    accesses = [e for e in live_exprs(inner_body, boxes) if isinstance(e, ir.Subscript)]
    if not all(isinstance(e, ArrayAccess) for e in accesses):
        raise ValueError("instantiate() needs a nest from load_nest (numbered accesses)")
    writes = {s.target.aid for s in walk_stmts(inner_body)
              if isinstance(s, ir.Assign) and isinstance(s.target, ir.Subscript)}
    # A write runs on every iteration of the box when it is a statement of the innermost
    # parallel body itself, no level has a guard and no `continue` can skip it: then a group
    # written only that way need not be copied in (lmad decides).
    every_iteration = set()
    if not guarded and not escapes(inner_body, ir.Continue):
        every_iteration = {s.target.aid for s in inner_body
                           if isinstance(s, ir.Assign) and isinstance(s.target, ir.Subscript)}
    found = []
    for e in accesses:
        if e.array.id in assigned:
            raise NotOffloadable(f"array '{e.array.id}' is assigned inside the nest")
        written = e.aid in writes
        indices = [affine_form(i, env, boxes, assigned) for i in e.indices]
        found.append((e, Access(e.aid, e.array.id, indices, read=not written, write=written,
                                unconditional=e.aid in every_iteration)))
    return NestInstance(nest, levels, guarded, boxes, found, trips)


def live_exprs(body, boxes):
    """The expressions of `body` outside the inner loops that never run (bounding box of no
    iterations): an access in such a loop is never evaluated, so it needs no transfer and no
    bounds check."""
    for s in body:
        if isinstance(s, ir.For):
            yield from walk_exprs([s.start, s.stop, s.step])
            if boxes[s.var].extent > 0:
                yield from live_exprs(s.body, boxes)
        elif isinstance(s, ir.While):
            yield from walk_exprs(s.test)
            yield from live_exprs(s.body, boxes)
        elif isinstance(s, ir.If):
            yield from walk_exprs(s.test)
            yield from live_exprs(s.body, boxes)
            yield from live_exprs(s.orelse, boxes)
        else:
            yield from walk_exprs(s)


def _bounding_box(loop: ir.For, env, boxes, assigned) -> LoopBox:
    """The interval an inner loop's variable can take over all outer iterations."""
    if set(reads_of([loop.start, loop.stop, loop.step])) & assigned:
        raise NotOffloadable(f"the bounds of loop '{loop.var}' depend on values computed in "
                             "the nest")
    step = evaluate(loop.step, env)
    start = interval(loop.start, env, boxes)
    stop = interval(loop.stop, env, boxes)
    if step is None or step == 0 or start is None or stop is None:
        raise NotOffloadable(f"cannot bound loop '{loop.var}' at the call")
    if start.lo != start.hi:
        step = 1 if step > 0 else -1        # a moving start: values of every residue
    if step > 0:
        lo, hi = start.lo, stop.hi          # values in [lo, hi)
    else:
        lo, hi = start.hi, stop.lo          # values in (hi, lo]
    return LoopBox(loop.var, lo, step, range_length(lo, hi, step), False)


def _hull(a: LoopBox, b: LoopBox) -> LoopBox:
    """A box holding every value of boxes `a` and `b` of one inner loop variable."""
    if a == b or b.extent == 0:
        return a
    if a.extent == 0:
        return b
    ends = [a.lo, a.lo + a.step * (a.extent - 1), b.lo, b.lo + b.step * (b.extent - 1)]
    return LoopBox(a.var, min(ends), 1, max(ends) - min(ends) + 1, False)


def loop_dims(instance: NestInstance):
    """The normalised loops for the transfer analysis; inner loops that never run are left
    out (no access of the analysis is inside one, see `live_exprs`)."""
    return [LoopDim(b.var, b.extent, b.parallel) for b in instance.boxes.values()
            if b.parallel or b.extent > 0]
