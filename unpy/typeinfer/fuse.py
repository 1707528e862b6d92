"""fuse: consecutive prange nests with one iteration space become one nest
(Helium's kernel fusion, section 4.3, without alignment: each element one nest writes is
touched by the other nest only in the same iteration). One nest is one GPU kernel and one
OpenMP loop.

Two nests are candidates when they are statements of one block with nothing between them
but host statements that may as well run before the first nest: shape checks (`if n != m:
raise`), new arrays and scalars computed from sizes, none touching what the first nest
assigns, where the first nest cannot raise (so that the call raises the check's error either
way; the arrays a call writes hold unspecified values when it raises). Lowered array
statements are such runs (unpy/typeinfer/lower_arrays.py). The nests must be perfectly nested
pranges of the same depth with the same bounds at every level (the same expressions once the
second's loop variables are renamed to the first's, or sizes of unassigned parameters that a
check of the block proved equal; expressions of scalars, shapes and the outer levels'
variables only, which the first nest cannot change: it assigns only its own privates), and
neither has a reduction, a break/continue of its own, a return, a call of a compiled function
or an allocation. In a @gpu function the nests are the numbered GPU nests, in the others the
outermost pranges. A nest of more levels than the other fuses with it when the other runs a
sequential loop over each extra level's range (a reduction along rows beside a statement over
the rows' elements, as in softmax): its extra levels become sequential loops of the iteration.

Dependences. Every prange promises that its iterations are independent (SPEC section 3: what
one iteration writes, no other iteration of that nest reads or writes, whatever the names
and views), and fusion relies on nothing else. Running body 1 then body 2 per iteration
instead of all of nest 1 before nest 2 is wrong only where an element written at iteration J
by one nest is touched at iteration I != J by the other. For each write W (array X, index
tuple g) of one nest A and each access R (array Y, index tuple f) of the other nest B, fusion
is refused unless one of these excludes it:

- X and Y are the same name and g and f are *separating* the same way: every level's variable
  v is, in some dimension d of both, `v`, `v + e` or `v - e` with the same e (an expression of
  names neither nest assigns): distinct iterations then touch distinct elements (stencils'
  neighbour reads `B[i - 1]` after writes `B[i]` are refused);
- X and Y are different memory for sure: one is a local array that is only ever assigned from
  `np.zeros/empty/ones` and the other such a local or a parameter that is never reassigned (two
  parameters may be views of one buffer, so their names prove nothing);
- nest A itself always accesses Y at f (an unconditional access, f of the levels' variables
  and invariant names only): then an element W writes at J that R touches at I would be touched
  by A at I too, against A's promise; or likewise nest B itself always accesses X at g, and
  that access or R is a write, or B always writes Y at f.

Nests of array statements (`For.lowered`, unpy/typeinfer/lower_arrays.py) rely on SPEC's
assumption for array statements besides: two parameters are different memory there (a store
`out[:] = f(a)` into a view of `a` is not supported), so their fusion needs no more.

We assume what the promise means for one array: a written view's elements do not overlap one
another (no `as_strided` self-overlap) and a level's indices do not wrap onto each other from
both ends (negative indices over a range longer than the dimension). A scalar assigned in one
nest and read by the other refuses (with privates, the second nest's are renamed apart from
the first's names). Nests inside a sequential loop fuse the same way.

An array statement in two versions (`If.broadcast`, unpy/typeinfer/lower_arrays.py: the
general one where a length of 1 found at run time broadcasts, else the fast nest) fuses
through its fast nest: two such statements (or one and a nest) become one statement in two
versions, whose test is either test, whose fast version is the fused nest (proved as above,
knowing the lengths its tests compare equal), and whose general version runs both statements'
general versions (or the nest) one after the other.

`fuse_function(fn)` is pure: a new Function whose fused nests carry `For.fused` (the source
lines of the nests joined), and the nests numbered again in order.
"""
from __future__ import annotations

import copy
import dataclasses

