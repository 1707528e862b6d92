"""Several signatures of one compiled function (`@unpython.type` given more than once, or a list
of signatures): the signature a call inside the module takes, chosen from the arguments' types
by the rule the module's Python-facing dispatcher applies at call time (unpy/cpp_emit/module.py,
`signature_dispatcher`): the first signature, in source order, whose parameter types are the arguments'
own; else the first that takes them converted within their kinds (int32 to int64, a Python
float to float32); else the first that takes them converted as a single signature would (an
int to a float). Arrays are never converted."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from unpy import ir
from unpy.ir import Scalar
from unpy.typeinfer.types import conversion_loses


@dataclass(frozen=True)
class Signature:
    """One signature of a compiled function, and the name of its own ir.Function: the
    function's name, or `name_sigK` when the function has several."""
    name: str
    params: tuple           # parameter types
    ret: object             # the return type; None: no value

    def __str__(self):
        return f"({', '.join(str(p) for p in self.params)}) -> {self.ret}"

    def weakens(self, other: "Signature") -> bool:
        """Whether this is `other`'s weak variant (typeinfer/weak_params.py): the same types,
        some scalars weak, taken only where those receive Python values."""
        return self.params != other.params and all(
            t == u or (isinstance(t, Scalar) and t.weak and t.dtype == u.dtype)
            for t, u in zip(self.params, other.params))


def weak_variants(signatures: list) -> dict:
    """A declared signature's name -> its weak variant, which comes just before it."""
    return {s.name: v for v, s in zip(signatures, signatures[1:]) if v.weakens(s)}


class NoSignature(Exception):
    """No signature takes a call's arguments; the message says which exist."""


def scalar_kind(dtype: str) -> str:
    """bool, integer (signed or not), floating or complex: the kinds a conversion of the
    second choice stays within."""
    kind = np.dtype(dtype).kind
    return "i" if kind == "u" else kind


def choose_signature(function: str, signatures: list, args: list) -> Signature:
    """The signature of `function` that a call with the typed expressions `args` takes: one of
    the declared signatures, or its weak variant (typeinfer/weak_params.py) where every weak
    parameter receives a Python value (of its own kind or a narrower one: an int for a float)."""
    variants = weak_variants(signatures)
    taken_for = {v.name for v in variants.values()}
    chosen = _declared_choice(function, [s for s in signatures if s.name not in taken_for], args)
    variant = variants.get(chosen.name)
    if variant and all(isinstance(a.type, Scalar) and a.type.weak and
                       conversion_loses(a.type, p) is None
                       for a, p in zip(args, variant.params) if isinstance(p, Scalar) and p.weak):
        return variant
    return chosen


def _declared_choice(function: str, signatures: list, args: list) -> Signature:
    """With one signature, that one (its conversions are then checked as they always were)."""
    if len(signatures) == 1:
        return signatures[0]
    for rank in range(3):
        for s in signatures:
            if all(_rank(a, p) <= rank for a, p in zip(args, s.params)):
                return s
    given = ", ".join(a.type.dtype if isinstance(a.type, Scalar) else str(a.type) for a in args)
    listed = "; ".join(str(s) for s in signatures)
    raise NoSignature(f"no signature of {function}() takes arguments of types ({given}); its "
                      f"signatures are {listed}")


def _rank(arg, param) -> int:
    """How parameter type `param` takes the typed expression `arg`: 0 as it is (a Python int
    is an int64, a Python float a float64, as NumPy takes them), 1 converted within its kind,
    2 converted otherwise, 3 not at all."""
    const = arg.value if isinstance(arg, ir.Const) else None
    if arg.type is None or conversion_loses(arg.type, param, const) is not None:
        return 3
    if not (isinstance(arg.type, Scalar) and isinstance(param, Scalar)):
        return 0            # arrays and tuples: only their own type converts
    if arg.type.dtype == param.dtype:
        return 0
    return 1 if scalar_kind(arg.type.dtype) == scalar_kind(param.dtype) else 2
