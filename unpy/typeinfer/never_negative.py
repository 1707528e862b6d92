"""Drop the domain check of `math.sqrt(e)` where `e` is never negative.

`math.sqrt` raises ValueError only for an argument < 0, so compiled code checks every result
(C++: `unpy::math_sqrt`, OpenCL: `unpy_math_sqrt`: one comparison each). Where Python's value of
`e` can never be < 0 the check can never fire, and the call becomes `np.sqrt(e)`: the same
`sqrt` of the same float64 with the same float64 result, unchecked.

"Never < 0" is proven bottom-up, for float expressions only (integer arithmetic wraps, so an
integer is unknown unless it is a constant); `>= 0`, -0.0, +inf and NaN all qualify:

- a constant that is not < 0;
- `a * a` and `a ** k` for an even integer constant `k`, where both `a` are one expression
  written twice (names, constants, array elements, arithmetic and casts of them) that
  evaluates alike both times: it calls nothing, and when the function calls a compiled function
  (which may write an array between two reads) it reads no array;
- `x + y` and `x * y` of never-negative operands: rounding never crosses zero, and inf * 0 is
  NaN. Not `x / y` (1 / -0.0 is -inf) nor `x - y`;
- `abs`, `fabs`, `sqrt`, `exp` and `hypot` of anything (math.* and np.*);
- a cast to a float type, an `x if c else y` or a `min`/`max` of never-negative values;
- a local float variable (not a parameter, not an array) of which every assignment (`x = e`,
  `x += e` which typeinfer made `x = x + e`, a reduction of a prange, `(x := e)`) stores a
  never-negative value, given the same of the other such variables: the greatest fixed point
  over the function's float locals. It holds by induction over the run: a local starts at 0
  in both emitters (one read before any assignment would raise UnboundLocalError in Python),
  and a prange reduction combines never-negative partial values (its start value is the
  identity of + or * (0, 1), or for min/max a value only the reduction itself reads) with
  its own operator, which keeps them never negative.

Every rule holds for Python's values and for the compiled ones, which the emitters compute as
Python does; so a check dropped here is one that could not raise. Runs after type inference
(it needs the types and the Casts) and after lower_logic (`NamedExpr` locals are assigned).
"""
from __future__ import annotations

from unpy import ir
from unpy.typeinfer.lower_logic import calls_compiled
from unpy.typeinfer.reductions import walk_exprs, walk_stmts

NEVER_NEGATIVE_RESULTS = {"abs", "np.abs", "math.fabs", "np.fabs", "math.sqrt", "np.sqrt",
                          "math.exp", "np.exp", "math.hypot", "np.hypot"}


def is_float(t) -> bool:
    return isinstance(t, ir.Scalar) and t.dtype.startswith("float")


def is_even_integer(e) -> bool:
    e = e.value if isinstance(e, ir.Cast) else e
    return (isinstance(e, ir.Const) and not isinstance(e.value, bool)
            and float(e.value).is_integer() and int(e.value) % 2 == 0)


class NeverNegative:
    """Proves expressions of one function never < 0, given the locals known never negative."""

    def __init__(self, fn: ir.Function, never_negative_locals: set):
        self.locals = never_negative_locals
        # A compiled call may write an array between the two reads of `a[i] * a[i]`.
        self.arrays_stable = not calls_compiled(fn.body)

    def proves(self, e) -> bool:
        if isinstance(e, ir.Const):
            return not e.value < 0          # NaN and -0.0 too
        if not is_float(e.type):
            return False
        if isinstance(e, ir.Name):
            return e.id in self.locals
        if isinstance(e, ir.BinOp):
            if e.op == "*" and self.same_value(e.left, e.right):
                return True
            if e.op == "**" and is_even_integer(e.right):
                return True
            return e.op in ("+", "*") and self.proves(e.left) and self.proves(e.right)
        if isinstance(e, ir.Call):
            if e.func in NEVER_NEGATIVE_RESULTS:
                return True
            if e.func in ("min", "max") or e.func.startswith("cast:"):
                return all(self.proves(a) for a in e.args)
            return False
        if isinstance(e, (ir.Cast, ir.NamedExpr)):
            return self.proves(e.value)
        if isinstance(e, ir.IfExp):
            return self.proves(e.body) and self.proves(e.orelse)
        return False

    def same_value(self, a, b) -> bool:
        """Whether `a` and `b` are one expression written twice that evaluates alike twice."""
        if type(a) is not type(b) or a.type != b.type:
            return False
        if isinstance(a, ir.Name):
            return a.id == b.id
        if isinstance(a, ir.Const):
            return type(a.value) is type(b.value) and a.value == b.value
        if isinstance(a, ir.Subscript):
            return (self.arrays_stable and a.array.id == b.array.id
                    and all(map(self.same_value, a.indices, b.indices)))
        if isinstance(a, ir.BinOp):
            return (a.op == b.op and self.same_value(a.left, b.left)
                    and self.same_value(a.right, b.right))
        if isinstance(a, ir.UnaryOp):
            return a.op == b.op and self.same_value(a.operand, b.operand)
        if isinstance(a, ir.Cast):
            return self.same_value(a.value, b.value)
        return False


def never_negative_locals(fn: ir.Function) -> set:
    """The float locals every assignment of which stores a never-negative value (greatest fixed
    point: start from all of them, drop one with an assignment not proven, until none drops)."""
    params = {p.name for p in fn.params}
    assignments = [(s.target.id, s.value) for s in walk_stmts(fn.body)
                   if isinstance(s, ir.Assign) and isinstance(s.target, ir.Name)]
    assignments += [(e.target.id, e.value) for e in walk_exprs(fn.body)
                    if isinstance(e, ir.NamedExpr)]
    known = {name for name, t in fn.locals.items() if is_float(t) and name not in params}
    while True:
        prover = NeverNegative(fn, known)
        dropped = {name for name, value in assignments
                   if name in known and not prover.proves(value)}
        if not dropped:
            return known
        known -= dropped


def drop_sqrt_domain_checks(fn: ir.Function):
    """Rewrite `math.sqrt(e)` to the unchecked `np.sqrt(e)` (float64, as `e` is) where `e` is
    never negative."""
    prover = NeverNegative(fn, never_negative_locals(fn))
    for e in walk_exprs(fn.body):
        if isinstance(e, ir.Call) and e.func == "math.sqrt" and prover.proves(e.args[0]):
            e.func = "np.sqrt"
