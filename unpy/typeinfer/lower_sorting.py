"""Lower `np.sort(a)` and `np.argsort(a)` (along the last axis) to loops, and np.quantile and
np.percentile of the sorted elements: part of the array lowering
(unpy/typeinfer/lower_arrays.py), a mixin of its pass.

Each row of the result is filled with the row's values (sort) or positions (argsort), then put
in order by a bottom-up merge sort through a buffer of one row: O(n log n) comparisons,
sequential, stable (equal keys keep their order, as NumPy's kind='stable'). NaN sorts after
every number, as in NumPy."""
from __future__ import annotations

import math

from unpy import ir
from unpy.ir import Array, Scalar
from unpy.typeinfer.build_ir import (BOOL, binop, call, choose, compare, const, convert, either,
                                     scalar_function, sub)
from unpy.typeinfer.types import PY_INT


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

        def row(idx):
            prefix = list(idx)
            key = (lambda v: self.element(keys, prefix + [v])) if positions else (lambda v: v)
            first = [ir.Assign(self.element(out, prefix + [k]),
                               k if positions else convert(self.element(keys, prefix + [k]),
                                                           out.type.dtype), loc)
                     for k in [self.temp("k", PY_INT)]]
            fill = self.loop(first[0].target.indices[-1], const(0), n, first, loc)
            return [fill] + self.merge_sort(lambda k: self.element(out, prefix + [k]),
                                            lambda k: self.element(buffer, [k]), key, n, loc)

        with self.sequential():
            return stmts + self.nest(shape[:-1], row)

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
        qdtype = e.keywords["q_dtype"].value
        out = e.type.dtype
        src = s.type.dtype
        qv = self.scalar_temp("q", convert(self.scalar(q), qdtype))
        if e.func.endswith("percentile"):
            qv = self.scalar_temp("q", binop("/", qv, const(100, qdtype)))
            message = "Percentiles must be in the range [0, 100]"
        else:
            message = "Quantiles must be in the range [0, 1]"
        valid = ir.BoolOp("and", [compare("<=", const(0, qdtype), qv),
                                  compare("<=", qv, const(1, qdtype))], loc, BOOL)
        self.check(ir.UnaryOp("not", valid, loc, BOOL), message)
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
        last = self.scalar_temp("n", sub(n, const(1)))
        virtual = self.scalar_temp("v", binop("*", convert(last, qdtype), qv, qdtype))
        at = lambda k: self.element(s, [k])
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
        return self.when_numbers(outer, n, convert(result, out), out, loc, guarded)

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

    @staticmethod
    def less(x, y):
        """NumPy's order: `x < y`, NaN after every number."""
        if x.type.dtype[0] not in "fc":
            return compare("<", x, y)
        return either(compare("<", x, y), ir.BoolOp("and", [compare("!=", y, y),
                                                           compare("==", x, x)], (0, 0), BOOL))
