"""Lower NumPy on whole arrays to loop nests, once, so that the emitters, the transfer analysis
and the loop optimisations see only loops over elements (SPEC section 3, "NumPy inside compiled
functions").

Each statement that computes an array becomes one loop nest over the result's shape: an
element-wise expression is evaluated element by element, without temporaries (`c = a * b + 1`
is one nest), broadcasting as NumPy does: by rank, `None` and `keepdims` when compiling, and
a length 1 found at run time: a statement whose operands' lengths may differ is made in two
versions, chosen once before its nests from the actual lengths (`versioned`): the nest that
reads each operand at its own index where they are equal, else one that reads a length-1
dimension at index 0 (ValueError, as NumPy raises, where neither length is 1). Slices are
read through their index arithmetic on the sliced array, so `a[1:-1] + a[2:]` reads `a`
itself at `1 + i` and `2 + i`. Reductions (`sum`, `max`, `dot`, ... with or without `axis=`)
become a nest with a reduction variable; matrix products a nest with an inner loop. Outside a
`prange` every nest is a `prange` over all its dimensions, so it runs with OpenMP and, in a
`@unpython.gpu` function, is offered to the device like a written nest; inside a `prange` the
nests are sequential loops of the iteration.

A name bound to a view (`row = a[i, :]`, `t = a.T`) is a `StridedView` of the array (the same
memory); a name bound to a computed array gets a new array, as in NumPy. `a[lo:hi] = e`,
`a += e` and `a[mask] = e` write in place; when `e` reads the written array at other elements
than the one written (`a[1:] = a[:-1]`, `a += a.T`) it is computed into a temporary first, as
NumPy does. Two different arrays are assumed not to overlap in memory unless one is a view
of the other taken in this function (the `prange` promise of SPEC section 3, here for array
statements).

Runs after type inference (it needs every type) and before the prange checks, which then see
the nests' reductions as written ones.
"""
from __future__ import annotations

import contextlib
import copy

from unpy import ir
from unpy.ir import Array, Scalar, format_expr
from unpy.typeinfer.build_ir import (ALLOCATING, BOOL, ELEMENT_CALLS, FUNCTIONS, REDUCING,
                                     Check, add, assemble, binop, call, choose, compare, const,
                                     convert, either, is_float, mul, name, same, scalar_function,
                                     sub, truth)
from unpy.typeinfer.lower_linalg import ARRAY_RESULTS, SIZED_BY_VALUES, LinalgLowering
from unpy.typeinfer.python_calls import CALLS
from unpy.typeinfer.lower_reductions import CUMULATIVE, ReductionLowering
from unpy.typeinfer.lower_sorting import SortLowering
from unpy.typeinfer.array_calls import transposed_axes
from unpy.typeinfer.reductions import assigned_names, reads_of, walk_exprs, walk_stmts
from unpy.typeinfer.types import INT64, PY_INT, ndim_of


# Calls that give a view of their array argument (NumPy writes through them: a.T[0] = 1).
VIEW_CALLS = ("transpose", "flip", "flipud", "fliplr")


# --- the pass --------------------------------------------------------------------------------

