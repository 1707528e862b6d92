"""Python scalars given for scalar parameters. In the interpreter a `float` passed for a
parameter that the signature types `float64` is a Python float, weak in NEP 50: `x32 * eps`
stays float32 (a `complex` for `complex128` and an `int` for `int64` alike: `x32 * n` and
`2.0 / (span + 1)` stay float32 and Python floats), while a NumPy float64 is not. Where that
changes what a function computes, the function gets a second signature, its weak variant, whose
parameters that matter are weak: the module's dispatcher takes it when every one of them
receives a Python scalar (and calls inside the module when they pass Python values); anything
else takes the declared signature. A signature that compiles only with such parameters weak
(`x32 * eps` returned as a float32 array) is compiled weak alone and takes Python values there.

A Python int is weak only where it never meets a narrower integer type (`a8 + n`): NumPy
checks the value's range there (OverflowError) where compiled code would wrap, so no variant
is made in which a weak int that is not a literal (the parameter's value, or conservatively
any other, such as a loop variable) converts into another integer type.

This module says which parameters matter: weakening one alone changes the typed IR beyond the
weak flags themselves."""
from __future__ import annotations

import re

from unpy import ir
from unpy.ir import Scalar
from unpy.typeinfer.overloads import Signature
from unpy.typeinfer.reductions import walk_exprs
from unpy.typeinfer.types import is_int

# The dtypes NumPy gives Python's int, float and complex: parameters that can be weak.
PYTHON_KINDS = ("int64", "float64", "complex128")

_WEAK_FLAG = re.compile(r'"weak":true')


def eligible(signature: Signature, fn: ir.Function) -> list:
    """Indices of the parameters of `signature` that a Python scalar can be given for, and that
    the function `fn` (as the frontend gives it) never assigns: a weak parameter rebound to a
    NumPy value would change type inside the function."""
    assigned = assigned_names(fn)
    return [k for k, (t, p) in enumerate(zip(signature.params, fn.params))
            if isinstance(t, Scalar) and not t.weak and t.dtype in PYTHON_KINDS
            and p.name not in assigned]


def weakened(signature: Signature, indices, name: str = None) -> Signature:
    """`signature` with the parameters at `indices` weak (under `name`, or its own)."""
    params = tuple(Scalar(t.dtype, weak=True) if k in indices else t
                   for k, t in enumerate(signature.params))
    return Signature(name or signature.name, params, signature.ret)


def narrows_python_ints(fn: ir.Function) -> bool:
    """Whether `fn` converts a weak int that is not a literal into another integer type."""
    return any(isinstance(e, ir.Cast) and not isinstance(e.value, ir.Const)
               and isinstance(e.value.type, Scalar) and e.value.type.weak
               and e.value.type.dtype == "int64" and is_int(e.type) and e.type.dtype != "int64"
               for e in walk_exprs(fn.body))


def typed_the_same(a: ir.Function, b: ir.Function) -> bool:
    """Whether two compilations of one signature differ only in which scalars are weak: then
    they print the same code."""
    return _WEAK_FLAG.sub('"weak":false', ir.to_json(a)) == \
        _WEAK_FLAG.sub('"weak":false', ir.to_json(b))


def assigned_names(fn: ir.Function) -> set:
    """The names `fn`'s body assigns (element assignments aside)."""
    found = set()

    def visit(x):
        if isinstance(x, dict):
            if x.get("node") in ("Assign", "AugAssign") and x["target"].get("node") == "Name":
                found.add(x["target"]["id"])
            for v in x.values():
                visit(v)
        elif isinstance(x, list):
            for v in x:
                visit(v)
    visit(ir.to_data(fn.body))
    return found

