"""Typed IR built by the array lowering (unpy/typeinfer/lower_arrays.py and
lower_reductions.py): constructors that fold constants, the element-wise NumPy functions as
scalar IR that both emitters print, and the checks that guard what follows them."""
from __future__ import annotations

import copy
import math

from unpy import ir
from unpy.ir import Scalar, format_expr
from unpy.typeinfer.types import is_complex, real_part

BOOL = Scalar("bool")


# --- typed IR constructors -------------------------------------------------------------------

def const(value, dtype="int64"):
    return ir.Const(value, (0, 0), Scalar(dtype))


def name(id_, t):
    return ir.Name(id_, (0, 0), t)


def convert(e, dtype):
    """`e` (a scalar expression) as `dtype`."""
    if e.type.dtype == dtype:
        return e
    if isinstance(e, ir.Const) and not isinstance(e.value, bool) and dtype[0] in "iuf" and \
            (dtype[0] == "f" or isinstance(e.value, int)):
        return ir.Const(float(e.value) if dtype[0] == "f" else e.value, e.loc, Scalar(dtype))
    return ir.Cast(e, e.loc, Scalar(dtype))


def binop(op, a, b, dtype=None):
    dtype = dtype or a.type.dtype
    return ir.BinOp(op, convert(a, dtype), convert(b, dtype), (0, 0), Scalar(dtype))


def compare(op, a, b):
    return ir.Compare(a, [op], [b], (0, 0), BOOL, [[a.type.dtype, b.type.dtype]])


def either(a, b):
    return ir.BoolOp("or", [a, b], (0, 0), BOOL)


def choose(test, body, orelse):
    return ir.IfExp(test, body, orelse, (0, 0), body.type)


def call(func, args, dtype):
    return ir.Call(func, args, (0, 0), Scalar(dtype))


def add(a, b):
    """`a + b` of int64 expressions, folding constants."""
    if isinstance(a, ir.Const) and a.value == 0:
        return b
    if isinstance(b, ir.Const) and b.value == 0:
        return a
    if isinstance(a, ir.Const) and isinstance(b, ir.Const):
        return const(a.value + b.value)
    return binop("+", a, b, "int64")


def mul(a, b):
    if any(isinstance(x, ir.Const) and x.value == 0 for x in (a, b)):
        return const(0)
    if isinstance(b, ir.Const) and b.value == 1:
        return a
    if isinstance(a, ir.Const) and a.value == 1:
        return b
    return binop("*", a, b, "int64")


def sub(a, b):
    if isinstance(b, ir.Const) and b.value == 0:
        return a
    return binop("-", a, b, "int64")


def is_float(t):
    return t is not None and t.dtype.startswith("float")


def same(a, b) -> bool:
    return format_expr(a) == format_expr(b)


# --- element-wise NumPy functions as scalar IR -------------------------------------------------

