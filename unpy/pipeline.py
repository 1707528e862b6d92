"""The build pipeline up to the typed IR: frontend -> typeinfer (types, checks, logic lowering,
sqrt domain checks that cannot fire dropped, nest fusion)."""
from __future__ import annotations

import os

from unpy import ir
from unpy.errors import CompileError
from unpy.frontend.discover import discover
from unpy.frontend.lower import lower_function
from unpy.ir import Array, DtypeType, ListType, Scalar
from unpy.typeinfer.array_races import check_array_writes
from unpy.typeinfer.contract import contract_temporaries
from unpy.typeinfer.fuse import fuse_function
from unpy.typeinfer.infer import infer_function
from unpy.typeinfer.interpreter_checks import apply_checks, merged
from unpy.typeinfer.lower_arrays import lower_arrays
from unpy.typeinfer.lists import copies_checked
from unpy.typeinfer.lower_logic import lower_logic
from unpy.typeinfer.never_negative import drop_sqrt_domain_checks
from unpy.typeinfer.overloads import Signature
from unpy.typeinfer.python_division import python_division_plan
from unpy.typeinfer.reductions import check_function
from unpy.typeinfer.types import (TypeStringError, conversion_loses, fits, is_int, literal_type,
                                  parse_type)
from unpy.typeinfer.unbound_locals import unbound_locals_plan
from unpy.typeinfer.weak_params import eligible, narrows_python_ints, typed_the_same, weakened


def parse_signature(decorated, written, errors):
    """(parameter types, return type) of one signature as written. Its errors point at the
    function, or at the signature itself when the function has several."""
    fn = decorated.node
    loc = (fn.lineno, fn.col_offset) if len(decorated.signatures) == 1 else written.loc
    try:
        types = [parse_type(t) for t in written.types]
    except TypeStringError as e:
        raise errors.error(str(e), loc)
    n = len(fn.args.args)
    if len(types) != n + 1:
        raise errors.error(
            f"@unpython.type for '{fn.name}' lists {len(types)} type(s); it needs one per "
            f"parameter ({n}) and then the return type (None for no value)", loc)
    if any(t is None for t in types[:-1]):
        raise errors.error("parameters need a type; None is only a return type", loc)
    if isinstance(types[-1], DtypeType):
        raise errors.error(f"a function returns no dtype ({types[-1]} is a parameter's type); "
                           "return an array or a number", loc)
    for default, t in zip(decorated.defaults, types[n - len(decorated.defaults):n]):
        if whole_float_for_int(default.value, t):
            default.value = int(default.value)      # Pythran's julia: `cutoff=1e6`, an int
            continue
        why = (f"a parameter of type {t} takes no default" if isinstance(t, (Array, ListType))
               else
               # a dtype default chooses among the signatures (parse_signatures checks one
               # takes it)
               None if isinstance(t, DtypeType) and isinstance(default.value, str) else
               conversion_loses(literal_type(default.value), t, default.value))
        if why:
            raise errors.error(f"this default does not suit its parameter's type: {why}",
                               default.loc)
    return types[:-1], types[-1]


def whole_float_for_int(value, t) -> bool:
    """Whether a default `value` is a float of a whole value that the integer type `t` holds:
    a parameter declared an integer then takes the integer it equals."""
    return isinstance(value, float) and value.is_integer() and isinstance(t, Scalar) \
        and is_int(t) and fits(int(value), t.dtype)