from unpy import ir
from unpy.ir import Array
from unpy.typeinfer.reductions import assigned_names, escapes, walk_exprs, walk_stmts


def fuse_function(fn: ir.Function) -> ir.Function:
    """`fn` with each run of fusable consecutive nests made one nest."""
    fn = ir.copy_tree(fn)          # the nests are numbered again in place
    fuser = _Fuser(fn)
    body = fuser.block(fn.body)
    if not fuser.fused:
        return fn
    out = dataclasses.replace(fn, body=body, locals=dict(fn.locals, **fuser.new_locals))
    count = 0
    for s in walk_stmts(out.body):
        if isinstance(s, ir.For) and s.nest_id is not None:
            s.nest_id = count
            count += 1
    return out


def chain(loop: ir.For) -> list:
    """The perfectly nested prange levels of a nest, outermost first."""
    levels = [loop]
    while (len(levels[-1].body) == 1 and isinstance(levels[-1].body[0], ir.For)
           and levels[-1].body[0].parallel):
        levels.append(levels[-1].body[0])
    return levels


def why_not_fused(first: ir.For, second: ir.For, fn: ir.Function):
    """None when the two consecutive nests may be one, else the reason (for tests and notes)."""
    return _Fuser(fn).pair(first, second)[1]


class _Fuser:
    def __init__(self, fn):
        self.fn = fn
        self.fused = 0
        self.new_locals = {}
        self.taken = {p.name for p in fn.params} | set(fn.locals) | {
            e.id for e in walk_exprs(fn.body) if isinstance(e, ir.Name)} | {
            s.var for s in walk_stmts(fn.body) if isinstance(s, ir.For)}
        assigned = {}
        for s in walk_stmts(fn.body):
            if isinstance(s, ir.Assign) and isinstance(s.target, ir.Name):
                assigned.setdefault(s.target.id, []).append(s.value)
        params = {p.name for p in fn.params if isinstance(p.type, Array)}
        self.fresh = {name for name, values in assigned.items() if name not in params
                      and all(isinstance(v, ir.AllocArray) for v in values)}
        self.pure_params = {name for name in params if name not in assigned}

    def block(self, body, assumed=()):
        """`body` fused; `assumed`: tests false there (a fast version's)."""
        out = []
        equal = _Equalities(self.pure_params).assuming(assumed)
        for s in body:
            written = s         # the statement as the function has it
            if isinstance(s, ir.For) and not _is_nest(s):
                s = dataclasses.replace(s, body=self.block(s.body))
            elif isinstance(s, ir.While):
                s = dataclasses.replace(s, body=self.block(s.body))
            elif isinstance(s, ir.If):
                s = dataclasses.replace(s, body=self.block(s.body), orelse=self.block(
                    s.orelse, [s.test] if s.broadcast else []))
            if _fast_nest(s) is not None:
                k = self.movable_tail(out, equal)
                if k is not None:
                    first, hosts = out[len(out) - k - 1], out[len(out) - k:]
                    for h in hosts:
                        equal.learn(h)
                    # The fast versions fuse, where their tests are false.
                    tests = [x.test for x in (first, s) if _versioned(x)]
                    fused, _ = self.pair(_fast_nest(first), _fast_nest(s),
                                         equal.assuming(tests), written)
                    # (the second's test is then decided before the first runs)
                    early = not _versioned(s) or not _names(s.test) & set(assigned_names([first]))
                    if fused is not None and early:
                        out[len(out) - k - 1:] = hosts + [_versions(first, s, tests, fused)]
                        self.fused += 1
                        continue
            equal.learn(s)
            out.append(s)
        return out

    def movable_tail(self, out, equal):
        """k when `out` ends with a nest and k host statements that may run before that nest
        instead (see `movable`), else None."""
        k = 0
        while k < len(out) and _fast_nest(out[len(out) - 1 - k]) is None:
            k += 1
        if k == len(out):
            return None
        nest = out[len(out) - 1 - k]
        hosts = out[len(out) - k:]
        checks = any(isinstance(h, ir.If) for h in hosts)
        # (A general version raises only where the checks before it or its fast version do.)
        if checks and not self.quiet(_fast_nest(nest), equal):
            return None
        # Pure expressions read sizes and scalars: the nest changes only its own scalars.
        assigned = set(assigned_names([nest])) | {s.var for s in walk_stmts([nest])
                                                  if isinstance(s, ir.For)}
        touched = _names_in(nest)
        return k if all(self.movable(h, assigned, touched) for h in hosts) else None

    def quiet(self, nest, equal) -> bool:
        """Whether a check may run before `nest` instead of after it: the nest cannot raise
        (but by a check the block made already), so the call raises the check's error either
        way (what the arrays the call writes hold when it raises is not specified:
        docs/supported.md)."""
        return not _may_raise(nest, equal.settled)

    @staticmethod
    def movable(h, assigned, touched) -> bool:
        """A shape check (`if bad: raise`), a new array or a scalar computed from sizes, that
        reads nothing the nest `assigns` and binds no name the nest `touches`."""
        if isinstance(h, ir.If) and not h.orelse and len(h.body) == 1 and \
                isinstance(h.body[0], ir.Raise):
            return _pure(h.test) and not _names(h.test) & assigned
        if isinstance(h, ir.Assign) and isinstance(h.target, ir.Name) and \
                h.target.id not in touched:
            value = h.value
            parts = value.shape if isinstance(value, ir.AllocArray) else [value]
            return (isinstance(value, ir.AllocArray) or isinstance(value.type, ir.Scalar)) \
                and all(_pure(d) and not _names(d) & assigned for d in parts)
        return False

    def pair(self, a: ir.For, b: ir.For, equal=None, written=None) -> tuple:
        """(the fused nest, None) or (None, why not). `written`: the statement of the
        function's body that `b` is (or holds: a fast version fused within itself)."""
        la, lb = chain(a), chain(b)
        outside_b = _names_outside(self.fn.body, written or b)
        if len(la) != len(lb):
            equal = equal or _Equalities()
            a, b = (_demoted(x, min(len(la), len(lb)), y, equal) for x, y in ((a, b), (b, a)))
            if a is None or b is None:
                return None, f"{len(la)} parallel levels against {len(lb)}"
            la, lb = chain(a), chain(b)
        for nest in (a, b):
            why = _unfusable(nest)
            if why:
                return None, why
        names = {y.var: x.var for x, y in zip(la, lb)}
        levels = [x.var for x in la]
        for old, new in names.items():
            if old != new and old in outside_b:
                return None, f"'{old}' is used outside the second nest (its last value)"
        b_names = _names_in(b)
        for x, y in zip(la, lb):
            if x.var in b_names and names.get(x.var) != x.var:
                return None, f"the second nest uses '{x.var}', the first's loop variable"
        b = _rename(b, names)
        lb = chain(b)
        inner_a, inner_b = la[-1].body, lb[-1].body
        assigned_a = set(assigned_names(inner_a))
        assigned_b = set(assigned_names(inner_b))
        equal = equal or _Equalities()
        for x, y in zip(la, lb):
            for ex, ey in ((x.start, y.start), (x.stop, y.stop), (x.step, y.step)):
                if not equal.same(ex, ey):
                    return None, (f"different iteration spaces: {x.var} in "
                                  f"{_range_text(x)} and {_range_text(y)}")
                if not _stable(ex):
                    return None, f"the bounds of '{x.var}' read array elements or call functions"
        # Scalars: what one nest assigns, the other must not read from outside.
        reads_b = _free_reads(inner_b) - set(levels)
        reads_a = _free_reads(inner_a) - set(levels)
        for name in sorted((assigned_a & reads_b) | (assigned_b & reads_a)):
            return None, f"scalar '{name}' is assigned in one nest and read by the other"
        # The second nest's privates get names the first does not use.
        clash = {n: _fresh(f"{n}__f", self.taken) for n in sorted(assigned_b)
                 if n in _names_in(la[0]) and n not in levels}
        if clash:
            inner_b = _rename(inner_b, clash)
            assigned_b = set(assigned_names(inner_b))
        changing = assigned_a | assigned_b | set(levels)

        def invariant(e):
            return _pure(e) and not _names(e) & changing
        lowered = a.lowered and b.lowered
        why = self.dependences(_accesses(inner_a), _accesses(inner_b), levels, invariant,
                               lowered)
        if why:
            return None, why
        fused_inner = dataclasses.replace(la[-1], body=list(inner_a) + list(inner_b))
        fused = fused_inner
        for level in reversed(la[:-1]):
            fused = dataclasses.replace(level, body=[fused])
        lines = list(a.fused or [a.loc[0]]) + list(b.fused or [b.loc[0]])
        self.new_locals.update({new: self.fn.locals.get(old) for old, new in clash.items()})
        return dataclasses.replace(fused, fused=lines, lowered=lowered), None

    def dependences(self, acc_a, acc_b, levels, invariant, lowered=False):
        """None when no write of one nest meets an access of the other at another iteration
        (see the module docstring), else why."""
        for (writer, other, wname, oname) in ((acc_a, acc_b, "first", "second"),
                                              (acc_b, acc_a, "second", "first")):
            for w in writer:
                if not w.write:
                    continue
                for r in other:
                    if self.excluded(w, r, writer, other, levels, invariant, lowered):
                        continue
                    return (f"{w.text()} written by the {wname} nest may be "
                            f"{'accessed' if not r.write else 'written'} as {r.text()} by the "
                            f"{oname} nest in another iteration")
        return None

    def excluded(self, w, r, writer, other, levels, invariant, lowered) -> bool:
        if w.array == r.array:
            return _separated(w.indices, r.indices, levels, invariant)
        if self.distinct(w.array, r.array, lowered):
            return True
        if _simple(r.indices, levels, invariant) and any(
                x.always and x.array == r.array and x.key() == r.key() for x in writer):
            return True
        # R's nest writes R's element at R's iteration (R itself, or an unconditional write).
        r_written = r.write or (_simple(r.indices, levels, invariant) and any(
            x.always and x.write and x.array == r.array and x.key() == r.key() for x in other))
        if _simple(w.indices, levels, invariant) and any(
                x.always and (x.write or r_written) and x.array == w.array
                and x.key() == w.key() for x in other):
            return True
        return False

    def distinct(self, x, y, lowered=False) -> bool:
        """Whether arrays x and y are different memory in every call; between two nests of
        array statements (`lowered`), also two parameters (SPEC section 3 assumes it there)."""
        return ((x in self.fresh and (y in self.fresh or y in self.pure_params))
                or (y in self.fresh and x in self.pure_params)
                or (lowered and x in self.pure_params and y in self.pure_params))