class ArrayLowering(ReductionLowering, LinalgLowering, SortLowering):
    def __init__(self, fn: ir.Function, errors):
        self.fn = fn
        self.errors = errors
        self.counter = 0
        self.new_locals = {}
        self.in_prange = 0
        self.in_written_prange = 0      # of those, the function's own (not `sequential`)
        # Statements the current statement needs first; a Check among them guards the rest.
        self.pre = []
        self.loc = fn.loc       # the statement being lowered (its nests' location)
        self.memo = {}          # id(expression) -> its shape, ... (per statement)
        # Per statement: whether it is lowered in its general version (lengths of 1 found at
        # run time broadcast), and, lowering the fast one, the tests that choose the general
        # one (a length differs from the nest's) and the arrays its `bind` allocated.
        self.general = False
        self.versions = {}
        self.allocated = {}
        self.views = {}         # id(View) -> per index: (start, length, step) (per statement)
        self.bindings = {}      # array (or tuple) variable -> the values assigned to it
        for s in walk_stmts(fn.body):
            if isinstance(s, ir.Assign) and isinstance(s.target, ir.Name) and \
                    isinstance(s.value.type, (Array, ir.TupleType)):
                self.bindings.setdefault(s.target.id, []).append(s.value)
        self.memory = shared_memory(self.bindings)   # variable -> those it may share memory with
        self.units_known = {}   # array variable -> its dimensions known to have length 1
        # Array variable assigned once -> (its shape in the fast version, as expressions of
        # constants and of the unassigned parameters, so that nests over `d1 = a * b` and
        # `d2 = d1 + c` have one iteration space; its shape, broadcast at run time).
        self.known_dims = {}
        self.unassigned = {p.name for p in fn.params} - set(assigned_names(fn.body))
        # In the outermost prange being lowered: the names its iterations assign, and what is
        # computed once before it (see `invariant`).
        self.varying = set()
        self.hoisted = []

    def check(self, bad, message, kind="ValueError", values=()):
        """Raise `kind` when `bad` holds, before the rest of the statement runs (before the
        prange, where it holds for every iteration); `values` for the message's `{}`s."""
        (self.hoisted if self.invariant(ir.BoolOp("and", [bad] + list(values), (0, 0), BOOL))
         else self.pre).append(Check(bad, message, kind, values))

    def only_if_iterating(self, item, loop):
        """A check moved before `loop` fails only when the loop runs (as it would inside)."""
        if not isinstance(item, Check):
            return item
        step = loop.step.value if isinstance(loop.step, ir.Const) else None
        if step is None:
            up = ir.BoolOp("and", [compare(">", loop.step, const(0)),
                                   compare("<", loop.start, loop.stop)], (0, 0), BOOL)
            down = ir.BoolOp("and", [compare("<", loop.step, const(0)),
                                     compare(">", loop.start, loop.stop)], (0, 0), BOOL)
            runs = either(up, down)
        else:
            runs = compare("<" if step > 0 else ">", loop.start, loop.stop)
        return Check(ir.BoolOp("and", [runs, item.bad], (0, 0), BOOL), item.message, item.kind,
                     item.values)

    def invariant(self, value) -> bool:
        """Whether `value`, met inside a prange, is the same in every iteration: it reads no
        variable the prange assigns and no array element, and calls nothing. Such shapes,
        slice bounds and checks are computed once before the prange, where the GPU path sees
        them as the call's values (a kernel's loop bounds must be)."""
        if not self.in_written_prange:     # (a nest's body outside one: `pre` comes first)
            return False
        return not any(isinstance(x, (ir.Subscript, ir.CallCompiled, ir.View, ir.ArrayCall,
                                      ir.NamedExpr))
                       or (isinstance(x, ir.Name) and x.id in self.varying)
                       for x in walk_exprs(value))

    def error(self, message, node):
        return self.errors.error(message, node.loc)

    def temp(self, stem, t):
        self.counter += 1
        var = f"__{stem}_{self.counter}"
        self.new_locals[var] = t
        self.varying.add(var)
        return name(var, t)

    def scalar_temp(self, stem, value):
        """A new local holding `value` (computed now, in `pre`)."""
        if isinstance(value, (ir.Const, ir.Name)) or (
                isinstance(value, ir.ArrayAttr) and isinstance(value.array, ir.Name)):
            return value            # read again where used: as cheap as a local
        t = self.temp(stem, Scalar(value.type.dtype, value.type.weak and
                                   value.type.dtype == "int64"))
        if self.invariant(value):
            self.varying.discard(t.id)
            self.hoisted.append(ir.Assign(t, value, value.loc))
        else:
            self.pre.append(ir.Assign(t, value, value.loc))
        return t

    # --- statements --------------------------------------------------------------------------

    def block(self, body):
        out = []
        for s in body:
            if isinstance(s, ir.Return) and s.value is not None and \
                    isinstance(s.value.type, Array) and not isinstance(s.value, ir.Name):
                # `return e` as `t = e; return t`: the statement's nest fuses with those before
                # it in each version (see `versioned`)
                t = self.temp("a", s.value.type)
                out += self.stmt(ir.Assign(t, s.value, s.loc))
                s = ir.Return(t, s.loc)
            out += self.stmt(s)
        return out

    def stmt(self, s):
        saved = (self.pre, self.memo, self.views, self.loc, self.general, self.versions,
                 self.allocated)
        simple = isinstance(s, (ir.Assign, ir.ExprStmt, ir.Return))
        original = copy.deepcopy(s) if simple else None     # lowering rewrites in place
        self.pre, self.memo, self.views, self.loc = [], {}, {}, s.loc
        # The header of a loop or an `if` (seldom an array expression) has its general
        # version only.
        self.general, self.versions, self.allocated = not simple, {}, {}
        known = dict(self.known_dims)
        try:
            work = self.lower(s)
            work = self.pre + work
            if self.versions:
                work = self.versioned(work, original, known)
            # Outside a prange a failed check raises at once (or returns, see the emitters),
            # so the statements after it need no nesting, and stay consecutive for fusion.
            return assemble(work, s.loc, flat=not self.in_prange)
        finally:
            (self.pre, self.memo, self.views, self.loc, self.general, self.versions,
             self.allocated) = saved

    def versioned(self, fast, original, known):
        """The statement whose fast version `fast` assumes that its operands' lengths equal
        its nests' (NumPy's broadcasting of a length 1 known only at run time aside): the
        tests of that, decided once before the nests, choose between `fast` and the general
        version, which broadcasts (ValueError where NumPy raises it). What both need, the
        checks, shapes and the new array assigned, comes first."""
        before, kept, kept_names = [], [], set()
        for item in fast:
            if _host_part(item, kept_names):
                before.append(item)
            else:
                kept.append(item)
                if not isinstance(item, Check):
                    kept_names |= set(assigned_names([item]))
        tests = list(self.versions.values())
        flat = not self.in_prange
        self.pre, self.memo, self.views, self.versions = [], {}, {}, {}
        self.general = True
        if any(set(reads_of(t)) & kept_names for t in tests):
            # The lengths come from what the statement computes (a view of a new array): its
            # general version only, which allocates its own array.
            self.allocated, self.known_dims = {}, known
            general = self.lower(original)
            return self.pre + general
        general = self.lower(original)
        done = {format_expr(x.bad) for x in before if isinstance(x, Check)}
        general = [x for x in self.pre if not (isinstance(x, Check) and
                                               format_expr(x.bad) in done)] + general
        after = []          # what both versions end with (`x = t` of `x = x * y`)
        while kept and general and not isinstance(kept[-1], (Check, ir.For)) and \
                not isinstance(general[-1], Check) and \
                ir.format_stmts([kept[-1]]) == ir.format_stmts([general[-1]]):
            after.insert(0, kept.pop())
            general.pop()
        test = tests[0] if len(tests) == 1 else ir.BoolOp("or", tests, (0, 0), BOOL)
        return before + [ir.If(test, assemble(general, self.loc, flat),
                               assemble(kept, self.loc, flat), self.loc, broadcast=True)] + after

    def lower(self, s):
        if isinstance(s, ir.Assign):
            target = s.target
            if isinstance(target, (ir.View, ir.Masked)):
                return self.store(target, s.value, s.loc)
            if isinstance(target, ir.Name) and isinstance(s.value.type, Array):
                return self.bind(target, s.value, s.loc)
            if isinstance(target, ir.Subscript):
                target.indices = [self.scalar(i) for i in target.indices]
            return [ir.Assign(target, self.scalar(s.value), s.loc)]
        if isinstance(s, ir.For):
            s.start, s.stop, s.step = (self.scalar(x) for x in (s.start, s.stop, s.step))
            outermost = s.parallel and not self.in_prange
            if outermost:
                self.varying = set(assigned_names(s.body)) | {s.var}
                self.hoisted = []
            self.in_prange += s.parallel
            self.in_written_prange += s.parallel
            try:
                s.body = self.block(s.body)
            finally:
                self.in_prange -= s.parallel
                self.in_written_prange -= s.parallel
            if outermost:
                return [self.only_if_iterating(x, s) for x in self.hoisted] + [s]
            return [s]
        if isinstance(s, ir.While):
            test = self.scalar(s.test)
            body = self.block(s.body)
            if not self.pre:
                s.test, s.body = test, body
                return [s]
            # The test needs statements: run them before each evaluation.
            pre, self.pre = self.pre, []
            stop = ir.If(ir.UnaryOp("not", test, s.loc, BOOL), [ir.Break(s.loc)], [], s.loc)
            return [ir.While(const(True, "bool"), assemble(pre + [stop] + body, s.loc), s.loc)]
        if isinstance(s, ir.If):
            s.test = self.scalar(s.test)
            s.body, s.orelse = self.block(s.body), self.block(s.orelse)
            return [s]
        if isinstance(s, ir.Return):
            if s.value is not None:
                s.value = self.materialize(s.value) if isinstance(s.value.type, Array) \
                    else self.scalar(s.value)
            return [s]
        if isinstance(s, ir.ExprStmt):
            if isinstance(s.value, ir.ArrayCall) and s.value.func == "ufunc_at":
                target, value = s.value.args
                return self.store(target, value, s.loc, unbuffered=True)
            if isinstance(s.value, ir.ArrayCall) and "in_place" in s.value.keywords:
                return self.sort_in_place(s.value, s.loc)
            if isinstance(s.value, ir.ArrayCall) and s.value.func == "fill":
                a, v = s.value.args
                view = ir.View(a, [], s.loc, a.type)
                return self.store(view, self.scalar(v), s.loc)
            if isinstance(s.value, ir.ArrayCall) and s.value.type is None and \
                    s.value.func in CALLS:      # np.random.seed(s), np.random.shuffle(a)
                return [ir.ExprStmt(self.draw_call(s.value), s.loc)]
            if isinstance(s.value, ir.Print):
                s.value.args = [self.materialize(a) if isinstance(a.type, Array)
                                else self.scalar(a) for a in s.value.args]
                return [s]
            s.value = self.scalar(s.value)
            return [s]
        return [s]

    # --- scalar expressions with arrays inside -----------------------------------------------

    def scalar(self, e):
        """A scalar expression whose reductions and elements of computed arrays are computed
        first (into `pre`), and whose element-wise NumPy functions are scalar IR."""
        if e is None or isinstance(e, (ir.Const, ir.Name)):
            return e
        if isinstance(e, ir.ArrayCall):
            return self.reduce(e)
        if isinstance(e, ir.View):           # an element of a computed array or of a view
            return self.element(self.materialize(e.array), self.view_index(e, []))
        if isinstance(e, ir.CallCompiled):
            e.args = [self.operand_array(a) if isinstance(a.type, Array) else self.scalar(a)
                      for a in e.args]
            return e
        if isinstance(e, ir.TupleItem):
            e.value = self.scalar(e.value)
            return e
        if isinstance(e, ir.TupleValue):
            e.items = [self.materialize(x) if isinstance(x.type, Array) else self.scalar(x)
                       for x in e.items]
            return e
        if isinstance(e, ir.Call) and e.func.startswith("np.") and e.func[3:] in FUNCTIONS:
            return scalar_function(e.func[3:], [self.scalar(a) for a in e.args], e.type.dtype)
        if isinstance(e.type, Array):
            raise self.error("an array cannot be used here; this needs a scalar", e)
        if isinstance(e, (ir.BoolOp, ir.IfExp)):
            return self.conditional_operands(e)
        for field in e.__dataclass_fields__:
            if field in ("type", "loc", "target"):
                continue
            value = getattr(e, field)
            if isinstance(value, list):
                setattr(e, field, [self.scalar(x) if _is_expr(x) else x for x in value])
            elif _is_expr(value):
                setattr(e, field, self.scalar(value))
        return e

    def conditional_operands(self, e):
        """`a and b`, `a or b`, `b if t else c`: where an operand Python may not evaluate
        computes something first (a draw, a reduction that can raise), it is computed only
        where Python evaluates it, the value kept in a local."""
        first = self.scalar(e.test if isinstance(e, ir.IfExp) else e.values[0])
        later = [self.evaluated_apart(x) for x in
                 ([e.body, e.orelse] if isinstance(e, ir.IfExp) else e.values[1:])]
        if not any(stmts for stmts, _ in later):
            if isinstance(e, ir.IfExp):
                e.test, (e.body, e.orelse) = first, (v for _, v in later)
            else:
                e.values = [first] + [v for _, v in later]
            return e
        t = self.temp("c", e.type)
        if isinstance(e, ir.IfExp):
            (body, b), (orelse, o) = later
            self.pre.append(ir.If(first, body + [ir.Assign(t, b, e.loc)],
                                  orelse + [ir.Assign(t, o, e.loc)], e.loc))
            return t
        rest = []           # `a and b and c`: c only where b is true, b where a is
        for stmts, v in reversed(later):
            rest = stmts + [ir.Assign(t, v, e.loc)] + ([self.when_open(e.op, t, rest)]
                                                       if rest else [])
        self.pre += [ir.Assign(t, first, e.loc), self.when_open(e.op, t, rest)]
        return t

    @staticmethod
    def when_open(op, value, stmts):
        """`stmts` where `value` leaves the answer of `op` open (true for and, false for or)."""
        return ir.If(truth(value), stmts, [], value.loc) if op == "and" else \
            ir.If(truth(value), [], stmts, value.loc)

    def evaluated_apart(self, e):
        """(the statements that compute `e`'s parts, `e` lowered): kept apart from the
        statement's own, for an operand that is evaluated only sometimes."""
        kept = self.pre, self.hoisted, dict(self.memo), dict(self.views)
        self.pre, self.hoisted = [], []
        try:
            value = self.scalar(e)
            return assemble(self.hoisted + self.pre, e.loc, flat=not self.in_prange), value
        finally:     # (what it computed is not there for the rest of the statement)
            self.pre, self.hoisted, self.memo, self.views = kept

    def operand_scalar(self, e):
        """A scalar operand of an array operation, read in its nest; one that reads a list
        (which lives on the host) or calls a compiled function is computed before the
        statement, once, as Python computes it before the operation (a call in the nest
        would run once per element: `h(a)[0] / h(a)[-1]`, h a compiled function returning
        an array and a float, called 1 + len(h(a)[0]) times, or never for an empty array)."""
        value = self.scalar(e)
        if any(isinstance(x, (ir.ListItem, ir.ListLen, ir.ListPop, ir.CallCompiled))
               for x in walk_exprs(value)):
            return self.scalar_temp("s", value)
        return value

    def operand_array(self, e):
        """An array passed to a compiled function: a name (views and computed arrays get
        one)."""
        if isinstance(e, ir.Name):
            return e
        return self.materialize(e)

    # --- names for arrays --------------------------------------------------------------------

    def materialize(self, e):
        """A name holding the array `e` (a view of the same memory, or a new array), once per
        statement."""
        if isinstance(e, ir.Name):
            return e
        key = ("name", id(e))
        if key not in self.memo:
            t = self.temp("a", e.type)
            with self.before_the_statement():
                self.pre += self.bind(t, e, e.loc)
            self.memo[key] = (e, t)
            # A view's name shares its array's memory: a store into that array that reads
            # it through this name copies it first (`o[...] = o[:, 0][:, None] + 1`).
            group = set().union({t.id}, *(self.memory.get(v, {v}) for v in memory_sources(e)))
            for v in group:
                self.memory[v] = group
        return self.memo[key][1]

    def copy(self, e):
        """A new array holding the values of `e` now."""
        t = self.temp("a", Array(e.type.dtype, e.type.ndim))
        shape = self.shape(e)
        # Its dimensions of length 1 are the value's, and broadcast where it is read
        # (`o[...] = o[:, 0][:, None] + 1`).
        self.units_known[t.id] = self.units_of(e)
        self.pre.append(ir.Assign(t, ir.AllocArray("empty", shape, e.type.dtype, e.loc, t.type),
                                  e.loc))
        with self.before_the_statement():
            self.pre += self.compute_into(t, e, shape, e.loc)
        return t

    def bind(self, target, value, loc):
        """`target = value` of an array: a view or the value's own array where NumPy gives
        one, else a new array filled by a nest."""
        if isinstance(value, ir.Name):
            return [ir.Assign(target, value, loc)]
        if isinstance(value, ir.Masked):
            return [ir.Assign(target, self.compacted(value), loc)]
        view = self.as_view(value)
        if view is not None:
            return [ir.Assign(target, view, loc)]
        if isinstance(value, (ir.CallCompiled, ir.TupleItem)):
            return [ir.Assign(target, self.scalar(value), loc)]
        if isinstance(value, ir.AllocArray):
            value.shape = [self.scalar(d) for d in value.shape]
            self.know_dims(target, value.shape, value.shape)
            return [ir.Assign(target, value, loc)]
        if isinstance(value, ir.IfExp):
            value.test = self.scalar(value.test)
            value.body, value.orelse = (self.materialize(x) for x in (value.body, value.orelse))
            return [ir.Assign(target, value, loc)]
        if isinstance(value, ir.ArrayCall) and value.func in SIZED_BY_VALUES:
            return [ir.Assign(target, self.library_value(value), loc)]
        shape = self.shape(value)
        # np.zeros_like & co. are an allocation only; anything else is computed into it.
        fill = ALLOCATING.get(value.func) if isinstance(value, ir.ArrayCall) else None
        if target.id in self.allocated and fill is None:
            # the general version fills the array the statement allocated before its versions
            out = self.allocated[target.id]
            work = []
        else:
            out = target
            if target.id in reads_of(value):
                out = self.temp("a", value.type)
            real = self.real_shape(value)
            self.know_dims(target, shape, real)
            self.allocated[target.id] = out
            work = [ir.Assign(out, ir.AllocArray(fill or "empty", real, value.type.dtype, loc,
                                                 value.type), loc)]
        if fill is None:
            work += self.compute_into(out, value, shape, loc)
        if out.id != target.id:
            work.append(ir.Assign(target, out, loc))
        return work

    def know_dims(self, target, shape, real):
        """Remember the shape of a new array bound to `target`, when `target` is bound only
        here and its fast version's `shape` is made of constants and unassigned parameters'
        shapes; `real`: its shape broadcast at run time (locals of this statement, assigned
        with the array)."""
        if len(self.bindings.get(target.id, [])) != 1 or self.in_prange or self.general:
            return
        for d in shape:
            for x in walk_exprs([d]):
                if isinstance(x, ir.Name) and x.id not in self.unassigned:
                    return
                if not isinstance(x, (ir.Name, ir.Const, ir.ArrayAttr, ir.BinOp, ir.Cast)):
                    return
        self.known_dims[target.id] = (list(shape), list(real))

    def as_view(self, e):
        """The StridedView (or Reshape) that `e` is, when it is one of an array variable;
        else None."""
        if isinstance(e, ir.ArrayCall) and e.func == "asarray" and \
                e.type.dtype == e.args[0].type.dtype:
            return self.as_view(e.args[0]) or (e.args[0] if isinstance(e.args[0], ir.Name)
                                                else None)
        if isinstance(e, ir.View) and not any(map(is_gather, e.indices)):
            base = self.materialize(e.array)
            offsets, axes, lengths, steps = [], [], [], []
            dims = self.view_dims(e, base)
            d = 0
            for index, dim in zip(e.indices, dims):
                if isinstance(index, ir.NewAxis):
                    axes.append(None), lengths.append(const(1)), steps.append(const(0))
                    continue
                start, length, step = dim
                if isinstance(index, ir.Slice):
                    if unit_slice(index):
                        length = self.unit_length(length)
                    axes.append(d), lengths.append(length), steps.append(step)
                elif step is not WRAPPED:
                    start = self.wrapped(start, length, d)
                offsets.append(start)
                d += 1
            for k in range(d, base.type.ndim):
                offsets.append(const(0))
                axes.append(k), lengths.append(self.dim(base, k)), steps.append(const(1))
            return ir.StridedView(base, offsets, axes, lengths, steps, e.loc, e.type)
        if isinstance(e, ir.ArrayCall) and e.func in ("transpose", "flip", "flipud", "fliplr"):
            base = self.materialize(e.args[0])
            n = base.type.ndim
            if e.func == "transpose":
                axes = transposed_axes(e)
                return ir.StridedView(base, [const(0)] * n, list(axes),
                                      [self.dim(base, k) for k in axes],
                                      [const(1)] * n, e.loc, e.type)
            flipped = {"flip": range(n), "flipud": [0], "fliplr": [1]}[e.func]
            # A flipped dimension starts at its last element (at 0 when it has none).
            offsets = [self.scalar_temp("n", call("max", [sub(self.dim(base, k), const(1)),
                                                          const(0)], "int64"))
                       if k in flipped else const(0) for k in range(n)]
            return ir.StridedView(base, offsets, list(range(n)),
                                  [self.dim(base, k) for k in range(n)],
                                  [const(-1) if k in flipped else const(1) for k in range(n)],
                                  e.loc, e.type)
        if isinstance(e, ir.ArrayCall) and e.func in ("reshape", "ravel"):
            base = self.materialize(e.args[0])
            dims = [self.scalar(d) for d in e.args[1:]] if e.func == "reshape" \
                else [const(-1)]
            return ir.Reshape(base, dims, e.loc, e.type)
        return None

    # --- shapes -------------------------------------------------------------------------------

    def dim(self, array_name, k):
        return ir.ArrayAttr(array_name, "shape", k, (0, 0), PY_INT)

    def units_of(self, e):
        """The dimensions of `e` known to have length 1 when compiling."""
        if isinstance(e, ir.Name):
            return self.variable_units(e.id)
        if isinstance(e, ir.View):
            inner = self.units_of(e.array)
            out, d, k = set(), 0, 0
            for index in e.indices:
                if isinstance(index, ir.NewAxis):
                    out.add(k)
                    k += 1
                    continue
                if isinstance(index, ir.Slice):
                    if unit_slice(index) or (d in inner and index.start is None
                                             and index.stop is None):
                        out.add(k)
                    k += 1
                elif is_gather(index) and index is first_gather(e):    # one for them all
                    k += 1
                d += 1
            named = sum(not isinstance(i, ir.NewAxis) for i in e.indices)
            return out | {u - named + k for u in inner if u >= named}
        if isinstance(e, ir.ArrayCall) and e.func in REDUCING and \
                "keepdims" in e.keywords and e.keywords["keepdims"].value:
            axis = e.keywords.get("axis")
            return set(range(e.type.ndim)) if axis is None else {axis.value}
        if isinstance(e, ir.ArrayCall) and e.func == "reshape":
            return {k for k, d in enumerate(e.args[1:]) if self.is_one(d)}
        if isinstance(e, ir.AllocArray):      # np.empty((n, m, 1)): a literal 1 broadcasts
            return {k for k, d in enumerate(e.shape) if self.is_one(d)}
        if isinstance(e, ir.ArrayCall) and e.func in ("transpose",):
            inner = self.units_of(e.args[0])
            return {k for k, d in enumerate(transposed_axes(e)) if d in inner}
        if isinstance(e, ir.Cast) or (isinstance(e, ir.ArrayCall) and e.func in (
                "copy", "asarray", "astype", "flip", "flipud", "fliplr")):
            inner = e.value if isinstance(e, ir.Cast) else e.args[0]
            return self.units_of(inner)
        operands = self.elementwise_operands(e)
        if operands is not None:
            n = e.type.ndim
            out = set(range(n))
            for o in operands:
                if isinstance(o.type, Array):
                    shift = n - o.type.ndim
                    out -= {k for k in range(n) if k >= shift} - {u + shift for u in
                                                                  self.units_of(o)}
            return out
        return set()

    def is_one(self, d) -> bool:
        """Whether a dimension's length is the literal 1, also as an item of a shape tuple
        variable assigned once (`shape = (n, 1)`)."""
        while isinstance(d, ir.Cast):
            d = d.value
        if isinstance(d, ir.TupleItem) and isinstance(d.value, ir.Name):
            values = self.bindings.get(d.value.id, [])
            if len(values) == 1 and isinstance(values[0], ir.TupleValue):
                return self.is_one(values[0].items[d.index])
        return isinstance(d, ir.Const) and d.value == 1

    def variable_units(self, var):
        """The unit dimensions of an array variable: those of its value when it is assigned
        once (a parameter has none)."""
        if var not in self.units_known:
            self.units_known[var] = set()       # while computing: none (a cycle)
            values = self.bindings.get(var, [])
            if len(values) == 1:
                self.units_known[var] = self.units_of(values[0])
        return self.units_known[var]

    def unit_length(self, length):
        """The length 1 of a slice `k:k+1`, which broadcasts as in NumPy; checked, since it
        is 0 in a dimension too short."""
        self.check(compare("!=", length, const(1)),
                   "a slice k:k+1 of a dimension without element k (compiled code reads "
                   "a[k:k+1] as a dimension of length 1, to broadcast it)")
        return const(1)

    def elementwise_operands(self, e):
        if isinstance(e, ir.BinOp):
            return [e.left, e.right]
        if isinstance(e, ir.UnaryOp):
            return [e.operand]
        if isinstance(e, ir.Compare):
            return [e.left] + e.comparators
        if isinstance(e, ir.Call):
            return e.args
        return None

    def shape(self, e):
        """The shape of the array value `e`: int64 expressions that are cheap to evaluate again
        (computed into new locals first where needed). In the fast version, the lengths of
        the first operand where operands' lengths differ at run time (see `broadcast`)."""
        key = (id(e), self.general)
        if key not in self.memo:
            self.memo[key] = (e, self.compute_shape(e))
        return self.memo[key][1]

    def real_shape(self, e):
        """The shape of `e` broadcast as NumPy does at run time (its general version's)."""
        general, self.general = self.general, True
        try:
            return self.shape(e)
        finally:
            self.general = general

    def compute_shape(self, e):
        if isinstance(e, ir.Name):
            if e.id in self.known_dims:
                fast, real = self.known_dims[e.id]
                if self.general:
                    return list(real)
                for f, r in zip(fast, real):
                    if not same(f, r):
                        self.assume(r, f)
                return list(fast)
            return [self.dim(e, k) for k in range(e.type.ndim)]
        if isinstance(e, ir.View):
            base = self.materialize(e.array)
            out = []
            for index, dim in zip(e.indices, self.view_dims(e, base)):
                if isinstance(index, ir.NewAxis):
                    out.append(const(1))
                elif isinstance(index, ir.Slice) and unit_slice(index):
                    out.append(self.unit_length(dim[1]))
                elif isinstance(index, ir.Slice):
                    out.append(dim[1])
                elif is_gather(index) and index is first_gather(e):
                    out.append(self.gathered(e, base)[0])
            named = sum(not isinstance(i, ir.NewAxis) for i in e.indices)
            return out + self.shape(base)[named:]
        if isinstance(e, ir.Cast):
            return self.shape(e.value)
        if isinstance(e, ir.Masked):       # `a[mask]` read: the selected elements, 1-D
            return self.shape(self.compacted(e))
        if isinstance(e, ir.IfExp):
            return self.shape(self.materialize(e))
        if isinstance(e, ir.ArrayCall):
            return self.call_shape(e)
        if isinstance(e, (ir.AllocArray, ir.CallCompiled, ir.StridedView, ir.Reshape,
                          ir.TupleItem)):
            return self.shape(self.materialize(e))
        operands = self.elementwise_operands(e)
        if operands is None:
            raise self.error(f"cannot compute the shape of {type(e).__name__}", e)
        return self.broadcast(e, [o for o in operands if isinstance(o.type, Array)])

    def broadcast(self, e, operands):
        """NumPy's broadcast shape of the operands: by rank and the lengths known to be 1
        when compiling, and at run time where lengths differ: there each must be the result's
        or 1 (ValueError as NumPy's). The fast version takes the first operand's length and
        assumes the others equal to it (see `versioned`)."""
        n = e.type.ndim
        out = []
        for k in range(n):
            lengths = []
            for o in operands:
                shift = n - o.type.ndim
                if k < shift or (k - shift) in self.units_of(o):
                    continue
                length = self.shape(o)[k - shift]
                if not any(same(length, x) for x in lengths):
                    lengths.append(length)
            if not lengths:
                out.append(const(1))
            elif not self.general:
                for length in lengths[1:]:
                    self.assume(length, lengths[0])
                out.append(lengths[0])
            else:
                result = lengths[0]
                for length in lengths[1:]:
                    message, values = shapes_message(
                        "operands could not be broadcast together with shapes",
                        [self.shape(o) for o in operands])
                    self.check(ir.BoolOp("and", [compare("!=", length, result),
                                                 compare("!=", length, const(1)),
                                                 compare("!=", result, const(1))], (0, 0),
                                         BOOL), message, values=values)
                    result = self.scalar_temp("n", choose(compare("==", length, const(1)),
                                                          result, length))
                out.append(result)
        return out

    def assume(self, length, nest_length):
        """The fast version reads an operand of `length` at the nest's index (of
        `nest_length`): the general one runs where they differ."""
        test = compare("!=", length, nest_length)
        self.versions.setdefault(format_expr(test), test)

    def in_place(self, e):
        """`e` itself where it is read element by element where it stands, else a name holding
        it (`materialize`)."""
        return e if self.readable(e) else self.materialize(e)

    def readable(self, e):
        """Whether `e` is read element by element where it stands (no array needed)."""
        if isinstance(e, ir.Name):
            return True
        if isinstance(e, ir.View):
            return self.readable(e.array)
        if isinstance(e, ir.Cast):
            return self.readable(e.value)
        if isinstance(e, ir.ArrayCall):
            return e.func in ELEMENT_CALLS and all(
                self.readable(a) for a in e.args if _is_expr(a) and isinstance(a.type, Array))
        operands = self.elementwise_operands(e)
        return operands is not None and all(self.readable(o) for o in operands
                                            if isinstance(o.type, Array))

    def call_shape(self, e):
        f = e.func
        if f in ELEMENT_CALLS and f not in ("arange", "linspace", "eye", "identity", "full",
                                           "outer"):
            if f == "transpose":
                shape = self.shape(e.args[0])
                return [shape[d] for d in transposed_axes(e)]
            if f == "concatenate":
                return self.joined_shape(e)
            if f in ("triu", "tril", "roll"):
                return self.shape(e.args[0])
            if f == "diag":
                return self.diagonal_shape(e)
            if f == "take_along_axis":
                return self.along_axis_parts(e)[0]
            if f == "average":
                return self.shape(self.weighted_average(e))
            if f == "cross":
                return self.cross_parts(e)[0]
            if f == "gradient":
                derivative, array = e.args
                axis, order = e.keywords["axis"].value, e.keywords["edge_order"].value
                self.check(compare("<", self.shape(array)[axis], const(order + 1)),
                           "Shape of array too small to calculate a numerical gradient, at "
                           "least (edge_order + 1) elements are required.")
                return self.shape(derivative)
            if f == "pad":
                return self.padded_shape(e)
            if f == "diff":
                shape = list(self.shape(e.args[0]))
                axis = e.keywords["axis"].value
                shape[axis] = self.scalar_temp("n", call("max", [sub(shape[axis], const(1)),
                                                                 const(0)], "int64"))
                return shape
            if f in ("zeros_like", "ones_like", "empty_like", "full_like", "copy", "asarray",
                     "astype", "flip", "flipud", "fliplr"):
                return self.shape(e.args[0])
        if f in ("sort", "argsort"):
            return self.shape(e.args[0])
        if f in ("quantile", "percentile"):     # along an axis: the rows' quantiles
            shape = self.shape(e.args[0])[:-1]
            if e.keywords["keepdims"].value:
                shape.insert(e.keywords["axis"].value, const(1))
            return shape
        if f == "bincount":
            return [self.bincount_length(e)]
        if f == "convolve":
            return [self.convolution_parts(e)[0]]
        if f == "einsum":
            _, _, out, sizes = self.einsum_parts(e)
            return [sizes[c] for c in out]
        if f == "full":
            # (read element by element where it stands, as in np.pad's blocks, it is never
            # allocated: NumPy's ValueError for a negative length is checked here)
            dims = [self.scalar_temp("n", self.scalar(d)) for d in e.args[0]]
            for d in dims:
                self.check(compare("<", d, const(0)), "negative dimensions are not allowed")
            return dims
        if f == "outer":
            return [self.size(e.args[0]), self.size(e.args[1])]
        if f == "eye" or f == "identity":
            n = self.scalar_temp("n", self.scalar(e.args[0]))
            return [n, n]
        if f == "arange":
            return [self.arange_parts(e)[2]]
        if f == "linspace":
            return [self.linspace_parts(e)[2]]
        if f == "array_literal":
            return [const(n) for n in e.keywords["shape"].value]
        if f in CUMULATIVE and (e.keywords["axis"].value is not None or f in ("cummax",
                                                                             "cummin")):
            return self.shape(e.args[0])
        if f in ("ravel", "copy_ravel") or f in CUMULATIVE:
            return [self.size(e.args[0])]
        if f in REDUCING:
            shape = self.shape(e.args[0])
            if "axis" not in e.keywords:
                return [const(1)] * e.type.ndim
            axis = e.keywords["axis"].value
            keep = "keepdims" in e.keywords and e.keywords["keepdims"].value
            return [const(1) if k == axis else d for k, d in enumerate(shape)
                    if k != axis or keep]
        if f in ARRAY_RESULTS:
            return self.library_shape(e)
        if f in ("dot", "matmul"):
            a, b = self.shape(e.args[0]), self.shape(e.args[1])
            return a[:-1] + b[:-2] + b[-1:] if b[1:] else a[:-1]
        return self.shape(self.materialize(e))

    def size(self, e):
        total = const(1)
        for d in self.shape(e):
            total = mul(total, d)
        return self.scalar_temp("n", total)

    # --- views: slices as index arithmetic ----------------------------------------------------

    def view_dims(self, e, base):
        """Per index of the view `e` of `base`: (first index, length, step) in `base`'s
        dimension (None for NewAxis): Python's slice rules, computed once."""
        key = id(e)
        if key in self.views:
            return self.views[key]
        dims, d = [], 0
        for index in e.indices:
            if isinstance(index, ir.NewAxis):
                dims.append(None)
                continue
            n = self.dim(base, d) if isinstance(base, ir.Name) else self.shape(base)[d]
            if isinstance(index, ir.Slice):
                dims.append(self.slice_dim(index, n))
            elif is_gather(index):      # the index array, read per element
                dims.append((self.materialize(index), n, None))
            elif self.in_prange:    # read as written: an element access wraps and checks it
                dims.append((self.scalar(index), n, None))
            else:
                # ... but outside prange bodies (findings.md item 9) wrapped and checked once
                # before the statement: a view of no element has no access to check it, and
                # accesses in range need no run-time index proof, which would copy the
                # statement's nest (unpy/loopopt/index_proof)
                dims.append((self.wrapped(self.scalar(index), n, d), n, WRAPPED))
            d += 1
        self.views[key] = dims
        return dims

    def wrapped(self, index, n, d):
        """An integer index of a view: negative counts from the end; IndexError outside, in
        NumPy's words."""
        index = self.scalar_temp("i", index)
        self.check(either(compare("<", index, ir.UnaryOp("-", n, (0, 0), INT64)),
                          compare(">=", index, n)),
                   f"index {{}} is out of bounds for axis {d} with size {{}}", "IndexError",
                   [index, n])
        if isinstance(index, ir.Const) and index.value >= 0:
            return index
        return self.scalar_temp("i", choose(compare("<", index, const(0)), add(index, n), index))

    def slice_dim(self, s, n):
        """(start, length, step) of the slice `s` over a dimension of length `n`: Python's
        `slice.indices` as IR, folded for the usual literal forms; once per statement for
        each slice and length."""
        key = ("slice", format_expr(s), format_expr(n))
        if key not in self.memo:
            self.memo[key] = (s, self.compute_slice(s, n))
        return self.memo[key][1]

    def compute_slice(self, s, n):
        step = self.scalar(s.step) if s.step is not None else const(1)
        if not isinstance(step, ir.Const):
            raise self.error("a slice step must be an integer literal in compiled code (e.g. "
                             "a[::2], a[::-1])", s.step)
        k = step.value
        if k == 0:
            raise self.error("slice step cannot be zero", s.step)
        start = self.scalar(s.start) if s.start is not None else None
        stop = self.scalar(s.stop) if s.stop is not None else None

        def clamp(x, low, high):
            """Python's normalisation of a slice bound: negative counts from the end, then
            clamped into [low, high]."""
            if isinstance(x, ir.Const) and x.value >= 0:
                return call("min", [x, high], "int64") if not same(x, low) else low
            x = self.scalar_temp("s", x)
            if isinstance(x, ir.Const):          # negative literal
                x = add(n, x)
                return call("max", [x, low], "int64")
            x = choose(compare("<", x, const(0)), add(x, n), x)
            return call("max", [call("min", [x, high], "int64"), low], "int64")

        if k > 0:
            first = const(0) if start is None else self.scalar_temp("s", clamp(start, const(0), n))
            end = n if stop is None else self.scalar_temp("s", clamp(stop, const(0), n))
            span = sub(end, first)
            length = span if k == 1 else binop("//", add(span, const(k - 1)), const(k))
            length = call("max", [length, const(0)], "int64") if not (
                start is None and stop is None) else length
        else:
            last = sub(n, const(1))
            first = last if start is None else self.scalar_temp("s", clamp(start, const(-1),
                                                                          last))
            end = const(-1) if stop is None else self.scalar_temp("s", clamp(stop, const(-1),
                                                                            last))
            span = sub(first, end)
            length = call("max", [binop("//", add(span, const(-k - 1)), const(-k)), const(0)],
                          "int64")
        return first, self.scalar_temp("n", length), step

    def view_index(self, e, idx):
        """The index in the array `e.array` of the view `e`'s element at `idx`."""
        dims = self.view_dims(e, self.materialize(e.array))
        out, k = [], 0
        for index, dim in zip(e.indices, dims):
            if isinstance(index, ir.NewAxis):
                k += 1
                continue
            start, length, step = dim
            if isinstance(index, ir.Slice):
                out.append(add(start, mul(idx[k], step)))
                k += 1
            elif is_gather(index):      # the user's index, read from the index array
                stretched = self.gathered(e, self.materialize(e.array))[1][id(index)]
                at = idx[k] if stretched is None else mul(idx[k], stretched)
                out.append(convert(self.element(start, [at]), "int64"))
                k += index is last_gather(e)
            else:
                out.append(start)
        return out + list(idx[k:])

    def gathered(self, e, base):
        """(length, {id of an index array: None, or a 0/1 int64 that multiplies the position
        read in it}) of the index arrays of the view `e`: NumPy broadcasts them together into
        one dimension, a length 1 stretching (IndexError where lengths differ otherwise)."""
        key = ("gather", id(e))
        if key not in self.memo:
            arrays = [dim[0] for index, dim in zip(e.indices, self.view_dims(e, base))
                      if is_gather(index)]
            lengths = [self.shape(a)[0] for a in arrays]
            stretch = {id(index): None for index in e.indices if is_gather(index)}
            length = lengths[0]
            if len(arrays) > 1:
                for n in lengths[1:]:
                    message, values = shapes_message("shape mismatch: indexing arrays could not "
                                                     "be broadcast together with shapes",
                                                     [[length], [n]])
                    self.check(ir.BoolOp("and", [compare("!=", length, n),
                                                 compare("!=", length, const(1)),
                                                 compare("!=", n, const(1))], (0, 0), BOOL),
                               message + " ", "IndexError", values)
                    length = self.scalar_temp("n", choose(compare("==", length, const(1)), n,
                                                          length))
                gathers = [index for index in e.indices if is_gather(index)]
                for index, n in zip(gathers, lengths):
                    stretch[id(index)] = self.scalar_temp(
                        "b", convert(compare("!=", n, const(1)), "int64"))
            self.memo[key] = (e, (length, stretch))
        return self.memo[key][1]

    # --- elements -----------------------------------------------------------------------------

    def element(self, e, idx):
        """The scalar expression of element `idx` (one int64 expression per dimension) of
        the array value `e`."""
        if isinstance(e, ir.Name):
            generated = list(range(len(idx)))
            return ir.Subscript(e, list(idx), (0, 0), Scalar(e.type.dtype), generated)
        if isinstance(e, ir.View):
            inner = self.view_index(e, idx)
            value = self.element(self.materialize(e.array), inner)
            if isinstance(value, ir.Subscript) and isinstance(value.array, ir.Name):
                # The integer indices of the view are the user's: wrapped and checked by the
                # access, unless they were once before the statement (`view_dims`).
                dims = self.view_dims(e, self.materialize(e.array))
                value.in_range = [k for k in value.in_range if k < len(inner) and
                                  not _user_index(e, dims, k)]
            return value
        if isinstance(e, ir.Cast):
            return convert(self.element(e.value, idx), e.type.dtype)
        if isinstance(e, ir.Masked):
            return self.element(self.compacted(e), idx)
        if isinstance(e, ir.ArrayCall) and e.func in ELEMENT_CALLS:
            return self.call_element(e, idx)
        operands = self.elementwise_operands(e)
        if operands is None:
            return self.element(self.materialize(e), idx)
        n = e.type.ndim
        lengths = self.shape(e) if self.general else None
        values = [self.broadcast_element(o, idx, n, lengths) for o in operands]
        if isinstance(e, ir.BinOp):
            if e.op == "**" and _is_two(e.right):
                # NumPy's array power squares for the exponent 2 (np.square): one product.
                # (a copy: one node in two places would be proved in range in neither)
                return binop("*", values[0], copy.deepcopy(values[0]), e.type.dtype)
            return ir.BinOp(e.op, values[0], values[1], e.loc, Scalar(e.type.dtype))
        if isinstance(e, ir.UnaryOp):
            return ir.UnaryOp(e.op, values[0], e.loc, Scalar(e.type.dtype))
        if isinstance(e, ir.Compare):
            return ir.Compare(values[0], e.ops, values[1:], e.loc, BOOL, e.operand_types)
        func = e.func.split(".")[-1]
        if func in FUNCTIONS:
            return scalar_function(func, values, e.type.dtype)
        return ir.Call(e.func, values, e.loc, Scalar(e.type.dtype))

    def broadcast_element(self, o, idx, n, lengths=None):
        """The element of operand `o` at the index `idx` of a result of `n` dimensions. In
        the general version (`lengths`: the result's), a length that may be 1 where the
        result's is not is read at `i * (length != 1)`: 0 for a length of 1, computed
        once before the nest."""
        if not isinstance(o.type, Array):
            return self.operand_scalar(o)
        shift = n - o.type.ndim
        units = self.units_of(o)
        own = [const(0) if k in units else idx[k + shift] for k in range(o.type.ndim)]
        if lengths is not None:
            shape = self.shape(o)
            for k in range(o.type.ndim):
                if k not in units and not same(shape[k], lengths[k + shift]):
                    stretch = self.scalar_temp("b", convert(compare("!=", shape[k], const(1)),
                                                            "int64"))
                    own[k] = mul(own[k], stretch)
        return self.element(o, own)

    def call_element(self, e, idx):
        f = e.func
        dtype = e.type.dtype
        if f == "concatenate":
            return self.joined_element(e, idx)
        if f == "transpose":
            inner = [None] * len(idx)
            for k, d in enumerate(transposed_axes(e)):
                inner[d] = idx[k]
            return self.element(e.args[0], inner)
        if f in ("copy", "asarray", "astype"):
            return convert(self.element(e.args[0], idx), dtype)
        if f in ("flip", "flipud", "fliplr"):
            shape = self.shape(e.args[0])
            flipped = {"flip": range(len(idx)), "flipud": [0], "fliplr": [1]}[f]
            return self.element(e.args[0], [sub(sub(shape[k], const(1)), i) if k in flipped
                                            else i for k, i in enumerate(idx)])
        if f == "diff":
            axis = e.keywords["axis"].value
            following = [add(i, const(1)) if k == axis else i for k, i in enumerate(idx)]
            later, earlier = self.element(e.args[0], following), self.element(e.args[0], idx)
            if dtype == "bool":         # NumPy's diff of booleans is `!=`
                return compare("!=", later, earlier)
            return binop("-", convert(later, dtype), convert(earlier, dtype), dtype)
        if f == "roll":
            return self.rolled_element(e, idx)
        if f == "pad":
            return self.padded_element(e, idx)
        if f == "take_along_axis":
            return self.along_axis_element(e, idx)
        if f == "average":
            return self.element(self.weighted_average(e), idx)
        if f == "cross":
            return self.cross_element(e, idx)
        if f == "gradient":
            return self.element(e.args[0], idx)
        if f == "diag":
            k, a = e.keywords["k"].value, e.args[0]
            row, column = (const(0), const(k)) if k >= 0 else (const(-k), const(0))
            if a.type.ndim == 2:    # the diagonal of a matrix
                return self.element(a, [add(idx[0], row), add(idx[0], column)])
            on = compare("==", sub(idx[1], idx[0]), const(k))
            return choose(on, self.element(a, [sub(idx[0], row)]), convert(const(0), dtype))
        if f in ("zeros_like", "ones_like", "empty_like"):
            return const(0 if f != "ones_like" else 1, "int64") if dtype[0] in "iu" else \
                convert(const(f == "ones_like", "bool"), dtype)
        if f in ("full_like", "full"):
            return convert(self.operand_scalar(e.args[1]), dtype)
        if f == "outer":
            a, b = (self.flat_element(x, i) for x, i in zip(e.args, idx))
            return binop("*", convert(a, dtype), convert(b, dtype), dtype)
        if f == "eye" or f == "identity":
            return convert(compare("==", idx[0], idx[1]), dtype)
        if f in ("triu", "tril"):
            # kept where j - i >= k (triu) or j - i <= k (tril), of the last two dimensions
            k = self.scalar_temp("k", convert(self.scalar(e.args[1]), "int64"))
            kept = compare(">=" if f == "triu" else "<=", sub(idx[-1], idx[-2]), k)
            return choose(kept, self.element(e.args[0], idx), convert(const(0), dtype))
        if f == "arange":
            start, step, _ = self.arange_parts(e)
            ctype = "float64" if dtype[0] == "f" or is_float(start.type) or \
                is_float(step.type) else "int64"
            return convert(binop("+", convert(start, ctype),
                                 binop("*", convert(idx[0], ctype), convert(step, ctype)),
                                 ctype), dtype)
        if f == "linspace":
            start, step, num, stop = self.linspace_parts(e)
            value = binop("+", start, binop("*", convert(idx[0], "float64"), step))
            if stop is not None:
                value = choose(compare("==", idx[0], sub(num, const(1))), stop, value)
            return convert(value, dtype)
        raise self.error(f"np.{f}() cannot be read element by element", e)

    def diagonal_shape(self, e):
        """np.diag(v, k): (n + |k|, n + |k|); np.diag(a, k): the diagonal's length, 0 when
        it lies outside the matrix."""
        k, shape = e.keywords["k"].value, self.shape(e.args[0])
        if len(shape) == 1:
            n = self.scalar_temp("n", add(shape[0], const(abs(k))))
            return [n, n]
        rows, columns = (shape[0], sub(shape[1], const(k))) if k >= 0 else \
            (add(shape[0], const(k)), shape[1])
        return [self.scalar_temp("n", call("max", [call("min", [rows, columns], "int64"),
                                                  const(0)], "int64"))]

    def rolled_element(self, e, idx):
        """Element `idx` of np.roll(a, shift, axis): `a`'s element `shift` places before it
        along the axis (in C order over all of `a` without one), wrapping around."""
        a, axis = e.args[0], e.keywords["axis"].value
        if axis is None:
            shape = self.shape(a)
            flat = idx[0]
            for k in range(1, len(idx)):
                flat = add(mul(flat, shape[k]), idx[k])
            return self.flat_element(a, self.wrapped_back(e, flat, self.size(a)))
        own = list(idx)
        own[axis] = self.wrapped_back(e, idx[axis], self.shape(a)[axis])
        return self.element(a, own)

    def wrapped_back(self, e, i, n):
        """`(i - shift) mod n` for `i` in [0, n): the shift reduced into [0, n) once per
        statement (Python's %; n of 0 has no elements to read), then one compare."""
        key = ("roll", id(e))
        if key not in self.memo:
            shift = convert(self.scalar(e.args[1]), "int64")
            self.memo[key] = (e, self.scalar_temp(
                "r", binop("%", shift, call("max", [n, const(1)], "int64"), "int64")))
        back = sub(i, self.memo[key][1])
        return choose(compare("<", back, const(0)), add(back, n), back)

    def pad_widths(self, e):
        """(before, after) of np.pad's ArrayCall along its axis (a mode other than 'constant'),
        evaluated once per statement."""
        key = ("pad", id(e))
        if key not in self.memo:
            self.memo[key] = (e, tuple(self.scalar_temp("w", convert(self.scalar(
                e.keywords[side]), "int64")) for side in ("before", "after")))
        return self.memo[key][1]

    def padded_shape(self, e):
        """The shape of np.pad's ArrayCall: the array's, the widths added along the axis;
        NumPy's ValueErrors for a negative width and for an empty axis to pad."""
        shape = list(self.shape(e.args[0]))
        axis = e.keywords["axis"].value
        before, after = self.pad_widths(e)
        self.check(either(compare("<", before, const(0)), compare("<", after, const(0))),
                   "index can't contain negative values")
        self.check(ir.BoolOp("and", [compare("==", shape[axis], const(0)),
                                     either(compare("!=", before, const(0)),
                                            compare("!=", after, const(0)))], (0, 0), BOOL),
                   f"can't extend empty axis {axis} using modes other than 'constant' or "
                   f"'empty'")
        shape[axis] = self.scalar_temp("n", add(add(shape[axis], before), after))
        return shape

    def padded_element(self, e, idx):
        """Element `idx` of np.pad's ArrayCall: the array's element its mode maps the index
        along the axis to, `j` counted from the array's start (negative in the border before
        it), `n` the array's length there (not 0: padded_shape checks it):
        'edge' `j` clamped into [0, n); 'wrap' `j mod n`; 'reflect' `j mod p` for the period
        `p = 2n - 2` (1 where n is 1), mirrored back where it is n or more (`p - m`);
        'symmetric' likewise with `p = 2n`, the edge repeated (`p - 1 - m`). These equal
        NumPy's results for any width, which NumPy builds by copying the border again and
        again."""
        a, axis, mode = e.args[0], e.keywords["axis"].value, e.keywords["mode"].value
        n = self.shape(a)[axis]
        j = sub(idx[axis], self.pad_widths(e)[0])
        if mode == "edge":
            mapped = call("min", [call("max", [j, const(0)], "int64"), sub(n, const(1))],
                          "int64")
        elif mode == "wrap":
            mapped = binop("%", j, n, "int64")
        else:
            if mode == "reflect":
                period = self.scalar_temp("p", call("max", [sub(mul(const(2), n), const(2)),
                                                            const(1)], "int64"))
                back = period
            else:
                period = self.scalar_temp("p", mul(const(2), n))
                back = sub(period, const(1))
            m = binop("%", j, period, "int64")
            mapped = choose(compare("<", m, n), copy.deepcopy(m), sub(back, copy.deepcopy(m)))
        own = list(idx)
        own[axis] = mapped
        return self.element(a, own)

    def joined_shape(self, e):
        """np.concatenate's shape: the first array's, with the lengths along the axis added;
        the other lengths must agree (ValueError as NumPy's)."""
        axis = e.keywords["axis"].value
        shapes = [self.shape(p) for p in e.args]
        for shape in shapes[1:]:
            for k, (a, b) in enumerate(zip(shapes[0], shape)):
                if k != axis:
                    self.check(compare("!=", a, b), "all the input array dimensions except for "
                               "the concatenation axis must match exactly")
        total = shapes[0][axis]
        for shape in shapes[1:]:
            total = add(total, shape[axis])
        return [self.scalar_temp("n", total) if k == axis else d
                for k, d in enumerate(shapes[0])]

    def joined_element(self, e, idx):
        """Element `idx` of np.concatenate: the piece whose stretch of the axis holds it."""
        axis = e.keywords["axis"].value
        dtype = e.type.dtype
        starts, start = [], const(0)
        for p in e.args[:-1]:
            starts.append(start)
            start = self.scalar_temp("n", add(start, self.shape(p)[axis]))
        starts.append(start)
        # Built from the last piece back: idx < start of piece k+1 ? piece k : (the rest).
        value = None
        for k in reversed(range(len(e.args))):
            own = list(idx)
            own[axis] = sub(idx[axis], starts[k])
            element = convert(self.element(e.args[k], own), dtype)
            value = element if value is None else choose(
                compare("<", idx[axis], starts[k + 1]), element, value)
        return value

    def flat_element(self, e, k):
        """Element `k` of `e` in C order (np.outer and ravel flatten their arguments)."""
        if e.type.ndim == 1:
            return self.element(e, [k])
        shape = self.shape(e)
        idx, rest = [], k
        for d in reversed(range(len(shape))):
            idx.append(binop("%", rest, shape[d]) if d else rest)
            rest = binop("//", rest, shape[d])
        return self.element(e, idx[::-1])

    def arange_parts(self, e):
        key = ("arange", id(e))
        if key not in self.memo:
            args = [self.scalar(a) for a in e.args]
            if len(args) == 1:
                start, stop, step = const(0), args[0], const(1)
            else:
                start, stop, step = (args + [const(1)])[:3]
            ints = all(a.type.dtype[0] in "iub" for a in (start, stop, step))
            if ints:
                start, stop, step = (self.scalar_temp("s", convert(x, "int64"))
                                     for x in (start, stop, step))
                if not isinstance(step, ir.Const):
                    self.check(compare("==", step, const(0)),
                               "np.arange(): the step must not be zero")
                    length = call("max", [choose(
                        compare(">", step, const(0)),
                        binop("//", add(sub(stop, start), sub(step, const(1))), step),
                        binop("//", add(sub(stop, start), add(step, const(1))), step)),
                        const(0)], "int64")
                else:
                    k = step.value
                    if k == 0:
                        raise self.error("np.arange(): the step must not be zero", e)
                    adjust = const(k - 1) if k > 0 else const(k + 1)
                    length = call("max", [binop("//", add(sub(stop, start), adjust), step),
                                          const(0)], "int64")
            else:
                start, stop, step = (self.scalar_temp("s", convert(x, "float64"))
                                     for x in (start, stop, step))
                length = call("max", [call("math.ceil", [binop("/", binop("-", stop, start),
                                                              step)], "int64"), const(0)],
                              "int64")
            self.memo[key] = (e, (start, step, self.scalar_temp("n", length)))
        return self.memo[key][1]

    def linspace_parts(self, e):
        key = ("linspace", id(e))
        if key not in self.memo:
            start, stop, num = (self.scalar(a) for a in e.args)
            endpoint = e.keywords.get("endpoint")
            endpoint = True if endpoint is None else endpoint.value
            start = self.scalar_temp("s", convert(start, "float64"))
            stop = self.scalar_temp("s", convert(stop, "float64"))
            num = self.scalar_temp("n", convert(num, "int64"))
            self.check(compare("<", num, const(0)),
                       "np.linspace(): the number of samples must be non-negative")
            div = sub(num, const(1)) if endpoint else num
            div = call("max", [div, const(1)], "int64")
            step = self.scalar_temp("s", binop("/", binop("-", stop, start),
                                               convert(div, "float64")))
            self.memo[key] = (e, (start, step, num, stop if endpoint else None))
        return self.memo[key][1]

    # --- nests --------------------------------------------------------------------------------

    def nest(self, shape, body_of):
        """A loop nest over `shape` (prange levels outside a prange, else range) whose body
        is `body_of(index expressions)`."""
        loops = []
        idx = []
        for d in shape:
            var = self.temp("i", PY_INT)
            idx.append(var)
            loops.append(ir.For(var.id, const(0), d, const(1), [],
                                parallel=not self.in_prange, loc=self.loc, lowered=True))
        body = assemble(body_of(idx), (0, 0))
        if not loops:
            return body
        for outer, inner in zip(loops, loops[1:]):
            outer.body = [inner]
        loops[-1].body = body
        return [loops[0]]

    def compute_into(self, out, value, shape, loc):
        """Statements that fill the new array `out` (of `shape`) with `value`."""
        if isinstance(value, ir.ArrayCall) and value.func not in ELEMENT_CALLS:
            return self.call_into(out, value, shape, loc)
        return self.nest(shape, lambda idx: [ir.Assign(self.element(out, idx),
                                                       self.element(value, idx), loc)])

    def store(self, target, value, loc, unbuffered=False):
        """`a[...] = value`, `a += value`, `a[mask] = value`: in place. `unbuffered`
        (np.add.at & co): through index arrays, each element made in turn from the array as
        it is then (NumPy's ufunc.at; values that read the array elsewhere read it so too)."""
        root = target.array if isinstance(target, ir.Masked) else target
        # Through index arrays (a scatter: a[idx] = v, a[idx] += v): NumPy computes the whole
        # value first, then stores it in order (a repeated index keeps the last value).
        scatter = False
        while isinstance(root, ir.View) or (isinstance(root, ir.ArrayCall) and
                                            root.func in VIEW_CALLS):
            scatter = scatter or (isinstance(root, ir.View) and any(map(is_gather, root.indices)))
            root = root.array if isinstance(root, ir.View) else root.args[0]
        if not isinstance(root, ir.Name):
            raise self.error("this assigns into a computed array, which has no effect; assign "
                             "into a slice of an array variable (or of its view a.T, "
                             "np.flip(a))", target)
        mask = target.mask if isinstance(target, ir.Masked) else None
        written_array = target.array if mask is not None else target

        def reads_elsewhere(e, shape=None) -> bool:
            """Whether `e` reads an element of the written memory at another index than the
            one written (or through another name: a view, which reading `e` may bind): NumPy
            computes it whole first, so a copy is made first."""
            probe = [name(f"__probe{k}", PY_INT) for k in range(len(self.shape(written_array)))]
            written = self.element(written_array, probe)
            reads = self.element_reads(e, probe, shape)
            shared = self.memory.get(root.id, {root.id})
            return any(r.array.id in shared and (scatter or not same(r, written))
                       for r in reads)
        if mask is not None:
            if reads_elsewhere(mask):
                mask = self.copy(mask)
            rows = target.array.type.ndim - mask.type.ndim
            plain = isinstance(value.type, Array) and not any(
                isinstance(x, ir.Masked) for x in walk_exprs(value))
            if plain and rows == 0:
                if reads_elsewhere(value):
                    value = self.copy(value)
                return self.store_selected(target.array, mask, value, loc)
            if plain and value.type.ndim > rows:
                raise self.error("a[mask] = values with a mask of the leading axes takes "
                                 "values of one row (every selected row takes them) or an "
                                 "array masked alike (a[m] = b[m]) in compiled code", value)
            if not plain:
                value = self.unmask(value, mask)
            target = target.array       # written where the mask holds, element by element
        shape = self.shape(target)
        if mask is not None:
            self.check_mask(mask, shape)
        if isinstance(value.type, Array):
            self.check_fits(value, shape)
            if self.general:
                self.read_as(value, shape)
            # What the value needs whole (a product, a reduction) is computed before the nest.
            # np.add.at & co read the array as it is at each element (the value reads the
            # written element through index arrays of its own: the same, computed again).
            if not unbuffered and reads_elsewhere(value, shape):
                value = self.copy(value)
        else:
            value = self.scalar(value)
            if not isinstance(value, (ir.Const, ir.Name)):
                value = self.scalar_temp("v", value)

        def body(idx):
            element = convert(self.broadcast_element(value, idx, len(idx),
                                                     shape if self.general else None),
                              target.type.dtype)
            if mask is not None:
                # `a[i] = v if m[i] else a[i]`: a select, which vectorises where a conditional
                # store does not; the element is the iteration's own (no other writes it). A
                # mask of the leading axes selects rows.
                element = ir.IfExp(truth(self.element(mask, idx[:mask.type.ndim])), element,
                                   self.element(target, idx), loc, element.type)
            return [ir.Assign(self.element(target, idx), element, loc)]

        if scatter:
            with self.sequential():
                return self.nest(shape, body)
        return self.nest(shape, body)

    def store_selected(self, target, mask, value, loc):
        """`a[mask] = values` of a 1-D array of one value per element where the mask holds
        (or of one value): the k-th such element in C order takes values[k], as NumPy assigns
        them (ValueError, NumPy's words, where the lengths differ); a scan, then the stores in
        order (collatz: `n[odd] = np.where(x & 1, 3 * x + 1, x // 2)` of `x = n[odd]`)."""
        if value.type.ndim != 1:
            raise self.error("a[mask] = values takes a 1-D array of values, one per element "
                             "where the mask holds (or an array masked alike: a[m] = b[m])",
                             value)
        shape = self.shape(target)
        self.check_mask(mask, shape)
        values = self.materialize(value)
        length = self.shape(values)[0]
        count, k = self.temp("n", INT64), self.temp("k", INT64)
        holds = lambda idx: truth(self.element(mask, idx))
        self.pre.append(ir.Assign(count, const(0), loc))
        with self.sequential():
            self.pre += self.nest(shape, lambda idx: [ir.If(
                holds(idx), [ir.Assign(count, add(count, const(1)), loc)], [], loc)])
        self.check(ir.BoolOp("and", [compare("!=", length, count),
                                     compare("!=", length, const(1))], (0, 0), BOOL),
                   "NumPy boolean array indexing assignment cannot assign {} input values to "
                   "the {} output values where the mask is true", values=[length, count])
        # (one value: every selected element takes it)
        step = self.scalar_temp("s", convert(compare("!=", length, const(1)), "int64"))
        self.pre.append(ir.Assign(k, const(0), loc))
        with self.sequential():
            return self.nest(shape, lambda idx: [ir.If(holds(idx), [
                ir.Assign(self.element(target, idx), convert(
                    self.element(values, [mul(k, step)]), target.type.dtype), loc),
                ir.Assign(k, add(k, const(1)), loc)], [], loc)])

    def check_mask(self, mask, shape):
        """A boolean mask has the shape of the array it indexes (IndexError as NumPy's)."""
        for k, (length, m) in enumerate(zip(shape, self.shape(mask))):
            if not same(length, m):
                self.check(compare("!=", m, length),
                           f"boolean index did not match the indexed array along axis {k}: "
                           "a mask needs the shape of the array it indexes", "IndexError")

    def compacted(self, e):
        """`a[mask]` read as a value: a new 1-D array of the elements where the mask holds, in
        C order (NumPy's boolean indexing), counted and then filled by scans; once per
        statement."""
        key = ("masked", id(e))
        if key in self.memo:
            return self.memo[key][1]
        shape = self.shape(e.array)
        self.check_mask(e.mask, shape)
        masked, rows = shape[:e.mask.type.ndim], shape[e.mask.type.ndim:]
        count = self.temp("n", INT64)
        out = self.temp("a", Array(e.type.dtype, 1 + len(rows)))
        k = self.temp("k", INT64)
        self.pre.append(ir.Assign(count, const(0), e.loc))

        def copied(idx):        # the row (or element) at idx, as out's k-th
            return self.nest(rows, lambda r: [ir.Assign(
                self.element(out, [k] + list(r)),
                convert(self.element(e.array, list(idx) + list(r)), e.type.dtype), e.loc)]
            ) if rows else [ir.Assign(self.element(out, [k]), convert(
                self.element(e.array, idx), e.type.dtype), e.loc)]
        with self.sequential():
            self.pre += self.nest(masked, lambda idx: [ir.If(
                truth(self.element(e.mask, idx)),
                [ir.Assign(count, add(count, const(1)), e.loc)], [], e.loc)])
            self.pre.append(ir.Assign(out, ir.AllocArray("empty", [count] + list(rows),
                                                         e.type.dtype, e.loc, out.type), e.loc))
            self.pre.append(ir.Assign(k, const(0), e.loc))
            self.pre += self.nest(masked, lambda idx: [ir.If(
                truth(self.element(e.mask, idx)),
                copied(idx) + [ir.Assign(k, add(k, const(1)), e.loc)], [], e.loc)])
        self.memo[key] = (e, out)
        return out

    def unmask(self, value, mask):
        """The value of `a[mask] = value` element by element: `b[mask]` in it is `b`, masked
        alike (NumPy pairs the selected elements in order)."""
        if isinstance(value, ir.Masked):
            if not same(value.mask, mask):
                raise self.error("a masked value must use the same mask as the masked target "
                                 "(a[m] = b[m])", value)
            return value.array
        if isinstance(value.type, Array) and any(isinstance(x, ir.Masked)
                                                 for x in walk_exprs(value)):
            parts = []

            def unmasked(x):
                parts.append(self.unmask(x, mask))
                return parts[-1]
            for field in ("left", "right", "operand"):
                if hasattr(value, field):
                    setattr(value, field, unmasked(getattr(value, field)))
            if hasattr(value, "args"):
                value.args = [unmasked(a) for a in value.args]
            if hasattr(value, "comparators"):
                value.comparators = [unmasked(a) for a in value.comparators]
            if isinstance(value, ir.Cast):
                value.value = unmasked(value.value)
            # `b[m]` (1-D) became `b`: the expression has b's dimensions now.
            value.type = Array(value.type.dtype, ndim_of(parts))
            return value
        if isinstance(value.type, Array):
            raise self.error("a[mask] = values: compiled code assigns a scalar or an array "
                             "masked alike (a[m] = b[m]), not the selected elements of another "
                             "shape; write np.where(m, b, a)", value)
        return value

    def check_fits(self, value, shape):
        """A value stored into a target of `shape` broadcasts to it (ValueError as NumPy's)."""
        vshape = self.shape(value)
        units = self.units_of(value)
        shift = len(shape) - len(vshape)
        for k, length in enumerate(vshape):
            if k in units or same(length, shape[k + shift]):
                continue
            if not self.general:
                self.assume(length, shape[k + shift])
                continue
            message, values = shapes_message("could not broadcast input array from shape",
                                             [vshape, shape])
            self.check(ir.BoolOp("and", [compare("!=", length, shape[k + shift]),
                                         compare("!=", length, const(1))], (0, 0), BOOL),
                       message.replace(") (", ") into shape ("), values=values)

    def read_as(self, e, shape):
        """In the general version, the value `e` of a store, checked to fit the target's
        `shape` (`check_fits`), takes the target's lengths in its element-wise parts: each
        operand is still read at `i * (length != 1)` of its own length, so the elements are
        NumPy's, and an operand that is the target itself (`a += b`, `b` broadcast) is read
        where it is written: an update in place (atomic in a prange), not a copy first."""
        if not isinstance(e.type, Array):
            return
        parts = [e.value] if isinstance(e, ir.Cast) else self.elementwise_operands(e)
        if parts is None:
            return
        self.memo[(id(e), True)] = (e, list(shape[len(shape) - e.type.ndim:]))
        for part in parts:
            self.read_as(part, shape)

    def element_reads(self, value, probe, shape=None):
        """The array elements `value`'s element at the index `probe` (of the target, which
        the value broadcasts to; of `shape`, which the general version reads it as: `read_as`)
        reads. Only looked at: what building it made is forgotten,
        and it is built from a copy of `value` (building an element lowers the scalar
        operands in place: `np.sum(z) % 3` would become `__r % 3` with the statements that
        compute `__r` forgotten)."""
        saved = (self.pre, self.memo, self.views, self.counter, dict(self.new_locals),
                 self.hoisted, set(self.varying), dict(self.versions), dict(self.allocated))
        self.pre, self.memo, self.views = list(self.pre), dict(self.memo), dict(self.views)
        self.hoisted = list(self.hoisted)
        try:
            value = copy.deepcopy(value)
            if shape is not None and self.general:
                self.read_as(value, shape)
            element = self.broadcast_element(value, probe, len(probe))
        finally:
            (self.pre, self.memo, self.views, self.counter, self.new_locals, self.hoisted,
             self.varying, self.versions, self.allocated) = saved
        return [x for x in walk_exprs(element) if isinstance(x, ir.Subscript)]

    @contextlib.contextmanager
    def before_the_statement(self):
        """The loops made meanwhile fill an array before the statement (`pre`): prange levels
        wherever the statement's own are, also while an element inside a sequential loop is
        lowered (`np.sum(a, axis=(1, 2))`'s first stage, read by the second's sequential
        reduction, ran on one thread)."""
        saved, self.in_prange = self.in_prange, self.in_written_prange
        try:
            yield
        finally:
            self.in_prange = saved

    @contextlib.contextmanager
    def sequential(self):
        """The loops made meanwhile are sequential: a scan, or the loop inside an element of a
        nest (reductions along an axis, products)."""
        self.in_prange += 1
        try:
            yield
        finally:
            self.in_prange -= 1


