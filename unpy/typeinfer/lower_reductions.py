"""Reductions and products of the array lowering: `sum`, `max`, `argmax`, `mean`, `std`, ...
of whole arrays and along an axis, `dot`, `@` (with the BLAS call of the CPU path), `cumsum`.
A mixin of `ArrayLowering` (unpy/typeinfer/lower_arrays.py), whose state it shares: each
reduction is a nest with a reduction variable outside a prange, a loop inside one."""
from __future__ import annotations

import copy
import math

from unpy import ir
from unpy.ir import Array, Scalar
from unpy.typeinfer.build_ir import (BOOL, REDUCING, Check, add, binop, call, choose, compare,
                                     const, convert, dataclass_replace, either, is_float, mul,
                                     same, scalar_function, sub, truth)
from unpy.typeinfer.lower_linalg import ARRAY_RESULTS, OTHER_RESULTS
from unpy.typeinfer.types import PY_INT

# Cumulative calls (np.cumsum, np.cumprod, np.maximum.accumulate, np.minimum.accumulate): the
# operator or np.<function> that combines each element with the one before it.
CUMULATIVE = {"cumsum": "+", "cumprod": "*", "cummax": "maximum", "cummin": "minimum"}


class ReductionLowering:
    # --- reductions and products --------------------------------------------------------------

    def reduce(self, e):
        """A scalar-valued ArrayCall (a whole reduction, `dot` of vectors, `norm`, `trace`) as
        a new local computed in `pre`."""
        f = e.func
        if f in ("dot", "matmul", "vdot", "inner"):
            a, b = e.args
            n = self.shape(a)[0]
            m = self.shape(b)[0]
            if not same(n, m):
                self.check(compare("!=", n, m),
                           f"np.{f}(): shapes not aligned (the vectors' lengths differ)")
            product = lambda idx: binop("*", self.element(a, idx), self.element(b, idx),
                                        e.type.dtype)
            return self.accumulate("+", [n], product, e.type.dtype, e.loc)
        if f == "norm":
            a = e.args[0]
            dtype = e.type.dtype
            square = lambda idx: binop("*", convert(self.element(a, idx), dtype),
                                       convert(self.element(a, idx), dtype), dtype)
            total = self.accumulate("+", self.shape(a), square, dtype, e.loc)
            return self.scalar_temp("r", call("np.sqrt", [total], dtype))
        if f == "trace":
            a = e.args[0]
            n0, n1 = self.shape(a)
            n = self.scalar_temp("n", call("min", [n0, n1], "int64"))
            return self.accumulate("+", [n], lambda idx: convert(
                self.element(a, [idx[0], idx[0]]), e.type.dtype), e.type.dtype, e.loc)
        if f in OTHER_RESULTS:
            return self.library_value(e)
        if f in ("quantile", "percentile", "nanquantile", "nanpercentile"):
            return self.quantile_value(e)
        if f == "nanmedian":
            return self.nan_median_value(e)
        if f == "einsum":
            stmts, total = self.einsum_sum(e, [], e.loc)
            self.pre += stmts
            return total
        if f == "average":
            return self.scalar(self.weighted_average(e))
        if f in REDUCING:
            a = e.args[0]
            shape = self.shape(a)
            return self.reduction(f, a, shape, e, lambda idx: self.element(a, idx), None)
        raise self.error(f"np.{f}() does not give a scalar", e)

    def reduction(self, f, a, shape, e, element_at, into):
        """`f` ('sum', 'max', 'argmax', 'mean', ...) of the elements of `shape`
        (`element_at(index)`), as a local; statements in `pre` (or, inside a nest, the
        statements `into` collects)."""
        dtype = e.type.dtype
        src = a.type.dtype
        if f.startswith("nan"):
            if is_float(Scalar(src)):
                return self.nan_reduction(f, shape, e, element_at, into)
            f = f[len("nan"):]      # no NaN to skip: NumPy's own reduction
        if f in ("sum", "prod"):
            return self.accumulate("+" if f == "sum" else "*", shape,
                                   lambda idx: convert(element_at(idx), dtype), dtype, e.loc,
                                   into)
        if f in ("any", "all"):
            return self.accumulate("|" if f == "any" else "&", shape,
                                   lambda idx: truth(element_at(idx)), "bool", e.loc, into)
        if f in ("mean", "var", "std"):
            count = const(1)
            for d in shape:
                count = mul(count, d)
            total = self.accumulate("+", shape, lambda idx: convert(element_at(idx), dtype),
                                    dtype, e.loc, into)
            mean = self.assign_to(binop("/", total, convert(count, dtype), dtype), into)
            if f == "mean":
                return mean
            dev = lambda idx: binop("-", convert(element_at(idx), dtype), mean, dtype)
            squares = self.accumulate("+", shape, lambda idx: binop("*", dev(idx), dev(idx)),
                                      dtype, e.loc, into)
            ddof = e.keywords.get("ddof", const(0))
            ddof = self.scalar(ddof) if into is None else ddof
            var = self.assign_to(binop("/", squares, binop("-", convert(count, dtype),
                                                           convert(ddof, dtype), dtype)),
                                 into)
            return var if f == "var" else self.assign_to(call("np.sqrt", [var], dtype), into)
        if f in ("min", "max", "argmin", "argmax"):
            return self.extremum(f, shape, element_at, src, dtype, e, into)
        raise self.error(f"np.{f}() is not supported here", e)

    def nan_reduction(self, f, shape, e, element_at, into):
        """np.nanprod, nanmean, nanvar, nanstd, nanmax, nanmin of float elements as NumPy's
        (numpy/lib/_nanfunctions_impl.py): the NaNs skipped; of none left, nanmean and nanvar
        give NaN (0 / 0; nanvar where the count less ddof is not positive) and nanmax/nanmin
        give NaN (NumPy also warns "All-NaN slice encountered"); an empty set raises
        ValueError for nanmax/nanmin, as np.fmax.reduce does."""
        dtype = e.type.dtype
        isnan = lambda v: compare("!=", v, v)
        loc = e.loc
        if f == "nanprod":
            return self.accumulate("*", shape, lambda idx: choose(
                isnan(element_at(idx)), const(1.0, dtype), convert(element_at(idx), dtype)),
                dtype, loc, into)
        if f in ("nanmax", "nanmin"):
            return self.nan_extremum(f, shape, element_at, dtype, loc, into)
        count = self.accumulate("+", shape, lambda idx: convert(
            compare("==", element_at(idx), element_at(idx)), "int64"), "int64", loc, into)
        total = self.accumulate("+", shape, lambda idx: choose(
            isnan(element_at(idx)), const(0.0, dtype), convert(element_at(idx), dtype)), dtype,
            loc, into)
        mean = self.assign_to(binop("/", total, convert(count, dtype), dtype), into)
        if f == "nanmean":
            return mean
        dev = lambda idx: binop("-", convert(element_at(idx), dtype), mean, dtype)
        squares = self.accumulate("+", shape, lambda idx: choose(
            isnan(element_at(idx)), const(0.0, dtype), binop("*", dev(idx), dev(idx))), dtype,
            loc, into)
        ddof = e.keywords.get("ddof", const(0))
        ddof = self.scalar(ddof) if into is None else ddof
        dof = self.assign_to(binop("-", convert(count, ddof.type.dtype), ddof), into)
        inf = const(math.inf, dtype)
        var = self.assign_to(choose(compare("<=", dof, const(0, dof.type.dtype)),
                                    binop("-", inf, inf),
                                    binop("/", squares, convert(dof, dtype), dtype)), into)
        return var if f == "nanvar" else self.assign_to(call("np.sqrt", [var], dtype), into)

    def nan_extremum(self, f, shape, element_at, dtype, loc, into):
        """np.nanmax / np.nanmin (np.fmax.reduce, np.fmin.reduce) of a non-empty set of float
        elements: the extreme of the numbers, NaN where there is none."""
        out = self.pre if into is None else into
        count = const(1)
        for d in shape:
            count = mul(count, d)
        message = (f"zero-size array to reduction operation {f.replace('nan', 'f')} which has "
                   "no identity")
        if into is None:
            self.check(compare("==", count, const(0)), message)
        else:
            into.append(Check(compare("==", count, const(0)), message, "ValueError"))
        op = f[len("nan"):]
        inf = const(math.inf if op == "min" else -math.inf, dtype)
        best, seen = self.temp("r", Scalar(dtype)), self.temp("r", BOOL)
        out += [ir.Assign(best, inf, loc), ir.Assign(seen, const(False, "bool"), loc)]

        def body(idx):
            stmts = []
            value = self.scalar_temp_in(element_at(idx), stmts)
            number = compare("==", value, value)
            return stmts + [
                ir.Assign(best, call(op, [best, choose(number, value, inf)], dtype), loc),
                ir.Assign(seen, binop("|", seen, number, "bool"), loc)]
        out += self.nest(shape, body)
        nan = binop("-", const(math.inf, dtype), const(math.inf, dtype))
        out.append(ir.If(ir.UnaryOp("not", seen, loc, BOOL), [ir.Assign(best, nan, loc)], [],
                         loc))
        return best

    def assign_to(self, value, into):
        t = self.temp("r", Scalar(value.type.dtype))
        (self.pre if into is None else into).append(ir.Assign(t, value, (0, 0)))
        return t

    def accumulate(self, op, shape, element_at, dtype, loc, into=None):
        """A local holding `op` over the elements (a prange reduction outside a prange)."""
        identity = {"+": 0, "*": 1, "|": False, "&": True}[op]
        acc = self.temp("r", Scalar(dtype))
        out = self.pre if into is None else into
        out.append(ir.Assign(acc, convert(const(identity, "bool" if op in "|&" else "int64"),
                                          dtype), loc))
        out += self.nest(shape, lambda idx: [ir.Assign(acc, binop(op, acc, element_at(idx),
                                                                  dtype), loc)])
        return acc

    def extremum(self, f, shape, element_at, src, dtype, e, into):
        """min/max (NaN wins, as in NumPy) or argmin/argmax (the first extreme, C order) of a
        non-empty set of elements; ValueError for an empty one."""
        out = self.pre if into is None else into
        count = const(1)
        for d in shape:
            count = mul(count, d)
        op = "min" if f in ("min", "argmin") else "max"
        message = (f"attempt to get {f} of an empty sequence" if f.startswith("arg") else
                   f"zero-size array to reduction operation {'minimum' if op == 'min' else 'maximum'}"
                   " which has no identity")
        if into is None:
            self.check(compare("==", count, const(0)), message)
        else:
            into.append(Check(compare("==", count, const(0)), message, "ValueError"))
        first = element_at([const(0)] * len(shape))
        best = self.temp("r", Scalar(src))
        out.append(ir.Assign(best, first, e.loc))
        if f in ("min", "max"):
            if not is_float(Scalar(src)):
                out += self.nest(shape, lambda idx: [
                    ir.Assign(best, call(op, [best, element_at(idx)], src), e.loc)])
                return best
            # A nan anywhere is the result, as in NumPy: a second reduction notes one.
            nan = self.temp("r", BOOL)
            out.append(ir.Assign(nan, const(False, "bool"), e.loc))

            def body(idx):
                stmts = []
                value = self.scalar_temp_in(element_at(idx), stmts)
                return stmts + [
                    ir.Assign(best, call(op, [best, value], src), e.loc),
                    ir.Assign(nan, binop("|", nan, compare("!=", value, value), "bool"), e.loc)]
            out += self.nest(shape, body)
            # inf - inf: a nan that is not a constant of the IR (nan != nan in its JSON).
            inf = const(math.inf, src)
            out.append(ir.If(nan, [ir.Assign(best, binop("-", inf, inf), e.loc)], [], e.loc))
            return best
        # argmin/argmax: a sequential scan keeping the first extreme (NaN first wins).
        where = self.temp("r", Scalar("int64"))
        out.append(ir.Assign(where, const(0), e.loc))
        with self.sequential():
            def body(idx):
                flat = const(0)
                for k, d in enumerate(shape):
                    flat = add(mul(flat, d), idx[k])
                value = element_at(idx)
                better = compare("<" if op == "min" else ">", value, best)
                if is_float(Scalar(src)):
                    better = either(better, ir.BoolOp("and", [compare("!=", value, value),
                                                              compare("==", best, best)],
                                                      (0, 0), BOOL))
                return [ir.If(better, [ir.Assign(best, value, e.loc),
                                       ir.Assign(where, flat, e.loc)], [], e.loc)]
            out += self.nest(shape, body)
        return where

    def scalar_temp_in(self, value, stmts):
        """`value` in a new local assigned by a statement added to `stmts`."""
        if isinstance(value, (ir.Const, ir.Name)):
            return value
        t = self.temp("v", Scalar(value.type.dtype))
        stmts.append(ir.Assign(t, value, (0, 0)))
        return t

    def call_into(self, out, e, shape, loc):
        """Statements filling the new array `out` with the ArrayCall `e` that is not read
        element by element: reductions along an axis, products, cumulative sums, reshapes."""
        f = e.func
        if f in REDUCING and "axis" not in e.keywords:      # keepdims of a whole reduction
            result = self.reduce(dataclass_replace(e, Scalar(e.type.dtype)))
            return [ir.Assign(self.element(out, [const(0)] * e.type.ndim), result, loc)]
        if f in REDUCING:
            a = e.args[0]
            ashape = self.shape(a)
            axis = e.keywords["axis"].value
            if f in ("min", "max", "argmin", "argmax", "nanmin", "nanmax"):
                self.check(compare("==", ashape[axis], const(0)),
                           f"zero-size array to reduction operation {f} along an empty axis")
            keep = "keepdims" in e.keywords and e.keywords["keepdims"].value
            kept = [d for k, d in enumerate(ashape) if k != axis]

            def body(idx):
                stmts = []
                full = lambda j: list(idx[:axis]) + [j[0]] + list(idx[axis:])
                with self.sequential():
                    result = self.reduction(f, a, [ashape[axis]],
                                            dataclass_replace(e, Scalar(e.type.dtype)),
                                            lambda j: self.element(a, full(j)), stmts)
                target = list(idx[:axis]) + [const(0)] + list(idx[axis:]) if keep else idx
                stmts.append(ir.Assign(self.element(out, target), result, loc))
                return stmts
            return self.nest(kept, body)
        if f in ("dot", "matmul"):
            return self.product_into(out, e, loc)
        if f in ARRAY_RESULTS:
            return self.library_into(out, e, loc)
        if f in ("sort", "argsort"):
            return self.sort_into(out, e, shape, loc)
        if f == "bincount":
            return self.bincount_into(out, e, shape, loc)
        if f in ("quantile", "percentile"):
            return self.quantiles_into(out, e, shape, loc)
        if f == "convolve":
            return self.convolution_into(out, e, shape, loc)
        if f == "einsum":
            def body(idx):
                stmts, total = self.einsum_sum(e, idx, loc)
                return stmts + [ir.Assign(self.element(out, idx), total, loc)]
            return self.nest(shape, body)
        if f == "array_literal":
            columns = e.keywords["shape"].value[-1]
            return [ir.Assign(self.element(out, [const(k // columns), const(k % columns)]
                                           if e.type.ndim == 2 else [const(k)]),
                              convert(self.scalar(item), e.type.dtype), loc)
                    for k, item in enumerate(e.args)]
        if f in CUMULATIVE:
            a = e.args[0]
            dtype = e.type.dtype
            axis = e.keywords["axis"].value
            if (axis is not None and a.type.ndim > 1) or f in ("cummax", "cummin"):
                return self.accumulate_along(out, e, axis or 0, shape, loc)
            acc = self.temp("r", Scalar(dtype))
            with self.sequential():
                loop = self.nest(shape, lambda idx: [
                    ir.Assign(acc, binop(CUMULATIVE[f], acc,
                                         convert(self.flat_element(a, idx[0]), dtype)), loc),
                    ir.Assign(self.element(out, idx), acc, loc)])
            return [ir.Assign(acc, convert(const(int(f == "cumprod")), dtype), loc)] + loop
        if f in ("ravel", "copy_ravel", "reshape"):
            a = e.args[0]
            return self.nest(shape, lambda idx: [ir.Assign(self.element(out, idx),
                                                           self.flat_element(a, idx[0]), loc)])
        raise self.error(f"np.{f}() is not supported here", e)

    def convolution_parts(self, e):
        """(result length, the longer array's length, the shorter's, whether v is the longer)
        of np.convolve(a, v, mode): NumPy swaps the arrays where v is longer, raises
        ValueError where either is empty, and gives L + S - 1 values ('full'), L ('same') or
        L - S + 1 ('valid')."""
        key = ("convolve", id(e))
        if key not in self.memo:
            n, m = (self.shape(x)[0] for x in e.args)
            swap = self.scalar_temp("s", compare(">", m, n))
            longer = self.scalar_temp("n", call("max", [n, m], "int64"))
            shorter = self.scalar_temp("n", call("min", [n, m], "int64"))
            self.check(compare("==", longer, const(0)), "a cannot be empty")
            self.check(compare("==", shorter, const(0)), "v cannot be empty")
            mode = e.keywords["mode"].value
            length = {"full": sub(add(longer, shorter), const(1)), "same": longer,
                      "valid": add(sub(longer, shorter), const(1))}[mode]
            self.memo[key] = (e, (self.scalar_temp("n", length), longer, shorter, swap))
        return self.memo[key][1]

    def convolution_into(self, out, e, shape, loc):
        """`out = np.convolve(a, v, mode)` as NumPy computes it (np.correlate of the longer
        array L with the shorter S reversed): out[k] is the sum over L's index i, rising, of
        L[i] * S[t - i], t = k + S - 1 - S // 2 ('same'), k + S - 1 ('valid') or k ('full'),
        in the promoted dtype (integers wrap as NumPy's)."""
        dtype = out.type.dtype
        a, v = (self.materialize(x) for x in e.args)
        _, longer, shorter, swap = self.convolution_parts(e)
        mode = e.keywords["mode"].value
        shift = {"full": const(0), "same": sub(sub(shorter, const(1)),
                                               binop("//", shorter, const(2))),
                 "valid": sub(shorter, const(1))}[mode]
        shift = self.scalar_temp("n", shift)

        def item(first, second, k):
            return choose(swap, convert(self.element(second, [k]), dtype),
                          convert(self.element(first, [k]), dtype))

        def body(idx):
            t, i = self.temp("t", Scalar("int64")), self.temp("i", Scalar("int64"))
            acc = self.temp("r", Scalar(dtype))
            start = call("max", [const(0), add(sub(t, shorter), const(1))], "int64")
            stop = call("min", [add(t, const(1)), longer], "int64")
            term = binop("*", item(a, v, i), item(v, a, sub(t, i)), dtype)
            return [ir.Assign(t, add(idx[0], shift), loc),
                    ir.Assign(acc, convert(const(0), dtype), loc),
                    self.loop(i, start, stop, [ir.Assign(acc, binop("+", acc, term, dtype),
                                                         loc)], loc),
                    ir.Assign(self.element(out, idx), acc, loc)]
        return self.nest(shape, body)

    def weighted_average(self, e):
        """np.average(a, axis, weights) (typed: a and the weights in the result's dtype) as
        NumPy computes it (numpy/lib/_function_base_impl.py): np.sum(a * w, axis) / np.sum(w,
        axis), the sums of the weights computed once; ValueError where the weights' shape is
        not a's (1-D weights: where their length is not a's along the axis), and
        ZeroDivisionError where a sum of the weights is 0, NumPy's words. The value is typed
        IR of the array lowering's own calls, made once per statement."""
        key = ("average", id(e))
        if key not in self.memo:
            a, w = e.args
            keywords = {k: v for k, v in e.keywords.items() if k in ("axis", "keepdims")}
            shape, weights = self.shape(a), self.shape(w)
            if "along" in e.keywords:
                axis = keywords["axis"].value
                self.check(compare("!=", weights[axis], shape[axis]), "Shape of weights must "
                           "be consistent with shape of a along specified axis.")
            else:
                for n, m in zip(shape, weights):
                    if not same(n, m):
                        self.check(compare("!=", n, m), "Axis must be specified when shapes of "
                                   "a and weights differ.")
            dtype, t = e.type.dtype, e.type
            total = ir.ArrayCall("sum", [w], dict(keywords), e.loc, t)
            if isinstance(t, Array):
                total = self.materialize(total)
                bad = self.accumulate("|", self.shape(total), lambda idx: compare(
                    "==", self.element(total, idx), convert(const(0), dtype)), "bool", e.loc)
            else:
                total = self.scalar(total)
                bad = compare("==", total, convert(const(0), dtype))
            self.check(bad, "Weights sum to zero, can't be normalized", "ZeroDivisionError")
            product = ir.BinOp("*", a, copy.deepcopy(w), e.loc, Array(dtype, a.type.ndim))
            sums = ir.ArrayCall("sum", [product], keywords, e.loc, t)
            self.memo[key] = (e, ir.BinOp("/", sums, total, e.loc, t))
        return self.memo[key][1]

    def einsum_parts(self, e):
        """(the operands' names, their letters, the output's letters, each letter's length) of
        np.einsum(): a letter repeated within an operand needs equal lengths there, and
        across operands lengths equal or 1 (NumPy broadcasts a length 1; np.tensordot's,
        the keyword `exact`, equal); ValueError otherwise, as NumPy's."""
        key = ("einsum", id(e))
        if key not in self.memo:
            lhs, out = e.keywords["subscripts"].value.split("->")
            inputs = lhs.split(",")
            exact = e.keywords["exact"].value if "exact" in e.keywords else ""
            operands = [self.materialize(x) for x in e.args]
            sizes = {}
            for c in dict.fromkeys("".join(inputs)):
                size = None
                for k, (x, sub) in enumerate(zip(operands, inputs)):
                    dims = [d for d, letter in zip(self.shape(x), sub) if letter == c]
                    for d in dims[1:]:
                        if not same(d, dims[0]):
                            self.check(compare("!=", d, dims[0]), "dimensions in single operand "
                                       f"for collapsing index '{c}' don't match")
                    if not dims:
                        continue
                    d = dims[0]
                    if size is None:
                        size = d
                    elif not same(size, d) and c in exact:
                        self.check(compare("!=", d, size), "shape-mismatch for sum")
                    elif not same(size, d):
                        self.check(ir.BoolOp("and", [compare("!=", d, size),
                                                     compare("!=", d, const(1)),
                                                     compare("!=", size, const(1))], e.loc,
                                             BOOL),
                                   "operands could not be broadcast together in np.einsum(): "
                                   f"the lengths of index '{c}' differ")
                        size = self.scalar_temp("n", choose(compare("==", size, const(1)), d,
                                                            size))
                sizes[c] = size
            self.memo[key] = (e, (operands, inputs, out, sizes))
        return self.memo[key][1]

    def einsum_sum(self, e, idx, loc):
        """(statements, the value) of one element of np.einsum() (`idx`, its output index): the
        sum over the letters absent from the output, nested in the order they first appear
        (the first outermost), of the product of the operands' elements, each converted to
        the result's dtype (integers wrap as NumPy's); the product itself where no letter is
        summed over. A letter of several operands reads index 0 of an operand whose length
        there is 1 (broadcast)."""
        operands, inputs, out, sizes = self.einsum_parts(e)
        dtype = e.type.dtype
        letters = "".join(inputs)
        index = dict(zip(out, idx))
        summed = [c for c in dict.fromkeys(letters) if c not in out]
        for c in summed:
            index[c] = self.temp("i", PY_INT)

        def at(x, axis, c):
            shared = sum(c in other for other in inputs) > 1
            d = self.shape(x)[axis]
            if shared and not same(d, sizes[c]) and c not in e.keywords.get(
                    "exact", ir.Const("")).value:
                return call("min", [index[c], sub(d, const(1))], "int64")
            return index[c]
        term = None
        for x, letters_k in zip(operands, inputs):
            item = convert(self.element(x, [at(x, axis, c) for axis, c in enumerate(letters_k)]),
                           dtype)
            term = item if term is None else binop("*", term, item, dtype)
        if not summed:
            return [], term
        acc = self.temp("r", Scalar(dtype))
        body = [ir.Assign(acc, binop("+", acc, term, dtype), loc)]
        for c in reversed(summed):
            body = [self.loop(index[c], const(0), sizes[c], body, loc)]
        return [ir.Assign(acc, convert(const(0), dtype), loc)] + body, acc

    def bincount_length(self, e):
        """The length of np.bincount(x, weights, minlength): max(max(x) + 1, minlength), x's
        extremes found by one scan; ValueError as NumPy's for a negative minlength or value
        and weights of another length."""
        key = ("bincount", id(e))
        if key not in self.memo:
            x, weights, minlength = e.args
            x = self.materialize(x)
            minlength = self.scalar_temp("n", convert(self.scalar(minlength), "int64"))
            self.check(compare("<", minlength, const(0)), "'minlength' must not be negative")
            n = self.shape(x)[0]
            if isinstance(weights.type, Array):
                self.check(compare("!=", self.shape(weights)[0], n),
                           "The weights and list don't have the same length.")
            high, low = self.temp("hi", Scalar("int64")), self.temp("lo", Scalar("int64"))
            self.pre += [ir.Assign(high, const(-1), e.loc), ir.Assign(low, const(0), e.loc)]
            with self.sequential():
                self.pre += self.nest([n], lambda idx: [
                    ir.Assign(high, call("max", [high, convert(self.element(x, idx), "int64")],
                                         "int64"), e.loc),
                    ir.Assign(low, call("min", [low, convert(self.element(x, idx), "int64")],
                                        "int64"), e.loc)])
            self.check(compare("<", low, const(0)),
                       "'list' argument must have no negative elements")
            length = self.scalar_temp("n", call("max", [add(high, const(1)), minlength],
                                                 "int64"))
            self.memo[key] = (e, length)
        return self.memo[key][1]

    def bincount_into(self, out, e, shape, loc):
        """`out = np.bincount(x, weights)`: zeros, then each value's count (or weight) added
        in x's order."""
        x, weights = self.materialize(e.args[0]), e.args[1]
        dtype = out.type.dtype
        zeros = self.nest(shape, lambda idx: [ir.Assign(self.element(out, idx),
                                                        convert(const(0), dtype), loc)])

        def add_one(idx):
            bin_ = self.element(out, [convert(self.element(x, idx), "int64")])
            term = convert(self.element(weights, idx), dtype) if isinstance(
                weights.type, Array) else convert(const(1), dtype)
            return [ir.Assign(bin_, binop("+", copy.deepcopy(bin_), term, dtype), loc)]

        with self.sequential():
            return zeros + self.nest(self.shape(x), add_one)

    def accumulate_along(self, out, e, axis, shape, loc):
        """`out = np.cumsum(a, axis=k)` (cumprod, np.maximum.accumulate, minimum): in C order
        each element is its predecessor along the axis (written before it) combined with its
        own term, in NumPy's order (maximum and minimum keep a NaN, as np.maximum does)."""
        a, dtype, op = e.args[0], out.type.dtype, CUMULATIVE[e.func]

        def body(idx):
            term = convert(self.element(a, idx), dtype)
            before = [sub(i, const(1)) if k == axis else i for k, i in enumerate(idx)]
            previous = self.element(out, before)
            combined = scalar_function(op, [previous, term], dtype) if op.isalpha() else \
                binop(op, previous, term, dtype)
            value = choose(compare("==", idx[axis], const(0)), term, combined)
            return [ir.Assign(self.element(out, idx), value, loc)]

        with self.sequential():
            return self.nest(shape, body)

    def product_into(self, out, e, loc):
        """`out = a @ b` (matrix-vector, vector-matrix or matrix-matrix): a nest over the
        result with an inner loop over the shared dimension."""
        dtype = e.type.dtype
        # The BLAS for matrix-matrix products; a matrix-vector product reads each element of
        # the matrix once, and the nest (which fuses with its neighbours) is as fast
        # (measured: gemv 2000² on 2 cores 1.79 ms as a nest, 2.18 ms with OpenBLAS).
        library = dtype in ("float32", "float64") and not self.in_prange and all(
            x.type.dtype == dtype and x.type.ndim == 2 for x in e.args)
        factors, args = [], []
        for x in e.args:
            # (alpha * a) @ b is alpha * (a @ b), as a BLAS computes it with its alpha: no
            # array alpha * a (the rounding may differ from NumPy's in the last digits).
            scaled = library and isinstance(x, ir.BinOp) and x.op == "*" and [
                side for side in (x.left, x.right) if isinstance(side.type, Scalar)]
            if scaled and x.type.dtype == dtype:
                factors.append(self.scalar_temp("s", scaled[0]))
                x = x.right if scaled[0] is x.left else x.left
                x = x if x.type.dtype == dtype else ir.Cast(x, x.loc, Array(dtype, x.type.ndim))
            args.append(x)
        # The BLAS needs the operands as arrays: names (a view costs nothing).
        a, b = (self.materialize(x) if library or not self.readable(x) else x for x in args)
        sa, sb = self.shape(a), self.shape(b)
        inner_a, inner_b = sa[-1], sb[0]
        if not same(inner_a, inner_b):
            self.check(compare("!=", inner_a, inner_b),
                       f"np.{e.func}(): shapes not aligned (the inner dimensions differ)")
        rows = sa[:-1]
        cols = sb[1:]

        def body(idx):
            i, j = list(idx[:len(rows)]), list(idx[len(rows):])
            stmts = []
            with self.sequential():
                acc = self.accumulate("+", [inner_a], lambda k: binop(
                    "*", convert(self.element(a, i + [k[0]]), dtype),
                    convert(self.element(b, [k[0]] + j), dtype), dtype), dtype, loc, stmts)
            return stmts + [ir.Assign(self.element(out, idx), acc, loc)]
        nest = self.nest(rows + cols, body)
        if library:
            nest[0].blas = [out, a, b]
        for factor in factors:
            nest += self.nest(rows + cols, lambda idx: [ir.Assign(
                self.element(out, idx), binop("*", convert(factor, dtype),
                                              self.element(out, idx), dtype), loc)])
        return nest
