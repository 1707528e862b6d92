"""np.linalg, np.cov, np.histogram, np.meshgrid, np.polyval, np.searchsorted, np.digitize and
np.interp, and the draws of np.random and Python's random module (python_calls.py) in the
array lowering. A mixin of `ArrayLowering`
(unpy/typeinfer/lower_arrays.py), whose state it shares.

`np.linalg.solve`, `inv`, `cholesky`, `det`, `eigh` (solve, inv, det also of complex matrices)
become a call of the LAPACK NumPy ships
(unpy_runtime.hpp, "LAPACK"): IR `Call('linalg.<name>', [outputs..., inputs...])`, the outputs
new arrays allocated before it (det gives its value). It runs on the host, outside any nest, on
copies of its inputs (LAPACK overwrites them), and raises LinAlgError as NumPy does. `np.cov`
and `np.histogram` become nests: a mean along the rows and a product, and two scans with NumPy's
rule for the bin of a value; `np.meshgrid` a copy per grid, `np.polyval` Horner's loop per value,
`np.searchsorted`, `np.digitize` and `np.interp` a bisection per value.
"""
from __future__ import annotations

import copy
import math

import numpy as np

from unpy import ir
from unpy.ir import Array, Scalar
from unpy.typeinfer.array_calls import cast_array, sample_of
from unpy.typeinfer.python_calls import CALLS, call_shape, python_call
from unpy.typeinfer.build_ir import (BOOL, Check, add, binop, call, choose, compare, const, mul,
                                     convert, either, same, scalar_function, sub, truth)
from unpy.typeinfer.types import PY_INT

# The library calls: how many leading arguments each writes (the rest it only reads).
LIBRARY_OUTPUTS = {"linalg.solve": 1, "linalg.inv": 1, "linalg.cholesky": 1, "linalg.eigh": 2,
                   "linalg.det": 0}
# ArrayCalls lowered here: array results (allocated by the caller, filled by `library_into`)
# and the others (a scalar or a tuple, from `library_value`).
ARRAY_RESULTS = {"solve", "inv", "cholesky", "cov", "interp", "searchsorted", "polyval",
                 "repeat", "tile", "digitize"} | set(CALLS)
# (np.interp, np.searchsorted and np.polyval of a scalar x)
OTHER_RESULTS = {"det", "eigh", "histogram", "interp", "searchsorted", "polyval", "meshgrid",
                 "digitize",
                 "nonzero", "flatnonzero", "argwhere", "unique"} | set(CALLS)
# np.histogram's weights are summed in blocks of this many values (NumPy's BLOCK).
HISTOGRAM_BLOCK = 65536
# Arrays whose length is known only once they are computed (from `library_value`).
SIZED_BY_VALUES = {"flatnonzero", "argwhere", "unique"}
# Their argument whose shape the result has, and the builder of one element's statements.
ELEMENTWISE = {"interp": (0, "interpolation"), "searchsorted": (1, "insertion"),
               "polyval": (1, "polynomial"), "digitize": (0, "digitization")}


def working_dtype(e: ir.ArrayCall) -> str:
    """The dtype LAPACK computes `e` in, as NumPy's _commonType picks it: complex128 for complex
    arguments, float64 for real ones."""
    complex_ = any(np.dtype(a.type.dtype).kind == "c" for a in e.args)
    return "complex128" if complex_ else "float64"


def library_arrays(e: ir.Call) -> tuple:
    """(arrays read, arrays written) by a library call: names."""
    outputs = LIBRARY_OUTPUTS[e.func]
    return [a.id for a in e.args[outputs:]], [a.id for a in e.args[:outputs]]


