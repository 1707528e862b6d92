"""Types of the NumPy functions and methods on whole arrays (`ir.ArrayCall`): reductions, `dot`
and `@`, allocations, copies and views. The result dtypes are NumPy's own, read from NumPy
applied to a small array of the argument's dtype, so they follow the installed NumPy."""
from __future__ import annotations

import copy
import math

import numpy as np

from unpy import ir
from unpy.ir import Array, ListType, Scalar, TupleType
from unpy.typeinfer.python_calls import CALLS, refused_module_call, type_python_call
from unpy.typeinfer.types import INT64, is_int, resolve, UFUNCS

REDUCTIONS = {"sum", "prod", "mean", "std", "var", "min", "max", "argmin", "argmax", "any",
              "all", "nanprod", "nanmean", "nanvar", "nanstd", "nanmax", "nanmin"}
ALLOCATIONS = {"zeros", "ones", "empty"}
LIKE = {"zeros_like": "zeros", "empty_like": "empty", "ones_like": "ones", "full_like": "full"}
LINALG = {"solve", "inv", "cholesky", "det", "eigh"}
SORT_KINDS = ("quicksort", "mergesort", "heapsort", "stable")
# Where axis=None is not what leaving the axis out means (the others drop it).
AXIS_NONE_FLATTENS = ("sort", "argsort", "concatenate", "diff", "take_along_axis")
COMPLEX_REDUCTIONS = {"sum", "prod", "mean", "any", "all"}
KEYWORDS = {name: {"axis", "keepdims"} for name in REDUCTIONS}
KEYWORDS.update({name: {"axis", "keepdims", "ddof"} for name in ("std", "var", "nanstd",
                                                                  "nanvar")})
KEYWORDS.update({"argmin": {"axis"}, "argmax": {"axis"}})


def numpy_result_dtype(func: str, dtype: str) -> str:
    """The dtype NumPy's `func` reduction gives for an array of `dtype`."""
    sample = np.ones(2, dtype)
    return np.asarray(getattr(np, func)(sample)).dtype.name


def literal_int(infer, e, what):
    value = e.value if isinstance(e, ir.Const) else None
    if isinstance(e, ir.UnaryOp) and e.op == "-" and isinstance(e.operand, ir.Const):
        value = -e.operand.value
    if type(value) is not int:
        raise infer.error(f"{what} must be an integer literal in compiled code", e)
    return value


def literal_bool(infer, e, what):
    if not isinstance(e, ir.Const) or not isinstance(e.value, bool):
        raise infer.error(f"{what} must be True or False", e)
    return e.value


def dtype_keyword(infer, e, default):
    """The dtype of a `dtype=` keyword (a literal, `a.dtype` or a parameter of type
    `type[...]`), else `default`."""
    value = e.keywords.get("dtype")
    if value is None:
        return default
    if isinstance(value, ir.ArrayAttr):
        t = infer.expr(value.array).type
        if not isinstance(t, Array):
            raise infer.error(f"'{value.array.id}' is not an array; '.dtype' needs one", value)
    elif isinstance(value, ir.Name):
        t = infer.dtype_parameter(value)
    else:
        return value.value
    e.keywords["dtype"] = ir.Const(t.dtype, value.loc)
    return t.dtype


def array_arg(infer, e, k=0):
    if k >= len(e.args):
        raise infer.error(f"np.{e.func}() needs an array argument", e)
    if isinstance(e.args[k], list):     # np.max([a, b, c]): the array of the values written
        e.args[k] = ir.ArrayCall("asarray", [e.args[k]], {}, e.loc)
    a = infer.expr(e.args[k])
    if not isinstance(a.type, Array):
        raise infer.error(f"np.{e.func}() of a scalar is not supported in compiled code; it "
                          "needs an array", a)
    e.args[k] = a
    return a


def check_keywords(infer, e, allowed):
    for k in e.keywords:
        if k not in allowed:
            shown = ", ".join(sorted(allowed)) or "none"
            raise infer.error(f"np.{e.func}() does not take the keyword '{k}' in compiled code "
                              f"(supported: {shown})", e.keywords[k])


def type_array_call(infer, e: ir.ArrayCall):
    """Type `e` (in place; returns it) or raise a compile error that says what to write."""
    f = e.func
    if f in CALLS:
        return type_python_call(infer, e)
    refused = refused_module_call(f)
    if refused:
        raise infer.error(refused, e)
    axis = e.keywords.get("axis")
    if isinstance(axis, ir.Const) and axis.value is None and f not in AXIS_NONE_FLATTENS:
        del e.keywords["axis"]      # axis=None: NumPy's default (all of the array)
    if f in REDUCTIONS:
        return reduction(infer, e)
    if f in ("dot", "matmul", "vdot", "inner"):
        return product(infer, e)
    if f in ALLOCATIONS:
        check_keywords(infer, e, {"dtype"})
        dims = infer.shape_dims(e.args[0], e)
        return ir.AllocArray(f, dims, dtype_keyword(infer, e, "float64"), e.loc,
                             Array(dtype_keyword(infer, e, "float64"), len(dims)))
    if f in LIKE or f == "full":
        return allocation_like(infer, e)
    if f == "comprehension_array":
        return comprehension_array(infer, e)
    if f == "array_literal" or (f in ("copy", "asarray") and e.args and
                                isinstance(e.args[0], list)):
        return array_literal(infer, e)
    if f in ("copy", "asarray", "transpose", "ravel", "copy_ravel", "flip", "flipud", "fliplr",
             "cumsum", "cumprod", "cummax", "cummin", "astype"):
        return same_elements(infer, e)
    if f in ("concatenate", "hstack", "vstack", "stack", "column_stack"):
        return joined(infer, e)
    if f in ("roll", "diff"):
        return shifted(infer, e)
    if f == "expand_dims":
        a = array_arg(infer, e)
        check_keywords(infer, e, {"axis"})
        axis, = positional_or_keyword(infer, e, ["axis"])
        k = literal_axis(infer, e, axis, a.type.ndim + 1)
        return ir.View(a, [ir.Slice(None, None, None, e.loc) for _ in range(k)] +
                       [ir.NewAxis(e.loc)], e.loc, Array(a.type.dtype, a.type.ndim + 1))
    if f == "diag":
        return diagonal(infer, e)
    if f in ("sort", "argsort"):
        return ordered(infer, e)
    if f == "bincount":
        return counted(infer, e)
    if f in ("triu", "tril"):
        return triangle(infer, e)
    if f == "reshape":
        a = array_arg(infer, e)
        check_keywords(infer, e, set())
        shape = e.args[1] if len(e.args) == 2 and isinstance(e.args[1], list) else e.args[1:]
        dims = [item for d in shape for item in shape_items(infer, d)]
        e.args = [a] + dims
        e.type = Array(a.type.dtype, len(dims))
        return e
    if f == "ufunc_outer":
        return ufunc_outer(infer, e)
    if f == "flat_indices":
        return flat_indices(infer, e)
    if f == "ndindex_length":
        n = infer.expr(e.args[0])
        if not (isinstance(n.type, Scalar) and is_int(n.type)):
            raise infer.error(f"np.ndindex() of {n.type} is not supported in compiled code; "
                              "give the lengths (np.ndindex(n, m)) or an array's shape "
                              "(np.ndindex(a.shape))", e)
        return n
    if f in ("mgrid", "ogrid"):
        return grid(infer, e)
    if f == "outer":
        a, b = array_arg(infer, e, 0), array_arg(infer, e, 1)
        out = resolve(UFUNCS["*"], [Scalar(a.type.dtype), Scalar(b.type.dtype)])[1]
        e.type = Array(out.dtype, 2)
        return e
    if f == "norm":
        a = array_arg(infer, e)
        if np.dtype(a.type.dtype).kind == "c":
            raise infer.error("np.linalg.norm() of complex values is not supported; write "
                              "np.sqrt(np.sum(np.abs(z) ** 2))", e)
        for k in e.keywords:
            if k not in ("ord", "axis", "keepdims"):
                raise infer.error(f"np.linalg.norm() does not take the keyword '{k}' in "
                                  "compiled code (supported: ord, axis, keepdims)", e.keywords[k])
        if len(e.args) > 2 or (len(e.args) == 2 and "ord" in e.keywords):
            raise infer.error("np.linalg.norm(x, ord=None, axis=None, keepdims=False) takes "
                              "the ord once", e)
        order = e.keywords.pop("ord", e.args.pop() if len(e.args) == 2 else None)
        order = norm_order(infer, order)
        matrix = a.type.ndim == 2 and "axis" not in e.keywords
        if order not in (None, 2, "fro") or (order == 2 and matrix) or \
                (order == "fro" and not matrix):
            return ordered_norm(infer, e, a, order, matrix)
        if "axis" in e.keywords:
            return norms_along(infer, e, a)
        e.type = Scalar(np.asarray(np.linalg.norm(np.ones(2, a.type.dtype))).dtype.name)
        return e
    if f == "trace":
        a = array_arg(infer, e)
        if a.type.ndim != 2:
            raise infer.error("np.trace() is supported for 2-D arrays", e)
        e.type = Scalar(numpy_result_dtype("sum", a.type.dtype))
        return e
    if f in ("arange", "linspace", "eye", "identity"):
        return sequence(infer, e)
    if f in LINALG:
        return linalg(infer, e)
    if f == "cov":
        return covariance(infer, e)
    if f == "histogram":
        return histogram(infer, e)
    if f == "interp":
        return interp(infer, e)
    if f == "searchsorted":
        return searchsorted(infer, e)
    if f in ("quantile", "percentile", "nanquantile", "nanpercentile"):
        return quantile(infer, e)
    if f == "nanmedian":
        return nan_median(infer, e)
    if f == "convolve":
        return convolution(infer, e)
    if f == "einsum":
        return einsum(infer, e)
    if f == "tensordot":
        return tensordot(infer, e)
    if f == "take_along_axis":
        return take_along_axis(infer, e)
    if f == "average":
        return average(infer, e)
    if f == "gradient":
        return gradient(infer, e)
    if f == "digitize":
        return digitize(infer, e)
    if f == "cross":
        return cross(infer, e)
    if f == "pad":
        return pad(infer, e)
    if f == "unique":
        return unique(infer, e)
    if f == "polyval":
        return polyval(infer, e)
    if f == "meshgrid":
        return meshgrid(infer, e)
    if f in ("repeat", "tile"):
        return repeat_or_tile(infer, e)
    if f in ("nonzero", "flatnonzero", "argwhere"):
        check_keywords(infer, e, set())
        if len(e.args) != 1:
            raise infer.error(f"np.{f}(a) takes one array", e)
        a = array_arg(infer, e)
        e.type = (TupleType((Array("int64", 1),) * a.type.ndim) if f == "nonzero"
                  else Array("int64", 1 if f == "flatnonzero" else 2))
        return e
    if f == "fill":
        array_arg(infer, e)
        e.args[1] = infer.expr(e.args[1])
        e.type = None
        return e
    raise infer.error(f"np.{f}() is not supported in compiled code", e)


def flat_indices(infer, e):
    """The frontend's `a[flat_indices(a, k)]` (`a.flat[k]`, `for v in a.flat`), `k` a name
    in [0, a.size): the tuple of a's indices at C-order position k, `k // (n1 * n2)`,
    `k // n2 % n1`, `k % n2` for a of shape (n0, n1, n2). Of a tuple of lengths (names or
    constants) in place of `a`, of that shape (`np.ndindex`); `unpacked`: the number of names
    the tuple is unpacked into, which must be its length."""
    loc = e.loc
    if isinstance(e.args[0], ir.TupleValue):
        shape = e.args[0].items
    else:
        a = array_arg(infer, e)
        shape = [ir.ArrayAttr(ir.Name(a.id, loc), "shape", k, loc) for k in range(a.type.ndim)]
    unpacked = e.keywords.get("unpacked")
    if unpacked is not None and unpacked.value != len(shape):
        raise infer.error(f"np.ndindex() of {len(shape)} dimension(s) unpacks into as many "
                          f"names, not {unpacked.value}", e)
    position, items, later = e.args[1], [], None
    for k in reversed(range(len(shape))):
        length = copy.deepcopy(shape[k])
        index = copy.deepcopy(position) if later is None else \
            ir.BinOp("//", copy.deepcopy(position), copy.deepcopy(later), loc)
        items.insert(0, index if k == 0 else ir.BinOp("%", index, length, loc))
        later = length if later is None else ir.BinOp("*", copy.deepcopy(length), later, loc)
    return infer.expr(ir.TupleValue(items, loc))


