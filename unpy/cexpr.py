"""The one printer of IR expressions as C-family code, shared by the C++ emitter
(unpy/cpp_emit/emit.py) and the OpenCL kernel emitter (jitgpu/opencl_emit.py).

The C-family languages agree on operators, `?:`, `&&`/`||` and `!`; the subclasses fill in where
C++ and OpenCL C really differ: type names, the spelling of literals and conversions, the helper
functions of Python's arithmetic and math (the C++ runtime's templates, which throw, or the
kernel's own functions, which set `unpy_flag`), and variables, subscripts and other nodes of
their own. Chained comparisons and value-returning `and`/`or` arrive lowered
(unpy/typeinfer/lower_logic.py), so each node prints in one piece.
"""
from __future__ import annotations

import math

import numpy as np

from unpy import ir
from unpy.typeinfer.types import REAL_PART

# The operators Python computes through a helper function: `/` only between integers converted
# to float (Python raises for a zero divisor).
HELPED_OPS = ("//", "%", "**", "<<", ">>", "/")
# math.* functions for which CPython's math module never raises: called without a check.
MATH_WITHOUT_ERRORS = ("atan2", "hypot", "erf", "erfc")
# np.<func> of complex values that the runtimes compute (typeinfer's COMPLEX_FUNCTIONS less the
# ones built from these in IR); abs, real, imag and angle give a real number.
COMPLEX_CALLS = ("abs", "real", "imag", "conjugate", "angle", "sqrt", "exp", "log", "log10",
                 "sin", "cos", "tan", "sinh", "cosh", "tanh")
def is_complex(dtype) -> bool:
    return dtype in REAL_PART