def scalar_function(func, args, dtype):
    """np.<func> of scalar operands (already of the function's input dtypes) as IR that both
    emitters print: comparisons, conditional expressions and the C math library."""
    out = Scalar(dtype)
    if func == "where":
        return ir.IfExp(args[0], args[1], args[2], (0, 0), out)
    if func in ("minimum", "maximum", "fmin", "fmax"):
        a, b = args
        better = compare("<" if func in ("minimum", "fmin") else ">", b, a)
        if is_float(a.type):
            nan = compare("!=", b, b) if func in ("minimum", "maximum") else compare("!=", a, a)
            better = either(better, nan)
        return ir.IfExp(better, b, a, (0, 0), out)
    if func == "clip":
        a, lo, hi = args
        return scalar_function("minimum", [scalar_function("maximum", [a, lo], dtype), hi],
                               dtype)
    if func in ("isnan", "isinf", "isfinite") and is_complex(args[0].type):
        # Of a complex number: of its parts, as NumPy.
        part = real_part(args[0].type).dtype
        re, im = (scalar_function(func, [call(f"np.{p}", [args[0]], part)], dtype)
                  for p in ("real", "imag"))
        return ir.BoolOp("and" if func == "isfinite" else "or", [re, im], (0, 0), BOOL)
    if func == "isnan":
        return compare("!=", args[0], args[0]) if is_float(args[0].type) else const(False,
                                                                                    "bool")
    if func == "isfinite":
        x = args[0]
        return compare("==", binop("-", x, x), const(0.0, x.type.dtype)) if is_float(x.type) \
            else const(True, "bool")
    if func == "isinf":
        x = args[0]
        if not is_float(x.type):
            return const(False, "bool")
        # inf - inf is nan; a finite x - x is 0; nan fails x == x.
        return ir.BoolOp("and", [compare("==", x, x),
                                 compare("!=", binop("-", x, x), binop("-", x, x))],
                         (0, 0), BOOL)
    if func == "square":
        return binop("*", args[0], copy.deepcopy(args[0]), dtype)
    if func == "sign":
        x = args[0]
        zero = const(0, dtype) if not is_float(out) else const(0.0, dtype)
        one = const(1, dtype) if not is_float(out) else const(1.0, dtype)
        minus = const(-1, dtype) if not is_float(out) else const(-1.0, dtype)
        value = choose(compare(">", x, zero), one, choose(compare("<", x, zero), minus, zero))
        return choose(compare("!=", x, x), x, value) if is_float(out) else value
    if func in ("logical_and", "logical_or", "logical_xor"):
        a, b = (truth(x) for x in args)
        return ir.BinOp({"logical_and": "&", "logical_or": "|", "logical_xor": "^"}[func],
                        a, b, (0, 0), BOOL)
    if func == "logical_not":
        return ir.UnaryOp("not", truth(args[0]), (0, 0), BOOL)
    if func == "negative":
        return ir.UnaryOp("-", args[0], (0, 0), out)
    if func == "positive":
        return args[0]
    if func == "reciprocal":
        return binop("/", const(1.0, dtype), args[0], dtype)
    if func in ("degrees", "radians"):
        factor = 180.0 / math.pi if func == "degrees" else math.pi / 180.0
        return binop("*", args[0], const(factor, dtype), dtype)
    return call("np." + func, args, dtype)


def truth(e):
    return e if e.type.dtype == "bool" else compare("!=", e, const(0, e.type.dtype))



class Check:
    """In a statement list being built: raise `kind` with `message` when `bad` holds, else run
    the statements after it (see `assemble`)."""

    def __init__(self, bad, message, kind, values=()):
        self.bad, self.message, self.kind, self.values = bad, message, kind, list(values)


def assemble(items, loc, flat=False):
    """Statements from a list with Checks: each check guards what follows it, so that no
    statement after a failed check runs, even inside a parallel loop (where a raise is
    recorded and raised when the loop ends). `flat`: outside any parallel loop, where a raise
    leaves the function (the emitters return after it), a check is `if bad: raise` and the
    statements after it follow it."""
    out = []
    for k, item in enumerate(items):
        if isinstance(item, Check):
            raise_ = ir.Raise(item.kind, item.message, loc, item.values)
            if flat:
                out.append(ir.If(item.bad, [raise_], [], loc))
                continue
            out.append(ir.If(item.bad, [raise_], assemble(items[k + 1:], loc), loc))
            return out
        out.append(item)
    return out


def dataclass_replace(e, t):
    e = copy.copy(e)
    e.type = t
    return e


FUNCTIONS = {"where", "minimum", "maximum", "fmin", "fmax", "clip", "isnan", "isinf",
             "isfinite", "square", "sign", "logical_and", "logical_or", "logical_xor",
             "logical_not", "negative", "positive", "reciprocal", "degrees", "radians"}
REDUCING = {"sum", "prod", "mean", "std", "var", "min", "max", "argmin", "argmax", "any", "all",
            "nanprod", "nanmean", "nanvar", "nanstd", "nanmax", "nanmin"}
ALLOCATING = {"zeros_like": "zeros", "ones_like": "ones", "empty_like": "empty"}
# ArrayCalls read element by element where they stand.
ELEMENT_CALLS = {"transpose", "copy", "asarray", "astype", "flip", "flipud", "fliplr", "roll",
                 "zeros_like", "ones_like", "empty_like", "full_like", "full", "outer", "eye",
                 "identity", "arange", "linspace", "concatenate", "triu", "tril", "diff",
                 "diag", "take_along_axis", "average", "gradient", "cross", "pad"}