def ufunc_outer(infer, e):
    """`np.<ufunc>.outer(a, b)`, held as the ufunc's expression of a and b: that expression
    with b.ndim new last axes given to a (each operand's type found on a copy first)."""
    node = e.args[0]
    operands = ([node.left, node.right] if isinstance(node, ir.BinOp) else
                [node.left, node.comparators[0]] if isinstance(node, ir.Compare) else node.args)
    a_type, b_type = (infer.expr(ir.copy_tree(x)).type for x in operands)
    if isinstance(a_type, Array) and isinstance(b_type, Array) and b_type.ndim:
        widened = ir.Subscript(operands[0], [ir.Const(Ellipsis, e.loc)] +
                               [ir.NewAxis(e.loc) for _ in range(b_type.ndim)], e.loc)
        if isinstance(node, ir.Call):
            node.args[0] = widened
        else:
            node.left = widened
    return infer.expr(node)


def grid(infer, e):
    """`np.mgrid[...]`, `np.ogrid[...]` of integer slices (ArrayCall of each slice's start,
    stop, step): NumPy's values `k * step + start` in the dtype NumPy promotes the slices' parts
    to, as np.arange gives them. mgrid: the tuple of np.meshgrid(..., indexing='ij') of them,
    to unpack (`yy, xx = np.mgrid[0:h, 0:w]`), each axis's length ceil((stop - start) / step)
    (a negative one ValueError, as NumPy's); ogrid: the tuple of views with the other axes of
    length 1; one slice: the 1-D array. (Each part is typed on a copy first, then used where
    the grid needs it.)"""
    types = [infer.expr(ir.copy_tree(x)).type for x in e.args]
    for x, t in zip(e.args, types):
        if not (isinstance(t, Scalar) and is_int(t)):
            raise infer.error(f"np.{e.func}[...] takes integer slices in compiled code, got "
                              f"{t}; for points write np.meshgrid(np.linspace(a, b, n), ..., "
                              "indexing='ij')", x)
    dtype = np.result_type(*(sample_of(t, 1) for t in types)).name
    loc = e.loc
    single = e.keywords["single"].value
    axes = []
    for k in range(0, len(e.args), 3):
        start, stop, step = (lambda j=j: ir.copy_tree(e.args[k + j]) for j in range(3))
        values = ir.ArrayCall("astype", [ir.ArrayCall("arange", [start(), stop(), step()], {},
                                                      loc)], {"dtype": ir.Const(dtype, loc)},
                              loc)
        if e.func == "mgrid" and not single:
            # ceil((stop - start) / step) = -((start - stop) // step): NumPy allocates it
            # (np.arange's own length is never negative)
            length = ir.UnaryOp("-", ir.BinOp("//", ir.BinOp("-", start(), stop(), loc), step(),
                                              loc), loc)
            values = ir.BinOp("+", ir.AllocArray("zeros", [length], dtype, loc), values, loc)
        axes.append(values)
    if single:
        return infer.expr(axes[0])
    if e.func == "mgrid":
        return infer.expr(ir.ArrayCall("meshgrid", axes, {"indexing": ir.Const("ij", loc)}, loc))
    n = len(axes)
    views = [ir.Subscript(v, [ir.NewAxis(loc) if j != k else ir.Slice(None, None, None, loc)
                              for j in range(n)], loc) for k, v in enumerate(axes)]
    return infer.expr(ir.TupleValue(views, loc))


def shape_items(infer, d):
    """One argument of a shape (`n`, `-1`, a tuple variable, `a.shape`, `a.shape[1:]`) as
    integer expressions."""
    d = infer.expr(d)
    items = infer.tuple_items(d) if isinstance(d.type, TupleType) else [d]
    for item in items:
        if not is_int(item.type):
            raise infer.error(f"array dimensions must be integers, got {item.type}", d)
    return items


def reduction(infer, e):
    a = array_arg(infer, e)
    check_keywords(infer, e, KEYWORDS[e.func])
    if len(e.args) > 1:        # np.sum(a, 0): the axis by position
        if "axis" in e.keywords or len(e.args) > 2:
            raise infer.error(f"np.{e.func}(a, axis) takes the axis once", e)
        e.keywords["axis"] = e.args.pop()
    dtype = a.type.dtype
    if np.dtype(dtype).kind == "c" and e.func.startswith("nan"):
        raise infer.error(f"np.{e.func}() of complex values is not supported in compiled code; "
                          f"select the numbers first: np.{e.func[3:]}(z[~np.isnan(z)])", e)
    if np.dtype(dtype).kind == "c" and e.func not in COMPLEX_REDUCTIONS:
        raise infer.error(f"np.{e.func}() of complex values is not supported (NumPy orders "
                          "complex numbers lexicographically, or gives a real result); reduce "
                          "np.abs(z), z.real or z.imag instead", e)
    func = {"argmin": "argmin", "argmax": "argmax"}.get(e.func, e.func)
    out = numpy_result_dtype(func, dtype) if func not in ("min", "max") else dtype
    if "ddof" in e.keywords:
        ddof = infer.expr(e.keywords["ddof"])
        if not is_int(ddof.type) and ddof.type.dtype != "float64":
            raise infer.error("ddof must be a number", ddof)
        e.keywords["ddof"] = ddof
    keepdims = literal_bool(infer, e.keywords["keepdims"], "keepdims") \
        if "keepdims" in e.keywords else False
    if "axis" not in e.keywords or (isinstance(e.keywords["axis"], ir.Const)
                                    and e.keywords["axis"].value is None):
        e.keywords.pop("axis", None)
        e.type = Array(out, a.type.ndim) if keepdims else Scalar(out)
        return e
    if isinstance(e.keywords["axis"], ir.TupleValue):
        return infer.expr(over_axes(infer, e, a, e.keywords["axis"].items, keepdims))
    axis = literal_int(infer, e.keywords["axis"], "axis")
    if not -a.type.ndim <= axis < a.type.ndim:
        raise infer.error(f"axis {axis} is out of bounds for an array of {a.type.ndim} "
                          "dimension(s)", e.keywords["axis"])
    e.keywords["axis"] = ir.Const(axis % a.type.ndim, e.loc, INT64)
    ndim = a.type.ndim if keepdims else a.type.ndim - 1
    e.type = Array(out, ndim) if ndim else Scalar(out)
    return e


# Reductions over several axes at once that are the same reduction over one axis after
# another: their partial results combine as the whole (a mean's slices have equal counts).
NESTED_REDUCTIONS = {"sum", "prod", "mean", "min", "max", "any", "all", "nanprod", "nanmax",
                     "nanmin"}


def over_axes(infer, e, a, items, keepdims):
    """`np.sum(a, axis=(0, 2))` as the reduction over one axis after another, the highest
    first, so that the lower axes keep their numbers (`keepdims` keeps every one). The axes
    are integer literals, distinct, of a's dimensions (NumPy's ValueError and AxisError)."""
    where = e.keywords["axis"]
    if e.func not in NESTED_REDUCTIONS:
        raise infer.error(f"np.{e.func}() over a tuple of axes is not supported in compiled "
                          f"code; make the axes one first (np.{e.func}(a.reshape(n, -1), "
                          "axis=1) for the last ones) or reduce one axis at a time", where)
    if not items:
        raise infer.error(f"np.{e.func}() with axis=() is not supported in compiled code; "
                          "write the array itself (a copy: a.copy())", where)
    axes = [literal_axis(infer, e, x, a.type.ndim) for x in items]
    if len(set(axes)) != len(axes):
        raise infer.error("duplicate value in 'axis' (NumPy raises ValueError)", where)
    value = a
    for k in sorted(axes, reverse=True):
        keywords = {"axis": ir.Const(k, e.loc)}
        if keepdims:
            keywords["keepdims"] = ir.Const(True, e.loc)
        value = ir.ArrayCall(e.func, [value], keywords, e.loc)
    return value


def product(infer, e):
    check_keywords(infer, e, set())
    if len(e.args) != 2:
        raise infer.error(f"np.{e.func}() takes two arrays", e)
    written = copy.deepcopy(e.args)
    a, b = (infer.expr(x) for x in e.args)
    if not isinstance(a.type, Array) or not isinstance(b.type, Array):
        if e.func != "matmul":                 # np.dot(2.0, a) multiplies
            return infer.binop(ir.BinOp("*", a, b, e.loc))
        raise infer.error("'@' needs arrays on both sides; use '*' for a scalar", e)
    out = resolve(np.matmul, [Scalar(a.type.dtype), Scalar(b.type.dtype)])
    if out is None:
        raise infer.error(f"cannot multiply {a.type} by {b.type}", e)
    (ta, tb), t = out
    if (a.type.ndim > 2 or b.type.ndim > 2) and e.func in ("matmul", "dot"):
        if np.dtype(t.dtype).kind not in "iuf":
            raise infer.error(f"np.{e.func}() / '@' of arrays of more than 2 dimensions takes "
                              f"real numbers in compiled code, not {t.dtype}", e)
        e.args = written            # (typed again there)
        if e.func == "dot":         # a's last axis with b's second to last
            e.func, e.keywords = "tensordot", {"axes": ir.Const(
                ([-1], [-2 if b.type.ndim > 1 else -1]), e.loc)}
            return tensordot(infer, e)
        return stacked_product(infer, e, (a.type.ndim, b.type.ndim))
    if a.type.ndim > 2 or b.type.ndim > 2:
        raise infer.error(f"np.{e.func}() of arrays of more than 2 dimensions is not "
                          "supported; loop over the leading dimension", e)
    if e.func in ("vdot", "inner") and (a.type.ndim != 1 or b.type.ndim != 1):
        raise infer.error(f"np.{e.func}() is supported for 1-D arrays", e)
    ndim = a.type.ndim + b.type.ndim - 2
    e.args = [cast_array(a, ta.dtype), cast_array(b, tb.dtype)]
    e.type = Array(t.dtype, ndim) if ndim else Scalar(t.dtype)
    return e


def cast_array(a, dtype):
    if a.type.dtype == dtype:
        return a
    return ir.Cast(a, a.loc, Array(dtype, a.type.ndim))


def comprehension_array(infer, e):
    """The array that the frontend's loops fill with a list comprehension's items
    (`np.array([elt for t in it])`): of the lengths `e.args[:-1]` and the item's dtype (the
    last argument, typed only: the loops compute the items), or `dtype=`."""
    *lengths, item = e.args
    first = item
    item = infer.expr(copy.deepcopy(item))
    if isinstance(item.type, ListType):
        # np.array(m) of a list of lists: one dimension more per depth, each the length of the
        # first row there (0 where there is none; lists.rows_stored checks the others')
        for _ in range(item.type.depth):
            lengths.append(ir.IfExp(ir.Compare(copy.deepcopy(lengths[-1]), [">"],
                                               [ir.Const(0, e.loc)], e.loc),
                                    ir.ListLen(copy.deepcopy(first), e.loc),
                                    ir.Const(0, e.loc), e.loc))
            first = ir.Subscript(first.array, first.indices + [ir.Const(0, e.loc)], e.loc)
        item = infer.expr(copy.deepcopy(first))
    if not isinstance(item.type, Scalar):
        raise infer.error("np.array() of a list comprehension takes items that are numbers "
                          "here (not arrays or tuples); fill the array in a loop", e)
    dtype = dtype_keyword(infer, e, item.type.dtype)
    dims = [infer.shape_dims(n, e)[0] for n in lengths]
    return ir.AllocArray("empty", dims, dtype, e.loc, Array(dtype, len(dims)))


def allocation_like(infer, e):
    if e.func == "full":
        check_keywords(infer, e, {"dtype"})
        if len(e.args) != 2:
            raise infer.error("np.full(shape, value) takes a shape and a value", e)
        dims = infer.shape_dims(e.args[0], e)
        value = infer.expr(e.args[1])
        if not isinstance(value.type, Scalar):
            raise infer.error("np.full() needs a scalar fill value", value)
        dtype = dtype_keyword(infer, e, value.type.dtype)
        e.args = [dims, value]
        e.type = Array(dtype, len(dims))
        return e
    check_keywords(infer, e, {"dtype"})
    a = array_arg(infer, e)
    if e.func == "full_like":
        if len(e.args) != 2:
            raise infer.error("np.full_like(a, value) takes an array and a value", e)
        e.args[1] = infer.expr(e.args[1])
    elif len(e.args) != 1:
        raise infer.error(f"np.{e.func}(a) takes one array (and dtype=)", e)
    e.type = Array(dtype_keyword(infer, e, a.type.dtype), a.type.ndim)
    return e


