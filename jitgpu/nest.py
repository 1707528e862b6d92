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
from typing import Optional

import numpy as np

from jitgpu.lmad import Access, AffineForm, LoopDim
from unpy import ir
from unpy.loopopt.nest import ArrayAccess, number_accesses, parallel_levels
from unpy.loopopt.rewrite import fresh, rename, transform
from unpy.typeinfer.reductions import escapes, reads_of, walk_exprs, walk_stmts


class NotOffloadable(Exception):
    """The nest cannot run on the device; the message says why, for the user."""


class Refused(NotOffloadable):
    """Refused on grounds that depend only on the call's inputs (array layouts, scalars) and the
    switches: the analysis or the profitability estimate. The same inputs are refused again.
    `details`: what the nest's report shows beside the reason (a split's share history).
    `by_layout`: so are arrays of the same dtypes, shapes and strides at other addresses (the
    estimate's refusal, or a measured choice of OpenMP: neither reads addresses). `in_call`:
    only until the call ends, while nothing is on the device (an estimate that later calls
    may revise)."""

    def __init__(self, reason: str, details: dict | None = None, by_layout: bool = False,
                 in_call: bool = False):
        super().__init__(reason)
        self.details = details or {}
        self.by_layout = by_layout
        self.in_call = in_call


class Unsupported(NotOffloadable):
    """What no kernel of this nest can do on this device, whatever the inputs (a call of a
    function of arrays, an allocation, float64 without cl_khr_fp64): the nest skips the hook
    until the switches change, as with no device (jitgpu.answer.NO_DEVICE)."""


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
    # (aid, dim) of the indices the analysis could not prove inside [0, shape): the kernel
    # wraps a negative one as Python does and sets its error flag when one is out of range.
    checked: frozenset = frozenset()
    # The inner loops with no box: their bounds are read on the device (`indptr[i]`).
    on_device: frozenset = frozenset()


@functools.lru_cache(maxsize=None)
def _load(json_text: str) -> ir.Nest:
    nest = ir.from_json(json_text)
    return dataclasses.replace(nest, loop=scope_loop_variables(number_accesses(nest.loop)))


def load_nest(module: str, function: str, nest_id: int) -> ir.Nest:
    texts = getattr(sys.modules[module], "__unpy_nests__")[function]
    return _load(texts[nest_id])


def python_name(module: str, function: str) -> str:
    """The name Python calls compiled function `function` by: its own, unless it is one of
    several signatures of a function (unpy/pipeline.py names each `name_sigK`)."""
    info = getattr(sys.modules.get(module), "__unpy_functions__", {}).get(function)
    return info["name"] if info else function


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


# --- loop variables scoped per loop --------------------------------------------------------

def scope_loop_variables(loop: ir.For) -> ir.For:
    """The nest with a variable of its own for each inner loop of a name that several loops
    bind (`for j in range(2, n)` then `for j in range(n - 3, -1, -1)`): the bounds proof then
    keeps their ranges apart instead of taking their hull. A name is renamed only where every
    read of it lies inside a loop over it, no loop over it is nested in another and nothing
    assigns it: then no read can see the value another loop left."""
    loops = [s.var for s in walk_stmts(loop.body) if isinstance(s, ir.For)]
    assigned = _assigned(loop.body)
    shared = [var for var in dict.fromkeys(loops) if loops.count(var) > 1
              and var not in assigned and _reads_in_own_loops(loop.body, var, inside=False)]
    if not shared:
        return loop
    taken = set(reads_of(loop)) | set(loops) | {loop.var} | assigned
    body = loop.body
    for var in shared:
        body = _rename_later_loops(body, var, taken, [True])
    return dataclasses.replace(loop, body=body)


def _reads_in_own_loops(body, var, inside) -> bool:
    """Whether every read of `var` in `body` is in the body of a loop over `var` (`inside`:
    `body` is one), with no loop over `var` inside another."""
    for s in body:
        if isinstance(s, ir.For):
            if s.var == var and inside:
                return False
            if var in reads_of([s.start, s.stop, s.step]) and (s.var == var or not inside):
                return False
            if not _reads_in_own_loops(s.body, var, inside or s.var == var):
                return False
        elif isinstance(s, (ir.While, ir.If)):
            if var in reads_of(s.test) and not inside:
                return False
            if not all(_reads_in_own_loops(b, var, inside)
                       for b in (s.body, getattr(s, "orelse", []))):
                return False
        elif not inside and var in reads_of(s):
            return False
    return True


