"""What the operations of an expression cost beyond a simple one: the weights that the OpenMP
team threshold (unpy/cpp_emit/emit.py, `work_estimate`) and the GPU-or-OpenMP estimate
(jitgpu/plan.py, `work`) give the expensive ones.

Measured on the 2-core AMD EPYC development machine (g++ 12, -O3 -march=native
-fno-math-errno, 65536 float64 elements, 2026-11-26), per element: a[i] = b[i] + c[i] 0.26 ns
(a vectorised loop), b[i] / c[i] 0.31, sqrt 0.54, log 4.3, exp 5.4, sin 8.9, pow 9.8, atan2 11.0;
complex128 multiply 0.81, divide 4.1, abs 5.2. A libm call costs 15-40 simple operations: one
counted as one (as every call was) made a nest of 4000 haversine distances run on one thread,
8x slower than on the team, and the estimate put its OpenMP side at 1/200 of what it took.
"""
from __future__ import annotations

from unpy import ir
from unpy.typeinfer.reductions import walk_exprs

# Extra operations of a call to a function of the C math library (a loop of them does not
# vectorise without -ffast-math).
LIBM_CALL = 20
LIBM = {"exp", "log", "log10", "log2", "log1p", "expm1", "exp2", "cbrt", "sin", "cos", "tan",
        "asin", "acos", "atan", "atan2", "sinh", "cosh", "tanh", "pow", "hypot", "erf", "erfc",
        "gamma", "lgamma", "phase", "angle", "arcsinh", "arccosh", "arctanh"}
COMPLEX_MULTIPLY = 2
COMPLEX_DIVIDE = 10
# A call to another compiled function whose body is not at hand.
COMPILED_CALL = 10


def _complex(node) -> bool:
    return getattr(getattr(node, "type", None), "dtype", "").startswith("complex")


def extra_work(node) -> int:
    """The operations one expression node costs beyond one (not those of its operands)."""
    if isinstance(node, ir.Call):
        name = node.func.rsplit(".", 1)[-1]
        if name in LIBM or (name in ("abs", "sqrt") and node.args and _complex(node.args[0])):
            return LIBM_CALL
        return 0
    if isinstance(node, ir.BinOp):
        exponent = node.right.value if isinstance(node.right, ir.Cast) else node.right
        if node.op == "**" and not (isinstance(exponent, ir.Const)
                                    and exponent.value in (1, 2)):   # g++ makes x * x of these
            return LIBM_CALL
        if _complex(node):
            return {"*": COMPLEX_MULTIPLY, "/": COMPLEX_DIVIDE, "**": COMPLEX_DIVIDE}.get(
                node.op, 0)
        return 0
    if isinstance(node, ir.CallCompiled):
        return COMPILED_CALL
    return 0


def expensive_work(node) -> int:
    """The extra operations of every expression below `node` (a statement or an expression)."""
    return sum(extra_work(e) for e in walk_exprs(node))