def same_elements(infer, e):
    a = array_arg(infer, e)
    f = e.func
    if f == "astype":
        check_keywords(infer, e, {"dtype"})
        e.type = Array(dtype_keyword(infer, e, a.type.dtype), a.type.ndim)
        return e
    if f == "transpose":
        return transpose(infer, e, a)
    if f in ("cumsum", "cumprod", "cummax", "cummin"):
        return cumulative(infer, e, a)
    check_keywords(infer, e, {"dtype"} if f in ("asarray", "copy") else set())
    extra = e.args[1:]
    if f in ("flipud", "fliplr") and a.type.ndim < (2 if f == "fliplr" else 1):
        raise infer.error(f"np.{f}() needs an array of 2 dimensions", e)
    if f == "flip" and extra:
        raise infer.error("np.flip(a) is supported without 'axis' (every dimension reversed)", e)
    dtype = dtype_keyword(infer, e, a.type.dtype)
    ndim = 1 if f in ("ravel", "copy_ravel") else a.type.ndim
    e.type = Array(dtype, ndim)
    return e


def norm_order(infer, order):
    """The `ord` of np.linalg.norm as a number (math.inf for np.inf), 'fro', 'nuc' or None."""
    if order is None or (isinstance(order, ir.Const) and order.value is None):
        return None
    value = order.value if isinstance(order, ir.Const) else None
    if isinstance(order, ir.UnaryOp) and order.op == "-" and isinstance(order.operand, ir.Const) \
            and type(order.operand.value) in (int, float):
        value = -order.operand.value
    if type(value) in (int, float) or value in ("fro", "nuc"):
        return value
    raise infer.error("the ord of np.linalg.norm() must be written out in compiled code: a "
                      "number, np.inf, -np.inf, 'fro' or 'nuc'", order)


def ordered_norm(infer, e, a, order, matrix):
    """np.linalg.norm with an `ord` other than the 2-norm / Frobenius default, as NumPy
    computes it of the real values (integers as float64): of a vector (1-D, or along `axis`)
    max(|x|) (inf), min(|x|) (-inf), the count of nonzeros (0), sum(|x|) (1), else
    sum(|x|**ord)**(1/ord); of a matrix (2-D, no axis) the largest (1, inf) or smallest (-1,
    -inf) sum of |x| along its columns (1) or rows (inf). The matrix 2-norm and 'nuc' need the
    singular values: refused. `matrix`: a 2-D `a` without an axis."""
    if isinstance(e.keywords.get("axis"), ir.TupleValue):
        raise infer.error("np.linalg.norm() with ord and a tuple of axes (a matrix norm over "
                          "them) is not supported in compiled code; take the axes' matrix "
                          "out first (a[i, :, :])", e.keywords["axis"])
    if not matrix and a.type.ndim != 1 and "axis" not in e.keywords:
        raise infer.error("np.linalg.norm() with ord of an array of more than 2 dimensions "
                          "needs an axis", e)
    if matrix and (order not in (1, -1, math.inf, -math.inf) or "keepdims" in e.keywords):
        raise infer.error(f"np.linalg.norm() of a matrix with ord={order!r} is not supported "
                          "in compiled code (it needs the singular values, or keepdims); "
                          "ord=None ('fro'), 1, -1, np.inf and -np.inf are", e)
    if not matrix and isinstance(order, str):
        raise infer.error(f"ord={order!r} is a matrix norm; this is a vector", e)
    if np.dtype(a.type.dtype).kind in "biu":
        a = ir.Cast(a, a.loc, Array("float64", a.type.ndim))
    size = infer.elementwise(ir.Call("np.abs", [a], e.loc), [a])
    keywords = dict(e.keywords)
    if matrix:
        rows = ir.ArrayCall("sum", [size], {"axis": ir.Const(1 if abs(order) == math.inf
                                                             else 0, e.loc)}, e.loc)
        return infer.expr(ir.ArrayCall("max" if order > 0 else "min", [rows], {}, e.loc))
    if order in (math.inf, -math.inf):
        return infer.expr(ir.ArrayCall("max" if order > 0 else "min", [size], keywords, e.loc))
    if order == 0:
        nonzero = infer.expr(ir.Compare(size, ["!="], [ir.Const(0, e.loc)], e.loc))
        nonzero = ir.Cast(nonzero, e.loc, Array(size.type.dtype, size.type.ndim))
        return infer.expr(ir.ArrayCall("sum", [nonzero], keywords, e.loc))
    if order == 1:
        return infer.expr(ir.ArrayCall("sum", [size], keywords, e.loc))
    power = infer.binop(ir.BinOp("**", size, infer.expr(ir.Const(float(order), e.loc)), e.loc))
    total = infer.expr(ir.ArrayCall("sum", [power], keywords, e.loc))
    return infer.binop(ir.BinOp("**", total, infer.expr(ir.Const(1.0 / order, e.loc)), e.loc))


def norms_along(infer, e, a):
    """`np.linalg.norm(x, axis=k, keepdims=)`: NumPy's sqrt(sum(x * x, axis)) of real values
    (integers as float64, as NumPy converts them), typed as written so."""
    literal_axis(infer, e, e.keywords["axis"], a.type.ndim)
    if np.dtype(a.type.dtype).kind in "biu":
        a = ir.Cast(a, a.loc, Array("float64", a.type.ndim))
    square = infer.binop(ir.BinOp("*", a, copy.deepcopy(a), e.loc))
    total = infer.expr(ir.ArrayCall("sum", [square], dict(e.keywords), e.loc))
    return infer.elementwise(ir.Call("np.sqrt", [total], e.loc), [total])


def array_literal(infer, e):
    """`np.array([x, y, z])`, `np.array([[a, b], [c, d]])`, `np.asarray((x, y))`: a new array
    of the scalars written out, of NumPy's dtype for them (np.array takes a Python float as
    float64, a Python int as int64) or dtype=. Becomes the call 'array_literal' of the items
    in C order, its shape the keyword `shape` (a Const tuple)."""
    if e.func == "array_literal":       # typed before
        items, shape = e.args, e.keywords["shape"].value
    else:
        check_keywords(infer, e, {"dtype"})
        rows = e.args[0]
        if len(e.args) != 1:
            raise infer.error("np.array(values) takes the values and dtype= here", e)
        nested = [isinstance(r, list) for r in rows]
        if any(nested):
            if not all(nested) or len({len(r) for r in rows}) != 1 or any(
                    isinstance(x, list) for r in rows for x in r):
                raise infer.error("np.array() of nested lists needs rows of one length, of "
                                  "scalars (1-D or 2-D)", e)
            shape, items = (len(rows), len(rows[0])), [x for r in rows for x in r]
        else:
            shape, items = (len(rows),), rows
    items = [infer.expr(x) for x in items]
    for x in items:
        if not isinstance(x.type, Scalar):
            raise infer.error("np.array() of a list takes scalars in compiled code; join "
                              "arrays with np.concatenate, np.stack or np.vstack", x)
    found = np.result_type(*[np.dtype(x.type.dtype) for x in items]).name if items else \
        "float64"
    dtype = dtype_keyword(infer, e, found)
    e.func, e.args, e.keywords = "array_literal", items, {"shape": ir.Const(shape, e.loc),
                                                          "dtype": ir.Const(dtype, e.loc)}
    e.type = Array(dtype, len(shape))
    return e


def literal_axis(infer, e, axis, ndim, allow_none=False):
    """The axis `axis` (an IR expression or None) of `e` as an int in [0, ndim), or None."""
    if axis is None or (allow_none and isinstance(axis, ir.Const) and axis.value is None):
        if allow_none:
            return None
        raise infer.error(f"np.{e.func}() needs an axis here", e)
    k = literal_int(infer, axis, f"the axis of np.{e.func}()")
    if not -ndim <= k < ndim:
        raise infer.error(f"axis {k} is out of bounds for an array of {ndim} dimension(s) "
                          "(NumPy raises AxisError)", axis)
    return k % ndim


def positional_or_keyword(infer, e, names):
    """The arguments after the array of `e`, by position or keyword, in the order of NumPy's
    `names` (None where not given)."""
    given = e.args[1:]
    if len(given) > len(names):
        raise infer.error(f"np.{e.func}() takes at most {len(names)} argument(s) after the "
                          f"array here ({', '.join(names)})", e)
    values = dict(zip(names, given))
    for k, v in e.keywords.items():
        if k in values:
            raise infer.error(f"np.{e.func}() got '{k}' twice (by position and keyword)", v)
        values[k] = v
    return [values.get(n) for n in names]


def cumulative(infer, e, a):
    """`np.cumsum(a)`, `np.cumsum(a, axis=k)`, `a.cumsum(k)`, `np.cumprod`: NumPy's dtype of a
    sum (product); without an axis of the flattened array (1-D). `np.maximum.accumulate(a,
    axis=0)` ('cummax') and 'cummin': a's dtype, axis 0 by default (ufunc.accumulate's). The
    axis is kept as the keyword `axis` (a Const, None without one)."""
    check_keywords(infer, e, {"axis"})
    axis, = positional_or_keyword(infer, e, ["axis"])
    ufunc = e.func in ("cummax", "cummin")
    if ufunc and (axis is None or isinstance(axis, ir.Const) and axis.value is None):
        axis = ir.Const(0, e.loc)
    axis = literal_axis(infer, e, axis, a.type.ndim, allow_none=True)
    if ufunc and np.dtype(a.type.dtype).kind == "c":
        raise infer.error("np.maximum/minimum.accumulate() of complex values is not supported "
                          "(they have no order here)", e)
    e.args, e.keywords = [a], {"axis": ir.Const(axis, e.loc)}
    dtype = a.type.dtype if ufunc else numpy_result_dtype(
        "prod" if e.func == "cumprod" else "sum", a.type.dtype)
    e.type = Array(dtype, 1 if axis is None else a.type.ndim)
    return e


def shifted(infer, e):
    """`np.roll(a, shift, axis=k)` and `np.diff(a, n=1, axis=-1)`: new arrays read element by
    element where they stand. The axis is kept as the keyword `axis` (a Const; roll's None:
    the flattened order, as NumPy's); roll's shift (an integer) is args[1]; diff's `n` (a
    literal) becomes n nested diffs. diff's dtype is NumPy's subtraction's (`!=` for bool)."""
    a = array_arg(infer, e)
    ndim = a.type.ndim
    if e.func == "roll":
        check_keywords(infer, e, {"shift", "axis"})
        shift, axis = positional_or_keyword(infer, e, ["shift", "axis"])
        if shift is None:
            raise infer.error("np.roll(a, shift) needs the shift", e)
        if isinstance(shift, list):
            raise infer.error("np.roll() with a tuple of shifts is not supported; roll one axis "
                              "at a time (np.roll(np.roll(a, 1, axis=0), 2, axis=1))", e)
        shift = infer.expr(shift)
        if not (isinstance(shift.type, Scalar) and (is_int(shift.type) or
                                                    shift.type.dtype == "bool")):
            raise infer.error(f"the shift of np.roll() must be an integer; this is "
                              f"{shift.type}", shift)
        axis = literal_axis(infer, e, axis, ndim, allow_none=True)
        if axis is None and ndim == 1:
            axis = 0
        e.args, e.keywords = [a, shift], {"axis": ir.Const(axis, e.loc)}
        e.type = a.type
        return e
    check_keywords(infer, e, {"n", "axis"})
    n, axis = positional_or_keyword(infer, e, ["n", "axis"])
    n = 1 if n is None else literal_int(infer, n, "n of np.diff()")
    if n < 0:
        raise infer.error(f"order of np.diff() must be non-negative but got {n}", e)
    axis = literal_axis(infer, e, axis if axis is not None else ir.Const(-1, e.loc), ndim)
    dtype = a.type.dtype if a.type.dtype == "bool" else \
        resolve(UFUNCS["-"], [Scalar(a.type.dtype)] * 2)[1].dtype
    value = a
    for _ in range(n):
        value = ir.ArrayCall("diff", [value], {"axis": ir.Const(axis, e.loc)}, e.loc,
                             Array(dtype, ndim))
    return value