def parse_signatures(decorated, taken: set, errors) -> list:
    """The function's signatures (overloads.Signature), in source order. With several, each
    gets an ir.Function name of its own, `name_sigK`, not in `taken` (which it joins)."""
    name = decorated.node.name
    found = []
    for k, written in enumerate(decorated.signatures, 1):
        params, ret = parse_signature(decorated, written, errors)
        for j, earlier in enumerate(found, 1):
            if list(earlier.params) == params:
                raise errors.error(f"signature {k} of '{name}' has the parameter types of "
                                   f"signature {j}: a call could never choose it", written.loc)
        own = name
        if len(decorated.signatures) > 1:
            own = f"{name}_sig{k}"
            while own in taken:
                own += "_"
            taken.add(own)
        found.append(Signature(own, tuple(params), ret))
    params = decorated.node.args.args
    for default, k in zip(decorated.defaults, range(len(params) - len(decorated.defaults),
                                                   len(params))):
        if isinstance(default.value, str) and \
                DtypeType(default.value) not in (s.params[k] for s in found):
            raise errors.error(f"the default dtype {default.value} of '{params[k].id}' is in no "
                               f"signature of '{name}'; add one with 'type[{default.value}]' "
                               "there", default.loc)
    return found


def parse_locals(decorated, errors) -> dict:
    fn = decorated.node
    try:
        local_types = {k: parse_type(v) for k, v in decorated.locals.items()}
    except TypeStringError as e:
        raise errors.error(str(e), (fn.lineno, fn.col_offset))
    if any(t is None or isinstance(t, (DtypeType, ListType)) for t in local_types.values()):
        raise errors.error("@unpython.locals types cannot be None, a dtype (type[...]) or a "
                           "list (its items take the type of its values)",
                           (fn.lineno, fn.col_offset))
    return local_types


def compile_to_ir(path: str, source: str) -> ir.Module:
    """The typed IR of every decorated function of a module, one ir.Function per signature;
    raises CompileError, carrying the first error of each function (the signatures first: a
    function's callers need its own)."""
    module = discover(path, source)
    errors = module.errors
    taken = {d.node.name for d in module.functions}
    signatures, local_types, found = {}, {}, []
    for d in module.functions:
        try:
            signatures[d.node.name] = parse_signatures(d, taken, errors)
            local_types[d.node.name] = parse_locals(d, errors)
        except CompileError as e:
            found.append(e)
    if found:
        raise CompileError.of(found)
    functions = compile_signatures(module, signatures, local_types, errors)
    functions = with_weak_variants(module, signatures, local_types, errors, functions, taken)
    copies_checked(functions, errors)
    name = os.path.splitext(os.path.basename(path))[0]
    return ir.Module(name, path, functions)


def compile_signatures(module, signatures, local_types, errors) -> list:
    """Every signature of every function compiled; raises CompileError with the first error of
    each function."""
    functions, found = [], []
    for d in module.functions:
        own = signatures[d.node.name]
        for signature in own:
            try:
                functions.append(compile_function(module, d, signature, signatures,
                                                  local_types, errors))
            except CompileError as e:
                weak = _weak_only(module, d, signature, signatures, local_types, errors)
                if weak:
                    own[own.index(signature)] = weak
                    functions.append(compile_function(module, d, weak, signatures,
                                                      local_types, errors))
                    continue
                if len(own) > 1:    # which signature the function does not compile for
                    e.message += f" (in {d.node.name}'s signature {signature})"
                found.append(e)
                break
    if found:
        raise CompileError.of(found)
    return functions


