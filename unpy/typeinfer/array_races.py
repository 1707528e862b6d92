"""Writes to array elements in prange loops (SPEC section 3): an element one iteration writes,
no other iteration writes; or the write is an update, compiled as an atomic update.

For every prange loop P (outermost or not: its iterations run at once) and every array written
in its body, each pair of writes W, X of that array (W == X included: one statement in two
iterations) must be *separated*: two different iterations of P never write one element through
W and X. They are when, in some dimension, both indices are `c*p + r` with p P's variable, one
coefficient c (a constant, or an expression of names P does not assign, such as a shape) and
rests r that stay within a window narrower than |c * step|:

    out[i, j]                   dimension 0: c = 1, r = 0
    out[2*i], out[2*i + 1]      c = 2, r in {0, 1}
    out[i*m + j]                j of `for j in range(m)`: c = m, r in [0, m - 1]

Otherwise they are separated when the linear system "iteration p1 writes at W the element
iteration p2 >= p1 + |step| writes at X" has no rational solution (Fourier-Motzkin), with the
ranges of the loops around each write and the comparisons of the branches it is in: this
proves triangular writes (`a[i, j]` and `a[j, i]` for j in range(i, n)) and writes of one
iteration (`if i == 0:`).

An index is read as a polynomial over names. A loop variable inside P (of one loop over a
constant step, not assigned otherwise) stands for its range, whose bounds may use p
(`for j in range(i*m, i*m + m)`); a name assigned once in P's body to such an expression
stands for it (`k = 3*i` then `out[k + 1]`); a view bound in the body (`row = out[i]`) writes
the array it views. Arrays allocated in the body are the iteration's own. We assume, as fusion
does (fuse.py), that negative indices do not wrap a range of indices onto itself; and names
are compared, not memory: two names viewing one array are not checked against each other, nor
are writes made by called compiled functions.

A write not separated from some write is:
- an update `a[e] = a[e] op v` (`a[e] op= v` with op in + - * & | ^, or `a[e] = min(a[e], v)`,
  `max`, the element first or second as for scalar reductions; of a complex element + and -
  only), with `v` reading no element of `a`: compiled as an atomic update (`Assign.atomic` = op), provided
  every atomic update of `a` in P has one operator (`-` counts as `+`): the updates then
  commute, up to the rounding of floating-point sums, as a reduction's do;
- anything else: a compile error naming both writes and the loop.

Each element read of an array P writes (`element_reads`) must be separated from every write of
that array in the same sense (the read taken as a write): else a compile error, since it would
read whichever value is there; except against a write that only lowers or raises its element
(`a[e] = min(a[e], v)`, `_relaxes`).
"""
from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

from unpy import ir
from unpy.typeinfer.reductions import (REDUCTION_BINOPS, own_expressions, walk_exprs,
                                       walk_stmts)

HINT = ("Index the array so that each iteration writes its own elements (a[i], a[i, j], "
        "a[2*i + 1], a[i*n + j] with j in range(n)); or write an update a[e] += v (also -=, "
        "*=, |=, &=, ^=, a[e] = min(a[e], v), max), which is compiled as an atomic update; or "
        "use range() for a loop whose iterations must run in order")
NEGATED = {"<": ">=", "<=": ">", ">": "<=", ">=": "<", "==": "!=", "!=": "=="}


def check_array_writes(fn: ir.Function, errors):
    """Mark the atomic updates of every prange of `fn`; raise for any other write that other
    iterations of a prange may make to the same element."""
    for loop in walk_stmts(fn.body):
        if isinstance(loop, ir.For) and loop.parallel:
            _check_prange(_Prange(loop), errors)


def update_parts(s: ir.Assign):
    """(operator, operand, whether the element is the first operand) of an atomic update
    (`s.atomic` set): what both emitters print."""
    v = s.value
    args = [v.left, v.right] if isinstance(v, ir.BinOp) else list(v.args)
    first = isinstance(args[0], ir.Subscript) and args[0].array.id == s.target.array.id
    return s.atomic, args[1] if first else args[0], first