class LinalgLowering:
    def library_shape(self, e):
        """The shape of an array-valued call of ARRAY_RESULTS."""
        if e.func == "solve":
            return self.shape(e.args[1])
        if e.func == "cov":
            variables = self.shape(e.args[0])[0 if e.keywords["rowvar"].value else 1]
            return [variables, variables]
        if e.func in ELEMENTWISE:
            return self.shape(e.args[ELEMENTWISE[e.func][0]])
        if e.func in ("repeat", "tile"):
            return self.repeated_shape(e)
        if e.func in CALLS:
            dims = call_shape(e)
            return self.shape(e.args[0]) if dims is None else [self.scalar(d) for d in dims]
        # inv, cholesky: the argument's shape, square unless the call raises LinAlgError
        # (which it must before any shape check of the statement could raise).
        return self.shape(e.args[0])

    def library_call(self, e, outputs, loc):
        """The statement calling LAPACK for `e` into the arrays `outputs`."""
        work = working_dtype(e)
        inputs = [self.materialize(cast_array(a, work)) for a in e.args]
        return ir.ExprStmt(ir.Call(f"linalg.{e.func}", outputs + inputs, loc), loc)

    def library_into(self, out, e, loc):
        """Statements filling the new array `out` with `e` (ARRAY_RESULTS)."""
        if e.func == "cov":
            return self.covariance_into(out, e, loc)
        if e.func in ("repeat", "tile"):
            return self.repeated_into(out, e, loc)
        if e.func in CALLS:
            return [ir.ExprStmt(self.draw_call(e, out), loc)]
        if e.func in ELEMENTWISE:
            k, builder = ELEMENTWISE[e.func]
            x = self.in_place(e.args[k])
            at = getattr(self, builder)(e)
            return self.nest(self.shape(x), lambda idx: at(self.element(x, idx), lambda r: [
                ir.Assign(self.element(out, idx), r, loc)]))
        work = working_dtype(e)
        if out.type.dtype == work:
            return [self.library_call(e, [out], loc)]
        wide = self.new_array(Array(work, out.type.ndim), self.library_shape(e), "empty", loc)
        return [self.library_call(e, [wide], loc)] + self.narrowed(wide, out, loc)

    def narrowed(self, wide, out, loc):
        """Statements storing the float64 (complex128) results `wide` into `out` of NumPy's
        result dtype (float32 for float32 arguments, complex64 for complex64: NumPy computes
        them in float64 and complex128 too)."""
        return self.nest(self.shape(wide), lambda idx: [ir.Assign(
            self.element(out, idx), convert(self.element(wide, idx), out.type.dtype), loc)])

    def draw_call(self, e, into=None):
        """The call of draw `e` (filling `into`, else of its value or none): its arguments
        lowered (an array as a name, Python gets it as an ndarray of the same memory)."""
        e.args = [self.materialize(a) if isinstance(a.type, Array) else self.scalar(a)
                  for a in e.args]
        e.keywords = {k: v if k == "size" else self.materialize(v) if isinstance(v.type, Array)
                      else self.scalar(v) for k, v in e.keywords.items()}
        return python_call(e, into)

    def library_value(self, e):
        """The value of `e` (OTHER_RESULTS): a scalar local, or a tuple of new arrays."""
        if e.func in CALLS:
            # once per statement: a mask's scans read its element twice (a[a > draw])
            key = ("drawn", id(e))
            if key not in self.memo:
                self.memo[key] = (e, self.scalar_temp("r", self.draw_call(e)))
            return self.memo[key][1]
        if e.func == "det":
            if self.in_prange:
                self.library_call(e, [], e.loc)     # refused there
            work = working_dtype(e)
            a = self.materialize(cast_array(e.args[0], work))
            value = ir.Call("linalg.det", [a], e.loc, Scalar(work))
            return self.scalar_temp("r", convert(value, e.type.dtype))
        if e.func == "eigh":
            n = self.shape(e.args[0])[0]
            shapes = ([n], [n, n])
            wide = [self.new_array(Array("float64", t.ndim), shape, "empty", e.loc)
                    for t, shape in zip(e.type.items, shapes)]
            self.pre.append(self.library_call(e, wide, e.loc))
            if e.type.items[0].dtype == "float64":
                return ir.TupleValue(wide, e.loc, e.type)
            out = [self.new_array(t, shape, "empty", e.loc)
                   for t, shape in zip(e.type.items, shapes)]
            for w, o in zip(wide, out):
                self.pre += self.narrowed(w, o, e.loc)
            return ir.TupleValue(out, e.loc, e.type)
        if e.func in ELEMENTWISE:
            r = self.temp("r", e.type)
            k, builder = ELEMENTWISE[e.func]
            self.pre += getattr(self, builder)(e)(self.scalar(e.args[k]),
                                                  lambda value: [ir.Assign(r, value, e.loc)])
            return r
        if e.func == "meshgrid":
            return self.grids(e)
        if e.func in ("nonzero", "flatnonzero", "argwhere"):
            return self.indices_where(e)
        if e.func == "unique":
            return self.unique_values(e)
        if isinstance(e.args[1].type, Array):
            return self.histogram_edges_value(e)
        return self.histogram_value(e)

    # --- np.nonzero, np.where(condition), np.flatnonzero, np.argwhere ---------------------

    def indices_where(self, e):
        """The indices of the elements that are true (not zero), in C order as NumPy gives
        them: counted, then written by a second scan. np.nonzero (np.where of one argument):
        one int64 array per axis; np.flatnonzero: the flat indices; np.argwhere: a (count,
        ndim) array."""
        loc = e.loc
        a = self.in_place(e.args[0])
        shape = self.shape(a)
        ndim = len(shape)
        count, k = self.temp("n", Scalar("int64")), self.temp("k", Scalar("int64"))
        holds = lambda idx: truth(self.element(a, idx))
        self.pre.append(ir.Assign(count, const(0), loc))
        with self.sequential():
            self.pre += self.nest(shape, lambda idx: [ir.If(
                holds(idx), [ir.Assign(count, add(count, const(1)), loc)], [], loc)])
        if e.func == "argwhere":
            outs = [self.new_array(e.type, [count, const(ndim)], "empty", loc)]
            writes = lambda idx: [ir.Assign(self.element(outs[0], [k, const(d)]), i, loc)
                                  for d, i in enumerate(idx)]
        elif e.func == "flatnonzero":
            outs = [self.new_array(e.type, [count], "empty", loc)]

            def writes(idx):
                flat = const(0)
                for i, n in zip(idx, shape):
                    flat = add(mul(flat, n), i)
                return [ir.Assign(self.element(outs[0], [k]), flat, loc)]
        else:
            outs = [self.new_array(t, [count], "empty", loc) for t in e.type.items]
            writes = lambda idx: [ir.Assign(self.element(out, [k]), i, loc)
                                  for out, i in zip(outs, idx)]
        self.pre.append(ir.Assign(k, const(0), loc))
        with self.sequential():
            self.pre += self.nest(shape, lambda idx: [ir.If(
                holds(idx), writes(idx) + [ir.Assign(k, add(k, const(1)), loc)], [], loc)])
        return ir.TupleValue(outs, loc, e.type) if e.func == "nonzero" else outs[0]

    # --- np.repeat, np.tile -------------------------------------------------------------------

    def repeat_source(self, e):
        """(the array read: a flattened for np.repeat without an axis, the counts as int64
        locals, checked as NumPy checks them), made once per call."""
        key = ("repeated", id(e))
        if key in self.memo:
            return self.memo[key]
        a = e.args[0]
        if e.func == "repeat" and "axis" not in e.keywords:
            a = ir.ArrayCall("ravel", [a], {}, e.loc, Array(a.type.dtype, 1))
        a = self.in_place(a)
        counts = [e.args[1]] if e.func == "repeat" else e.args[1]
        counts = [self.scalar_temp("r", convert(self.scalar(c), "int64")) for c in counts]
        for c in counts:
            self.check(compare("<", c, const(0)), "negative dimensions are not allowed")
        self.memo[key] = a, counts
        return a, counts

    def repeated_shape(self, e):
        a, counts = self.repeat_source(e)
        shape = self.shape(a)
        if e.func == "repeat":
            k = e.keywords["axis"].value if "axis" in e.keywords else 0
            return [mul(d, counts[0]) if j == k else d for j, d in enumerate(shape)]
        ndim = e.type.ndim
        shape = [const(1)] * (ndim - len(shape)) + shape
        counts = [const(1)] * (ndim - len(counts)) + counts
        return [mul(d, c) for d, c in zip(shape, counts)]

    def repeated_into(self, out, e, loc):
        """np.repeat: element i of the repeated axis reads element i // r; np.tile: element i
        of each axis reads element i % (a's length there), a's axes the last ones."""
        a, counts = self.repeat_source(e)
        shape = self.shape(out)
        lengths = self.shape(a)
        if e.func == "repeat":
            k = e.keywords["axis"].value if "axis" in e.keywords else 0
            source = lambda idx: [binop("//", i, counts[0]) if j == k else i
                                  for j, i in enumerate(idx)]
        else:
            skip = e.type.ndim - a.type.ndim
            source = lambda idx: [binop("%", i, n) for i, n in zip(idx[skip:], lengths)]
        return self.nest(shape, lambda idx: [ir.Assign(self.element(out, idx),
                                                       self.element(a, source(idx)), loc)])

    # --- np.meshgrid, np.polyval --------------------------------------------------------------

    def grids(self, e):
        """np.meshgrid(x1, x2, ..., indexing): new arrays, grid k holding xk along its axis
        (for 'xy' the first two axes swapped, as NumPy's)."""
        inputs = [self.in_place(a) for a in e.args]
        lengths = [self.shape(a)[0] for a in inputs]
        axes = list(range(len(inputs)))
        if e.keywords["indexing"].value == "xy" and len(axes) > 1:
            axes[0], axes[1] = 1, 0
        shape = [lengths[axes.index(d)] for d in range(len(axes))]
        grids = []
        for k, (a, t) in enumerate(zip(inputs, e.type.items)):
            out = self.new_array(t, shape, "empty", e.loc)
            self.pre += self.nest(shape, lambda idx, a=a, out=out, k=k: [ir.Assign(
                self.element(out, idx), self.element(a, [idx[axes[k]]]), e.loc)])
            grids.append(out)
        return ir.TupleValue(grids, e.loc, e.type)

    def polynomial(self, e):
        """np.polyval(p, x) as NumPy computes it: y = np.zeros_like(x), then y = y * x + pv for
        each coefficient pv in turn (the first product in x's dtype, the rest in the promoted
        one); with no coefficient, 0. Returns, for one x, statements handing y to `store`."""
        loc = e.loc
        p, x_ = e.args
        p = self.in_place(p)
        dtype, xtype = e.type.dtype, x_.type.dtype
        n = self.shape(p)[0]

        def evaluate(value, store):
            x, y = self.temp("x", Scalar(xtype)), self.temp("y", Scalar(dtype))
            k = self.temp("k", Scalar("int64"))
            coefficient = lambda i: convert(self.element(p, [i]), dtype)
            step = lambda y0: binop("+", binop("*", y0, convert(x, dtype), dtype),
                                    coefficient(k), dtype)
            first = binop("*", convert(const(0), xtype), x, xtype)
            return [ir.Assign(x, convert(value, xtype), loc),
                    ir.Assign(y, convert(const(0), dtype), loc),
                    ir.If(compare(">", n, const(0)), [
                        ir.Assign(k, const(0), loc),
                        ir.Assign(y, binop("+", convert(first, dtype), coefficient(k), dtype),
                                  loc),
                        ir.Assign(k, const(1), loc),
                        ir.While(compare("<", k, n), [
                            ir.Assign(y, step(y), loc),
                            ir.Assign(k, add(k, const(1)), loc)], loc)], [], loc)] + store(y)
        return evaluate

    # --- np.searchsorted, np.interp ----------------------------------------------------------

    def insertion(self, e):
        """np.searchsorted(a, v, side) as NumPy computes it (npy_binsearch): a and v compared
        in the dtype NumPy promotes them to, by the order np.sort uses (NaN after every
        number), a bisection for the first index whose element is not below v ('left') or is
        above it ('right'); `a` must be sorted (NumPy does not check it either). Returns, for
        one v, statements that hand the index to `store`."""
        loc = e.loc
        a, _ = e.args
        a = self.in_place(a)
        dtype = np.result_type(np.dtype(a.type.dtype), np.dtype(e.args[1].type.dtype)).name
        n = self.shape(a)[0]

        def search(value, store):
            v = self.temp("v", Scalar(dtype))
            lo, steps = self.sorted_position(lambda mid: self.element(a, [mid]), n, v,
                                             e.keywords["side"].value, loc)
            return [ir.Assign(v, convert(value, dtype), loc)] + steps + store(lo)
        return search

    def sorted_position(self, item, n, v, side, loc):
        """(lo, statements): npy_binsearch's index of `v` among the sorted `item(k)` for k in
        [0, n), compared in v's dtype by np.sort's order (NaN after every number): the first
        whose item is not below v ('left') or is above it ('right')."""
        dtype = v.type.dtype
        floats = np.dtype(dtype).kind == "f"

        def below(p, q):        # p < q, NaN the largest (NumPy's sort order)
            less = compare("<", p, q)
            if not floats:
                return less
            return either(less, ir.BoolOp("and", [compare("!=", q, q), compare("==", p, p)],
                                          (0, 0), BOOL))
        at = lambda mid: convert(item(mid), dtype)
        return self.bisection(n, (lambda mid: below(at(mid), v)) if side == "left" else
                              (lambda mid: ir.UnaryOp("not", below(v, at(mid)), (0, 0), BOOL)),
                              loc)

    def digitization(self, e):
        """np.digitize(x, bins, right) as NumPy computes it (numpy/lib/_function_base_impl.py):
        ValueError unless the bins rise or fall (check_array_monotonic of compiled_base.c, in
        float64: equal leading edges skipped, then the first step's direction kept); rising,
        np.searchsorted(bins, x, side) with side 'right' ('left' for right=True); falling,
        len(bins) - np.searchsorted(bins[::-1], x, side). Returns, for one x, statements
        that hand the index to `store`."""
        loc = e.loc
        bins = self.in_place(e.args[1])
        dtype = np.result_type(np.dtype(bins.type.dtype), np.dtype(e.args[0].type.dtype)).name
        n = self.shape(bins)[0]
        falling = self.monotonicity(e, bins, n)

        def search(value, store):
            v = self.temp("v", Scalar(dtype))
            side = e.keywords["side"].value
            up, up_steps = self.sorted_position(lambda k: self.element(bins, [k]), n, v,
                                                side, loc)
            down, down_steps = self.sorted_position(
                lambda k: self.element(bins, [sub(sub(n, const(1)), k)]), n, v, side, loc)
            return [ir.Assign(v, convert(value, dtype), loc),
                    ir.If(falling, down_steps + store(sub(n, down)), up_steps + store(up), loc)]
        return search

    def monotonicity(self, e, bins, n):
        """A bool local: whether the bins fall (check_array_monotonic's -1), computed once per
        statement before its nests; ValueError where they neither rise nor fall."""
        key = ("monotonic", id(e))
        if key not in self.memo:
            loc = e.loc
            f64 = "float64"
            at = lambda k: convert(self.element(bins, [k]), f64)
            i, j = self.temp("k", Scalar("int64")), self.temp("j", PY_INT)
            rises, up, down = (self.temp(stem, BOOL) for stem in ("u", "r", "f"))
            last, step = at(sub(j, const(1))), at(j)
            self.pre += [
                ir.Assign(rises, const(True, "bool"), loc),
                ir.Assign(up, const(False, "bool"), loc),
                ir.Assign(down, const(False, "bool"), loc),
                ir.Assign(i, const(1), loc),
                ir.If(compare(">", n, const(0)), [
                    ir.While(ir.BoolOp("and", [compare("<", i, n),
                                               compare("==", at(i), at(const(0)))], loc, BOOL),
                             [ir.Assign(i, add(i, const(1)), loc)], loc),
                    ir.If(compare("<", i, n), [
                        ir.Assign(rises, compare("<", at(const(0)), at(i)), loc),
                        self.loop(j, add(i, const(1)), n, [
                            ir.Assign(up, either(up, compare(">", last, step)), loc),
                            ir.Assign(down, either(down, compare("<", copy.deepcopy(last),
                                                                 copy.deepcopy(step))), loc)],
                            loc)], [], loc)], [], loc)]
            self.check(choose(rises, up, down), "bins must be monotonically increasing or "
                       "decreasing")
            self.memo[key] = (e, self.scalar_temp("f", ir.UnaryOp("not", rises, loc, BOOL)))
        return self.memo[key][1]

    def interpolation(self, e):
        """np.interp(x, xp, fp, left, right) as NumPy computes it (arr_interp in numpy/_core/
        src/multiarray/compiled_base.c), every argument as float64: ValueError for an empty xp
        or an fp of another length; with one sample point, left below it, right above it and
        fp[0] otherwise; else NaN for NaN, left below xp[0], right above xp[-1], and otherwise
        the last j with xp[j] <= x (a bisection: xp must increase, as NumPy requires without
        checking), fp[j] where x is xp[j] or j the last, else slope * (x - xp[j]) + fp[j]
        with slope = (fp[j+1] - fp[j]) / (xp[j+1] - xp[j]), and where that is NaN the same from
        the right end, and fp[j] where that is NaN too and fp[j] == fp[j+1]. Returns, for one
        x, statements that hand the result to `store` (which returns statements)."""
        loc = e.loc
        f64 = "float64"
        x_, xp, fp = e.args
        xp = self.in_place(xp)
        fp = self.in_place(fp)
        m = self.shape(xp)[0]
        self.check(compare("==", m, const(0)), "array of sample points is empty")
        self.check(compare("!=", self.shape(fp)[0], m), "fp and xp are not of the same length.")
        last = sub(m, const(1))
        at = lambda array, i: convert(self.element(array, [i]), f64)
        ends = {k: self.scalar_temp(k[0], convert(self.scalar(e.keywords[k]), f64))
                if k in e.keywords else None for k in ("left", "right")}

        def interpolate(value, store):
            x = self.temp("x", Scalar(f64))
            lval = ends["left"] if ends["left"] is not None else at(fp, const(0))
            rval = ends["right"] if ends["right"] is not None else at(fp, last)
            lo, steps = self.bisection(m, lambda mid: compare(">=", x, at(xp, mid)), loc)
            slope, r = self.temp("s", Scalar(f64)), self.temp("r", Scalar(f64))
            j = sub(lo, const(1))
            after = add(j, const(1))
            isnan = lambda v: scalar_function("isnan", [v], "bool")
            one_point = ir.If(compare("<", x, at(xp, const(0))), store(lval), [
                ir.If(compare(">", x, at(xp, const(0))), store(rval),
                      store(at(fp, const(0))), loc)], loc)
            bisection = steps + [
                ir.If(either(compare("==", j, last), compare("==", at(xp, j), x)),
                      store(at(fp, j)), [
                    ir.Assign(slope, binop("/", binop("-", at(fp, after), at(fp, j)),
                                           binop("-", at(xp, after), at(xp, j))), loc),
                    ir.Assign(r, binop("+", binop("*", slope, binop("-", x, at(xp, j))),
                                       at(fp, j)), loc),
                    ir.If(isnan(r), [
                        ir.Assign(r, binop("+", binop("*", slope, binop("-", x, at(xp, after))),
                                           at(fp, after)), loc),
                        ir.If(ir.BoolOp("and", [isnan(r), compare("==", at(fp, j), at(fp, after))],
                                        (0, 0), BOOL), [ir.Assign(r, at(fp, j), loc)], [], loc)],
                          [], loc)] + store(r), loc)]
            many_points = ir.If(isnan(x), store(x), [
                ir.If(compare(">", x, at(xp, last)), store(rval), [
                    ir.If(compare("<", x, at(xp, const(0))), store(lval), bisection, loc)],
                      loc)], loc)
            return [ir.Assign(x, convert(value, f64), loc),
                    ir.If(compare("==", m, const(1)), [one_point], [many_points], loc)]
        return interpolate

    def bisection(self, n, goes_right, loc):
        """(lo, statements): a bisection over [0, n) leaving in `lo` the first index whose
        `goes_right(mid)` (a test of a sorted array's element at `mid`) is false."""
        lo, hi, mid = (self.temp("k", Scalar("int64")) for _ in range(3))
        return lo, [
            ir.Assign(lo, const(0), loc), ir.Assign(hi, n, loc),
            ir.While(compare("<", lo, hi), [
                ir.Assign(mid, binop("//", add(lo, hi), const(2)), loc),
                ir.If(goes_right(mid), [ir.Assign(lo, add(mid, const(1)), loc)],
                      [ir.Assign(hi, mid, loc)], loc)], loc)]

    def new_array(self, t, shape, fill, loc):
        out = self.temp("a", t)
        self.pre.append(ir.Assign(out, ir.AllocArray(fill, shape, t.dtype, loc, t), loc))
        return out

    # --- np.cov -------------------------------------------------------------------------------

    def covariance_into(self, out, e, loc):
        """NumPy's np.cov without weights: the rows (columns with rowvar=False) are the
        variables; each centred on its mean, then c = x @ x.T * (1 / fact), fact = the
        observations - ddof (0 where that is not positive: inf or nan, as NumPy gives)."""
        m = e.args[0]
        if not e.keywords["rowvar"].value:
            m = ir.ArrayCall("transpose", [m], {"axes": ir.Const((1, 0), loc)}, loc, m.type)
        x = self.materialize(m)
        variables, observations = self.shape(x)
        f64 = "float64"
        ddof = self.scalar_temp("d", convert(self.scalar(e.keywords["ddof"]), "int64"))
        fact = self.scalar_temp("f", convert(sub(observations, ddof), f64))
        fact = choose(compare("<=", fact, const(0.0, f64)), const(0.0, f64), fact)
        scale = self.scalar_temp("f", binop("/", const(1.0, f64), fact, f64))
        centred = self.new_array(Array(f64, 2), [variables, observations], "empty", loc)

        def centre(idx):
            stmts = []
            with self.sequential():
                total = self.accumulate("+", [observations], lambda k: convert(
                    self.element(x, [idx[0], k[0]]), f64), f64, loc, stmts)
            mean = self.assign_to(binop("/", total, convert(observations, f64), f64), stmts)
            with self.sequential():
                stmts += self.nest([observations], lambda k: [ir.Assign(
                    self.element(centred, [idx[0], k[0]]),
                    binop("-", convert(self.element(x, [idx[0], k[0]]), f64), mean), loc)])
            return stmts
        self.pre += self.nest([variables], centre)
        transposed = ir.ArrayCall("transpose", [centred], {"axes": ir.Const((1, 0), loc)}, loc,
                                  centred.type)
        product = ir.ArrayCall("matmul", [centred, transposed], {}, loc, out.type)
        return self.product_into(out, product, loc) + self.nest(
            [variables, variables], lambda idx: [ir.Assign(
                self.element(out, idx), binop("*", self.element(out, idx), scale), loc)])

    # --- np.histogram -------------------------------------------------------------------------

    def histogram_edges_value(self, e):
        """np.histogram(a, edges) as NumPy computes it (numpy/lib/_histograms_impl.py): edges
        that decrease anywhere raise ValueError; each value counts in the bin [e[k], e[k+1]) of
        the last edge e[k] not above it (the last bin closed: [e[-2], e[-1]]), found by
        bisection as np.searchsorted finds it, compared in the dtype NumPy promotes the two
        to; values outside the edges (and NaN) count nowhere. The edges are the array given,
        as NumPy returns it."""
        loc = e.loc
        a = self.in_place(e.args[0])
        edges = self.materialize(e.args[1])
        shape = self.shape(a)
        m = self.shape(edges)[0]
        last = sub(m, const(1))
        edge = lambda i: self.element(edges, [i])
        falling = self.accumulate("|", [call("max", [last, const(0)], "int64")], lambda idx:
                                  compare(">", edge(idx[0]), edge(add(idx[0], const(1)))),
                                  "bool", loc)
        self.check(falling, "`bins` must increase monotonically, when an array")
        bins = self.scalar_temp("n", call("max", [last, const(0)], "int64"))
        counts = self.new_array(e.type.items[0], [bins], "zeros", loc)
        ktype = np.result_type(np.dtype(a.type.dtype), np.dtype(edges.type.dtype)).name

        def count(idx):
            x = self.temp("v", Scalar(ktype))
            # lo = how many edges are not above x (the edges rise: a bisection)
            lo, steps = self.bisection(
                m, lambda mid: compare("<=", convert(edge(mid), ktype), x), loc)
            return [ir.Assign(x, convert(self.element(a, idx), ktype), loc)] + steps + [
                # x above the last edge is outside; equal to it, in the last bin
                ir.If(ir.BoolOp("and", [compare("==", lo, m), compare(">", lo, const(1)),
                                        compare("==", convert(edge(last), ktype), x)],
                                (0, 0), BOOL), [ir.Assign(lo, last, loc)], [], loc),
                ir.If(ir.BoolOp("and", [compare(">", lo, const(0)), compare("<", lo, m)],
                                (0, 0), BOOL),
                      [ir.Assign(self.element(counts, [sub(lo, const(1))]),
                                 add(self.element(counts, [sub(lo, const(1))]), const(1)),
                                 loc)], [], loc)]
        with self.sequential():
            self.pre += self.nest(shape, count)
        return ir.TupleValue([counts, edges], loc, e.type)

    def histogram_value(self, e):
        """np.histogram(a, bins, range=(lo, hi)) as NumPy computes it (numpy/lib/
        _histograms_impl.py): the outer edges (the range, else the data's min and max, widened
        by 0.5 each way when equal), the edges by np.linspace's formula, then each value in the
        range counted in the bin its first guess (the fraction of the range times the bins)
        lands in, moved by one where the edges say otherwise (the last bin closed)."""
        loc = e.loc
        a = self.in_place(e.args[0])
        shape = self.shape(a)
        counts_t, edges_t = e.type.items
        bins = self.scalar_temp("n", convert(self.scalar(e.args[1]), "int64"))
        self.check(compare("<", bins, const(1)), "`bins` must be positive, when an integer")
        span = e.keywords.get("range")
        given = [self.scalar(x) for x in span.items] if span is not None else None
        edge_types = [x.type for x in given] if given else [Scalar(a.type.dtype)] * 2
        # linspace computes in the outer edges' dtype, made inexact (NEP 50: a Python float
        # stays weak beside a float32).
        ctype = np.linspace(*(sample_of(t, k) for k, t in enumerate(edge_types)), 3).dtype.name
        lo, hi = self.temp("lo", Scalar(ctype)), self.temp("hi", Scalar(ctype))
        empty = None
        if given:
            wide = [self.scalar_temp("s", convert(x, "float64")) for x in given]
            self.check(compare(">", wide[0], wide[1]),
                       "max must be larger than min in range parameter.")
            self.check(ir.UnaryOp("not", ir.BoolOp("and", [
                scalar_function("isfinite", [x], "bool") for x in wide], (0, 0), BOOL),
                (0, 0), BOOL), "supplied range of the histogram is not finite")
            self.pre += [ir.Assign(lo, convert(given[0], ctype), loc),
                         ir.Assign(hi, convert(given[1], ctype), loc)]
        else:
            empty = self.scalar_temp("e", compare("==", self.element_count(shape), const(0)))
            self.data_range(a, shape, lo, hi, empty, loc)
        self.pre.append(ir.If(compare("==", lo, hi), [
            ir.Assign(lo, binop("-", lo, const(0.5, ctype)), loc),
            ir.Assign(hi, binop("+", hi, const(0.5, ctype)), loc)], [], loc))
        edges = self.new_array(edges_t, [add(bins, const(1))], "empty", loc)
        step = self.scalar_temp("s", binop("/", binop("-", hi, lo), convert(bins, ctype)))

        def edge(idx):
            i = idx[0]
            value = choose(compare("==", i, bins), hi,
                           binop("+", binop("*", convert(i, ctype), step), lo))
            if empty is not None and ctype != "float64":
                # No data: NumPy's outer edges are the Python ints 0 and 1 (float64 steps).
                unit = binop("/", convert(i, "float64"), convert(bins, "float64"))
                value = choose(empty, convert(unit, edges_t.dtype), convert(value,
                                                                            edges_t.dtype))
            return [ir.Assign(self.element(edges, idx), convert(value, edges_t.dtype), loc)]
        self.pre += self.nest([add(bins, const(1))], edge)
        crowded = self.accumulate("|", [bins], lambda idx: compare(
            ">=", self.element(edges, idx), self.element(edges, [add(idx[0], const(1))])),
            "bool", loc)
        self.check(crowded, "Too many bins for data range. Cannot create finite-sized bins.")
        counts = self.new_array(counts_t, [bins], "zeros", loc)
        weights = e.keywords.get("weights")
        if weights is None:
            with self.sequential():
                self.pre += self.nest(shape, lambda idx: self.count_value(
                    self.element(a, idx), a.type.dtype, edge_types, given is not None, lo, hi,
                    bins, edges, counts, loc))
            return ir.TupleValue([counts, edges], loc, e.type)
        # Weighted: NumPy sums each block of HISTOGRAM_BLOCK values (in C order) per bin in
        # float64 (np.bincount), then adds each block's sums, cast to the weights' dtype, to
        # the counts: the same sums in the same order here.
        w = self.in_place(weights)
        for n, m in zip(shape, self.shape(w)):
            if not same(n, m):
                self.check(compare("!=", n, m), "weights should have the same shape as a.")
        sums = self.new_array(Array("float64", 1), [bins], "zeros", loc)
        seen = self.temp("p", Scalar("int64"))
        self.pre.append(ir.Assign(seen, const(0), loc))

        def flush():
            def one(idx):
                total = self.element(counts, idx)
                return [ir.Assign(total, binop("+", total, convert(self.element(sums, idx),
                                                                   counts_t.dtype)), loc),
                        ir.Assign(self.element(sums, idx), const(0.0, "float64"), loc)]
            return self.nest([bins], one)

        def weigh(idx):
            def add_weight(k):
                total = self.element(sums, [k])
                return [ir.Assign(total, binop("+", total, convert(self.element(w, idx),
                                                                   "float64")), loc)]
            return self.count_value(self.element(a, idx), a.type.dtype, edge_types,
                                    given is not None, lo, hi, bins, edges, counts, loc,
                                    add_weight) + [
                ir.Assign(seen, add(seen, const(1)), loc),
                ir.If(compare("==", seen, const(HISTOGRAM_BLOCK)),
                      [ir.Assign(seen, const(0), loc)] + flush(), [], loc)]
        with self.sequential():
            self.pre += self.nest(shape, weigh)
            self.pre += flush()
        return ir.TupleValue([counts, edges], loc, e.type)

    def element_count(self, shape):
        total = const(1)
        for d in shape:
            total = binop("*", total, d, "int64")
        return total

    def data_range(self, a, shape, lo, hi, empty, loc):
        """lo, hi = the data's min and max (a NaN among them: ValueError, as NumPy's range
        check raises for it); 0 and 1 for no data."""
        dtype = a.type.dtype
        big = math.inf if dtype[0] == "f" else np.iinfo(dtype).max
        small = -math.inf if dtype[0] == "f" else np.iinfo(dtype).min
        least, most = self.temp("r", Scalar(dtype)), self.temp("r", Scalar(dtype))
        nan = self.temp("r", BOOL)
        self.pre += [ir.Assign(least, const(big, dtype), loc),
                     ir.Assign(most, const(small, dtype), loc),
                     ir.Assign(nan, const(False, "bool"), loc)]

        def body(idx):
            stmts = []
            value = self.scalar_temp_in(self.element(a, idx), stmts)
            return stmts + [
                ir.Assign(least, call("min", [least, value], dtype), loc),
                ir.Assign(most, call("max", [most, value], dtype), loc),
                ir.Assign(nan, binop("|", nan, compare("!=", value, value), "bool"), loc)]
        self.pre += self.nest(shape, body)
        ctype = lo.type.dtype
        self.pre.append(ir.If(empty, [ir.Assign(lo, const(0.0, ctype), loc),
                                      ir.Assign(hi, const(1.0, ctype), loc)],
                              [ir.Assign(lo, convert(least, ctype), loc),
                               ir.Assign(hi, convert(most, ctype), loc)], loc))
        finite = ir.BoolOp("and", [scalar_function("isfinite", [x], "bool") for x in (lo, hi)],
                           (0, 0), BOOL)
        self.check(either(nan, ir.UnaryOp("not", finite, (0, 0), BOOL)),
                   "autodetected range of the histogram is not finite")

    def count_value(self, x, dtype, edge_types, ranged, lo, hi, bins, edges, counts, loc,
                    add_weight=None):
        """The statements counting the value `x` (of `dtype`) in its bin (`add_weight(k)`: the
        statements adding its weight to bin k instead)."""
        # In range: compared as NumPy compares the array with the outer edges (NEP 50).
        outer = edge_types[0] if ranged else Scalar(lo.type.dtype)
        ktype = np.result_type(np.empty(0, dtype), sample_of(outer, 0)).name
        ktype = ktype if ktype[0] == "f" else "float64"      # integers: exact in float64
        keep = ir.BoolOp("and", [compare(">=", convert(x, ktype), convert(lo, ktype)),
                                 compare("<=", convert(x, ktype), convert(hi, ktype))],
                         (0, 0), BOOL)
        etype = edges.type.dtype
        value = self.temp("v", Scalar(etype))
        k = self.temp("k", Scalar("int64"))
        last = sub(bins, const(1))
        f64 = "float64"
        # The first guess in float64: within one bin of NumPy's, and the corrections by the
        # edges below make both the bin the edges give.
        guess = binop("*", binop("/", binop("-", convert(value, f64), convert(lo, f64)),
                                 binop("-", convert(hi, f64), convert(lo, f64))),
                      convert(bins, f64))
        edge = lambda i: self.element(edges, [i])
        return [ir.If(keep, [
            ir.Assign(value, convert(x, etype), loc),
            ir.Assign(k, call("max", [call("min", [convert(guess, "int64"), last], "int64"),
                                      const(0)], "int64"), loc),
            ir.If(compare("<", value, edge(k)), [ir.Assign(k, sub(k, const(1)), loc)], [],
                  loc),
            ir.If(ir.BoolOp("and", [compare(">=", value, edge(add(k, const(1)))),
                                    compare("!=", k, last)], (0, 0), BOOL),
                  [ir.Assign(k, add(k, const(1)), loc)], [], loc),
        ] + (add_weight(k) if add_weight else [
            ir.Assign(self.element(counts, [k]), add(self.element(counts, [k]), const(1)),
                      loc)]), [], loc)]