def diagonal(infer, e):
    """`np.diag(v, k)`: the matrix with the vector `v` on diagonal `k`, or the diagonal `k` of
    a matrix (a new array, as NumPy's np.diag of a matrix is a read-only view); `k` an integer
    literal, kept as the keyword `k`."""
    a = array_arg(infer, e)
    check_keywords(infer, e, {"k"})
    k, = positional_or_keyword(infer, e, ["k"])
    k = 0 if k is None else literal_int(infer, k, "the diagonal k of np.diag()")
    if a.type.ndim not in (1, 2):
        raise infer.error("np.diag() takes a vector or a matrix", e)
    e.args, e.keywords = [a], {"k": ir.Const(k, e.loc)}
    e.type = Array(a.type.dtype, 3 - a.type.ndim)
    return e


def counted(infer, e):
    """`np.bincount(x, weights=None, minlength=0)`: x a 1-D array of integers; int64 counts,
    or float64 sums of the weights (a 1-D real array). The args become [x, weights (Const None
    without), minlength (an int64)]."""
    x = array_arg(infer, e)
    check_keywords(infer, e, {"weights", "minlength"})
    weights, minlength = positional_or_keyword(infer, e, ["weights", "minlength"])
    if x.type.ndim != 1 or not is_int(Scalar(x.type.dtype)) or x.type.dtype == "uint64":
        raise infer.error("np.bincount() counts a 1-D array of non-negative integers (int8 to "
                          f"int64, uint8 to uint32); this is {x.type}", x)
    if isinstance(weights, ir.Const) and weights.value is None:
        weights = None
    if weights is not None:
        weights = infer.expr(weights)
        if not isinstance(weights.type, Array) or weights.type.ndim != 1 or \
                np.dtype(weights.type.dtype).kind not in "biuf":
            raise infer.error("the weights of np.bincount() must be a 1-D real array", weights)
    minlength = infer.expr(minlength if minlength is not None else ir.Const(0, e.loc))
    if not isinstance(minlength.type, Scalar) or not is_int(minlength.type):
        raise infer.error("the minlength of np.bincount() must be an integer", minlength)
    e.args = [x, weights if weights is not None else ir.Const(None, e.loc), minlength]
    e.keywords = {}
    e.type = Array("int64" if weights is None else "float64", 1)
    return e


def ordered(infer, e):
    """`np.sort(a)`, `np.argsort(a)`, `a.argsort()`, `a.sort()` (in place: the keyword
    `in_place`): along the last axis, the only one supported; argsort's positions are int64.
    Every kind sorts stably (NumPy's default kind may order equal keys otherwise). `middle`
    (np.median's): only the middle positions and the last in order (lower_sorting)."""
    a = array_arg(infer, e)
    check_keywords(infer, e, {"axis", "kind", "in_place", "middle"})
    axis, kind = positional_or_keyword(infer, e, ["axis", "kind"])
    if kind is not None and not (isinstance(kind, ir.Const) and kind.value in SORT_KINDS):
        raise infer.error(f"the kind of np.{e.func}() must be one of "
                          f"{', '.join(map(repr, SORT_KINDS))}", kind)
    what = f"np.{e.func}()" if "in_place" not in e.keywords else "a.sort()"
    if isinstance(axis, ir.Const) and axis.value is None:
        raise infer.error(f"{what} of the flattened array (axis=None) is not supported; sort "
                          f"a.ravel()", axis)
    k = literal_axis(infer, e, axis, a.type.ndim) if axis is not None else a.type.ndim - 1
    if k != a.type.ndim - 1:
        raise infer.error(f"{what} is supported along the last axis only; sort the transpose "
                          f"(np.sort(a.T).T sorts along axis 0)", axis)
    if np.dtype(a.type.dtype).kind == "c":
        raise infer.error(f"{what} of complex values is not supported (they have no order "
                          "here); sort z.real, z.imag or abs(z)", e)
    e.args = [a]
    e.keywords = {k: v for k, v in e.keywords.items() if k in ("in_place", "middle")}
    e.type = Array("int64" if e.func == "argsort" else a.type.dtype, a.type.ndim)
    return e


def transpose(infer, e, a):
    """`np.transpose(a)`, `a.T`, `np.transpose(a, axes=(1, 0, 2))`, `a.transpose(1, 0, 2)`:
    the axes (literals, a permutation) kept as the keyword `axes`, a Const tuple."""
    check_keywords(infer, e, {"axes"})
    axes = e.keywords.get("axes")
    if isinstance(axes, ir.Const) and isinstance(axes.value, tuple):     # typed already
        return e
    given = e.args[1:]
    if "axes" in e.keywords:
        if given:
            raise infer.error("np.transpose() takes the axes once", e)
        given = [e.keywords["axes"]]
    if len(given) == 1 and isinstance(given[0], (list, ir.TupleValue)):
        given = given[0] if isinstance(given[0], list) else given[0].items
    n = a.type.ndim
    if not given:
        axes = tuple(range(n))[::-1]
    else:
        if not all(isinstance(x, ir.Const) and type(x.value) is int for x in given):
            raise infer.error("the axes of np.transpose() must be integer literals "
                              "(np.transpose(a, (1, 0, 2)))", e)
        axes = tuple(x.value % n if -n <= x.value < n else n for x in given)
        if sorted(axes) != list(range(n)):
            raise infer.error(f"axes {tuple(x.value for x in given)} are not a permutation of "
                              f"the {n} dimension(s)", e)
    e.args, e.keywords = [a], {"axes": ir.Const(axes, e.loc)}
    e.type = Array(a.type.dtype, n)
    return e


def triangle(infer, e):
    """`np.triu(a, k)`, `np.tril(a, k=-1)`: `a` with the elements below (above) diagonal `k`
    of its last two dimensions zeroed; `k` an integer (keyword or by position)."""
    a = array_arg(infer, e)
    check_keywords(infer, e, {"k"})
    if len(e.args) > 2 or (len(e.args) == 2 and "k" in e.keywords):
        raise infer.error(f"np.{e.func}(a, k) takes k once", e)
    k = e.args[1] if len(e.args) == 2 else e.keywords.get("k", ir.Const(0, e.loc))
    k = infer.expr(k)
    if not is_int(k.type):
        raise infer.error(f"the diagonal k of np.{e.func}() must be an integer", k)
    if a.type.ndim < 2:
        raise infer.error(f"np.{e.func}() needs an array of at least 2 dimensions here", e)
    e.args, e.keywords = [a, k], {}
    e.type = a.type
    return e


def joined(infer, e):
    """`np.concatenate((a, b), axis=k)`, `np.hstack`, `np.vstack`, `np.stack((a, b), axis=k)`,
    `np.column_stack`: one `concatenate` of arrays of one number of dimensions along a literal
    axis (vstack's 1-D arrays become rows, column_stack's columns; stack's arrays each get a
    new dimension of length 1 at the axis)."""
    if e.type is not None:      # typed already (a piece of another join: np.pad)
        return e
    check_keywords(infer, e, {"axis"} if e.func in ("concatenate", "stack") else set())
    if len(e.args) != 1 or not isinstance(e.args[0], list) or not e.args[0]:
        raise infer.error(f"np.{e.func}() takes one tuple or list of arrays, written out "
                          f"(np.{e.func}((a, b)))", e)
    # a list written out among the arrays (`np.concatenate(([0.0], c))`) is np.asarray's
    pieces = [infer.expr(ir.ArrayCall("asarray", [p], {}, e.loc) if isinstance(p, list) else p)
              for p in e.args[0]]
    for p in pieces:
        if not isinstance(p.type, Array):
            raise infer.error(f"np.{e.func}() joins arrays; this is {p.type}", p)
    ndims = {p.type.ndim for p in pieces}
    if len(ndims) != 1:
        raise infer.error(f"np.{e.func}() needs arrays of one number of dimensions (NumPy "
                          f"raises ValueError); these have {sorted(ndims)}", e)
    ndim = ndims.pop()
    if e.func in ("vstack", "column_stack") and ndim == 1:
        pieces = [ir.View(p, [ir.NewAxis(p.loc), ir.Slice(None, None, None, p.loc)][::(
            1 if e.func == "vstack" else -1)], p.loc, Array(p.type.dtype, 2)) for p in pieces]
        ndim = 2
    if e.func == "stack":
        axis = e.keywords.get("axis", ir.Const(0, e.loc))
        if not (isinstance(axis, ir.Const) and type(axis.value) is int and
                -ndim - 1 <= axis.value <= ndim):
            raise infer.error(f"the axis of np.stack() must be an integer literal within the "
                              f"{ndim + 1} dimension(s) of the result", axis)
        axis = axis.value % (ndim + 1)
        pieces = [ir.View(p, [ir.Slice(None, None, None, p.loc) for _ in range(axis)] +
                          [ir.NewAxis(p.loc)], p.loc, Array(p.type.dtype, ndim + 1))
                  for p in pieces]
        ndim += 1
    elif e.func == "concatenate":
        axis = e.keywords.get("axis", ir.Const(0, e.loc))
        if not (isinstance(axis, ir.Const) and type(axis.value) is int and
                -ndim <= axis.value < ndim):
            raise infer.error(f"the axis of np.concatenate() must be an integer literal "
                              f"within the {ndim} dimension(s)", axis)
        axis = axis.value % ndim
    else:
        axis = 1 if e.func in ("hstack", "column_stack") and ndim > 1 else 0
    dtype = np.result_type(*[np.dtype(p.type.dtype) for p in pieces]).name
    e.func, e.args, e.keywords = "concatenate", pieces, {"axis": ir.Const(axis, e.loc)}
    e.type = Array(dtype, ndim)
    return e


def transposed_axes(e) -> tuple:
    """The axes of a typed transpose: output dimension k is input dimension axes[k]."""
    return e.keywords["axes"].value


def sequence(infer, e):
    f = e.func
    args = [infer.expr(a) for a in e.args]
    for a in args:
        if not isinstance(a.type, Scalar):
            raise infer.error(f"np.{f}() takes scalars", a)
    e.args = args
    if f == "arange":
        check_keywords(infer, e, {"dtype"})
        if not 1 <= len(args) <= 3:
            raise infer.error("np.arange() takes 1 to 3 arguments", e)
        default = "int64" if all(is_int(a.type) or a.type.dtype == "bool" for a in args) \
            else "float64"
        e.type = Array(dtype_keyword(infer, e, default), 1)
        return e
    if f == "linspace":
        check_keywords(infer, e, {"dtype", "endpoint"})
        if len(args) == 2:
            args.append(ir.Const(50, e.loc, INT64))
        if len(args) != 3 or not is_int(args[2].type):
            raise infer.error("np.linspace(start, stop, num) takes an integer num", e)
        if "endpoint" in e.keywords:
            literal_bool(infer, e.keywords["endpoint"], "endpoint")
        e.args = args
        e.type = Array(dtype_keyword(infer, e, "float64"), 1)
        return e
    check_keywords(infer, e, {"dtype"})
    if len(args) != 1 or not is_int(args[0].type):
        raise infer.error(f"np.{f}(n) takes one integer (a square matrix)", e)
    e.type = Array(dtype_keyword(infer, e, "float64"), 2)
    return e


# --- np.linalg, np.cov, np.histogram --------------------------------------------------------

COMPLEX_LINALG = {"solve", "inv", "det"}     # through zgesv and zgetrf