def update_value(s: ir.Assign):
    """The value of `s` when `s` is an update of its element `a[e]`: `a[e] op v`, `v op a[e]`
    (op commutative), `min(a[e], v)`, `min(v, a[e])` or max, computed in the element's own
    type, `v` reading no element of `a`; else None."""
    t, v = s.target, s.value
    if not isinstance(t, ir.Subscript) or not isinstance(t.type, ir.Scalar):
        return None
    if isinstance(v, ir.Cast) and v.type == v.value.type:
        v = v.value
    if not isinstance(v.type, ir.Scalar) or v.type.dtype != t.type.dtype:
        return None
    if t.type.dtype.startswith("complex") and not (isinstance(v, ir.BinOp) and
                                                   v.op in ("+", "-")):
        return None         # (a complex sum updates its parts apart: emit.atomic_update)
    if isinstance(v, ir.BinOp) and v.op in REDUCTION_BINOPS:
        args = [v.left, v.right]
    elif isinstance(v, ir.Call) and v.func in ("min", "max") and len(v.args) == 2:
        args = list(v.args)
    else:
        return None
    text = ir.format_expr(t)
    element = [isinstance(a, ir.Subscript) and ir.format_expr(a) == text for a in args]
    if element[0]:
        operand = args[1]
    elif element[1] and getattr(v, "op", None) != "-":
        operand = args[0]
    else:
        return None
    if any(isinstance(e, ir.Subscript) and e.array.id == t.array.id
           for e in walk_exprs(operand)):
        return None
    return v


def _family(op):
    return "+" if op == "-" else op


@dataclass
class _Write:
    stmt: ir.Assign
    forms: list             # per dimension of the array written: the index's form, or None
    facts: list             # forms >= 0 where it runs: the comparisons of its branches


def _check_prange(p: "_Prange", errors):
    by_array = {}
    for s, env, facts in p.writes(p.loop.body, {}, []):
        written = p.written_element(s.target, env)
        if written is not None:
            by_array.setdefault(written[0], []).append(_Write(s, written[1], facts))
    for array, writes in by_array.items():
        clashes = {}
        for w, x in itertools.combinations_with_replacement(writes, 2):
            if not p.separated(w, x):
                clashes.setdefault(id(w.stmt), x.stmt)
                clashes.setdefault(id(x.stmt), w.stmt)
        updates = []
        for s in (w.stmt for w in writes):
            if id(s) not in clashes:
                continue
            value = update_value(s)
            if value is None:
                raise errors.error(_message(s, clashes[id(s)], p.loop, errors), s.loc)
            updates.append((s, value))
        for s, value in updates:
            s.value = value
            s.atomic = value.op if isinstance(value, ir.BinOp) else value.func
        first = updates[0][0] if updates else None
        for s, _ in updates:
            if _family(s.atomic) != _family(first.atomic):
                raise errors.error(
                    f"'{array}' is updated with {first.atomic} at line {first.loc[0]} and with "
                    f"{s.atomic} here, in the prange at line {p.loop.loc[0]}; updates that "
                    "several iterations may make to one element are atomic, and must use one "
                    "operator (as reductions do)", s.loc)
    checked = set()
    for array, read, element in element_reads(p, p.loop.body, set(by_array)):
        for w in by_array[array]:
            key = (id(w.stmt), repr(read.forms), repr(read.facts))
            if key not in checked and not _relaxes(w.stmt) and not p.separated(w, read):
                raise errors.error(_read_message(read.stmt, element, w.stmt, p.loop, errors),
                                   read.stmt.loc)
            checked.add(key)


def _relaxes(s: ir.Assign) -> bool:
    """Whether `s` only lowers (raises) its element: `a[e] = min(a[e], v)` (max), written
    apart or atomically. Another iteration reading that element sees the old value or a
    lower one, as the relaxations of Floyd-Warshall and Bellman-Ford allow (their rounds
    reach the interpreter's result either way), so such a read is no race we refuse."""
    v = s.value.value if isinstance(s.value, ir.Cast) else s.value
    if not (isinstance(v, ir.Call) and v.func in ("min", "max") and len(v.args) == 2):
        return False
    element = ir.format_expr(s.target)
    return any(isinstance(a, ir.Subscript) and ir.format_expr(a) == element for a in v.args)