@dataclasses.dataclass
class _Access:
    array: str
    indices: list
    write: bool
    always: bool          # made on every iteration (not under a branch, loop or short circuit)

    def key(self):
        return tuple(ir.format_expr(i) for i in self.indices)

    def text(self):
        return f"{self.array}[{', '.join(self.key())}]"


def _accesses(body) -> list:
    found = []

    def expr(e, always):
        if isinstance(e, ir.Subscript):
            found.append(_Access(e.array.id, e.indices, False, always))
            for i in e.indices:
                expr(i, always)
        elif isinstance(e, ir.IfExp):
            expr(e.test, always)
            expr(e.body, False)
            expr(e.orelse, False)
        elif isinstance(e, ir.BoolOp):
            expr(e.values[0], always)
            for v in e.values[1:]:
                expr(v, False)
        elif dataclasses.is_dataclass(e) and not isinstance(e, (ir.Scalar, ir.Array)):
            for f in dataclasses.fields(e):
                if f.name not in ("type", "loc"):
                    value = getattr(e, f.name)
                    for v in (value if isinstance(value, list) else [value]):
                        if dataclasses.is_dataclass(v):
                            expr(v, always)

    def stmts(body, always):
        for s in body:
            if isinstance(s, (ir.Assign, ir.AugAssign)):
                expr(s.value, always)
                if isinstance(s.target, ir.Subscript):
                    found.append(_Access(s.target.array.id, s.target.indices, True, always))
                    if isinstance(s, ir.AugAssign):
                        found.append(_Access(s.target.array.id, s.target.indices, False,
                                             always))
                    for i in s.target.indices:
                        expr(i, always)
            elif isinstance(s, ir.For):
                for e in (s.start, s.stop, s.step):
                    expr(e, always)
                stmts(s.body, False)
            elif isinstance(s, ir.While):
                expr(s.test, always)
                stmts(s.body, False)
            elif isinstance(s, ir.If):
                expr(s.test, always)
                stmts(s.body, False)
                stmts(s.orelse, False)
            elif isinstance(s, (ir.ExprStmt, ir.Return)) and s.value is not None:
                expr(s.value, always)
    stmts(body, True)
    return found