def linalg(infer, e):
    """`np.linalg.solve(a, b)`, `inv(a)`, `cholesky(a)`, `det(a)`, `eigh(a)` of one matrix
    (NumPy computes in float64 for every real dtype, its `_commonType`, and in complex128 for
    complex ones; so does the lowering):
    the result has NumPy's dtype (float32 for float32 arguments), read from NumPy applied to
    small arrays of the arguments' dtypes."""
    f = e.func
    check_keywords(infer, e, set())
    count = 2 if f == "solve" else 1
    if len(e.args) != count:
        shown = "np.linalg.solve(a, b) takes two arrays" if f == "solve" else \
            f"np.linalg.{f}(a) takes one array"
        raise infer.error(f"{shown} in compiled code", e)
    args = [array_arg(infer, e, k) for k in range(count)]
    if args[0].type.ndim != 2:
        raise infer.error(f"np.linalg.{f}() is supported for one matrix (a 2-D array) in "
                          f"compiled code; this has {args[0].type.ndim} dimension(s): loop over "
                          "the leading ones, or pass a matrix", e)
    if f == "solve" and args[1].type.ndim not in (1, 2):
        raise infer.error("np.linalg.solve(a, b) takes b as a vector or a matrix (1-D or 2-D) in "
                          "compiled code", e)
    for x in args:
        if np.dtype(x.type.dtype).kind == "c" and f not in COMPLEX_LINALG:
            raise infer.error(f"np.linalg.{f}() of complex arrays is not supported in compiled "
                              "code (solve, inv and det are); call it outside", e)
    samples = [np.eye(2, dtype=args[0].type.dtype)]
    if f == "solve":
        samples.append(np.ones((2,) * args[1].type.ndim, args[1].type.dtype))
    try:
        result = getattr(np.linalg, f)(*samples)
    except TypeError as err:
        raise infer.error(f"np.linalg.{f}() of {args[0].type.dtype} arrays: NumPy refuses it "
                          f"({err})", e) from None
    dtype = (result[0] if f == "eigh" else np.asarray(result)).dtype.name
    e.args = args
    e.type = {"solve": Array(dtype, args[-1].type.ndim), "det": Scalar(dtype),
              "eigh": TupleType((Array(dtype, 1), Array(dtype, 2)))}.get(f, Array(dtype, 2))
    return e


def covariance(infer, e):
    """`np.cov(m)`, `rowvar=`, `bias=`, `ddof=` of a 2-D real array (its rows the variables):
    float64 as NumPy's. The options become literal keywords (`ddof` an expression)."""
    for k in ("y", "fweights", "aweights", "dtype"):
        if k in e.keywords:
            raise infer.error(f"np.cov() with {k}= is not supported in compiled code (supported: "
                              "rowvar=, bias=, ddof=); " + (
                                  "stack the variables first: np.cov(np.vstack((m, y)))"
                                  if k == "y" else "compute the weighted sums with loops, or "
                                  "call it outside"), e.keywords[k])
    check_keywords(infer, e, {"rowvar", "bias", "ddof"})
    if len(e.args) != 1:
        raise infer.error("np.cov(m) takes one array in compiled code (rowvar=, bias= and ddof= "
                          "by keyword); for np.cov(m, y) write np.cov(np.vstack((m, y)))", e)
    a = array_arg(infer, e)
    if a.type.ndim != 2 or np.dtype(a.type.dtype).kind not in "fiub":
        raise infer.error(f"np.cov() is supported for 2-D real arrays in compiled code (this is "
                          f"{a.type}); for one variable write np.var(x, ddof=1)", e)
    rowvar = literal_bool(infer, e.keywords.get("rowvar", ir.Const(True, e.loc)), "rowvar")
    bias = literal_bool(infer, e.keywords.get("bias", ir.Const(False, e.loc)), "bias")
    ddof = e.keywords.get("ddof")
    if ddof is not None and not (isinstance(ddof, ir.Const) and ddof.value is None):
        ddof = infer.expr(ddof)
        if not is_int(ddof.type):
            raise infer.error("the ddof of np.cov() must be an integer", ddof)
    else:
        ddof = ir.Const(0 if bias else 1, e.loc, INT64)
    e.keywords = {"rowvar": ir.Const(rowvar, e.loc), "ddof": ddof}
    e.type = Array(np.cov(np.ones((2, 2), a.type.dtype)).dtype.name, 2)
    return e


def histogram(infer, e):
    """`np.histogram(a, bins)` with `bins` an integer, and `range=(lo, hi)`, or the edges, a 1-D
    array: the tuple (counts int64, edges). Kept as the arguments [a, bins] and, with a range,
    the keyword `range` (a TupleValue of two typed scalars); the edges' dtype is NumPy's for
    these types (the edges' own, where given). With `weights=` (an array of real numbers, with
    the number of bins): the sums of the weights, of the weights' dtype, kept as the keyword."""
    if "density" in e.keywords:
        raise infer.error("np.histogram() with density= is not supported in compiled code; "
                          "divide the counts by their sum times the bins' widths",
                          e.keywords["density"])
    weights = e.keywords.pop("weights", None)
    weights = None if is_none(weights) else infer.expr(weights)
    check_keywords(infer, e, {"bins", "range"})
    args = list(e.args)
    for k, name in ((1, "bins"), (2, "range")):
        if len(args) > k and name in e.keywords:
            raise infer.error(f"np.histogram() got {name} twice (by position and as {name}=)",
                              e)
    if len(args) > 3:
        raise infer.error("np.histogram(a, bins, range) takes at most three arguments in "
                          "compiled code", e)
    a = array_arg(infer, e)
    if np.dtype(a.type.dtype).kind not in "fiub":
        raise infer.error(f"np.histogram() of {a.type.dtype} arrays is not supported in "
                          "compiled code; pass real numbers", e)
    if weights is not None and not (isinstance(weights.type, Array) and
                                    weights.type.ndim == a.type.ndim and
                                    np.dtype(weights.type.dtype).kind in "fiu"):
        raise infer.error(f"the weights of np.histogram() must be an array of real numbers "
                          f"of the data's shape (a {a.type.ndim}-D array here), got "
                          f"{weights.type}", weights)
    bins = args[1] if len(args) > 1 else e.keywords.get("bins", ir.Const(10, e.loc, INT64))
    bins = bins if isinstance(bins, list) else infer.expr(bins)
    if isinstance(bins, list):
        raise infer.error("np.histogram() with bins given as a sequence is not supported in "
                          "compiled code; give the edges as a 1-D array, or the number of bins "
                          "and range=(lo, hi) for their span", e)
    if isinstance(bins.type, Array):
        if weights is not None:
            raise infer.error("np.histogram() with weights= and the edges given as an array is "
                              "not supported in compiled code (NumPy sums those weights in "
                              "sorted order); give the number of bins and range=(lo, hi)",
                              weights)
        if bins.type.ndim != 1 or np.dtype(bins.type.dtype).kind not in "fiub":
            raise infer.error(f"the edges of np.histogram() must be a 1-D array of real numbers "
                              f"(`bins` must be 1d, when an array), got {bins.type}", bins)
        # NumPy ignores `range` where the edges are given.
        e.args, e.keywords = [a, bins], {}
        e.type = TupleType((Array("int64", 1), Array(bins.type.dtype, 1)))
        return e
    if not is_int(bins.type):
        raise infer.error(f"the bins of np.histogram() must be an integer here, got "
                          f"{bins.type}", bins)
    span = args[2] if len(args) > 2 else e.keywords.get("range")
    e.args, e.keywords, items = [a, bins], {}, []
    if span is not None and not (isinstance(span, ir.Const) and span.value is None):
        span = infer.expr(ir.TupleValue(span, e.loc) if isinstance(span, list) else span)
        items = infer.tuple_items(span) if isinstance(span.type, TupleType) else []
        if len(items) != 2 or not all(isinstance(x.type, Scalar) and
                                      np.dtype(x.type.dtype).kind in "fiub" for x in items):
            raise infer.error("the range of np.histogram() must be a pair of numbers "
                              "(range=(lo, hi))", span)
        e.keywords["range"] = ir.TupleValue(items, span.loc,
                                            TupleType(tuple(x.type for x in items)))
    edges_dtype = np.histogram(np.zeros(2, a.type.dtype), 2, range=tuple(
        sample_of(x.type, k) for k, x in enumerate(items)) if "range" in e.keywords
        else None)[1].dtype.name
    if weights is not None:
        e.keywords["weights"] = weights
    e.type = TupleType((Array(weights.type.dtype if weights is not None else "int64", 1),
                        Array(edges_dtype, 1)))
    return e


def bound_arguments(infer, e, names, signature: str) -> dict:
    """{name: argument} of `e`, bound to NumPy's parameters `names` by position, then by
    keyword; a keyword given twice or not among them is an error showing `signature`."""
    given = dict(zip(names, e.args))
    for k, value in e.keywords.items():
        if k not in names or k in given:
            raise infer.error(f"{signature} got '{k}' "
                              f"{'twice' if k in given else 'which it does not take'}", value)
        given[k] = value
    return given


def is_none(value) -> bool:
    """Whether an argument is left out or given as None."""
    return value is None or (isinstance(value, ir.Const) and value.value is None)


def interp(infer, e):
    """`np.interp(x, xp, fp, left=None, right=None)` of real numbers: x a scalar or an array,
    xp and fp 1-D arrays; float64 (NumPy converts every argument to float64), an array of x's
    shape or a scalar. Kept as the arguments [x, xp, fp] and the keywords left and right where
    given (float64 scalars)."""
    names = ("x", "xp", "fp", "left", "right", "period")
    given = bound_arguments(infer, e, names, "np.interp(x, xp, fp, left=None, right=None)")
    if not is_none(given.get("period")):
        raise infer.error("np.interp() with period= is not supported in compiled code; "
                          "reduce x modulo the period and wrap xp and fp by hand", e)
    if not all(k in given for k in names[:3]):
        raise infer.error("np.interp(x, xp, fp) needs x, xp and fp", e)
    typed = {k: infer.expr(v) for k, v in given.items() if k != "period" and not is_none(v)}
    for k in ("x", "xp", "fp", "left", "right"):
        if k not in typed:
            continue
        t = typed[k].type
        if not isinstance(t, (Array, Scalar)) or np.dtype(t.dtype).kind not in "fiub":
            raise infer.error(f"np.interp() of {t} ({k}) is not supported in compiled code: "
                              "x, xp, fp, left and right must be real numbers (complex fp "
                              "is not supported)", typed[k])
        if k in ("xp", "fp") and (not isinstance(t, Array) or t.ndim != 1):
            raise infer.error(f"{k} of np.interp() must be a 1-D array here, got {t}", typed[k])
        if k in ("left", "right") and not isinstance(t, Scalar):
            raise infer.error(f"{k} of np.interp() must be a number here, got {t}", typed[k])
    e.args = [typed["x"], typed["xp"], typed["fp"]]
    e.keywords = {k: typed[k] for k in ("left", "right") if k in typed}
    x = typed["x"].type
    e.type = Array("float64", x.ndim) if isinstance(x, Array) else Scalar("float64")
    return e


def quantile(infer, e):
    """`np.quantile(a, q)`, `np.percentile(a, q)` of the whole array, q a real scalar, NumPy's
    default method ('linear'). The first argument becomes the sorted elements
    (np.sort(a.ravel())); the dtypes are NumPy's (numpy/lib/_function_base_impl.py,
    _quantile): q as NumPy takes it (percentile: q / 100), the result the dtype of a's
    elements interpolated by q's (a Python q weak: float32 data give float32), an integer q
    of np.quantile picks an element (a's dtype)."""
    what = f"np.{e.func}(a, q)"
    along = not e.func.startswith("nan")
    refusal = (f"{what} takes the array and q in compiled code (" +
               ("and axis=, keepdims=; " if along else "of the whole array; ") +
               "not out=, overwrite_input= or weights=): " +
               ("for several axes, transpose them last and reshape" if along else
                "for rows, sort them (np.sort(a)) and interpolate"))
    axis = e.keywords.pop("axis", None) if along else None
    keepdims = e.keywords.pop("keepdims", None) if along else None
    for k, value in e.keywords.items():
        if k != "method":
            raise infer.error(refusal, value)
    method = e.keywords.pop("method", None)
    if method is not None and not (isinstance(method, ir.Const) and method.value == "linear"):
        raise infer.error(f"{what} supports NumPy's default method='linear' in compiled code; "
                          "for another, sort the elements (np.sort(a.ravel())) and pick them",
                          method)
    if len(e.args) != 2:
        raise infer.error(refusal, e)
    a = array_arg(infer, e)
    if np.dtype(a.type.dtype).kind not in "iuf":
        raise infer.error(f"np.{e.func}() of {a.type} is not supported in compiled code: it "
                          "needs real numbers (NumPy refuses complex ones, and cannot subtract "
                          "bools)", a)
    q = infer.expr(e.args[1])
    if not isinstance(q.type, Scalar) or np.dtype(q.type.dtype).kind not in "iuf":
        raise infer.error(f"q of {what} must be a real number in compiled code, got {q.type}; "
                          f"for several, call np.{e.func}() once for each", q)
    qdtype = "float64" if q.type.weak and q.type.dtype[0] == "f" else q.type.dtype
    if e.func.endswith("percentile"):
        qdtype = np.true_divide(np.ones((), qdtype), 100).dtype.name
    if qdtype[0] != "f":
        out = a.type.dtype
    elif q.type.weak:
        out = np.result_type(np.dtype(a.type.dtype), 0.0).name
    else:
        out = np.result_type(np.dtype(a.type.dtype), np.dtype(qdtype)).name
    e.keywords = {"q_dtype": ir.Const(qdtype, e.loc)}
    keep = keepdims is not None and literal_bool(infer, keepdims, "keepdims")
    if is_none(axis) and keep:
        raise infer.error(f"{what} with keepdims=True needs an axis in compiled code; without "
                          "one write the value (an array of ones' shape holds just it)", keepdims)
    if not is_none(axis):
        k = literal_axis(infer, e, axis, a.type.ndim)
        ndim = a.type.ndim - (not keep)
        if ndim:
            # the axis last, each row sorted: the result's elements are the rows' quantiles
            order = tuple(d for d in range(a.type.ndim) if d != k) + (k,)
            rows = infer.expr(ir.ArrayCall("transpose", [a, [ir.Const(d, e.loc)
                                                             for d in order]], {}, e.loc))
            e.args = [infer.expr(ir.ArrayCall("sort", [rows], {}, e.loc)), q]
            e.keywords.update(axis=ir.Const(k, e.loc), keepdims=ir.Const(keep, e.loc))
            e.type = Array(out, ndim)
            return e
    ravelled = ir.ArrayCall("ravel", [a], {}, e.loc)
    e.args = [infer.expr(ir.ArrayCall("sort", [ravelled], {}, e.loc)), q]
    e.type = Scalar(out)
    return e