def shapes_message(text, shapes):
    """NumPy's message naming shapes, as `{}`s for their lengths, and those lengths."""
    written = ["(" + ",".join("{}" for _ in shape) + ("," if len(shape) == 1 else "") + ")"
               for shape in shapes]
    return f"{text} {' '.join(written)}", [d for shape in shapes for d in shape]


def _host_part(item, kept_names) -> bool:
    """Whether an item of a statement's fast version may run before its versions: a check,
    a scalar, a new array or a view computed from sizes and scalars (no element, no compiled
    call), reading nothing the kept items assign."""
    if isinstance(item, Check):
        value = [item.bad] + item.values
    elif isinstance(item, ir.Assign) and isinstance(item.target, ir.Name) and (
            isinstance(item.value, (ir.AllocArray, ir.StridedView))
            or isinstance(item.value.type, Scalar)):
        # (a view of a new array too: its memory, whatever the kept items write there)
        value = item.value.shape if isinstance(item.value, ir.AllocArray) else item.value
    else:
        return False
    return not any(isinstance(x, (ir.Subscript, ir.CallCompiled, ir.NamedExpr, ir.View,
                                  ir.ArrayCall, ir.Masked))
                   or (isinstance(x, ir.Name) and x.id in kept_names)
                   for x in walk_exprs(value))