def element_reads(p: "_Prange", body, written: set):
    """(array, the read as a _Write, the Subscript) of each element that a statement of `body`
    reads of an array in `written` (through the views the body binds), with the loops and
    branch facts around it. An atomic update's read of its own element is its write's."""
    for s, env, facts in p.statements(body, {}, []):
        if isinstance(s, ir.Assign):        # the target's indices, not its element
            indices = s.target.indices if isinstance(s.target, ir.Subscript) else []
            own = [update_parts(s)[1] if s.atomic else s.value] + indices
        else:
            own = own_expressions(s)
        for e in walk_exprs(own):
            if isinstance(e, ir.Subscript) and isinstance(e.array, ir.Name):
                element = p.written_element(e, env)
                if element is not None and element[0] in written:
                    yield element[0], _Write(s, element[1], facts), e


def _shown_store(s, errors) -> str:
    """A store as the user wrote it: its IR, or, where a slice or an array statement made the
    indices (names of the compiler's own), the source line it comes from."""
    shown = ir.format_expr(s.target)
    if "__" in shown and 0 < s.loc[0] <= len(errors.lines):
        return f"'{errors.lines[s.loc[0] - 1].strip()}'"
    return f"'{shown} = ...'"


def _message(s, other, loop, errors) -> str:
    what = _shown_store(s, errors)
    if other is s:
        both = f"{what} may write one element in two iterations of the prange at line " \
               f"{loop.loc[0]}: its index is not proved distinct per iteration"
    else:
        both = (f"{what} and {_shown_store(other, errors)} (line {other.loc[0]}) "
                f"may write one element in two iterations of the prange at line {loop.loc[0]}"
                ": their indices are not proved distinct per iteration")
    if update_value(s) is None and _looks_like_update(s):
        both += (" (it is not an update compiled atomically: only the forms below are, of "
                 "complex elements += and -= only, with a value that reads no other element "
                 "of the array)")
    return f"{both}, and iterations run in parallel. {HINT}"


def _read_message(s, element, write, loop, errors) -> str:
    line = s.loc[0]
    shown = f"'{errors.lines[line - 1].strip()}'" if 0 < line <= len(errors.lines) else \
        f"'{ir.format_expr(element)}'"
    read = ir.format_expr(element)
    if "__" in read:            # indices of the compiler's own (a slice, an array statement)
        read = f"an element of '{element.array.id}'"
    return (f"{shown} reads {read}, which another iteration of the prange at line "
            f"{loop.loc[0]} may write ({_shown_store(write, errors)}, line {write.loc[0]}): "
            "iterations run in parallel, so it would read whichever value is there. Use range() "
            "for a loop whose iterations must run in order, or read the values from another "
            "array than the one the loop writes (a copy made before the loop)")


def _looks_like_update(s) -> bool:
    text = ir.format_expr(s.target)
    return any(isinstance(e, ir.Subscript) and ir.format_expr(e) == text
               for e in walk_exprs(s.value))


# --- indices as polynomials -------------------------------------------------------------------
# A form is {monomial: integer coefficient}; a monomial is a sorted tuple of atoms: names,
# "<text>" for an expression read as a whole, "name@line:col:k" for the offset of a loop over
# `name` within its range (`_Prange.widths`). () is the constant.

def _add(a, b, sign=1):
    out = dict(a)
    for m, c in b.items():
        out[m] = out.get(m, 0) + sign * c
        if out[m] == 0:
            del out[m]
    return out


def _mul(a, b):
    out = {}
    for (ma, ca), (mb, cb) in itertools.product(a.items(), b.items()):
        m = tuple(sorted(ma + mb))
        out[m] = out.get(m, 0) + ca * cb
    return {m: c for m, c in out.items() if c}


def _scale(a, k):
    return {m: c * k for m, c in a.items() if c * k}


def _const(k):
    return {(): k} if k else {}


def _constant_of(form):
    """The value of a constant form, else None."""
    return None if any(form) else form.get((), 0)