def _offset_of(index, var, invariant):
    """e's text where `index` is `var`, `var + e`, `e + var` or `var - e` (e invariant)."""
    if isinstance(index, ir.Name) and index.id == var:
        return "0"
    if isinstance(index, ir.BinOp) and index.op in ("+", "-"):
        left, right = index.left, index.right
        if isinstance(left, ir.Name) and left.id == var and invariant(right):
            return ("" if index.op == "+" else "-") + ir.format_expr(right)
        if index.op == "+" and isinstance(right, ir.Name) and right.id == var and invariant(left):
            return ir.format_expr(left)
    return None


def _separated(g, f, levels, invariant) -> bool:
    """Whether two index tuples of one array make distinct iterations touch distinct
    elements: every level variable at one dimension of both with the same invariant offset."""
    if len(g) != len(f):
        return False
    for v in levels:
        if not any(_offset_of(x, v, invariant) is not None
                   and _offset_of(x, v, invariant) == _offset_of(y, v, invariant)
                   for x, y in zip(g, f)):
            return False
    return True


def _simple(indices, levels, invariant) -> bool:
    """Indices of the level variables and invariant names only (the same element in both
    nests at one iteration)."""
    return all(_pure(i) and all(n in levels or invariant(ir.Name(n)) for n in _names(i))
               for i in indices)