def unique(infer, e):
    """`np.unique(a)`: the sorted distinct elements of the flattened array (NaNs one NaN, at the
    end, as NumPy 2's equal_nan=True); the argument becomes the sorted elements
    (np.sort(a.ravel()))."""
    for k, value in e.keywords.items():
        if k == "equal_nan" and isinstance(value, ir.Const) and value.value is True:
            continue
        if k in ("return_index", "return_inverse", "return_counts"):
            raise infer.error(f"np.unique(a, {k}=...) is not supported in compiled code: "
                              "np.unique(a) gives the values; for counts of small "
                              "non-negative integers write np.bincount(a), for positions "
                              "np.searchsorted(np.unique(a), a)", value)
        raise infer.error(f"np.unique() takes the array alone in compiled code (got '{k}='; "
                          "equal_nan=True is NumPy's default)", value)
    e.keywords = {}
    if len(e.args) != 1:
        raise infer.error("np.unique(a) takes one array in compiled code", e)
    a = array_arg(infer, e)
    if np.dtype(a.type.dtype).kind == "c":
        raise infer.error("np.unique() of complex values is not supported in compiled code "
                          "(they have no order here)", a)
    ravelled = ir.ArrayCall("ravel", [a], {}, e.loc)
    e.args = [infer.expr(ir.ArrayCall("sort", [ravelled], {}, e.loc))]
    e.type = Array(a.type.dtype, 1)
    return e


def convolution(infer, e):
    """`np.convolve(a, v, mode='full')` of 1-D real arrays: NumPy's dtype (the two promoted),
    the mode kept as the keyword `mode` (a Const: 'full', 'same' or 'valid')."""
    check_keywords(infer, e, {"mode"})
    a, v = array_arg(infer, e, 0), array_arg(infer, e, 1)
    _, mode = positional_or_keyword(infer, e, ["v", "mode"])
    mode = mode if mode is not None else ir.Const("full", e.loc)
    if not (isinstance(mode, ir.Const) and mode.value in ("full", "same", "valid")):
        raise infer.error("the mode of np.convolve() must be 'full', 'same' or 'valid' "
                          "(written as a string)", mode)
    for x in (a, v):
        if x.type.ndim != 1:
            raise infer.error(f"np.convolve() takes 1-D arrays, got {x.type}; convolve each "
                              "row in a loop", x)
        if np.dtype(x.type.dtype).kind not in "iuf":
            raise infer.error(f"np.convolve() of {x.type} is not supported in compiled code: "
                              "it needs real numbers (of complex ones, convolve the real and "
                              "imaginary parts; of bools, their int8 values)", x)
    out = np.convolve(np.ones(1, a.type.dtype), np.ones(1, v.type.dtype)).dtype.name
    e.args = [a, v]
    e.keywords = {"mode": mode}
    e.type = Array(out, 1)
    return e


def nan_median(infer, e):
    """`np.nanmedian(a)` of the whole array: typed with the sorted elements (NaNs last) as the
    array, NumPy's dtype (float32 stays float32, integers give float64)."""
    if len(e.args) != 1 or e.keywords:
        raise infer.error("np.nanmedian(a) of a whole array is supported in compiled code (not "
                          "axis=, out= or keepdims=): for rows, sort them (np.sort(a)) and "
                          "take the middle of the numbers", e)
    a = array_arg(infer, e)
    if np.dtype(a.type.dtype).kind not in "iuf":
        raise infer.error(f"np.nanmedian() of {a.type} is not supported in compiled code: it "
                          "needs real numbers", a)
    out = np.nanmedian(np.ones(1, a.type.dtype)).dtype.name
    ravelled = ir.ArrayCall("ravel", [a], {}, e.loc)
    e.args = [infer.expr(ir.ArrayCall("sort", [ravelled], {}, e.loc))]
    e.type = Scalar(out)
    return e


def einsum_subscripts(infer, e, text, ndims):
    """The subscripts of np.einsum() as (the operands' letters, the output's letters): NumPy's
    implicit output (the letters met once, in the order of their character codes) where no
    '->' is written; spaces ignored, as NumPy ignores them."""
    s = text.replace(" ", "")
    if "." in s:
        raise infer.error("np.einsum() with '...' (broadcast dimensions) is not supported in "
                          "compiled code: name each dimension with a letter", e)
    lhs, arrow, out = s.partition("->")
    inputs = lhs.split(",")
    if any(not (c.isascii() and c.isalpha()) for c in "".join(inputs) + out):
        raise infer.error(f"np.einsum() subscripts {text!r}: write letters, ',' between the "
                          "operands and '->' before the output", e)
    if len(inputs) != len(ndims):
        raise infer.error(f"np.einsum() subscripts {text!r} name {len(inputs)} operand(s), "
                          f"and {len(ndims)} are given", e)
    for k, (sub, n) in enumerate(zip(inputs, ndims)):
        if len(sub) != n:
            raise infer.error(f"np.einsum() subscripts {text!r}: operand {k} has {n} "
                              f"dimension(s), its subscripts {sub!r} name {len(sub)}", e)
    letters = "".join(inputs)
    if not arrow:
        out = "".join(sorted(c for c in set(letters) if letters.count(c) == 1))
    for c in out:
        if out.count(c) > 1:
            raise infer.error(f"np.einsum() subscripts {text!r}: the output names '{c}' more "
                              "than once", e)
        if c not in letters:
            raise infer.error(f"np.einsum() subscripts {text!r}: the output's '{c}' is no "
                              "operand's", e)
    return inputs, out


def einsum(infer, e):
    """`np.einsum(subscripts, *operands)` with the subscripts a string literal (explicit or
    implicit output; repeated letters within an operand: its diagonal; letters absent from
    the output summed over). NumPy's dtype (found by calling np.einsum on arrays of ones);
    `optimize=` accepted and dropped (the sum is the same up to rounding). The subscripts
    become the keyword `subscripts` (a Const 'ab,bc->ac', the output always written)."""
    check_keywords(infer, e, {"optimize"})
    optimize = e.keywords.pop("optimize", None)
    if optimize is not None and not (isinstance(optimize, ir.Const) and any(
            optimize.value is v or optimize.value == v and type(v) is str
            for v in (True, False, "greedy", "optimal"))):
        raise infer.error("np.einsum() takes optimize=False, True, 'greedy' or 'optimal' in "
                          "compiled code (a literal; a path is not supported)", optimize)
    if not e.args or not (isinstance(e.args[0], ir.Const) and isinstance(e.args[0].value, str)):
        raise infer.error("np.einsum() takes its subscripts as a string literal in compiled "
                          "code ('ij,jk->ik'), then the operands", e)
    if len(e.args) < 2:
        raise infer.error("np.einsum() needs an operand after the subscripts", e)
    text = e.args[0].value
    operands = [array_arg(infer, e, k) for k in range(1, len(e.args))]
    for x in operands:
        if np.dtype(x.type.dtype).kind not in "iuf":
            raise infer.error(f"np.einsum() of {x.type} is not supported in compiled code: it "
                              "needs real numbers (of complex ones, write the products and "
                              "np.sum; of bools, their int8 values)", x)
    inputs, out = einsum_subscripts(infer, e, text, [x.type.ndim for x in operands])
    subscripts = ",".join(inputs) + "->" + out
    dtype = np.einsum(subscripts, *(np.ones((1,) * x.type.ndim, x.type.dtype)
                                    for x in operands)).dtype.name
    e.args = operands
    e.keywords = {"subscripts": ir.Const(subscripts, e.loc)}
    e.type = Array(dtype, len(out)) if out else Scalar(dtype)
    return e