def _rename_later_loops(body, var, taken, first) -> list:
    """`body` with every loop over `var` but the first given a fresh variable."""
    out = []
    for s in body:
        if isinstance(s, ir.For) and s.var == var:
            if first[0]:
                first[0] = False
            else:
                s = rename(s, {var: fresh(var, taken)})
        elif isinstance(s, (ir.For, ir.While)):
            s = dataclasses.replace(s, body=_rename_later_loops(s.body, var, taken, first))
        elif isinstance(s, ir.If):
            s = dataclasses.replace(s, body=_rename_later_loops(s.body, var, taken, first),
                                    orelse=_rename_later_loops(s.orelse, var, taken, first))
        out.append(s)
    return out


def _assigned(body) -> set:
    """The variables the nest computes: assignment targets and the locals of `:=`."""
    names = {s.target.id for s in walk_stmts(body)
             if isinstance(s, (ir.Assign, ir.AugAssign)) and isinstance(s.target, ir.Name)}
    return names | {e.target.id for e in walk_exprs(body) if isinstance(e, ir.NamedExpr)}


# --- conditions that dominate an access ---------------------------------------------------

FLIPPED = {"<": ">=", "<=": ">", ">": "<=", ">=": "<", "==": "!=", "!=": "=="}


def narrowing(test, holds: bool, env, boxes, assigned) -> dict:
    """{loop var: (lo, hi)}: the normalised values `[lo, hi)` of the loop variables that
    `test` being `holds` leaves, from comparisons of signed integers affine in one loop
    variable (`e - w >= 0`, `i > 0 and i < n - 1`); {} where nothing is known."""
    if isinstance(test, ir.UnaryOp) and test.op == "not":
        return narrowing(test.operand, not holds, env, boxes, assigned)
    if isinstance(test, ir.BoolOp) and (test.op == "and") == holds:
        found = {}
        for value in test.values:
            found = intersect(found, narrowing(value, holds, env, boxes, assigned))
        return found
    if not (isinstance(test, ir.Compare) and len(test.ops) == 1 and test.operand_types
            and all(str(t).startswith("int") for pair in test.operand_types for t in pair)
            and not set(reads_of(test)) & assigned):
        return {}
    left = affine(test.left, env, boxes)
    right = affine(test.comparators[0], env, boxes)
    if left is None or right is None:
        return {}
    coeffs = dict(left[0])
    for var, c in right[0].items():
        coeffs[var] = coeffs.get(var, 0) - c
    coeffs = {var: c for var, c in coeffs.items() if c}
    if len(coeffs) != 1:
        return {}
    (var, c), = coeffs.items()
    k = left[1] - right[1]
    op = test.ops[0] if holds else FLIPPED[test.ops[0]]
    # c * v + k  op  0, as lower bounds `c * v >= m` and upper bounds `c * v <= m`
    at_least = {">=": [-k], ">": [1 - k], "==": [-k]}.get(op, [])
    at_most = {"<=": [-k], "<": [-k - 1], "==": [-k]}.get(op, [])
    lo, hi = 0, boxes[var].extent
    for m in at_least:
        if c > 0:
            lo = max(lo, -(-m // c))
        else:
            hi = min(hi, m // c + 1)
    for m in at_most:
        if c > 0:
            hi = min(hi, m // c + 1)
        else:
            lo = max(lo, -(-m // c))
    return {var: (lo, hi)}


def intersect(a: dict, b: dict) -> dict:
    """Both narrowings at once; a variable they would leave empty keeps `a`'s range (code
    that never runs there: an access in it is then proved over the wider range, or checked)."""
    out = dict(a)
    for var, (lo, hi) in b.items():
        if var in out:
            lo, hi = max(lo, out[var][0]), min(hi, out[var][1])
        if lo < hi:
            out[var] = (lo, hi)
    return out


class _Guards:
    """The live accesses of a body, each with the narrowing of the conditions that dominate it:
    `if`/`while` tests, the test of `x if c else y` and the operands before it of `and`/`or`.
    A loop over a variable forgets what was known of it outside."""

    def __init__(self, env, boxes, assigned):
        self.env, self.boxes, self.assigned = env, boxes, assigned

    def narrow(self, domain, test, holds):
        return intersect(domain, narrowing(test, holds, self.env, self.boxes, self.assigned))

    def body(self, stmts, domain):
        for s in stmts:
            if isinstance(s, ir.For):
                yield from self.expr([s.start, s.stop, s.step], domain)
                box = self.boxes.get(s.var)
                if box is None or box.extent > 0:
                    inner = {var: r for var, r in domain.items() if var != s.var}
                    yield from self.body(s.body, inner)
            elif isinstance(s, ir.While):
                yield from self.expr(s.test, domain)
                yield from self.body(s.body, self.narrow(domain, s.test, True))
            elif isinstance(s, ir.If):
                yield from self.expr(s.test, domain)
                yield from self.body(s.body, self.narrow(domain, s.test, True))
                yield from self.body(s.orelse, self.narrow(domain, s.test, False))
            else:
                yield from self.expr(s, domain)

    def expr(self, node, domain):
        if isinstance(node, list):
            for x in node:
                yield from self.expr(x, domain)
            return
        if not dataclasses.is_dataclass(node) or isinstance(node, (type, ir.Scalar, ir.Array)):
            return
        if isinstance(node, ir.IfExp):
            yield from self.expr(node.test, domain)
            yield from self.expr(node.body, self.narrow(domain, node.test, True))
            yield from self.expr(node.orelse, self.narrow(domain, node.test, False))
            return
        if isinstance(node, ir.BoolOp):
            for value in node.values:
                yield from self.expr(value, domain)
                domain = self.narrow(domain, value, node.op == "and")
            return
        if isinstance(node, ir.Subscript):
            yield node, domain
        for f in dataclasses.fields(node):
            if f.name not in ("type", "loc", "reductions"):
                yield from self.expr(getattr(node, f.name), domain)


# --- instantiation --------------------------------------------------------------------------

@dataclass(frozen=True)
class IndexProof:
    """How the kernel addresses one index: `form` affine (None: through its value, with the
    array's whole extent mirrored), `wrap` a negative index all over its range (its array's
    extent is added, as Python's wrap-around does), `checked` its sign or range unknown (the
    kernel wraps it and sets the error flag when out of range)."""
    form: Optional[AffineForm]
    wrap: bool = False
    checked: bool = False


def prove_index(e, dim, shape, domain, env, boxes, assigned) -> IndexProof:
    """The proof of index `e` of dimension `dim` of an array of `shape` at an access that the
    conditions around it narrow to `domain` (normalised ranges of loop variables). An affine
    index is proved over the narrowed sequential loops alone (what `Access.domain` carries
    to the transfer analysis); any index also over every narrowed loop, by interval
    arithmetic, for the kernel to use its value unchecked."""
    n = shape[dim]
    form = affine_form(e, env, boxes, assigned)
    # (a variable of a loop of no iteration, read after it, has no range)
    if form is not None and all(boxes[var].extent > 0 for var, _ in form.coeffs):
        inner = {var: r for var, r in domain.items() if not boxes[var].parallel}
        lo, hi = _form_range(form, boxes, inner)
        if 0 <= lo and hi < n:
            return IndexProof(form)
        if -n <= lo and hi < 0:
            return IndexProof(AffineForm(form.const + n, form.coeffs), wrap=True)
    known = None
    if not set(reads_of(e)) & assigned:
        known = interval(e, env, {var: _narrowed(boxes[var], domain.get(var)) for var in boxes})
    if known is not None and 0 <= known.lo and known.hi < n:
        return IndexProof(None)
    if known is not None and -n <= known.lo and known.hi < 0:
        return IndexProof(None, wrap=True)
    return IndexProof(None, checked=True)


def _form_range(form: AffineForm, boxes, domain) -> tuple:
    extents = {var: boxes[var].extent for var, _ in form.coeffs}
    extents.update({var: hi - lo for var, (lo, hi) in domain.items() if var in extents})
    return form.shifted({var: lo for var, (lo, _) in domain.items()}).value_range(extents)


def _narrowed(box: LoopBox, part) -> LoopBox:
    if part is None:
        return box
    lo, hi = part
    return dataclasses.replace(box, lo=box.lo + box.step * lo, extent=hi - lo)


def wrapped(e, array: ir.Name, dim: int):
    """Index `e` of a dimension of `array` counted from its start: `e + array.shape[dim]`."""
    shape = ir.ArrayAttr(array, "shape", dim, type=ir.Scalar("int64"))
    return ir.BinOp("+", e, shape, e.loc, ir.Scalar("int64"))


def with_wrapped_indices(node, wraps: dict):
    """The IR with index `d` of access `aid` wrapped for every `d` in `wraps[aid]`."""
    def fn(n):
        if isinstance(n, ArrayAccess) and n.aid in wraps:
            return dataclasses.replace(n, indices=[
                wrapped(ix, n.array, d) if d in wraps[n.aid] else ix
                for d, ix in enumerate(n.indices)])
        return n
    return transform(node, fn) if wraps else node


def independent_levels(loop: ir.For, env: dict) -> ir.For:
    """`loop` with the `range` loops proved independent (ir.For.independent, below its
    pranges) made parallel levels, where no array the nest writes overlaps another array of
    the call (the proof compared names, this compares memory) and a loop that computes the
    statements sunk into it (ir.For.sunk) runs at least once for these bounds (so they run as
    often as before or more, raising what they raise); else the loops as written."""
    chain, level = [], loop
    while len(chain) < 2:
        *before, inner = level.body or [None]
        if not isinstance(inner, ir.For) or not (
                inner.parallel and not before or inner.independent and len(before) == inner.sunk):
            break
        chain.append(inner)
        level = inner
    nest_names = set(_assigned([loop])) | {loop.var} | {c.var for c in chain}
    if not any(l.independent for l in chain) or not _disjoint_writes(loop, env) or not all(
            _runs(l, env, nest_names) for l in chain if l.sunk):
        return transform(loop, lambda n: dataclasses.replace(
            n, body=n.body[n.sunk:], sunk=0, independent=False) if isinstance(n, ir.For)
            and n.independent else n)

    def promote(level, depth):
        inner = level.body[-1]
        if depth == len(chain):
            return level
        return dataclasses.replace(level, body=[promote(dataclasses.replace(
            inner, parallel=True, sunk=0), depth + 1)])
    return promote(loop, 0)


def _disjoint_writes(loop: ir.For, env: dict) -> bool:
    """Whether no array the nest writes overlaps another array it uses, at this call."""
    arrays = {e.array.id for e in walk_exprs(loop) if isinstance(e, ir.Subscript)}
    written = {s.target.array.id for s in walk_stmts(loop.body)
               if isinstance(s, ir.Assign) and isinstance(s.target, ir.Subscript)}
    values = {name: env.get(name) for name in arrays}
    return all(hasattr(v, "__array_interface__") for v in values.values()) and not any(
        np.may_share_memory(values[w], values[x]) for w in written for x in arrays - {w})


def _runs(level: ir.For, env: dict, nest_names: set) -> bool:
    """Whether `level` runs at least one iteration, its bounds read from the call's values
    alone (none of the `nest_names` the nest sets)."""
    bounds = [level.start, level.stop, level.step]
    if set(reads_of(bounds)) & nest_names:
        return False
    start, stop, step = (evaluate(x, env) for x in bounds)
    return None not in (start, stop, step) and step != 0 and range_length(start, stop, step) > 0


def instantiate(nest: ir.Nest, env: dict) -> NestInstance:
    """Bind the nest to live values: loop boxes, trip counts, accesses and their proofs."""
    nest = dataclasses.replace(nest, loop=independent_levels(nest.loop, env))
    loop = nest.loop
    levels = parallel_levels(loop)
    assigned = _assigned(loop.body)
    boxes, trips, guarded = {}, [], set()
    for level in levels:
        if set(reads_of([level.start, level.stop, level.step])) & set(boxes):
            box = _bounding_box(level, env, boxes, assigned)
            if box is None:
                raise NotOffloadable("the bounds of the parallel loops are not known at the call")
            box = dataclasses.replace(box, parallel=True)
            guarded.add(level.var)
        else:
            start, stop, step = (evaluate(x, env) for x in (level.start, level.stop, level.step))
            if None in (start, stop, step) or step == 0:
                raise NotOffloadable("the bounds of the parallel loops are not known at the call")
            box = LoopBox(level.var, start, step, range_length(start, stop, step), True)
        if box.extent == 0:
            raise Refused("the parallel loop has no iterations")
        trips.append(box.extent)
        boxes[level.var] = box
    inner_body = levels[-1].body
    on_device = set()
    _inner_boxes(inner_body, env, boxes, assigned, on_device, {lv.var for lv in levels})
    # Variables of loops whose bounds the kernel reads at run time are values computed in the
    # nest: an index using one is checked in the kernel.
    assigned = assigned | on_device
    shapes = {name: value.shape for name, value in env.items() if hasattr(value, "shape")}
    proofs, domains, wraps = {}, {}, {}
    for e, domain in _Guards(env, boxes, assigned).body(inner_body, {}):
        if not isinstance(e, ArrayAccess):
            raise ValueError("instantiate() needs a nest from load_nest (numbered accesses)")
        if e.array.id in assigned:
            raise NotOffloadable(f"array '{e.array.id}' is assigned inside the nest")
        if e.array.id not in shapes:
            raise NotOffloadable(f"array '{e.array.id}' is not a value the call passes")
        proofs[e.aid] = [prove_index(ix, d, shapes[e.array.id], domain, env, boxes, assigned)
                         for d, ix in enumerate(e.indices)]
        domains[e.aid] = tuple((var, lo, hi) for var, (lo, hi) in sorted(domain.items())
                               if not boxes[var].parallel and any(
                                   p.form is not None and var in dict(p.form.coeffs)
                                   for p in proofs[e.aid]))
        wraps[e.aid] = {d for d, p in enumerate(proofs[e.aid]) if p.wrap}
    wraps = {aid: dims for aid, dims in wraps.items() if dims}
    if wraps:
        loop = with_wrapped_indices(loop, wraps)
        nest = dataclasses.replace(nest, loop=loop)
        levels = parallel_levels(loop)
        inner_body = levels[-1].body
    # (the walk of the proofs, on the nest with the wrapped indices)
    accesses = [e for e, _ in _Guards(env, boxes, assigned).body(inner_body, {})]
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
        written = e.aid in writes
        found.append((e, Access(e.aid, e.array.id, [p.form for p in proofs[e.aid]],
                                read=not written, write=written,
                                unconditional=e.aid in every_iteration,
                                domain=domains[e.aid])))
    checked = frozenset((aid, d) for aid, ps in proofs.items()
                        for d, p in enumerate(ps) if p.checked)
    return NestInstance(nest, levels, guarded, boxes, found, trips, checked=checked,
                        on_device=frozenset(on_device))


def _inner_boxes(body, env, boxes, assigned, on_device, levels, dead=False) -> None:
    """Fills `boxes` with the inner loops' boxes (outermost first) and `on_device` with the
    loops that have none: bounds read from arrays or computed in the nest (`indptr[i]`), which
    the kernel evaluates as the CPU does. A loop inside a loop of no iteration never runs: its
    box is empty (`dead`)."""
    for s in body:
        if isinstance(s, ir.For):
            if s.var in levels or s.var in assigned:
                raise NotOffloadable(f"loop variable '{s.var}' is reused or assigned in the nest")
            box = LoopBox(s.var, 0, 1, 0, False) if dead else _bounding_box(s, env, boxes,
                                                                            assigned | on_device)
            if box is None or s.var in on_device:
                on_device.add(s.var)
                boxes.pop(s.var, None)
            else:
                # Several loops over one variable (`for k ...` twice, which scoping could not
                # tell apart): the hull of their boxes.
                boxes[s.var] = _hull(boxes[s.var], box) if s.var in boxes else box
            _inner_boxes(s.body, env, boxes, assigned, on_device, levels,
                         dead or (box is not None and box.extent == 0))
        elif isinstance(s, (ir.While, ir.If)):
            _inner_boxes(s.body, env, boxes, assigned, on_device, levels, dead)
            _inner_boxes(getattr(s, "orelse", []), env, boxes, assigned, on_device, levels,
                         dead)


def live_exprs(body, boxes):
    """The expressions of `body` outside the inner loops that never run (bounding box of no
    iterations): an access in such a loop is never evaluated, so it needs no transfer and no
    bounds check. A loop with no box (bounds read on the device) may run."""
    for s in body:
        if isinstance(s, ir.For):
            yield from walk_exprs([s.start, s.stop, s.step])
            if s.var not in boxes or boxes[s.var].extent > 0:
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


def _bounding_box(loop: ir.For, env, boxes, assigned) -> Optional[LoopBox]:
    """The interval a loop's variable can take over all outer iterations; None when its
    bounds are not known at the call (read from arrays, computed in the nest)."""
    if set(reads_of([loop.start, loop.stop, loop.step])) & assigned:
        return None
    step = evaluate(loop.step, env)
    start = interval(loop.start, env, boxes)
    stop = interval(loop.stop, env, boxes)
    if step is None or step == 0 or start is None or stop is None:
        return None
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