def _pure(e) -> bool:
    """An expression of names, constants, shapes and arithmetic (no element, no call)."""
    return not any(isinstance(x, (ir.Subscript, ir.ListItem, ir.ListPop, ir.Call,
                                  ir.CallCompiled, ir.NamedExpr, ir.AllocArray))
                   for x in walk_exprs([e]))


def _demoted(nest, depth, other, equal):
    """`nest` with its parallel levels below `depth` made sequential loops, where `other`
    (of `depth` levels) runs a sequential loop of the same range in each iteration: a
    reduction along a row beside an element-wise statement over the rows' elements, as in
    `e = np.exp(a - a.max(axis=1, keepdims=True))`, does the same work per iteration once
    fused; else None. A nest of `depth` levels is itself."""
    levels = chain(nest)
    if len(levels) == depth:
        return nest
    ranges = [(x.start, x.stop, x.step) for x in walk_stmts(chain(other)[-1].body)
              if isinstance(x, ir.For) and not x.parallel]
    for level in levels[depth:]:
        if not any(all(equal.same(u, v) for u, v in zip((level.start, level.stop, level.step),
                                                        r)) for r in ranges):
            return None

    def sequential(loop):
        body = [sequential(x) if isinstance(x, ir.For) and x.parallel else x
                for x in loop.body]
        return dataclasses.replace(loop, parallel=False, body=body)

    def rebuild(loop, k):
        if k == depth - 1:
            return dataclasses.replace(loop, body=[sequential(loop.body[0])])
        return dataclasses.replace(loop, body=[rebuild(loop.body[0], k + 1)])
    return rebuild(nest, 0)