def _feasible(system, limit=4000) -> bool:
    """Whether linear constraints `f >= 0` (each {variable: integer coefficient}, the
    constant under ()) may all hold over the rationals: Fourier-Motzkin elimination, one
    variable at a time. True also where the work would pass `limit` constraints."""
    system = [dict(c) for c in system]
    while True:
        for c in system:
            if not any(k for k in c if k != ()) and c.get((), 0) < 0:
                return False
        variables = {k for c in system for k in c if k != ()}
        if not variables:
            return True
        # The variable whose elimination makes the fewest new constraints.
        var = min(variables, key=lambda v: sum(c.get(v, 0) > 0 for c in system)
                  * sum(c.get(v, 0) < 0 for c in system))
        above = [c for c in system if c.get(var, 0) > 0]
        below = [c for c in system if c.get(var, 0) < 0]
        kept = [c for c in system if not c.get(var, 0)]
        if len(kept) + len(above) * len(below) > limit:
            return True
        for a, b in itertools.product(above, below):
            ka, kb = a[var], -b[var]
            combined = {}
            for key in set(a) | set(b):
                value = kb * a.get(key, 0) + ka * b.get(key, 0)
                if value and key != var:
                    combined[key] = value
            divisor = math.gcd(*combined.values()) if combined else 1
            kept.append({key: value // divisor for key, value in combined.items()}
                        if divisor > 1 else combined)
        system = kept


def _wrapped(e) -> bool:
    """Whether `e` is `(x + n) if x < 0 else x` (lower_arrays wraps a view's index so)."""
    if not (isinstance(e, ir.IfExp) and isinstance(e.test, ir.Compare)
            and e.test.ops == ["<"] and isinstance(e.body, ir.BinOp) and e.body.op == "+"):
        return False
    zero = e.test.comparators[0]
    x = ir.format_expr(e.orelse)
    return (isinstance(zero, ir.Const) and zero.value == 0
            and ir.format_expr(e.test.left) == x and ir.format_expr(e.body.left) == x)


def _clamped(e):
    """x where `e` is `max(min(x, n), 0)` or `max(min((x + n) if x < 0 else x, n), 0)` (a
    slice's bound, as lower_arrays computes it), else None."""
    if not (isinstance(e, ir.Call) and e.func == "max" and len(e.args) == 2 and isinstance(
            e.args[1], ir.Const) and e.args[1].value == 0 and isinstance(e.args[0], ir.Call)
            and e.args[0].func == "min" and len(e.args[0].args) == 2):
        return None
    inner = e.args[0].args[0]
    return inner.orelse if _wrapped(inner) else inner


def _wraps(s) -> bool:
    """Whether `s` is `if x < 0: x = x + n` (typeinfer's a.flat[x] counted from the end)."""
    if not (isinstance(s, ir.If) and not s.orelse and len(s.body) == 1 and
            isinstance(s.test, ir.Compare) and s.test.ops == ["<"]):
        return False
    x, zero, wrap = s.test.left, s.test.comparators[0], s.body[0]
    return (isinstance(x, ir.Name) and isinstance(zero, ir.Const) and zero.value == 0 and
            isinstance(wrap, ir.Assign) and isinstance(wrap.value, ir.BinOp) and
            wrap.value.op == "+" and ir.format_expr(wrap.target) == x.id ==
            ir.format_expr(wrap.value.left))


def _flat_position(indices):
    """k where `indices` are typeinfer's unravelling of the C-order position k of an array of
    two or more dimensions (array_calls.flat_indices: `k // (n1 * n2)`, `k // n2 % n1`,
    `k % n2`): distinct positions are distinct elements. Else None."""
    last = indices[-1] if len(indices) > 1 else None
    if not (isinstance(last, ir.BinOp) and last.op == "%"):
        return None
    k = ir.format_expr(last.left)
    for index in indices[:-1]:
        inner = index.left if isinstance(index, ir.BinOp) and index.op == "%" else index
        if not (isinstance(inner, ir.BinOp) and inner.op == "//" and
                ir.format_expr(inner.left) == k):
            return None
    return last.left


def _is_integer(t) -> bool:
    return isinstance(t, ir.Scalar) and (t.dtype == "bool" or t.dtype[0] in "iu")


class _Prange:
    """One prange loop P and what its body assigns: the facts the indices are read with."""

    def __init__(self, loop: ir.For):
        self.loop = loop
        assigned, fors = {}, {}
        wraps = {id(x.body[0]) for x in walk_stmts(loop.body) if _wraps(x)}
        for s in walk_stmts(loop.body):
            if id(s) in wraps:
                continue            # (a negative index counted from the end: assumed not to
                #                      wrap onto other iterations' elements, as `_wrapped`)
            if isinstance(s, ir.Assign) and isinstance(s.target, ir.Name):
                assigned.setdefault(s.target.id, []).append(s.value)
            elif isinstance(s, ir.For):
                fors.setdefault(s.var, []).append(s)
        for e in walk_exprs(loop.body):
            if isinstance(e, ir.NamedExpr):
                assigned.setdefault(e.target.id, []).append(e.value)
        self.varying = set(assigned) | set(fors)          # names that change inside P
        self.var = loop.var if loop.var not in self.varying else None
        step = loop.step.value if isinstance(loop.step, ir.Const) else None
        self.step = abs(step) if isinstance(step, int) and step else 1   # at least 1 in size
        self.written = {s.target.array.id for s in walk_stmts(loop.body)
                        if isinstance(s, ir.Assign) and isinstance(s.target, ir.Subscript)}
        once = {n: vs[0] for n, vs in assigned.items()
                if len(vs) == 1 and n not in fors and n != loop.var}
        self.defs = {n: v for n, v in once.items() if _is_integer(v.type)}
        self.views = {n: v for n, v in once.items() if isinstance(v, ir.StridedView)}
        self.private = {n for n, vs in assigned.items()
                        if all(isinstance(v, ir.AllocArray) for v in vs)}
        # Loop variables that stand for their ranges: assigned by loops only, none of which
        # holds another over the same name (a read is in the innermost loop over its name:
        # a read after the loop would be refused by the reductions check).
        self.ranged = {n for n, ls in fors.items() if n not in assigned and not any(
            x is not l and isinstance(x, ir.For) and x.var == n
            for l in ls for x in walk_stmts(l.body))}
        self.opaque = {}                # "<text>" -> the expression
        self.widths = {}                # "name@k" -> the form of its loop's length

    # --- what a write writes

    def statements(self, body, env, facts):
        """(statement, {loop variable: its innermost loop around it}, the facts of its
        branches: forms >= 0) of every statement of `body`, those inside others included."""
        for s in body:
            yield s, env, facts
            if isinstance(s, ir.For):
                yield from self.statements(s.body, dict(env, **{s.var: s}), facts)
            elif isinstance(s, ir.While):
                yield from self.statements(s.body, env, facts)
            elif isinstance(s, ir.If):
                yield from self.statements(s.body, env, facts + self.facts(s.test, env, True))
                yield from self.statements(s.orelse, env,
                                           facts + self.facts(s.test, env, False))

    def writes(self, body, env, facts):
        """`statements` that assign an element."""
        return ((s, env, f) for s, env, f in self.statements(body, env, facts)
                if isinstance(s, ir.Assign) and isinstance(s.target, ir.Subscript))

    def facts(self, test, env, holds):
        """Forms >= 0 that hold where `test` is `holds`: integer comparisons, and those of
        `and` (`or` where it fails). Others say nothing. (What a test reads cannot change
        before the writes of its branches: a name P assigns several times is no atom of a
        fact, see `linear`.)"""
        if isinstance(test, ir.BoolOp) and test.op == ("and" if holds else "or"):
            return [f for v in test.values for f in self.facts(v, env, holds)]
        if not (isinstance(test, ir.Compare) and len(test.ops) == 1):
            return []
        a, b = self.form(test.left, env), self.form(test.comparators[0], env)
        if a is None or b is None:
            return []
        op = test.ops[0] if holds else NEGATED[test.ops[0]]
        after, before = _add(a, b, -1), _add(b, a, -1)       # a - b, b - a
        return {"<": [_add(before, _const(-1))], "<=": [before],
                ">": [_add(after, _const(-1))], ">=": [after],
                "==": [after, before], "!=": []}[op]

    def written_element(self, target: ir.Subscript, env):
        """(array name, one form per dimension or None) of the element a write writes, through
        the views bound in the body; None for an array of the iteration's own."""
        name = target.array.id
        position = _flat_position(target.indices) if name not in self.views else None
        # a.flat[k]: the C-order position k stands for the element (one to one)
        forms = [self.form(i, env) for i in target.indices] if position is None else \
            [self.form(position, env)]
        for _ in range(len(self.views) + 1):
            if name in self.private:
                return None
            view = self.views.get(name)
            if view is None:
                return name, forms
            name, forms = view.array.id, self.view_forms(view, forms, env)
        return name, forms

    def view_forms(self, view: ir.StridedView, forms, env):
        """The forms of the viewed array's indices of a view's element at `forms`."""
        out = [self.form(o, env) for o in view.offsets]
        for k, (axis, step) in enumerate(zip(view.axes, view.steps)):
            if axis is None:
                continue
            step = self.form(step, env)
            if out[axis] is None or forms[k] is None or step is None:
                out[axis] = None
            else:
                out[axis] = _add(out[axis], _mul(forms[k], step))
        return out

    # --- indices as forms

    def form(self, e, env, depth=0):
        """The polynomial of an integer expression inside the loops `env` (None where not
        one). A name assigned once stands for its value: it is read inside the loops that
        enclose its assignment (elsewhere the reductions check refuses the read)."""
        if depth > 50 or not _is_integer(e.type):
            return None
        if isinstance(e, ir.Cast):
            return self.form(e.value, env, depth) if _is_integer(e.value.type) else \
                self.whole(e)
        if isinstance(e, ir.Const):
            return _const(int(e.value))
        if isinstance(e, ir.Name):
            if e.id in self.defs:
                return self.form(self.defs[e.id], env, depth + 1)
            if e.id in self.ranged and e.id in env:
                return self.loop_form(env[e.id], env, depth)
            return {(e.id,): 1}
        if isinstance(e, ir.BinOp) and e.op in ("+", "-", "*"):
            a, b = self.form(e.left, env, depth), self.form(e.right, env, depth)
            if a is None or b is None:
                return self.whole(e)
            return _mul(a, b) if e.op == "*" else _add(a, b, 1 if e.op == "+" else -1)
        if isinstance(e, ir.UnaryOp) and e.op in ("-", "+"):
            a = self.form(e.operand, env, depth)
            return self.whole(e) if a is None else _scale(a, -1 if e.op == "-" else 1)
        if _wrapped(e):     # a negative index wrapped: not onto other indices, we assume
            return self.form(e.orelse, env, depth)
        bound = _clamped(e)
        if bound is not None:
            # a slice's start `max(min(x, n), 0)` (lower_arrays) where x >= 0: x itself
            # wherever the slice writes (clamped to n it is empty)
            x = self.form(bound, env, depth + 1)
            if x is not None and self.never_negative(x):
                return x
        return self.whole(e)

    def never_negative(self, form) -> bool:
        """Whether a form is >= 0 in every iteration: non-negative coefficients of atoms that
        are (P's variable from a start >= 0 up, a loop's offset, an array's extent)."""
        start = self.loop.start.value if isinstance(self.loop.start, ir.Const) else None
        rising = isinstance(start, int) and start >= 0 and isinstance(self.loop.step, ir.Const) \
            and self.loop.step.value > 0
        for atoms, k in form.items():
            if k < 0:
                return False
            for atom in atoms:
                if not (atom in self.widths or (atom == self.var and rising) or (
                        atom in self.opaque and isinstance(self.opaque[atom], ir.ArrayAttr)
                        and self.opaque[atom].attr in ("shape", "size"))):
                    return False
        return True

    def whole(self, e):
        key = f"<{ir.format_expr(e)}>"
        self.opaque[key] = e
        return {(key,): 1}

    def loop_form(self, loop, env, depth):
        """The variable of `loop` as its start plus (or minus, for a negative step) an offset
        `var@k` within [0, length - 1] of its range (a superset where the step is not 1)."""
        step = loop.step.value if isinstance(loop.step, ir.Const) else None
        start = self.form(loop.start, env, depth + 1)
        stop = self.form(loop.stop, env, depth + 1)
        if not isinstance(step, int) or not step or start is None or stop is None:
            return {(loop.var,): 1}
        offset = f"{loop.var}@{loop.loc[0]}:{loop.loc[1]}:{id(loop)}"
        self.widths[offset] = _add(stop, start, -1) if step > 0 else _add(start, stop, -1)
        return _add(start, {(offset,): 1 if step > 0 else -1})

    def invariant(self, atom) -> bool:
        """Whether an atom has one value in every iteration of P, all along."""
        if atom in self.opaque:
            e = self.opaque[atom]
            return not any(
                isinstance(x, ir.Name) and (x.id in self.varying or x.id == self.loop.var)
                or isinstance(x, ir.Subscript) and x.array.id in self.written
                or isinstance(x, (ir.CallCompiled, ir.NamedExpr, ir.AllocArray))
                for x in walk_exprs([e]))
        return atom not in self.varying and atom != self.loop.var and atom not in self.widths

    def split(self, form):
        """(c, low, high) where every value of the index is `c*p + r`, r within [low, high]
        (forms of invariant atoms); None where the index is not of that shape."""
        if form is None or self.var is None:
            return None
        c, low, high = {}, {}, {}
        for m, k in form.items():
            offsets = [a for a in m if a in self.widths]
            rest = [a for a in m if a != self.var and a not in self.widths]
            if not all(self.invariant(a) for a in rest):
                return None
            if m.count(self.var) == 1 and not offsets:
                c = _add(c, {tuple(rest): k})
            elif self.var not in m and not offsets:
                low, high = _add(low, {m: k}), _add(high, {m: k})
            elif self.var not in m and len(offsets) == 1 and not rest:
                width = self.widths[offsets[0]]
                if not all(self.invariant(a) for w in width for a in w):
                    return None
                span = _scale(_add(width, _const(-1)), k)
                if k > 0:
                    high = _add(high, span)
                else:
                    low = _add(low, span)
            else:
                return None
        return c, low, high

    def separated(self, w: _Write, x: _Write) -> bool:
        """Whether different iterations of P never write one element through `w` and `x`."""
        if self.var is None or len(w.forms) != len(x.forms):
            return False
        return (any(self.windows_apart(a, b) for a, b in zip(w.forms, x.forms))
                or (self.no_meeting(w, x) and self.no_meeting(x, w)))

    def windows_apart(self, x, y) -> bool:
        """Whether, in one dimension, |c| * step exceeds the distance between the windows of
        two indices `c*p + r`. (Where c is an expression, both differences being constants
        proves c * step >= 1: a write runs only where its loops do, so each window has a
        length of 1 or more.) Distinct iterations have distinct values of p: a step known
        only at run time is at least 1 in size."""
        a, b = self.split(x), self.split(y)
        if a is None or b is None or not a[0] or a[0] != b[0]:
            return False
        (c, low_a, high_a), (_, low_b, high_b) = a, b
        for sign in (1, -1):
            reach = _add(_scale(c, sign * self.step), _const(-1))
            gaps = [_constant_of(_add(reach, _add(high_b, low_a, -1), -1)),
                    _constant_of(_add(reach, _add(high_a, low_b, -1), -1))]
            if all(g is not None and g >= 0 for g in gaps):
                return True
        return False

    def no_meeting(self, w: _Write, x: _Write) -> bool:
        """Whether no iteration p1 writes through `w` the element that an iteration
        p2 >= p1 + step writes through `x`: the linear system of the indices, the ranges of
        the loops around each write and the facts of its branches has no rational solution.
        Each write's iteration has copies of its own of p and of its loops' offsets; invariant
        atoms are shared; a constraint with another atom, or not linear in the copies'
        variables, is left out (which only weakens the system)."""
        system = [{("p", 1): -1, ("p", 2): 1, (): -self.step}]
        for copy, write in ((1, w), (2, x)):
            bounds = [f for f in write.facts]
            seen = set()
            todo = [a for f in write.forms + write.facts if f for m in f for a in m
                    if a in self.widths]
            while todo:             # each offset within [0, length - 1] of its loop
                offset = todo.pop()
                if offset in seen:
                    continue
                seen.add(offset)
                length = self.widths[offset]
                bounds += [{(offset,): 1}, _add(_add(length, _const(-1)), {(offset,): 1}, -1)]
                todo += [a for m in length for a in m if a in self.widths]
            system += [c for c in (self.linear(f, copy) for f in bounds) if c is not None]
        for a, b in zip(w.forms, x.forms):
            if a is not None and b is not None:
                equal = self.linear(a, 1), self.linear(_scale(b, -1), 2)
                if None not in equal:
                    difference = _add(*equal)
                    system += [difference, _scale(difference, -1)]
        return not _feasible(system)

    def linear(self, form, copy):
        """A form as a linear function of variables: p and the loops' offsets of the write's
        iteration `copy` (1 or 2), and invariant monomials (shared by both); None where it is
        not one."""
        out = {}
        for m, k in form.items():
            own = [a for a in m if a == self.var or a in self.widths]
            if not all(a in own or self.invariant(a) for a in m) or (own and len(m) > 1):
                return None
            key = () if not m else ("p", copy) if m == (self.var,) else \
                (m[0], copy) if own else m
            out[key] = out.get(key, 0) + k
        return {key: k for key, k in out.items() if k}
