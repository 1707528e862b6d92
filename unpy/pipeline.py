"""The build pipeline up to the typed IR: frontend -> typeinfer (types, checks, logic lowering,
sqrt domain checks that cannot fire dropped, nest fusion)."""
from __future__ import annotations

import os

from unpy import ir
from unpy.errors import CompileError
from unpy.frontend.discover import discover
from unpy.frontend.lower import lower_function
from unpy.ir import Array
from unpy.typeinfer.fuse import fuse_function
from unpy.typeinfer.infer import infer_function
from unpy.typeinfer.lower_arrays import lower_arrays
from unpy.typeinfer.lower_logic import lower_logic
from unpy.typeinfer.never_negative import drop_sqrt_domain_checks
from unpy.typeinfer.reductions import check_function
from unpy.typeinfer.types import TypeStringError, conversion_loses, literal_type, parse_type


def parse_signature(decorated, errors):
    fn = decorated.node
    try:
        types = [parse_type(t) for t in decorated.types]
        local_types = {k: parse_type(v) for k, v in decorated.locals.items()}
    except TypeStringError as e:
        raise errors.error(str(e), (fn.lineno, fn.col_offset))
    n = len(fn.args.args)
    if len(types) != n + 1:
        raise errors.error(
            f"@unpython.type for '{fn.name}' lists {len(types)} type(s); it needs one per "
            f"parameter ({n}) and then the return type (None for no value)",
            (fn.lineno, fn.col_offset))
    if any(t is None for t in types[:-1]):
        raise errors.error("parameters need a type; None is only a return type",
                           (fn.lineno, fn.col_offset))
    if any(t is None for t in local_types.values()):
        raise errors.error("@unpython.locals types cannot be None", (fn.lineno, fn.col_offset))
    for default, t in zip(decorated.defaults, types[n - len(decorated.defaults):n]):
        why = (f"a parameter of type {t} takes no default" if isinstance(t, Array) else
               conversion_loses(literal_type(default.value), t, default.value))
        if why:
            raise errors.error(f"this default does not suit its parameter's type: {why}",
                               default.loc)
    return types[:-1], types[-1], local_types


def compile_to_ir(path: str, source: str) -> ir.Module:
    """The typed IR of every decorated function of a module; raises CompileError, carrying the
    first error of each function (the signatures first: a function's callers need its own)."""
    module = discover(path, source)
    errors = module.errors
    signatures, local_types, found = {}, {}, []
    for d in module.functions:
        try:
            params, ret, locs = parse_signature(d, errors)
        except CompileError as e:
            found.append(e)
            continue
        signatures[d.node.name] = (params, ret)
        local_types[d.node.name] = locs
    if found:
        raise CompileError.of(found)
    functions = []
    for d in module.functions:
        try:
            functions.append(compile_function(module, d, signatures, local_types, errors))
        except CompileError as e:
            found.append(e)
    if found:
        raise CompileError.of(found)
    name = os.path.splitext(os.path.basename(path))[0]
    return ir.Module(name, path, functions)


def compile_function(module, d, signatures, local_types, errors) -> ir.Function:
    """One function through the passes, frontend to fusion."""
    fn = lower_function(module, d, set(signatures))
    params, ret = signatures[fn.name]
    for p, t in zip(fn.params, params):
        p.type = t
    fn.return_type = ret
    fn.locals = dict(local_types[fn.name])
    infer_function(fn, signatures, errors)
    lower_arrays(fn, errors)
    check_function(fn, errors)
    lower_logic(fn)
    drop_sqrt_domain_checks(fn)
    return fuse_function(fn)