def _versioned(s) -> bool:
    """An array statement in two versions whose fast one is a nest (lower_arrays)."""
    return (isinstance(s, ir.If) and s.broadcast and len(s.orelse) == 1
            and _is_nest(s.orelse[0]))


def _fast_nest(s):
    """The nest `s` is, or the fast version's of a statement in two versions; else None."""
    if _is_nest(s):
        return s
    return s.orelse[0] if _versioned(s) else None


def _versions(first, second, tests, fused):
    """`fused` (the fast versions of `first` and `second` fused) where every test is false,
    else both statements' general versions (or the nests themselves), one after the other."""
    if not tests:
        return fused
    parts = {}
    for t in tests:
        for part in (t.values if isinstance(t, ir.BoolOp) and t.op == "or" else [t]):
            parts.setdefault(ir.format_expr(part), part)
    test = ir.BoolOp("or", list(parts.values()), (0, 0), ir.Scalar("bool"))
    general = [ir.copy_tree(x) for s in (first, second)
               for x in (s.body if _versioned(s) else [s])]
    return ir.If(test, general, [fused], first.loc, broadcast=True)


def _is_nest(s) -> bool:
    """An outermost prange: a @gpu function's numbered nest, or any other function's prange
    (the fuser does not look inside one)."""
    return isinstance(s, ir.For) and (s.nest_id is not None or s.parallel)


class _Equalities:
    """Sizes a block's checks have proved equal (`if n != m: raise` passed): each size
    stands for its class's first. Only sizes of parameters the function never assigns count
    (no statement can change them)."""

    def __init__(self, stable=()):
        self.stable = set(stable)
        self.root = {}
        self.settled = set()      # the tests of passed checks (false from there on)

    def find(self, text):
        while text in self.root:
            text = self.root[text]
        return text

    def learn(self, s):
        if not (isinstance(s, ir.If) and not s.orelse and len(s.body) == 1
                and isinstance(s.body[0], ir.Raise) and isinstance(s.test, ir.Compare)):
            return
        a, b = s.test.left, s.test.comparators[0]
        if not all(isinstance(x, ir.Const) or (isinstance(x, ir.ArrayAttr) and x.array.id in
                                               self.stable) for x in (a, b)):
            return
        self.settled.add(ir.format_expr(s.test))
        if s.test.ops == ["!="]:
            x, y = self.find(ir.format_expr(a)), self.find(ir.format_expr(b))
            if x != y:
                self.root[y] = x

    def same(self, a, b) -> bool:
        return self.find(ir.format_expr(a)) == self.find(ir.format_expr(b))

    def assuming(self, tests):
        """These equalities and those of the tests `x != y or ...` of statements in two
        versions, false in their fast versions."""
        if not tests:
            return self
        out = copy.deepcopy(self)
        for test in tests:
            parts = [test]
            while parts:
                t = parts.pop()
                if isinstance(t, ir.BoolOp) and t.op == "or":
                    parts += t.values
                elif isinstance(t, ir.Compare) and t.ops == ["!="]:
                    out.learn(ir.If(t, [ir.Raise("ValueError", "")], []))
        return out


# The operators and calls that may raise in compiled code (emitted through a checking helper).
RAISING_OPS = ("//", "%", "**", "<<", ">>")


def _may_raise(nest, settled=()) -> bool:
    """Whether `nest` may raise: a helper that checks its operands, or a `raise` other than
    a check whose test is among the `settled` (false by an earlier check)."""
    for x in walk_exprs([nest]):
        if isinstance(x, ir.BinOp) and x.type is not None and (
                (x.op in RAISING_OPS and x.type.dtype[0] in "iu")
                or (x.op == "/" and ir.is_converted_integer(x.left))):
            return True
        if isinstance(x, ir.Call) and (x.func.startswith("math.") or (
                x.func.startswith("cast:") and x.type.dtype[0] in "iu")):
            return True
    exempt = {id(s.body[0]) for s in walk_stmts([nest]) if isinstance(s, ir.If)
              and s.body and isinstance(s.body[0], ir.Raise)
              and ir.format_expr(s.test) in settled}
    return any(isinstance(s, ir.Raise) and id(s) not in exempt for s in walk_stmts([nest]))