def tensordot(infer, e):
    """`np.tensordot(a, b, axes)` (axes a literal: an int N, a's last N axes with b's first N,
    or a pair of lists) as the np.einsum() that names the summed axes of both operands with
    one letter each, a's other axes then b's in the output; the lengths summed together must
    be equal (the keyword `exact`, the letters that do not broadcast a length 1: NumPy's
    tensordot does not)."""
    a, b = array_arg(infer, e, 0), array_arg(infer, e, 1)
    axes = e.keywords["axes"].value
    if type(axes) is int:
        axes_a, axes_b = list(range(-axes, 0)), list(range(0, axes))
    else:
        axes_a, axes_b = (list(side) for side in axes)
    if len(axes_a) != len(axes_b):
        raise infer.error(f"np.tensordot() sums over {len(axes_a)} axes of a and "
                          f"{len(axes_b)} of b (NumPy raises ValueError: shape-mismatch for "
                          "sum)", e)
    for x, side in ((a, axes_a), (b, axes_b)):
        n = x.type.ndim
        if any(not -n <= k < n for k in side) or len({k % n for k in side}) != len(side):
            raise infer.error(f"the axes {tuple(side)} of np.tensordot() are not distinct axes "
                              f"of an array of {n} dimension(s)", e)
    letters = iter("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
    sub_a = [next(letters) for _ in range(a.type.ndim)]
    sub_b = [None] * b.type.ndim
    for ka, kb in zip(axes_a, axes_b):
        sub_b[kb % b.type.ndim] = sub_a[ka % a.type.ndim]
    sub_b = [c if c is not None else next(letters) for c in sub_b]
    summed = {sub_a[k % a.type.ndim] for k in axes_a}
    out = [c for c in sub_a if c not in summed] + [c for c in sub_b if c not in summed]
    if not out:
        raise infer.error("np.tensordot() over every axis gives a 0-d array, not supported in "
                          "compiled code; for the number write np.sum(a * b) (or "
                          "np.einsum('ij,ij', a, b))", e)
    subscripts = "".join(sub_a) + "," + "".join(sub_b) + "->" + "".join(out)
    for x in (a, b):
        if np.dtype(x.type.dtype).kind not in "iuf":
            raise infer.error(f"np.tensordot() of {x.type} is not supported in compiled code: "
                              "it needs real numbers (of bools, their int8 values)", x)
    e.func, e.args, e.keywords = "einsum", [ir.Const(subscripts, e.loc), a, b], {}
    einsum(infer, e)
    e.keywords["exact"] = ir.Const("".join(sorted(summed)), e.loc)
    return e


def stacked_product(infer, e, ndims):
    """`a @ b` (np.matmul) of arrays of more dimensions than 2, `ndims` theirs: NumPy's stacks
    of matrices, the leading dimensions broadcast (right-aligned), as the np.einsum() that
    names them alike ('...xy,...yz->...xz'; a vector operand has 'y' alone), the summed
    lengths equal (NumPy's matmul broadcasts no length 1 there)."""
    p, q = ndims
    batch = "abcdefghijklmnopqrstuvw"[:max(p, q) - 2]
    sub_a = batch[len(batch) - (p - 2):] + "xy" if p > 1 else "y"
    sub_b = batch[len(batch) - (q - 2):] + "yz" if q > 1 else "y"
    out = batch + ("x" if p > 1 else "") + ("z" if q > 1 else "")
    e.func = "einsum"
    e.args = [ir.Const(f"{sub_a},{sub_b}->{out}", e.loc)] + e.args
    einsum(infer, e)
    e.keywords["exact"] = ir.Const("y", e.loc)
    return e


def average(infer, e):
    """`np.average(a, axis=None, weights=None, keepdims=False)`: np.mean without weights;
    with them, of real numbers, the call 'average' of [a, weights] in NumPy's result dtype
    (numpy/lib/_function_base_impl.py: float64 at least for integers), the weights of a's
    dimensions, or 1-D along the axis (a view with new axes around it), and the keywords
    `axis` (a Const int, absent for all of a), `keepdims`, `along` (Const True for 1-D
    weights along the axis)."""
    signature = "np.average(a, axis=None, weights=None, returned=False, keepdims=False)"
    given = bound_arguments(infer, e, ("a", "axis", "weights", "returned", "keepdims"),
                            signature)
    if "a" not in given:
        raise infer.error(f"{signature} needs the array", e)
    returned = given.get("returned")
    if returned is not None and literal_bool(infer, returned, "returned of np.average()"):
        raise infer.error("np.average(..., returned=True) is not supported in compiled code; "
                          "the sum of the weights is np.sum(weights, axis): compute it beside "
                          "the average", returned)
    a = infer.expr(given["a"])
    if not isinstance(a.type, Array):
        raise infer.error(f"np.average() of {a.type} is not supported in compiled code; it "
                          "needs an array", a)
    axis = given.get("axis")
    axis = None if is_none(axis) else literal_axis(infer, e, axis, a.type.ndim)
    keywords = {} if axis is None else {"axis": ir.Const(axis, e.loc)}
    if "keepdims" in given:
        keywords["keepdims"] = ir.Const(literal_bool(infer, given["keepdims"], "keepdims"),
                                        e.loc)
    if is_none(given.get("weights")):
        return infer.expr(ir.ArrayCall("mean", [a], keywords, e.loc))
    w = infer.expr(given["weights"])
    for x in (a, w):
        if not isinstance(x.type, Array) or np.dtype(x.type.dtype).kind not in "biuf":
            raise infer.error(f"np.average() with weights of {x.type} is not supported in "
                              "compiled code: a and the weights must be arrays of real numbers "
                              "(else write np.sum(a * w) / np.sum(w))", x)
    if w.type.ndim != a.type.ndim:
        if axis is None:
            raise infer.error("np.average(): axis must be specified when shapes of a and "
                              "weights differ (NumPy raises TypeError)", w)
        if w.type.ndim != 1:
            raise infer.error("np.average(): 1D weights expected when shapes of a and weights "
                              "differ (NumPy raises TypeError)", w)
        n = a.type.ndim
        w = ir.View(w, [ir.NewAxis(e.loc)] * axis + [ir.Slice(None, None, None, e.loc)] +
                    [ir.NewAxis(e.loc)] * (n - axis - 1), e.loc, Array(w.type.dtype, n))
        keywords["along"] = ir.Const(True, e.loc)
    dtype = np.average(np.ones(1, a.type.dtype), weights=np.ones(1, w.type.dtype)).dtype.name
    e.args, e.keywords = [cast_array(a, dtype), cast_array(w, dtype)], keywords
    keepdims = "keepdims" in keywords and keywords["keepdims"].value
    ndim = a.type.ndim if keepdims else 0 if axis is None else a.type.ndim - 1
    e.type = Array(dtype, ndim) if ndim else Scalar(dtype)
    return e


def gradient(infer, e):
    """`np.gradient(f, *varargs, axis=None, edge_order=1)` with uniform spacings (none, one
    for every axis, or one per axis): per axis, the call 'gradient' of [the derivative, f]
    with the keywords `axis` and `edge_order` (ValueError where f is shorter than
    edge_order + 1 along it), the derivative written as NumPy's uniform case computes it
    (numpy/lib/_function_base_impl.py): (f[2:] - f[:-2]) / (2. * h) inside, one-sided
    differences at both ends, joined along the axis (np.concatenate) and converted to the
    result's dtype (f's float, float64 for integers). A tuple for several axes."""
    if e.type is not None:      # typed already (read again)
        return e
    f = array_arg(infer, e)
    check_keywords(infer, e, {"axis", "edge_order"})
    if np.dtype(f.type.dtype).kind not in "iuf":
        raise infer.error(f"np.gradient() of {f.type} is not supported in compiled code: it "
                          "needs real numbers", f)
    n = f.type.ndim
    axis = e.keywords.get("axis")
    if is_none(axis):
        axes = list(range(n))
    else:
        items = axis.items if isinstance(axis, ir.TupleValue) else axis \
            if isinstance(axis, list) else [axis]
        axes = [literal_axis(infer, e, x, n) for x in items]
        if len(set(axes)) != len(axes):
            raise infer.error("np.gradient(): repeated axis", axis)
    order = e.keywords.get("edge_order", ir.Const(1, e.loc))
    if not (isinstance(order, ir.Const) and order.value in (1, 2) and
            type(order.value) is int):
        raise infer.error("the edge_order of np.gradient() must be 1 or 2 (a literal)", order)
    spacings = [infer.expr(h) for h in e.args[1:]]
    for h in spacings:
        if not isinstance(h.type, Scalar) or np.dtype(h.type.dtype).kind not in "iuf":
            raise infer.error(f"np.gradient() with a spacing of {h.type} is not supported in "
                              "compiled code: give each axis's uniform step as a number (for "
                              "coordinates, write the differences: np.diff(f) / np.diff(x))", h)
    if len(spacings) not in (0, 1, len(axes)):
        raise infer.error(f"np.gradient() takes one spacing, or one per axis ({len(axes)}); "
                          f"{len(spacings)} are given (NumPy raises TypeError)", e)
    if not spacings:
        spacings = [ir.Const(1.0, e.loc)]
    out = "float64" if f.type.dtype[0] in "iu" else f.type.dtype
    loc = e.loc

    def part(axis, start, stop):
        def bound(v):
            return None if v is None else ir.Const(v, loc)
        indices = [ir.Slice(None, None, None, loc) for _ in range(n)]
        indices[axis] = ir.Slice(bound(start), bound(stop), None, loc)
        view = infer.expr(ir.Subscript(copy.deepcopy(f), indices, loc))
        return cast_array(view, "float64") if out != f.type.dtype else view

    def typed(op, a, b):
        return infer.expr(ir.BinOp(op, a, b, loc))

    derivatives = []
    for k, axis in enumerate(axes):
        h = copy.deepcopy(spacings[k if len(spacings) > 1 else 0])
        inside = typed("/", typed("-", part(axis, 2, None), part(axis, None, -2)),
                       typed("*", ir.Const(2.0, loc), copy.deepcopy(h)))
        if order.value == 1:
            first = typed("/", typed("-", part(axis, 1, 2), part(axis, 0, 1)), h)
            last = typed("/", typed("-", part(axis, -1, None), part(axis, -2, -1)),
                         copy.deepcopy(h))
        else:
            def weighted(weights, starts):
                terms = [typed("*", typed("/", ir.Const(w, loc), copy.deepcopy(h)),
                               part(axis, s, s + 1 if s != -1 else None))
                         for w, s in zip(weights, starts)]
                return typed("+", typed("+", terms[0], terms[1]), terms[2])
            first = weighted((-1.5, 2.0, -0.5), (0, 1, 2))
            last = weighted((0.5, -2.0, 1.5), (-3, -2, -1))
        joined = infer.expr(ir.ArrayCall("concatenate", [[first, inside, last]],
                                         {"axis": ir.Const(axis, loc)}, loc))
        derivatives.append(ir.ArrayCall(
            "gradient", [cast_array(joined, out), copy.deepcopy(f)],
            {"axis": ir.Const(axis, loc), "edge_order": ir.Const(order.value, loc)}, loc,
            Array(out, n)))
    if len(derivatives) == 1:
        return derivatives[0]
    return ir.TupleValue(derivatives, loc, TupleType(tuple(d.type for d in derivatives)))


# np.pad's modes compiled code has: 'constant' joins blocks of the constant, the others read
# each border element from the element of the array that the mode maps it to.
PAD_MODES = ("constant", "edge", "wrap", "reflect", "symmetric")


def pad(infer, e):
    """`np.pad(a, pad_width, mode='constant', constant_values=0)`: a inside a border, built as
    NumPy's result is, one axis after the other. Mode 'constant': along each axis the blocks of
    the constant (np.full of a's dtype: the constant converted as NumPy's assignment converts
    it) joined before and after (np.concatenate). Modes 'edge', 'wrap', 'reflect' and
    'symmetric': per axis an ArrayCall 'pad' of the array so far, each element read from the
    element its mode maps it to (ArrayLowering.padded_element). `pad_width` as NumPy takes it:
    an integer, (before, after), or one (before, after) per axis, of integers (a negative one
    raises ValueError, as NumPy does). Other modes and per-axis constants are refused with what
    to write."""
    if e.type is not None:      # typed already (read again)
        return e
    check_keywords(infer, e, {"pad_width", "mode", "constant_values"})
    a = array_arg(infer, e)
    width, mode, constant = positional_or_keyword(infer, e, ["pad_width", "mode",
                                                             "constant_values"])
    if width is None:
        raise infer.error("np.pad(a, pad_width) needs the pad widths", e)
    if mode is None:
        mode = ir.Const("constant", e.loc)
    if not (isinstance(mode, ir.Const) and mode.value in PAD_MODES):
        raise infer.error("np.pad() takes mode 'constant' (the default), 'edge', 'wrap', "
                          "'reflect' or 'symmetric' in compiled code, written as a string; "
                          "for another mode, pad with one of these, then assign the border's "
                          "slices", mode)
    if mode.value != "constant" and constant is not None:
        raise infer.error(f"np.pad() takes constant_values only with mode='constant' (NumPy "
                          f"raises ValueError: unsupported keyword arguments for mode "
                          f"'{mode.value}')", constant)
    n = a.type.ndim
    if n == 0:
        raise infer.error("np.pad() of a 0-d array is not supported in compiled code", a)
    if constant is None:
        constant = ir.Const(0, e.loc)
    elif isinstance(constant, (list, ir.TupleValue)):
        raise infer.error("np.pad() takes one constant_values number in compiled code (one "
                          "per side or axis is not supported: pad with one, then assign the "
                          "border's slices)", e)
    constant = infer.expr(constant)
    if not isinstance(constant.type, Scalar):
        raise infer.error(f"the constant_values of np.pad() must be a number, got "
                          f"{constant.type}", constant)

    def items(x):
        return x.items if isinstance(x, ir.TupleValue) else x if isinstance(x, list) else None

    def width_of(x):
        x = infer.expr(x)
        if not isinstance(x.type, Scalar) or not is_int(x.type):
            raise infer.error(f"the pad widths of np.pad() must be integers, got {x.type}", x)
        return x

    def pair(x):
        both = items(x)
        if both is None:
            return width_of(x), width_of(copy.deepcopy(x))
        if len(both) == 1:
            return width_of(both[0]), width_of(copy.deepcopy(both[0]))
        if len(both) == 2 and all(items(b) is None for b in both):
            return width_of(both[0]), width_of(both[1])
        raise infer.error("a pad width of np.pad() is an integer or (before, after)", e)
    outer = items(width)
    if outer is not None and outer and all(items(x) is not None for x in outer):
        if len(outer) not in (1, n):
            raise infer.error(f"np.pad() takes one (before, after) or one per axis ({n}); "
                              f"{len(outer)} are given (NumPy raises ValueError)", e)
        pairs = [pair(x) for x in outer] if len(outer) == n else \
            [pair(copy.deepcopy(outer[0])) for _ in range(n)]
    else:
        pairs = [pair(copy.deepcopy(width)) for _ in range(n)]
    loc, dtype = e.loc, a.type.dtype

    def extent(d, padded):
        """a's length along d, with its widths where that axis is padded already."""
        length = ir.ArrayAttr(copy.deepcopy(a), "shape", d, loc)
        if padded:
            before, after = pairs[d]
            length = ir.BinOp("+", ir.BinOp("+", length, copy.deepcopy(before), loc),
                              copy.deepcopy(after), loc)
        return length

    x = a
    if mode.value != "constant":
        for k, (before, after) in enumerate(pairs):
            x = ir.ArrayCall("pad", [x], {"axis": ir.Const(k, loc), "before": before,
                                          "after": after, "mode": mode}, loc, Array(dtype, n))
        return x
    for k in range(n):
        def block(w):
            shape = [copy.deepcopy(w) if d == k else extent(d, d < k) for d in range(n)]
            return ir.ArrayCall("full", [shape, copy.deepcopy(constant)],
                                {"dtype": ir.Const(dtype, loc)}, loc)
        before, after = pairs[k]
        x = infer.expr(ir.ArrayCall("concatenate", [[block(before), x, block(after)]],
                                    {"axis": ir.Const(k, loc)}, loc))
    return x


def take_along_axis(infer, e):
    """`np.take_along_axis(arr, indices, axis=-1)`: arr and the integer indices of one number
    of dimensions (axis=None: arr flattened, 1-D indices); a new array of arr's dtype. Kept as
    [arr, indices] and the keyword `axis` (a Const int)."""
    signature = "np.take_along_axis(arr, indices, axis=-1)"
    given = bound_arguments(infer, e, ("arr", "indices", "axis"), signature)
    if "arr" not in given or "indices" not in given:
        raise infer.error(f"{signature} needs the array and the indices", e)
    arr, indices = infer.expr(given["arr"]), infer.expr(given["indices"])
    for x in (arr, indices):
        if not isinstance(x.type, Array):
            raise infer.error(f"{signature} takes arrays, got {x.type}", x)
    if indices.type.dtype == "bool" or not is_int(Scalar(indices.type.dtype)):
        raise infer.error(f"the indices of np.take_along_axis() must be an integer array, got "
                          f"{indices.type} (NumPy raises IndexError)", indices)
    axis = given.get("axis", ir.Const(-1, e.loc))
    if is_none(axis):
        if indices.type.ndim != 1:
            raise infer.error("when axis=None, the indices of np.take_along_axis() must have a "
                              "single dimension (NumPy raises ValueError)", indices)
        arr, axis = infer.expr(ir.ArrayCall("ravel", [arr], {}, e.loc)), 0
    else:
        axis = literal_axis(infer, e, axis, arr.type.ndim)
    if arr.type.ndim != indices.type.ndim:
        raise infer.error(f"the indices and the array of np.take_along_axis() must have the "
                          f"same number of dimensions (NumPy raises ValueError): "
                          f"{indices.type} and {arr.type}", e)
    e.args, e.keywords = [arr, indices], {"axis": ir.Const(axis, e.loc)}
    e.type = Array(arr.type.dtype, arr.type.ndim)
    return e


def searchsorted(infer, e):
    """`np.searchsorted(a, v, side='left')` (and `a.searchsorted(v)`) of real numbers: `a` a
    1-D array, `v` a scalar or an array; int64 indices of v's shape (a scalar for a scalar).
    Kept as the arguments [a, v] and the keyword `side` ('left' or 'right')."""
    given = bound_arguments(infer, e, ("a", "v", "side", "sorter"),
                            "np.searchsorted(a, v, side='left')")
    if not is_none(given.get("sorter")):
        raise infer.error("np.searchsorted() with sorter= is not supported in compiled code; "
                          "search a[sorter] (sorted first) and map the index back", e)
    if "a" not in given or "v" not in given:
        raise infer.error("np.searchsorted(a, v) needs a and v", e)
    side = given.get("side", ir.Const("left", e.loc))
    if not (isinstance(side, ir.Const) and side.value in ("left", "right")):
        raise infer.error("the side of np.searchsorted() must be 'left' or 'right' (written "
                          "out) in compiled code", side)
    a, v = infer.expr(given["a"]), infer.expr(given["v"])
    for name, x in (("a", a), ("v", v)):
        if not isinstance(x.type, (Array, Scalar)) or np.dtype(x.type.dtype).kind not in "fiub":
            raise infer.error(f"np.searchsorted() of {x.type} ({name}) is not supported in "
                              "compiled code: a and v must be real numbers", x)
    if not isinstance(a.type, Array) or a.type.ndim != 1:
        raise infer.error(f"the array of np.searchsorted() must be 1-D, got {a.type}", a)
    e.args, e.keywords = [a, v], {"side": ir.Const(side.value, e.loc)}
    e.type = Array("int64", v.type.ndim) if isinstance(v.type, Array) else Scalar("int64")
    return e


def cross(infer, e):
    """`np.cross(a, b)` of vectors along the last axis of arrays of real numbers: NumPy's
    dtype (the two promoted), max(a.ndim, b.ndim) dimensions (vectors of 3 components, or of
    2 and 3)."""
    names = ("a", "b", "axisa", "axisb", "axisc", "axis")
    given = bound_arguments(infer, e, names, "np.cross(a, b)")
    for k in names[2:]:
        value = given.get(k)
        if value is not None and not is_none(value) and \
                literal_int(infer, value, f"{k} of np.cross()") != -1:
            raise infer.error(f"np.cross() takes its vectors along the last axis in compiled "
                              f"code ({k}=-1); transpose the arrays first (a.T)", value)
    if "a" not in given or "b" not in given:
        raise infer.error("np.cross(a, b) needs two arrays", e)
    a, b = infer.expr(given["a"]), infer.expr(given["b"])
    for x in (a, b):
        if not isinstance(x.type, Array) or np.dtype(x.type.dtype).kind not in "iuf":
            raise infer.error(f"np.cross() of {x.type} is not supported in compiled code: it "
                              "needs arrays of real numbers", x)
    e.args, e.keywords = [a, b], {}
    dtype = np.promote_types(np.dtype(a.type.dtype), np.dtype(b.type.dtype)).name
    e.type = Array(dtype, max(a.type.ndim, b.type.ndim))
    return e


def digitize(infer, e):
    """`np.digitize(x, bins, right=False)` of real numbers: x a scalar or an array, bins a 1-D
    array; int64 indices of x's shape (a scalar for a scalar). Kept as [x, bins] and the
    keyword `side` of the search it makes ('right', or 'left' for right=True)."""
    signature = "np.digitize(x, bins, right=False)"
    given = bound_arguments(infer, e, ("x", "bins", "right"), signature)
    if "x" not in given or "bins" not in given:
        raise infer.error(f"{signature} needs x and bins", e)
    right = literal_bool(infer, given["right"], "right of np.digitize()") \
        if "right" in given else False
    x, bins = infer.expr(given["x"]), infer.expr(given["bins"])
    for name, a in (("x", x), ("bins", bins)):
        if not isinstance(a.type, (Array, Scalar)) or np.dtype(a.type.dtype).kind not in "biuf":
            raise infer.error(f"np.digitize() of {a.type} ({name}) is not supported in compiled "
                              "code: x and bins must be real numbers (NumPy raises TypeError "
                              "for complex x)", a)
    if not isinstance(bins.type, Array) or bins.type.ndim != 1:
        raise infer.error(f"the bins of np.digitize() must be a 1-D array, got {bins.type} "
                          "(NumPy raises ValueError)", bins)
    e.args, e.keywords = [x, bins], {"side": ir.Const("left" if right else "right", e.loc)}
    e.type = Array("int64", x.type.ndim) if isinstance(x.type, Array) else Scalar("int64")
    return e


def polyval(infer, e):
    """`np.polyval(p, x)`: p a 1-D array of coefficients (highest power first), x a scalar or
    an array; NumPy's dtype (x's, as an array, promoted with p's: the loop `y = y * x + pv`
    from `y = np.zeros_like(x)`), an array of x's shape or a scalar."""
    check_keywords(infer, e, set())
    if len(e.args) != 2:
        raise infer.error("np.polyval(p, x) takes the coefficients and x", e)
    p, x = (infer.expr(a) for a in e.args)
    for name, a in (("p", p), ("x", x)):
        if not isinstance(a.type, (Array, Scalar)) or np.dtype(a.type.dtype).kind not in "iufc":
            raise infer.error(f"np.polyval() of {a.type} ({name}) is not supported in compiled "
                              "code: p and x must be numbers", a)
    if not isinstance(p.type, Array) or p.type.ndim != 1:
        raise infer.error(f"the coefficients of np.polyval() must be a 1-D array here, got "
                          f"{p.type} (np.poly1d is not supported)", p)
    e.args = [p, x]
    dtype = np.result_type(np.dtype(x.type.dtype), np.dtype(p.type.dtype)).name
    e.type = Array(dtype, x.type.ndim) if isinstance(x.type, Array) else Scalar(dtype)
    return e


def meshgrid(infer, e):
    """`np.meshgrid(x1, x2, ..., indexing='xy')` of 1-D arrays: the tuple of new arrays (NumPy's
    copies), each of its input's dtype, of shape (len(x2), len(x1), len(x3), ...) for 'xy'
    ((len(x1), len(x2), ...) for 'ij'). Kept as the arguments and the keyword `indexing`."""
    check_keywords(infer, e, {"indexing"})
    indexing = e.keywords.get("indexing", ir.Const("xy", e.loc))
    if not (isinstance(indexing, ir.Const) and indexing.value in ("xy", "ij")):
        raise infer.error("the indexing of np.meshgrid() must be 'xy' or 'ij' (written out)",
                          indexing)
    if not e.args:
        raise infer.error("np.meshgrid() needs at least one array in compiled code", e)
    arrays = [infer.expr(a) for a in e.args]
    for a in arrays:
        if not isinstance(a.type, Array) or a.type.ndim != 1:
            raise infer.error(f"np.meshgrid() takes 1-D arrays in compiled code, got {a.type}; "
                              "ravel it first", a)
    e.args, e.keywords = arrays, {"indexing": ir.Const(indexing.value, e.loc)}
    e.type = TupleType(tuple(Array(a.type.dtype, len(arrays)) for a in arrays))
    return e


def repeat_or_tile(infer, e):
    """`np.repeat(a, r, axis=None)` (`a.repeat(r)`) with r an integer: a new array of a's
    dtype, flattened without an axis; `np.tile(a, reps)` with reps an integer or a tuple of
    them: ndim max(a.ndim, len(reps)). Kept as [a, r] (`axis` an int keyword, normalised) and
    [a, [reps...]]."""
    a = array_arg(infer, e)
    if e.func == "repeat":
        check_keywords(infer, e, {"repeats", "axis"})
        repeats, axis = positional_or_keyword(infer, e, ["repeats", "axis"])
        if repeats is None or isinstance(repeats, list):
            raise infer.error("np.repeat(a, r) takes the repeats as one integer here (an array "
                              "of repeats per element is not supported)", e)
        repeats = infer.expr(repeats)
        if not is_int(repeats.type):
            raise infer.error(f"the repeats of np.repeat() must be an integer here, got "
                              f"{repeats.type}", repeats)
        e.args, e.keywords = [a, repeats], {}
        if axis is not None and not (isinstance(axis, ir.Const) and axis.value is None):
            e.keywords["axis"] = ir.Const(literal_axis(infer, e, axis, a.type.ndim), e.loc)
            e.type = Array(a.type.dtype, a.type.ndim)
        else:
            e.type = Array(a.type.dtype, 1)
        return e
    check_keywords(infer, e, set())
    if len(e.args) != 2:
        raise infer.error("np.tile(a, reps) takes the array and the repetitions", e)
    reps = e.args[1] if isinstance(e.args[1], list) else [e.args[1]]
    reps = [infer.expr(r) for r in reps]
    for r in reps:
        if not is_int(r.type) or isinstance(r.type, Array):
            raise infer.error("the repetitions of np.tile() must be an integer or a tuple of "
                              "integers here", r)
    e.args = [a, reps]
    e.type = Array(a.type.dtype, max(a.type.ndim, len(reps)))
    return e


def sample_of(t: Scalar, value):
    """A value of the scalar type `t` for NumPy to compute with: a Python number where `t` is
    weak (NEP 50), else a NumPy scalar of its dtype."""
    if t.weak:
        return {"b": bool, "f": float}.get(np.dtype(t.dtype).kind, int)(value)
    return np.dtype(t.dtype).type(value)