def with_weak_variants(module, signatures, local_types, errors, functions, taken) -> list:
    """`functions` and the weak variants (typeinfer/weak_params.py) of the signatures whose
    results depend on whether a scalar argument is a Python one. `signatures` gains them, each
    before its declared signature. Repeated until no variant changes, since a variant of a
    callee can make its callers' parameters matter."""
    declared = {d.node.name: list(signatures[d.node.name]) for d in module.functions}
    as_written = {d.node.name: lower_function(module, d, set(signatures),
                                              list_params(d, declared[d.node.name]))
                  for d in module.functions}
    variants = {}           # a declared signature's name -> its weak variant
    for _ in range(len(module.functions) + 1):
        found = {}
        by_name = {f.name: f for f in functions}
        for d in module.functions:
            for s in declared[d.node.name]:
                strong = by_name[s.name]
                can = eligible(s, as_written[d.node.name])
                matter = [k for k in can
                          if not _compiles_alike(module, d, weakened(s, [k]), strong,
                                                 signatures, local_types, errors)]
                if len(can) > max(len(matter), 1):
                    # Some matter together only (`x / y` is Python's only when both are).
                    alone = strong if not matter else compile_function(
                        module, d, weakened(s, matter), signatures, local_types, errors)
                    if not _compiles_alike(module, d, weakened(s, can), alone, signatures,
                                           local_types, errors):
                        matter = can
                if matter and narrows_python_ints(compile_function(
                        module, d, weakened(s, matter), signatures, local_types, errors)):
                    matter = [k for k in matter if s.params[k].dtype != "int64"]
                if matter:
                    known = variants.get(s.name)
                    name = known.name if known else _free_name(f"{s.name}_weak", taken)
                    found[s.name] = weakened(s, matter, name)
        if found == variants:
            return functions
        variants = found
        for d in module.functions:
            signatures[d.node.name] = [v for s in declared[d.node.name]
                                       for v in (variants.get(s.name), s) if v is not None]
        try:
            functions = compile_signatures(module, signatures, local_types, errors)
        except CompileError:
            # A variant the declared signature compiles without (a weak value where the
            # function needs a NumPy one): none at all, then.
            for d in module.functions:
                signatures[d.node.name] = declared[d.node.name]
            return compile_signatures(module, signatures, local_types, errors)
    return functions


def _weak_only(module, d, signature, signatures, local_types, errors):
    """The signature with its parameters that can take Python scalars weak, where the declared
    one does not compile and this one does (`x32 * eps` returned as float32, as the interpreter
    computes it with a Python float `eps`); else None."""
    try:
        can = eligible(signature, lower_function(module, d, set(signatures),
                                                 list_params(d, [signature])))
        if not can:
            return None
        weak = weakened(signature, can)
        if narrows_python_ints(compile_function(module, d, weak, signatures, local_types,
                                                errors)):
            return None
    except CompileError:
        return None
    return weak


def _compiles_alike(module, d, trial, strong, signatures, local_types, errors) -> bool:
    """Whether the `trial` signature types the function as `strong` does, or may not be used:
    it does not compile, or a weak int meets a narrower integer in it."""
    try:
        compiled = compile_function(module, d, trial, signatures, local_types, errors)
        return typed_the_same(compiled, strong) or narrows_python_ints(compiled)
    except CompileError:
        return True         # not compiled with a weak value: the declared signature serves


def _free_name(name, taken):
    while name in taken:
        name += "_"
    taken.add(name)
    return name


def list_params(d, signatures) -> set:
    """The names of the parameters of function `d` that one of `signatures` declares lists."""
    return {a.id for s in signatures for a, t in zip(d.node.args.args, s.params)
            if isinstance(t, ListType)}


def compile_function(module, d, signature, signatures, local_types, errors) -> ir.Function:
    """One signature of one function through the passes, frontend to fusion."""
    lists = list_params(d, [signature])
    while True:
        fn = lower_function(module, d, set(signatures), lists)
        fn.name = signature.name
        for p, t in zip(fn.params, signature.params):
            p.type = t
        fn.return_type = signature.ret
        fn.locals = dict(local_types[fn.python_name])
        try:
            infer_function(fn, signatures, errors)
            break
        except CompileError as e:
            # a name the frontend did not know for a list (`last = m.pop()`, `for row in m`,
            # then `sum(row)`): lowered again knowing it
            found = getattr(e, "list_names", set()) - lists
            if not found:
                raise
            lists = lists | found
    # Where the interpreter raises UnboundLocalError or a Python float's ZeroDivisionError.
    apply_checks(fn, merged(unbound_locals_plan(fn, errors), python_division_plan(fn, errors)),
                 errors)
    lower_arrays(fn, errors)
    check_function(fn, errors)
    check_array_writes(fn, errors)
    lower_logic(fn)
    drop_sqrt_domain_checks(fn)
    return contract_temporaries(fuse_function(fn))
