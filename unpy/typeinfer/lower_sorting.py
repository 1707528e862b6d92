"""Lower `np.sort(a)` and `np.argsort(a)` (along the last axis) to loops, and np.quantile and
np.percentile of the sorted elements: part of the array lowering
(unpy/typeinfer/lower_arrays.py), a mixin of its pass.

Each row of the result is filled with the row's values (sort) or positions (argsort), then put
in order by a bottom-up merge sort through a buffer of one row: O(n log n) comparisons,
sequential, stable (equal keys keep their order, as NumPy's kind='stable'). NaN sorts after
every number, as in NumPy."""
from __future__ import annotations

import copy
import math
import warnings

import numpy as np

from unpy import ir
from unpy.ir import Array, Scalar
from unpy.typeinfer.build_ir import (BOOL, binop, call, choose, compare, const, convert, either,
                                     same, scalar_function, sub)
from unpy.typeinfer.types import PY_INT



def _cross_takes_two() -> bool:
    """Whether the NumPy beside the build takes vectors of 2 components in np.cross
    (deprecated in NumPy 2.0 and refused by later versions: a compiled call raises as the
    interpreter beside it does)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            np.cross(np.ones(2), np.ones(3))
        except ValueError:
            return False
    return True


CROSS_TAKES_TWO = _cross_takes_two()

class SortLowering:
    """Mixin of ArrayLowering: `sort_into`, `quantile_value`."""

    def sort_into(self, out, e, shape, loc):
        """`out = np.sort(a)` / `np.argsort(a)`: statements filling `out` (of `shape`)."""
        a = e.args[0]
        positions = e.func == "argsort"
        keys = self.materialize(a)
        n = shape[-1]
        buffer = self.temp("a", Array(out.type.dtype, 1))
        stmts = [ir.Assign(buffer, ir.AllocArray("empty", [n], out.type.dtype, loc,
                                                 buffer.type), loc)]

        middle = "middle" in e.keywords

        def row(idx):
            prefix = list(idx)
            key = (lambda v: self.element(keys, prefix + [v])) if positions else (lambda v: v)
            first = [ir.Assign(self.element(out, prefix + [k]),
                               k if positions else convert(self.element(keys, prefix + [k]),
                                                           out.type.dtype), loc)
                     for k in [self.temp("k", PY_INT)]]
            fill = self.loop(first[0].target.indices[-1], const(0), n, first, loc)
            if middle:
                return [fill] + self.select_middle(lambda k: self.element(out, prefix + [k]),
                                                   n, loc)
            return [fill] + self.merge_sort(lambda k: self.element(out, prefix + [k]),
                                            lambda k: self.element(buffer, [k]), key, n, loc)

        if middle:      # (no buffer)
            with self.sequential():
                return self.nest(shape[:-1], row)

        with self.sequential():
            return stmts + self.nest(shape[:-1], row)

    def along_axis_parts(self, e):
        """(shape, per dimension of arr, per dimension of the indices: None or a 0/1 int64
        that multiplies the index read there) of np.take_along_axis(arr, indices, axis), as
        NumPy's fancy index arr[arange(n0)[:, None], indices] broadcasts: the indices' length
        along the axis, elsewhere the two lengths broadcast (IndexError where they differ
        and neither is 1)."""
        key = ("along", id(e))
        if key not in self.memo:
            arr, indices = e.args
            axis = e.keywords["axis"].value
            sizes, counts = self.shape(arr), self.shape(indices)
            shape, stretch_arr, stretch_indices = [], [], []
            for k, (n, m) in enumerate(zip(sizes, counts)):
                length, b_arr, b_indices = (m, None, None) if k == axis else \
                    self.stretched(n, m, "shape mismatch: indexing arrays could not be "
                                   "broadcast together in np.take_along_axis()", "IndexError")
                shape.append(length)
                stretch_arr.append(b_arr)
                stretch_indices.append(b_indices)
            self.memo[key] = (e, (shape, stretch_arr, stretch_indices))
        return self.memo[key][1]

    def stretched(self, n, m, message, kind="ValueError"):
        """(the length, and per side None or a 0/1 int64 that multiplies the index read
        there) of two lengths broadcast together: `kind` where they differ and neither is 1;
        None for lengths known equal."""
        if same(n, m):
            return n, None, None
        self.check(ir.BoolOp("and", [compare("!=", n, m), compare("!=", n, const(1)),
                                     compare("!=", m, const(1))], (0, 0), BOOL), message, kind)
        return (self.scalar_temp("n", choose(compare("==", n, const(1)), m, n)),
                self.scalar_temp("b", convert(compare("!=", n, const(1)), "int64")),
                self.scalar_temp("b", convert(compare("!=", m, const(1)), "int64")))

    def cross_parts(self, e):
        """(shape, per leading dimension of the result: (a's and b's stretch, or None where
        the array has no such dimension), a's and b's number of components) of np.cross(a,
        b): the leading dimensions broadcast (ValueError where they cannot), vectors of 2 or
        3 components (ValueError otherwise, NumPy's words), not both of 2 (NumPy's result
        then has one dimension less: refused at run time)."""
        key = ("cross", id(e))
        if key not in self.memo:
            a, b = e.args
            sa, sb = self.shape(a), self.shape(b)
            ka, kb = sa[-1], sb[-1]
            if not CROSS_TAKES_TWO:
                self.check(either(*[compare("!=", k, const(3)) for k in (ka, kb)]),
                           "Both input arrays must be (arrays of) 3-dimensional vectors, but "
                           "they are {} and {} dimensional instead.", values=[ka, kb])
            self.check(either(*[ir.BoolOp("and", [compare("!=", k, const(2)),
                                                  compare("!=", k, const(3))], (0, 0), BOOL)
                                for k in (ka, kb)]),
                       "incompatible dimensions for cross product (dimension must be 2 or 3)")
            self.check(ir.BoolOp("and", [compare("==", ka, const(2)),
                                         compare("==", kb, const(2))], (0, 0), BOOL),
                       "np.cross() of two vectors of 2 components gives their z component "
                       "only (one dimension less), not supported in compiled code: write "
                       "a[..., 0] * b[..., 1] - a[..., 1] * b[..., 0]")
            lead = e.type.ndim - 1
            la, lb = sa[:-1], sb[:-1]
            shape, stretches = [], []
            for k in range(lead):
                n = la[k - lead + len(la)] if k >= lead - len(la) else None
                m = lb[k - lead + len(lb)] if k >= lead - len(lb) else None
                if n is None or m is None:
                    shape.append(m if n is None else n)
                    stretches.append((None, None))
                    continue
                length, b_a, b_b = self.stretched(n, m, "operands could not be broadcast "
                                                  "together in np.cross()")
                shape.append(length)
                stretches.append((b_a, b_b))
            self.memo[key] = (e, (shape + [const(3)], stretches, ka, kb))
        return self.memo[key][1]

    def cross_element(self, e, idx):
        """Component idx[-1] of np.cross(a, b) as NumPy's np.cross computes it for each pair
        of component counts (numpy/_core/numeric.py): a missing third component is not
        read as 0 but left out of the products."""
        _, stretches, ka, kb = self.cross_parts(e)
        dtype = e.type.dtype
        lead = list(idx[:-1])

        def component(side, x, k, count):
            own = [i if s[side] is None else binop("*", i, s[side], "int64")
                   for i, s in zip(lead, stretches)]
            own = own[len(own) - (x.type.ndim - 1):] if x.type.ndim > 1 else []
            # (the third of 2 components is read as the second, never used)
            at = const(k) if k < 2 else call("min", [const(2), sub(count, const(1))], "int64")
            return convert(self.element(x, own + [at]), dtype)
        def times(i, j):        # a[i] * b[j], each read where it is used
            return binop("*", component(0, e.args[0], i, ka), component(1, e.args[1], j, kb),
                         dtype)

        def minus(x, y):
            return binop("-", x, y, dtype)

        def negative(x):
            return ir.UnaryOp("-", x, (0, 0), Scalar(dtype))
        three_a, three_b = compare("==", ka, const(3)), compare("==", kb, const(3))
        first = choose(three_a, choose(three_b, minus(times(1, 2), times(2, 1)),
                                       negative(times(2, 1))), times(1, 2))
        second = choose(copy.deepcopy(three_a), choose(copy.deepcopy(three_b), minus(
            times(2, 0), times(0, 2)), times(2, 0)), negative(times(0, 2)))
        third = minus(times(0, 1), times(1, 0))
        c = idx[-1]
        return choose(compare("==", c, const(0)), first,
                      choose(compare("==", c, const(1)), second, third))

    def along_axis_element(self, e, idx):
        """Element `idx` of np.take_along_axis(): arr's element with the index read from the
        indices at the axis, wrapped where negative and checked (IndexError), as the user's
        index a[i, j] is."""
        _, stretch_arr, stretch_indices = self.along_axis_parts(e)
        arr = self.materialize(e.args[0])
        axis = e.keywords["axis"].value

        def own(stretch):
            return [i if b is None else binop("*", i, b, "int64") for i, b in zip(idx, stretch)]
        at = own(stretch_arr)
        at[axis] = convert(self.element(e.args[1], own(stretch_indices)), "int64")
        value = self.element(arr, at)
        value.in_range = [k for k in value.in_range if k != axis]
        return value

    def quantile_value(self, e):
        """np.quantile(a, q) / np.percentile(a, q) (typed with the sorted elements as the
        array) as NumPy's method 'linear' computes it (_quantile, _get_indexes, _lerp in
        numpy/lib/_function_base_impl.py): ValueError for q outside [0, 1] (percentile: q / 100)
        or NaN, IndexError for no element; the virtual index (n - 1) * q in q's dtype, its
        floor and the next index (both the last element from n - 1 on, where the floor counts
        as -1), gamma the index less the floor, then a + (b - a) * gamma, or
        b - (b - a) * (1 - gamma) for gamma >= 0.5, b - a in a's dtype; NaN where the data
        hold one (it sorts last). An integer q (np.quantile's 0 or 1) picks an element.
        np.nanquantile / np.nanpercentile: the same of the numbers (the elements before the
        first NaN), NaN where there is none (numpy/lib/_nanfunctions_impl.py: np.nanmean of
        no data, _remove_nan_1d, then _quantile)."""
        loc = e.loc
        s, q = e.args
        out = e.type.dtype
        src = s.type.dtype
        qv = self.quantile_q(e)
        s = self.materialize(s)
        n = self.shape(s)[0]
        skip_nan = e.func.startswith("nan")
        guarded = skip_nan and out[0] == "f"
        if skip_nan and src[0] == "f":
            n = self.numbers_before_nan(s, n, loc)
        if not guarded:
            self.check(compare("==", n, const(0)),
                       "index -1 is out of bounds for axis 0 with size 0", "IndexError")
        outer, self.pre = self.pre, []
        result = self.interpolated(e, lambda k: self.element(s, [k]), n, qv, skip_nan)
        return self.when_numbers(outer, n, result, out, loc, guarded)

    def quantile_q(self, e):
        """q of np.quantile (np.percentile's q / 100) in NumPy's dtype for it, computed once;
        ValueError outside [0, 1] or NaN, NumPy's words."""
        loc = e.loc
        qdtype = e.keywords["q_dtype"].value
        qv = self.scalar_temp("q", convert(self.scalar(e.args[1]), qdtype))
        if e.func.endswith("percentile"):
            qv = self.scalar_temp("q", binop("/", qv, const(100, qdtype)))
            message = "Percentiles must be in the range [0, 100]"
        else:
            message = "Quantiles must be in the range [0, 1]"
        valid = ir.BoolOp("and", [compare("<=", const(0, qdtype), qv),
                                  compare("<=", qv, const(1, qdtype))], loc, BOOL)
        self.check(ir.UnaryOp("not", valid, loc, BOOL), message)
        return qv

    def quantiles_into(self, out, e, shape, loc):
        """out = np.quantile(a, q, axis=k) (typed with a's rows along k sorted as the array):
        each row's value as `quantile_value` finds that of the whole array; IndexError where
        the rows are empty, before any is read (NumPy's, also for no row)."""
        s = self.materialize(e.args[0])
        rows = self.shape(s)
        n = rows[-1]
        qv = self.quantile_q(e)
        self.check(compare("==", n, const(0)),
                   "index -1 is out of bounds for axis 0 with size 0", "IndexError")
        axis, keep = e.keywords["axis"].value, e.keywords["keepdims"].value

        def body(idx):
            lead = [i for k, i in enumerate(idx) if not (keep and k == axis)]
            outer, self.pre = self.pre, []
            try:
                value = self.interpolated(e, lambda k: self.element(s, lead + [k]), n, qv,
                                          False)
                return self.pre + [ir.Assign(self.element(out, idx), value, loc)]
            finally:
                self.pre = outer
        return self.nest(shape, body)

    def interpolated(self, e, at, n, qv, skip_nan):
        """The quantile `qv` of the sorted values `at(k)`, k in [0, n), n > 0, in e's dtype
        (statements in `pre`): see `quantile_value`."""
        loc = e.loc
        qdtype = e.keywords["q_dtype"].value
        out = e.type.dtype
        src = e.args[0].type.dtype
        last = self.scalar_temp("n", sub(n, const(1)))
        virtual = self.scalar_temp("v", binop("*", convert(last, qdtype), qv, qdtype))
        if qdtype[0] != "f":
            result = at(virtual)
        else:
            floor = self.scalar_temp("f", scalar_function("floor", [virtual], qdtype))
            above = self.scalar_temp("b", compare(">=", virtual, convert(last, qdtype)))
            before = self.scalar_temp("k", choose(above, const(-1), convert(floor, "int64")))
            after = choose(above, const(-1), binop("+", before, const(1)))
            gamma = self.scalar_temp("g", binop("-", virtual, convert(before, qdtype), qdtype))
            wrap = lambda k: choose(compare("<", k, const(0)), binop("+", k, n), k)
            lo = self.scalar_temp("x", at(wrap(before)))
            hi = self.scalar_temp("x", at(wrap(after)))
            diff = self.scalar_temp("d", binop("-", hi, lo, src))
            result = self.scalar_temp("r", binop("+", convert(lo, out), binop(
                "*", convert(diff, out), convert(gamma, out), out), out))
            rest = convert(binop("-", const(1, qdtype), gamma, qdtype), out)
            self.pre.append(ir.If(compare(">=", gamma, const(0.5, qdtype)), [ir.Assign(
                result, binop("-", convert(hi, out), binop("*", convert(diff, out), rest, out),
                              out), loc)], [], loc))
        if src[0] == "f" and not skip_nan:
            top = at(last)
            result = choose(compare("!=", top, top), convert(top, out), convert(result, out))
        return convert(result, out)

    def nan_median_value(self, e):
        """np.nanmedian(a) (typed with the sorted elements as the array) as NumPy computes it:
        of the numbers (the elements before the first NaN), the middle one of an odd count,
        else the mean of the two middle ones, in the result's dtype; NaN where there is none."""
        loc = e.loc
        out = e.type.dtype
        s = self.materialize(e.args[0])
        n = self.shape(s)[0]
        if s.type.dtype[0] == "f":
            n = self.numbers_before_nan(s, n, loc)
        outer, self.pre = self.pre, []
        lo = convert(self.element(s, [binop("//", sub(n, const(1)), const(2))]), out)
        hi = self.scalar_temp("x", convert(self.element(s, [binop("//", n, const(2))]), out))
        mean = binop("/", binop("+", lo, hi, out), const(2.0, out), out)
        odd = compare("==", binop("%", n, const(2)), const(1))
        return self.when_numbers(outer, n, choose(odd, hi, mean), out, loc)

    def numbers_before_nan(self, s, n, loc):
        """The count of the sorted float elements `s` (of length `n`) that are not NaN: the
        NaNs sort last."""
        with self.sequential():
            return self.accumulate("+", [n], lambda idx: convert(
                compare("==", self.element(s, idx), self.element(s, idx)), "int64"), "int64",
                loc)

    def when_numbers(self, outer, n, value, out, loc, guarded=True):
        """A local holding `value`, whose statements (`self.pre` since `outer` was set aside)
        run where `n` > 0 (NaN elsewhere) when `guarded`, else always."""
        body = self.pre + []
        self.pre = outer
        result = self.temp("r", Scalar(out))
        body.append(ir.Assign(result, value, loc))
        if not guarded:
            self.pre += body
            return result
        inf = const(math.inf, out)
        self.pre.append(ir.If(compare(">", n, const(0)), body,
                              [ir.Assign(result, binop("-", inf, inf), loc)], loc))
        return result

    def unique_values(self, e):
        """np.unique(a) of the sorted elements: those unlike the one before them (NaN like NaN,
        NumPy 2's equal_nan=True), counted, then written by a second scan."""
        loc = e.loc
        s = self.materialize(e.args[0])
        n = self.shape(s)[0]
        count, k = self.temp("n", Scalar("int64")), self.temp("k", Scalar("int64"))

        def new(idx):
            i = idx[0]
            x, before = self.element(s, [i]), self.element(s, [sub(i, const(1))])
            same = compare("==", x, before)
            if s.type.dtype[0] == "f":
                same = either(same, ir.BoolOp("and", [compare("!=", x, x),
                                                      compare("!=", before, before)], loc, BOOL))
            return either(compare("==", i, const(0)), ir.UnaryOp("not", same, loc, BOOL))
        self.pre.append(ir.Assign(count, const(0), loc))
        with self.sequential():
            self.pre += self.nest([n], lambda idx: [ir.If(
                new(idx), [ir.Assign(count, binop("+", count, const(1)), loc)], [], loc)])
        out = self.new_array(e.type, [count], "empty", loc)
        self.pre.append(ir.Assign(k, const(0), loc))
        with self.sequential():
            self.pre += self.nest([n], lambda idx: [ir.If(
                new(idx), [ir.Assign(self.element(out, [k]), self.element(s, idx), loc),
                           ir.Assign(k, binop("+", k, const(1)), loc)], [], loc)])
        return out

    def sort_in_place(self, e, loc):
        """`a.sort()`: the array (a name or a view) is its own result."""
        a = e.args[0]
        if not (isinstance(a, ir.Name) or isinstance(a, ir.View) and
                self.as_view(a) is not None):
            raise self.error("a.sort() sorts an array variable or a slice of one in place; "
                             "this is a computed array: write np.sort(...)", e)
        return self.sort_into(a, e, self.shape(a), loc)

    @staticmethod
    def loop(var, start, stop, body, loc):
        return ir.For(var.id, start, stop, const(1), body, parallel=False, loc=loc, lowered=True)

    def merge_sort(self, item, spare, key, n, loc):
        """Runs of `width` items of the row (`item(k)`) merged pairwise into the buffer
        (`spare(k)`), copied back, width doubled until one run holds the row."""
        width, lo, mid, hi, i, j, k = (self.temp(s, PY_INT) for s in
                                       ("w", "lo", "mid", "hi", "i", "j", "k"))
        at = ir.Assign
        # The left run's next item goes first unless the right run's is smaller (stable).
        take_left = ir.BoolOp("and", [
            compare("<", i, mid),
            either(compare(">=", j, hi), ir.UnaryOp("not", self.less(key(item(j)), key(item(i))),
                                                    loc, BOOL))], loc, BOOL)
        merge = self.loop(k, lo, hi, [ir.If(take_left,
                                            [at(spare(k), item(i), loc),
                                             at(i, binop("+", i, const(1)), loc)],
                                            [at(spare(k), item(j), loc),
                                             at(j, binop("+", j, const(1)), loc)], loc)], loc)
        two_runs = [at(mid, call("min", [binop("+", lo, width), n], "int64"), loc),
                    at(hi, call("min", [binop("+", lo, binop("*", width, const(2))), n],
                                "int64"), loc),
                    at(i, lo, loc), at(j, mid, loc), merge,
                    at(lo, binop("+", lo, binop("*", width, const(2))), loc)]
        copy_back = self.loop(k, const(0), n, [at(item(k), spare(k), loc)], loc)
        passes = ir.While(compare("<", width, n), [
            at(lo, const(0), loc), ir.While(compare("<", lo, n), two_runs, loc), copy_back,
            at(width, binop("*", width, const(2)), loc)], loc)
        return [at(width, const(1), loc), passes]

    def select_middle(self, item, n, loc):
        """The row (`item(k)`, k in [0, n)) put in an order where positions (n - 1) // 2,
        n // 2 and n - 1 hold the values that sorting would put there (np.median's, as NumPy's
        np.partition at those positions; the others in no order): the largest to the end (NaN
        sorts last), a quickselect of (n - 1) // 2 among the others (the median of the first,
        middle and last values as the pivot; three parts, less, equal and greater, so that
        equal values end it at once), then the smallest after it to n // 2. O(n) comparisons
        on average, against the merge sort's n log n."""
        at = ir.Assign
        dtype = item(const(0)).type.dtype
        lo, hi, mid, lt, gt, i, m, k, half = (self.temp(x, PY_INT) for x in (
            "lo", "hi", "mid", "lt", "gt", "i", "m", "k", "h"))
        x, y, z, t = (self.temp(v, Scalar(dtype)) for v in ("x", "y", "z", "t"))
        plus = lambda v, d: binop("+", v, const(d))

        def swap(p, q):
            return [at(t, item(p), loc), at(item(p), item(q), loc), at(item(q), t, loc)]

        def extreme(first, stop, better):       # the best of [first, stop) to `first`
            return [at(m, first, loc),
                    self.loop(k, plus(first, 1), stop, [ir.If(better(item(k), item(m)), [
                        at(m, k, loc)], [], loc)], loc)] + swap(m, first)
        largest = [at(m, const(0), loc),
                   self.loop(k, const(1), n, [ir.If(self.less(item(m), item(k)), [
                       at(m, k, loc)], [], loc)], loc)] + swap(m, sub(n, const(1)))
        # the pivot: the median of three values (x <= y, then y the middle one)
        pivot = [at(mid, binop("+", lo, binop("//", sub(hi, lo), const(2))), loc),
                 at(x, item(lo), loc), at(y, item(mid), loc), at(z, item(hi), loc),
                 ir.If(self.less(y, x), [at(t, x, loc), at(x, y, loc), at(y, t, loc)], [], loc),
                 ir.If(self.less(z, y), [at(y, z, loc)], [], loc),
                 ir.If(self.less(y, x), [at(y, x, loc)], [], loc)]
        three_parts = [at(lt, lo, loc), at(i, lo, loc), at(gt, hi, loc), ir.While(
            compare("<=", i, gt), [
                at(x, item(i), loc),
                ir.If(self.less(x, y), swap(lt, i) + [at(lt, plus(lt, 1), loc),
                                                       at(i, plus(i, 1), loc)],
                      [ir.If(self.less(y, x), swap(i, gt) + [at(gt, plus(gt, -1), loc)],
                             [at(i, plus(i, 1), loc)], loc)], loc)], loc)]
        narrow = ir.If(compare("<", half, lt), [at(hi, plus(lt, -1), loc)], [
            ir.If(compare(">", half, gt), [at(lo, plus(gt, 1), loc)], [at(lo, hi, loc)], loc)],
            loc)
        select = [at(half, binop("//", sub(n, const(1)), const(2)), loc),
                  at(lo, const(0), loc), at(hi, sub(n, const(2)), loc),
                  ir.While(compare("<", lo, hi), pivot + three_parts + [narrow], loc)]
        upper = ir.If(compare("!=", binop("//", n, const(2)), half),
                      extreme(plus(half, 1), n, self.less), [], loc)
        return [ir.If(compare(">", n, const(0)), largest + select + [upper], [], loc)]

    @staticmethod
    def less(x, y):
        """NumPy's order: `x < y`, NaN after every number."""
        if x.type.dtype[0] not in "fc":
            return compare("<", x, y)
        return either(compare("<", x, y), ir.BoolOp("and", [compare("!=", y, y),
                                                           compare("==", x, x)], (0, 0), BOOL))