def _unfusable(nest: ir.For):
    if nest.blas:
        return f"the nest at line {nest.loc[0]} is a matrix product (a BLAS call on the CPU)"
    for s in walk_stmts([nest]):
        if isinstance(s, ir.For) and s.reductions:
            return f"the nest at line {nest.loc[0]} has a reduction"
        if isinstance(s, ir.Return):
            return f"the nest at line {nest.loc[0]} returns"
    if escapes(chain(nest)[-1].body):
        return f"the nest at line {nest.loc[0]} leaves an iteration early (break/continue)"
    for e in walk_exprs(nest):
        if isinstance(e, (ir.CallCompiled, ir.AllocArray)):
            return f"the nest at line {nest.loc[0]} calls a compiled function or allocates"
    return None


def _stable(e) -> bool:
    """Bounds the first nest cannot change: no array element, no call of a compiled function."""
    return not any(isinstance(x, (ir.Subscript, ir.CallCompiled, ir.NamedExpr, ir.AllocArray))
                   for x in walk_exprs([e]))



def _names(e) -> set:
    return {x.id for x in walk_exprs([e]) if isinstance(x, ir.Name)}


def _names_in(node) -> set:
    names = {x.id for x in walk_exprs([node]) if isinstance(x, ir.Name)}
    return names | {s.var for s in walk_stmts([node]) if isinstance(s, ir.For)}


def _names_outside(body, nest) -> set:
    """The variables of `body` outside statement `nest`."""
    names = set()
    for s in body:
        if s is nest:
            continue
        if isinstance(s, (ir.For, ir.While, ir.If)):
            for part in ("start", "stop", "step", "test"):
                if hasattr(s, part):
                    names |= _names(getattr(s, part))
            if isinstance(s, ir.For):
                names.add(s.var)
            names |= _names_outside(s.body, nest)
            if isinstance(s, ir.If):
                names |= _names_outside(s.orelse, nest)
        else:
            names |= _names_in(s)
    return names


def _free_reads(body) -> set:
    """Names the body reads before (or without) assigning them in the same iteration: the
    upward-exposed reads, taken simply as every read of a name the body does not assign
    before its first read in statement order."""
    from unpy.typeinfer.reductions import UpwardExposed
    exposed = UpwardExposed()
    exposed.block(list(body), set())
    return set(exposed.exposed)


def _rename(node, names: dict):
    """A copy of `node` with variables renamed (reads, assignments, loop variables)."""
    if not names:
        return node
    if isinstance(node, list):
        return [_rename(x, names) for x in node]
    if not dataclasses.is_dataclass(node) or isinstance(node, (ir.Scalar, ir.Array, type)):
        return node
    changes = {}
    for f in dataclasses.fields(node):
        if f.name in ("type", "loc", "reductions", "fused"):
            continue
        changes[f.name] = _rename(getattr(node, f.name), names)
    out = dataclasses.replace(node, **changes)
    if isinstance(out, ir.Name) and out.id in names:
        out = dataclasses.replace(out, id=names[out.id])
    if isinstance(out, ir.For) and out.var in names:
        out = dataclasses.replace(out, var=names[out.var])
    return out


def _fresh(base, taken) -> str:
    name, n = base, 1
    while name in taken:
        name, n = f"{base}{n}", n + 1
    taken.add(name)
    return name


def _range_text(loop) -> str:
    return (f"range({ir.format_expr(loop.start)}, {ir.format_expr(loop.stop)}, "
            f"{ir.format_expr(loop.step)})")