class CExprPrinter:
    # --- hooks: each subclass defines these -----------------------------------------------

    def int_literal(self, value: int, dtype: str) -> str:
        """An integer constant of integer type `dtype`."""
        raise NotImplementedError

    def special_float(self, value: float, dtype: str) -> str:
        """nan, inf or -inf of `dtype`."""
        raise NotImplementedError

    def convert(self, text: str, dtype: str) -> str:
        """A value converted to `dtype` as C converts it."""
        raise NotImplementedError

    def bool_to_float(self, text: str, dtype: str) -> str:
        """A bool converted to float32 or float64 (0 or 1)."""
        return self.convert(text, dtype)

    def arith(self, op: str, a: str, b: str, dtype: str) -> str:
        """`a op b` of `dtype` for the operators C computes itself, wrapping on overflow."""
        raise NotImplementedError

    def negate_or_invert(self, op: str, text: str, dtype: str) -> str:
        """Unary `-`, `+` or `~` of `dtype`."""
        raise NotImplementedError

    def helper(self, op: str, args: list, dtype: str) -> str:
        """One of HELPED_OPS (also `pow()`), of `dtype`, with Python's semantics and errors."""
        raise NotImplementedError

    def compare_mixed_integers(self, op: str, a: str, b: str, types: tuple) -> str:
        """`a op b` of two integer types of which C's conversions may change a value."""
        raise NotImplementedError

    def float_to_int(self, text: str, source: str) -> str:
        """int() of a float (errors for nan, infinities and values outside int64)."""
        raise NotImplementedError

    def min_max(self, name: str, a: str, b: str, dtype: str) -> str:
        """Python's min(a, b) or max(a, b): `a` unless `b` is smaller (greater)."""
        raise NotImplementedError

    def abs_value(self, text: str, dtype: str) -> str:
        raise NotImplementedError

    def math_function(self, func: str, args: list) -> str:
        """The C math library's function `func` (of the same name as Python's)."""
        raise NotImplementedError

    def checked_math(self, func: str, args: list) -> str:
        """math.func (float64) with CPython's domain and range errors."""
        raise NotImplementedError

    def complex_value(self, re: str, im: str, dtype: str) -> str:
        """The complex number of `dtype` with real and imaginary parts `re`, `im` (its real
        type's values)."""
        raise NotImplementedError

    def complex_operation(self, func: str, args: list, dtype: str) -> str:
        """`func` of complex values of `dtype`: the operators '*', '/', '**', '==', '!=' and
        the functions of COMPLEX_CALLS, with NumPy's formulas (see the runtimes)."""
        raise NotImplementedError

    # --- shared ---------------------------------------------------------------------------

    def expr(self, e) -> str:
        return getattr(self, "expr_" + type(e).__name__)(e)

    def truth(self, e):
        text = self.expr(e)
        if is_complex(e.type.dtype):
            return f"(!{self.complex_operation('==', [text, self.complex_zero(e.type.dtype)], e.type.dtype)})"
        return text if e.type.dtype == "bool" else f"({text} != 0)"

    def complex_literal(self, value: complex, dtype: str) -> str:
        real = REAL_PART[dtype]
        return self.complex_value(self.float_literal(value.real, real),
                                  self.float_literal(value.imag, real), dtype)

    def to_complex(self, text, source, dtype):
        """A value of dtype `source` as a complex number of `dtype`."""
        if is_complex(source):
            return self.convert(text, dtype)
        real = REAL_PART[dtype]
        return self.complex_value(self.convert(text, real), self.float_literal(0.0, real), dtype)

    def complex_zero(self, dtype):
        return self.complex_literal(0j, dtype)

    def float_literal(self, value: float, dtype: str) -> str:
        if dtype == "float32":
            with np.errstate(over="ignore"):
                value = float(np.float32(value))    # NumPy's rounding (and overflow)
        if math.isnan(value) or math.isinf(value):
            return self.special_float(value, dtype)
        return repr(float(value)) + ("f" if dtype == "float32" else "")

    def expr_Const(self, e):
        v = e.value
        if isinstance(v, complex) or (e.type is not None and is_complex(e.type.dtype)):
            return self.complex_literal(complex(v), e.type.dtype if e.type else "complex128")
        if isinstance(v, bool):
            return "true" if v else "false"
        if isinstance(v, int):
            return self.int_literal(v, "int64")
        return self.float_literal(v, "float64")

    def expr_Cast(self, e):
        dtype, inner = e.type.dtype, e.value
        source = inner.type.dtype
        if is_complex(dtype):
            if isinstance(inner, ir.Const) and not isinstance(inner.value, bool):
                return self.complex_literal(complex(inner.value), dtype)
            return self.to_complex(self.expr(inner), source, dtype)
        if dtype == "bool" and is_complex(source):
            return self.truth(inner)
        if isinstance(inner, ir.Const) and not isinstance(inner.value, bool):
            if dtype.startswith("float"):
                return self.float_literal(float(inner.value), dtype)
            if isinstance(inner.value, int) and dtype != "bool":
                return self.int_literal(inner.value, dtype)
        if dtype == "bool":
            return f"({self.expr(inner)} != 0)"
        if source == "bool" and dtype in ("float32", "float64"):
            return self.bool_to_float(self.expr(inner), dtype)
        return self.convert(self.expr(inner), dtype)

    def expr_BinOp(self, e):
        a, b = self.expr(e.left), self.expr(e.right)
        if is_complex(e.type.dtype) and e.op in ("*", "/", "**"):
            return self.complex_operation(e.op, [a, b], e.type.dtype)
        if e.op in HELPED_OPS and (e.op != "/" or all(
                ir.is_converted_integer(x) for x in (e.left, e.right))):
            return self.helper(e.op, [a, b], e.type.dtype)
        return self.arith(e.op, a, b, e.type.dtype)

    def expr_UnaryOp(self, e):
        if e.op == "not":
            return f"(!{self.truth(e.operand)})"
        return self.negate_or_invert(e.op, self.expr(e.operand), e.type.dtype)

    def expr_Compare(self, e):
        (op,), (right,), (types,) = e.ops, e.comparators, e.operand_types   # lowered: one pair
        ta, tb = types
        a, b = self.convert(self.expr(e.left), ta), self.convert(self.expr(right), tb)
        if is_complex(ta):              # == or != (typeinfer refuses an order)
            return self.complex_operation(op, [a, b], ta)
        if ta == tb or "f" in (ta[0], tb[0]) or "bool" in (ta, tb):
            return f"({a} {op} {b})"
        return self.compare_mixed_integers(op, a, b, (ta, tb))

    def expr_BoolOp(self, e):
        joiner = " && " if e.op == "and" else " || "     # lowered: bool operands only
        return "(" + joiner.join(self.truth(v) for v in e.values) + ")"

    def expr_IfExp(self, e):
        return f"({self.truth(e.test)} ? {self.expr(e.body)} : {self.expr(e.orelse)})"

    def expr_NamedExpr(self, e):
        return f"({self.expr(e.target)} = {self.expr(e.value)})"

    def expr_Call(self, e):
        name, out = e.func, e.type.dtype
        args = [self.expr(a) for a in e.args]
        if name == "complex":
            return self.complex_value(args[0], args[1], out)
        module, _, func = name.partition(".")
        source = e.args[0].type.dtype if e.args else None
        if is_complex(source) and (name == "abs" or func in COMPLEX_CALLS):
            return self.convert(self.complex_operation(
                "abs" if name == "abs" else func, args, source), out)
        if func in ("real", "conjugate"):               # of a real number: itself
            return self.convert(args[0], out)
        if func == "imag":
            return self.convert(self.float_literal(0.0, "float64"), out)
        if func == "angle":
            return self.convert(self.math_function("atan2", [
                self.convert(self.float_literal(0.0, "float64"), source), args[0]]), out)
        if name.startswith("cast:"):
            if out == "bool":
                return self.truth(e.args[0])
            if is_complex(out):
                return self.to_complex(args[0], source, out)
            if out == "int64" and source.startswith("float"):
                return self.float_to_int(args[0], source)
            return self.convert(args[0], out)
        if name in ("min", "max"):
            text = args[0]
            for a in args[1:]:
                text = self.min_max(name, text, a, out)
            return text
        if name == "abs" or func == "abs":
            return self.abs_value(args[0], out)
        if module == "math":
            if func in ("floor", "ceil"):
                return self.float_to_int(self.math_function(func, args), "float64")
            if func in MATH_WITHOUT_ERRORS:
                return self.math_function(func, args)
            return self.checked_math(func, args)
        if func == "pow":
            if is_complex(out):
                return self.complex_operation("**", args, out)
            return self.helper("**", args, out)
        if func in ("floor", "ceil") and out[0] in "iu":
            return args[0]
        return self.convert(self.math_function(func, args), out)
