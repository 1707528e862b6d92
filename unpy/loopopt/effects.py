"""What statements do besides computing values, as both back ends' loop optimisations ask it:
whether they can raise (so that copies or blocks may run them where the loops as written would
not), which arrays they store into, and which scalars each run of them keeps to itself.

Whether an expression can raise depends on the code a back end makes of it: a named
`RaisePolicy` per back end says so (`CPP`, `OPENCL`)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Optional

from unpy import ir
from unpy.typeinfer.reductions import reads_of, walk_exprs, walk_stmts


@dataclass(frozen=True)
class RaisePolicy:
    """Which expressions a back end's code evaluates without raising (or, in a kernel,
    without setting the error flag): calls of the functions `safe_call` accepts, the binary
    operations `safe_binop` accepts, the casts `safe_cast` accepts, and of the other nodes
    those of `other_nodes` (None: every other node); `whiles`: a while loop may run (else
    it may loop forever, which counts as raising)."""
    name: str
    safe_call: Callable[[str], bool]
    safe_binop: Callable[[ir.BinOp], bool]
    safe_cast: Callable[[ir.Cast], bool]
    other_nodes: Optional[tuple]
    whiles: bool


def _not_an_integer_division(e: ir.BinOp) -> bool:
    return not (e.op in ("//", "%", "/", "**") and (
        e.type.dtype[0] in "iu" or ir.is_converted_integer(e.right)))


# The C++ path's vectorised blocks: math.* checks domains and raises, np.* gives NaN as NumPy
# does; an integer division by zero raises.
SAFE_CALL_PREFIXES = ("np.", "cast:", "min", "max", "abs", "float", "int")
CPP = RaisePolicy("C++", lambda func: func.startswith(SAFE_CALL_PREFIXES),
                  _not_an_integer_division, lambda e: True, None, True)

# An OpenCL kernel sets its error flag for a division, a float-to-int cast, a math function.
SAFE_OPS = {"+", "-", "*"}
SAFE_CALLS = {"min", "max", "abs", "float", "np.float32", "np.float64", "np.sqrt"}
SAFE_CAST = "cast:float"            # the typed casts of unpy/ir.py's Call, to a float type
OPENCL = RaisePolicy(
    "OpenCL", lambda func: func in SAFE_CALLS or func.startswith(SAFE_CAST),
    lambda e: e.op in SAFE_OPS,
    lambda e: e.type is not None and getattr(e.type, "dtype", "").startswith("float"),
    (ir.Name, ir.Const, ir.UnaryOp, ir.Compare, ir.BoolOp, ir.IfExp, ir.ArrayAttr), False)


def cannot_raise(stmts, policy: RaisePolicy,
                 unchecked: Callable[[ir.Subscript], bool] = lambda e: True) -> bool:
    """Whether no expression of `stmts` can raise in the code of `policy`'s back end, their
    array accesses being those `unchecked` accepts (an index checked at run time can raise)."""
    if not policy.whiles and any(isinstance(s, ir.While) for s in walk_stmts(stmts)):
        return False
    for e in walk_exprs(stmts):
        if isinstance(e, ir.Subscript):
            safe = unchecked(e)
        elif isinstance(e, ir.BinOp):
            safe = policy.safe_binop(e)
        elif isinstance(e, ir.Cast):
            safe = policy.safe_cast(e)
        elif isinstance(e, ir.Call):
            safe = policy.safe_call(e.func)
        else:
            safe = policy.other_nodes is None or isinstance(e, policy.other_nodes)
        if not safe:
            return False
    return True


def stored_accesses(stmts) -> list:
    """The array elements the assignments of `stmts` store into."""
    return [s.target for s in walk_stmts(stmts)
            if isinstance(s, (ir.Assign, ir.AugAssign)) and isinstance(s.target, ir.Subscript)]


def stored_arrays(stmts) -> set:
    """The names of the arrays `stmts` store into."""
    return {e.array.id for e in stored_accesses(stmts)}


def private_scalars(body, names: set, defined=frozenset()) -> bool:
    """Whether each of `names` that `body` reads has been assigned before, in the same run of
    `body` (an assignment inside an `if` or a loop counts inside it only): each run may then
    have its own (an iteration's private scalars, a block's element's)."""
    defined = set(defined)

    def clear(node):
        return not (set(reads_of(node)) & (names - defined))
    for s in body:
        if isinstance(s, ir.Assign) and isinstance(s.target, ir.Name):
            if not clear(s.value):
                return False
            defined.add(s.target.id)
        elif isinstance(s, ir.AugAssign) and isinstance(s.target, ir.Name):
            if not clear([s.target, s.value]):
                return False
        elif isinstance(s, ir.If):
            if not (clear(s.test) and private_scalars(s.body, names, defined)
                    and private_scalars(s.orelse, names, defined)):
                return False
        elif isinstance(s, ir.For):
            if not (clear([s.start, s.stop, s.step])
                    and private_scalars(s.body, names, defined | {s.var})):
                return False
        elif not clear(s):
            return False
    return True