def is_gather(index) -> bool:
    """Whether a view's index is an index array (`x[idx]`: NumPy's advanced indexing)."""
    return not isinstance(index, (ir.Slice, ir.NewAxis)) and isinstance(index.type, Array)


def first_gather(view):
    """The first index array of `view` (they stand side by side: typeinfer refuses others)."""
    return next(index for index in view.indices if is_gather(index))


def last_gather(view):
    return [index for index in view.indices if is_gather(index)][-1]


def unit_slice(s) -> bool:
    """`k:k+1` (or `-1:`) with literals: one element whenever the dimension has it."""
    literal = lambda x: x.value if isinstance(x, ir.Const) and type(x.value) is int else None
    start, stop = literal(s.start), literal(s.stop)
    if s.step is not None and literal(s.step) != 1:
        return False
    if start is None or (s.stop is not None and stop is None):
        return False
    if s.stop is None:
        return start == -1
    return stop == start + 1 and (start >= 0 or stop < 0)


def memory_sources(value) -> set:
    """The array variables whose memory the array `value` may be (a name, a view of one, what
    a compiled function given them returns)."""
    if isinstance(value, ir.Name):
        return {value.id}
    if isinstance(value, (ir.View, ir.StridedView, ir.Reshape, ir.Masked)):
        return memory_sources(value.array)
    if isinstance(value, ir.ArrayCall) and value.func in (
            "transpose", "flip", "flipud", "fliplr", "reshape", "ravel", "asarray"):
        return memory_sources(value.args[0])
    if isinstance(value, ir.IfExp):
        return memory_sources(value.body) | memory_sources(value.orelse)
    if isinstance(value, ir.CallCompiled):
        return set().union(*(memory_sources(a) for a in value.args
                             if isinstance(a.type, Array)))
    if isinstance(value, ir.TupleItem):
        return memory_sources(value.value)
    return set()


def shared_memory(bindings) -> dict:
    """Array variable -> the variables (itself included) whose memory it may share: names
    bound to it, views of it, what a compiled function given it returns. Two different
    parameters are taken as different memory (SPEC section 3's promise)."""
    groups = {}

    def find(x):
        while groups.setdefault(x, x) != x:
            x = groups[x]
        return x

    def union(x, y):
        groups[find(x)] = find(y)

    for var, values in bindings.items():
        for value in values:
            for other in memory_sources(value):
                union(var, other)
    out = {}
    for var in groups:
        out.setdefault(find(var), set()).add(var)
    return {var: out[find(var)] for var in groups}


def _user_index(view, dims, k):
    """Whether dimension `k` of the viewed array is indexed by the user's integer (or index
    array) as written: not wrapped and checked once before the statement."""
    d = 0
    for index, dim in zip(view.indices, dims):
        if isinstance(index, ir.NewAxis):
            continue
        if d == k:
            return not isinstance(index, ir.Slice) and dim[2] is not WRAPPED
        d += 1
    return False


# The step of `view_dims` for an integer index wrapped and checked before the statement.
WRAPPED = "wrapped"


def _is_two(e):
    """The literal 2 (or 2.0), also as converted by typeinfer."""
    while isinstance(e, ir.Cast):
        e = e.value
    return isinstance(e, ir.Const) and not isinstance(e.value, bool) and e.value == 2


def _is_expr(x):
    return isinstance(x, ir.Expr.__args__)


def lower_arrays(fn: ir.Function, errors) -> ir.Function:
    """Lower `fn`'s array statements to loop nests (in place); the new locals are added."""
    lowering = ArrayLowering(fn, errors)
    fn.body = lowering.block(fn.body)
    fn.locals.update(lowering.new_locals)
    return fn
