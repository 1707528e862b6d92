"""Assemble the C++ of a whole extension module: bodies, dispatchers, pybind11 glue that checks
every argument, the embedded IR of @gpu nests, and the module's own source for the drop-in import.
"""
from __future__ import annotations

import json
import math

from unpy import ir
from unpy.cpp_emit.emit import (CTYPES, cname, ctype, emit_function, has_loops,
                                nest_free_variables, recursive_functions, special_float)
from unpy.cpp_emit.nest_contents import dead_after_nests, undefined_at_nests
from unpy.ir import Array
from unpy.loopopt import nest_transforms, optimise_for_cpu
from unpy.loopopt.cost import CpuModel
from unpy.typeinfer import overloads
from unpy.typeinfer.independent_loops import with_independent_levels
from unpy.typeinfer.overloads import Signature
from unpy.typeinfer.python_calls import NATIVE, native_draw
from unpy.typeinfer.reductions import outermost_pranges, walk_exprs, walk_stmts
from unpy.typeinfer.written import lists_bound_again, written_params


def polling_functions(functions) -> set:
    """The names of the functions whose calls may poll for Ctrl-C (emit.py, poll): those with
    loops or recursion, and those that call one. A call of any other is short: its glue skips
    unpy::InterruptScope (a system call)."""
    by_name = {f.name: f for f in functions}
    found = {f.name for f in functions if has_loops(f.body)} | recursive_functions(by_name)
    changed = True
    while changed:
        changed = False
        for f in functions:
            if f.name not in found and any(isinstance(e, ir.CallCompiled) and e.func in found
                                           for e in walk_exprs(f.body)):
                found.add(f.name)
                changed = True
    return found


def native_draws(functions) -> dict:
    """Function name -> np.random's functions that it, or a compiled function it calls, draws
    natively (typeinfer/python_calls.native_draw): its glue takes the generator's lock for them
    while it still holds the GIL (unpy_runtime.hpp's GilRelease), not at the first draw."""
    found = {f.name: {native_draw(e)[0] for e in walk_exprs(f.body)
                      if isinstance(e, ir.PythonCall) and native_draw(e) is not None}
             for f in functions}
    changed = True
    while changed:
        changed = False
        for f in functions:
            for e in walk_exprs(f.body):
                if isinstance(e, ir.CallCompiled) and not found.get(e.func, set()) <= found[f.name]:
                    found[f.name] |= found[e.func]
                    changed = True
    return found


def gpu_nests(fn: ir.Function, fastmath: bool = False, functions: dict = None):
    nests = []
    undefined, dead = undefined_at_nests(fn), dead_after_nests(fn)
    for s in walk_stmts(fn.body):
        if isinstance(s, ir.For) and s.nest_id is not None:
            free = [ir.Param(n, fn.variable_type(n)) for n in nest_free_variables(s, fn)]
            nests.append(ir.Nest(fn.name, s.nest_id, with_independent_levels(s), free, fastmath,
                                 kernel_helpers(s, functions or {}), undefined[s.nest_id],
                                 dead[s.nest_id]))
    return nests


def kernel_helpers(node, functions: dict) -> list:
    """The compiled functions `node` calls, directly or not, when a GPU kernel can call them
    all (scalar parameters and result, no arrays, no recursion, no call through Python: a
    draw of np.random or random is the host's generator), callees first; else [] (jitgpu then
    keeps the nest on OpenMP, saying which call)."""
    order, visiting = [], set()

    def visit(name):
        if any(f.name == name for f in order):
            return True
        fn = functions.get(name)
        if fn is None or name in visiting or not _scalar_only(fn) or any(
                isinstance(e, ir.PythonCall) for e in walk_exprs(fn.body)):
            return False
        visiting.add(name)
        ok = all(visit(e.func) for e in walk_exprs(fn.body) if isinstance(e, ir.CallCompiled))
        visiting.discard(name)
        if ok:
            order.append(fn)
        return ok

    called = {e.func for e in walk_exprs(node) if isinstance(e, ir.CallCompiled)}
    return order if all(visit(name) for name in sorted(called)) else []


def _scalar_only(fn: ir.Function) -> bool:
    types = [p.type for p in fn.params] + [fn.return_type] + list(fn.locals.values())
    return all(isinstance(t, ir.Scalar) for t in types) and not any(
        isinstance(e.type, (Array, ir.TupleType)) for e in walk_exprs(fn.body)
        if hasattr(e, "type"))


def raw_string(text: str) -> str:
    delimiter = "unpy"
    while f"){delimiter}\"" in text:
        delimiter += "_"
    return f'R"{delimiter}({text}){delimiter}"'


def glue(fn: ir.Function, written: set, polls: bool = True, draws=()) -> list:
    """The Python-facing wrapper of one signature, given the call's arguments bound to its
    parameters (`unpy_in`, see entry): check and convert them, release the GIL (armed for
    Ctrl-C), convert back; a C++ exception becomes its Python one (unpy::python_error)."""
    lines = [f"static PyObject* py_{fn.name}(PyObject* const* unpy_in) {{", "    try {"]
    args = []
    for k, p in enumerate(fn.params):
        local = f"unpy_arg_{p.name}"
        args.append(local)
        given = f"unpy_in[{k}]"
        if isinstance(p.type, Array):
            flag = "true" if p.name in written else "false"
            lines.append(f'        auto {local} = unpy::array_arg<{CTYPES[p.type.dtype]}, '
                         f'{p.type.ndim}>({given}, "{fn.python_name}", "{p.name}", '
                         f'"{p.type}", {flag});')
        elif isinstance(p.type, ir.DtypeType):
            lines.append(f'        auto {local} = unpy::dtype_arg({given}, "{fn.python_name}", '
                         f'"{p.name}", "{p.type.dtype}");')
        elif isinstance(p.type, ir.ListType):
            lines += list_glue(fn, k, written)
        elif is_weak(p.type):
            lines.append(f'        auto {local} = unpy::python_scalar_arg<{CTYPES[p.type.dtype]}>('
                         f'{given}, "{fn.python_name}", "{p.name}", '
                         f'"a Python {PYTHON_NAMES[p.type.dtype]}");')
        else:
            lines.append(f'        auto {local} = unpy::scalar_arg<{CTYPES[p.type.dtype]}>('
                         f'{given}, "{fn.python_name}", "{p.name}", "{p.type.dtype}");')
    call = f"unpy_module::{cname(fn.name)}({', '.join(args)})"
    if fn.return_type is not None:
        lines.append(f"        {ctype(fn.return_type)} unpy_result;")
        call = f"unpy_result = {call}"
    # Ctrl-C stops the call (unpy::InterruptScope): Interrupted comes out of it, caught here
    # with the GIL back and the scope still armed, and becomes Python's KeyboardInterrupt.
    # np.random's functions the call draws natively: the generator's lock taken with the GIL
    release = "unpy::GilRelease unpy_release" + (
        "(" + " | ".join(f"unpy::np_bit(unpy::NpDraw::{name})" for name in NATIVE
                         if name in draws) + ")" if draws else "") + ";"
    if polls:
        lines += ["        {", "            unpy::InterruptScope unpy_interrupt;",
                  "            try {", f"                {release}",
                  f"                {call};",
                  "            } catch (const unpy::Interrupted&) {",
                  "                return unpy::keyboard_interrupt();", "            }",
                  "        }"]
    else:
        lines += ["        {", f"            {release}",
                  f"            {call};", "        }"]
    if fn.returns_none:
        lines.append("        if (unpy::returned_none) Py_RETURN_NONE;")
    lines.append(result_glue(fn) if fn.return_type is not None else "        Py_RETURN_NONE;")
    return lines + ["    } catch (...) {", "        return unpy::python_error();", "    }", "}"]


def result_glue(fn: ir.Function) -> str:
    """The glue's return of `unpy_result`: a list parameter that every `return` gives back
    (`return a`, or as one item of a returned tuple) is the caller's list itself, as the
    interpreter's (changed by ListBack when the glue's scope ends)."""
    positions = {p.name: k for k, p in enumerate(fn.params) if isinstance(p.type, ir.ListType)
                 and p.name not in lists_bound_again(fn)}
    kept = None
    for s in walk_stmts(fn.body):
        if isinstance(s, ir.Return) and s.value is not None:
            items = s.value.items if isinstance(s.value, ir.TupleValue) else [s.value]
            these = [positions.get(x.id) if isinstance(x, ir.Name) else None for x in items]
            kept = these if kept is None else [a if a == b else None for a, b in zip(kept, these)]
    if not kept or all(k is None for k in kept):
        return "        return unpy::result(unpy_result);"
    if not isinstance(fn.return_type, ir.TupleType):
        return f"        return Py_NewRef(unpy_in[{kept[0]}]);"
    items = ", ".join(f"Py_NewRef(unpy_in[{k}])" if k is not None else
                      f"unpy::result(std::get<{j}>(unpy_result))" for j, k in enumerate(kept))
    return (f"        {{ PyObject* unpy_items[] = {{{items}}}; "
            f"return unpy::make_tuple(unpy_items, {len(kept)}); }}")


def list_glue(fn: ir.Function, k: int, written: set) -> list:
    """The glue of list parameter k: the Python list converted, and given the changes back
    (unpy::ListBack) where the function changes it. One Python list given for several list
    parameters is one list there too (the first's), as in the interpreter: its changes through
    any of them given back once, by the first; given for parameters of other types, a
    ValueError."""
    p = fn.params[k]
    item, local, given = ctype(p.type.item), f"unpy_arg_{p.name}", f"unpy_in[{k}]"
    lists = [(j, q) for j, q in enumerate(fn.params) if isinstance(q.type, ir.ListType)]
    alike = [(j, q) for j, q in lists if j != k and q.type == p.type]
    changed = p.name in written or any(q.name in written for _, q in alike)
    lines = [f'        if ({given} == unpy_in[{j}]) unpy::one_list_twice("{fn.python_name}", '
             f'"{q.name}", "{p.name}");' for j, q in lists if j < k and q.type != p.type]
    earlier = [(j, q) for j, q in alike if j < k]
    convert = (f'unpy::list_arg<{item}>({given}, "{fn.python_name}", "{p.name}", "{p.type}", '
               f'"{p.type.leaf.dtype}", {"true" if changed else "false"})')
    if not earlier:
        lines.append(f"        auto {local} = {convert};")
        active = "true"
    else:
        shared = " : ".join(f"{given} == unpy_in[{j}] ? &unpy_arg_{q.name}"
                            for j, q in earlier) + " : nullptr"
        lines += [f"        unpy::List<{item}>* unpy_shared_{p.name} = {shared};",
                  f"        auto unpy_own_{p.name} = unpy_shared_{p.name} ? "
                  f"unpy::List<{item}>() : {convert};",
                  f"        auto& {local} = unpy_shared_{p.name} ? *unpy_shared_{p.name} : "
                  f"unpy_own_{p.name};"]
        active = f"!unpy_shared_{p.name}"
    if changed:         # the caller's list gets the changes, also on an error
        lines.append(f"        unpy::ListBack<{item}> unpy_back_{p.name}({given}, {local}, "
                     f"{active});")
    return lines


def entry(python_name: str, params: list, target: str) -> list:
    """The function Python calls (a vectorcall): its arguments bound to the parameters as
    Python binds them (positional, keywords, defaults from `unpy_defaults_<name>`), then
    `target` (one signature's glue, or the chooser of several)."""
    n = len(params)
    names = ", ".join(f'"{p.name}"' for p in params) or "nullptr"
    return [f"static PyObject* unpy_defaults_{python_name}[{max(n, 1)}];",
            f"static PyObject* unpy_entry_{python_name}(PyObject*, PyObject* const* unpy_args, "
            "Py_ssize_t unpy_nargs, PyObject* unpy_kwnames) {",
            f"    static const char* const unpy_names[] = {{{names}}};",
            f"    PyObject* unpy_in[{max(n, 1)}];",
            f'    if (!unpy::bind_arguments("{python_name}", {n}, unpy_names, '
            f"unpy_defaults_{python_name}, unpy_args, unpy_nargs, unpy_kwnames, unpy_in))",
            "        return nullptr;",
            f"    return {target}(unpy_in);", "}"]


def signature_dispatcher(signatures: list, slot: int) -> list:
    """The chooser of a function with several signatures (one ir.Function each, in source
    order): the first signature that takes the arguments' own dtypes, else the first that takes
    them converted within their kinds (a Python float for a float32), else the first that takes
    them converted as a single signature's glue does (a Python int for a float64);
    unpy/typeinfer/overloads.py chooses alike for calls inside the module. Arrays are never
    converted, so a float32 array never goes to a float64 signature. When none takes them, a
    TypeError names the parameter where the signatures that took the most arguments stop, what
    they expect there, what came, and every signature. A signature's weak variant
    (typeinfer/weak_params.py, just before it) is taken instead where its weak parameters
    receive Python scalars. The signature taken is noted in `unpy_called_last[slot]` (for
    unpython.explain)."""
    first = signatures[0]
    n = len(first.params)
    variants = weak_variants(signatures)
    declared = [f for f in signatures if f not in variants.values()]

    def call(f, indent):
        lines = []
        v = variants.get(f.name)
        if v:
            python = " && ".join(f"unpy::python_scalar<{CTYPES[p.type.dtype]}>(unpy_in[{k}])"
                                 for k, p in enumerate(v.params) if is_weak(p.type))
            lines += [f"{indent}if ({python}) {{",
                      f'{indent}    unpy_called_last[{slot}] = "{v.name}";',
                      f"{indent}    return py_{v.name}(unpy_in);", f"{indent}}}"]
        return lines + [f'{indent}unpy_called_last[{slot}] = "{f.name}";',
                        f"{indent}return py_{f.name}(unpy_in);"]

    lines = [f"static PyObject* py_choose_{first.python_name}(PyObject* const* unpy_in) {{"]
    if len(declared) == 1:      # its own glue converts the arguments or names what is wrong
        return lines + call(declared[0], "    ") + ["}"]
    fits = []
    for f in declared:
        # How many leading arguments this signature takes with conversions up to unpy_rank
        # (unpy::scalar_rank).
        fits.append(f"static int unpy_fit_{f.name}(PyObject* const* unpy_in, int unpy_rank) {{")
        for k, p in enumerate(f.params):
            t = CTYPES.get(p.type.dtype)     # (none for a list)
            given = f"unpy_in[{k}]"
            takes = (f"unpy::array_takes<{t}, {p.type.ndim}>({given})"
                     if isinstance(p.type, Array) else
                     f"unpy::list_rank<{ctype(p.type.item)}>({given}) <= unpy_rank"
                     if isinstance(p.type, ir.ListType) else
                     f'unpy::dtype_takes({given}, "{p.type.dtype}")'
                     if isinstance(p.type, ir.DtypeType) else
                     f"unpy::scalar_rank<{t}>({given}) <= unpy_rank")
            fits.append(f"    if (!({takes})) return {k};")
        fits += [f"    return {n};", "}", ""]
    lines = fits + lines + ["    try {", "        for (int unpy_rank = 0; unpy_rank <= 2; ++unpy_rank) {"]
    for f in declared:
        lines += [f"            if (unpy_fit_{f.name}(unpy_in, unpy_rank) == {n}) {{"]
        lines += call(f, "                ") + ["            }"]
    names = ", ".join(f'"{p.name}"' for p in first.params)
    handles = ", ".join(f"unpy_in[{k}]" for k in range(n))
    types = ", ".join("{" + ", ".join(f'"{p.type}"' for p in f.params) + "}" for f in declared)
    fitted = ", ".join(f"unpy_fit_{f.name}(unpy_in, 2)" for f in declared)
    lines += ["        }", f'        unpy::no_signature("{first.python_name}", {{{names}}}, '
              f'{{{handles}}}, {{{types}}}, {{{fitted}}});',
              "    } catch (...) {", "        return unpy::python_error();", "    }", "}"]
    return lines


PYTHON_NAMES = {"bool": "bool", "int64": "int", "float64": "float", "complex128": "complex"}


def is_weak(t) -> bool:
    return isinstance(t, ir.Scalar) and t.weak


def weak_variants(functions: list) -> dict:
    """A declared signature's name -> the ir.Function of its weak variant
    (typeinfer/overloads.py)."""
    by_name = {f.name: f for f in functions}
    found = overloads.weak_variants(
        [Signature(f.name, tuple(p.type for p in f.params), f.return_type) for f in functions])
    return {name: by_name[v.name] for name, v in found.items()}


def by_python_name(functions) -> dict:
    """Python name -> its ir.Functions (one per signature), in source order."""
    found = {}
    for f in functions:
        found.setdefault(f.python_name, []).append(f)
    return found


def python_default(p: ir.Param, several: bool) -> str:
    """C++ making the Python value a call without argument `p` gets: the default converted to
    the parameter's type, or, for a function with several signatures, as written (an int stays
    an int, and then chooses the signature as a given value would)."""
    value = p.default
    if isinstance(p.type, ir.DtypeType):
        return f'PyUnicode_FromString("{value}")'     # np.dtype reads the name as the dtype
    kind = type(value).__name__ if several else {"b": "bool", "i": "int", "u": "int", "f": "float",
                                                "c": "complex"}[p.type.dtype[0]]
    if kind == "bool":
        return f"PyBool_FromLong({int(bool(value))})"
    if kind == "int":
        value = int(value)
        return (f"PyLong_FromLongLong({value}LL)" if -2**63 < value < 2**63 else
                f"PyLong_FromUnsignedLongLong({value}ULL)" if 0 <= value < 2**64 else
                f'PyLong_FromString("{value}", nullptr, 10)')
    if kind == "complex":
        value = complex(value)
        return f"PyComplex_FromDoubles({c_double(value.real)}, {c_double(value.imag)})"
    return f"PyFloat_FromDouble({c_double(float(value))})"


def c_double(value: float) -> str:
    return repr(value) if math.isfinite(value) else special_float(value, "float64")


def emit_module(module: ir.Module, source: str, checks: str = "unproved",
                fastmath: bool = False, model: CpuModel | None = None) -> str:
    """The C++ of `module` as one file (what `unpy show` and --emit-cpp give); `checks`: which
    indices are checked (unpy.loopopt.CHECKS); `model`: the loop optimisations' (by default
    the building machine's)."""
    return _one_unit(module, source, fastmath, _emit_functions(module, checks, fastmath, model),
                     checks, model)


def _one_unit(module: ir.Module, source: str, fastmath: bool, emitted: list, checks: str,
              model: CpuModel | None) -> str:
    out = _preamble(module, glue=True) + [f"static {signature};" for signature, _, _ in emitted]
    out.append("")
    for _, body, dispatcher in emitted:
        out += body + [""] + dispatcher + [""]
    out.append("}  // namespace unpy_module")
    out.append("")
    return "\n".join(out + _glue_and_init(module, source, fastmath, checks, model)) + "\n"


# Generated lines of compiled functions worth a unit of their own. A unit costs g++ about 0.7 s
# of the 2-core machine for what each holds (the runtime's header), and 440 lines of mmult's
# compiled function 1.7 s more: examples/mmult.py's two functions build in 2.9 s as two units,
# in 3.6 s as one (bench/results/build-time-2core.md).
UNIT_LINES = 400


def kernel_unit_count(lines: int, jobs: int) -> int:
    """How many units hold `lines` generated lines of compiled functions when `jobs` g++ run
    at once: one per UNIT_LINES, at most one per job; 0 (the whole module in emit_module's one
    unit) where that is under 2."""
    count = min(jobs, lines // UNIT_LINES)
    return count if count >= 2 else 0


def emit_units(module: ir.Module, source: str, checks: str = "unproved",
               fastmath: bool = False, jobs: int = 1, units: int | None = None,
               model: CpuModel | None = None) -> list:
    """The C++ of `module` as translation units that g++ compiles in parallel, then links into
    one extension module (unpy/cpp_emit/build.py): emit_module's one unit when `units` (by
    default kernel_unit_count's) is under 2; else units holding the compiled functions (fewer
    when the module has fewer call groups), each with all the functions it calls (so that calls
    inline as in one file), the first (the smallest) also the glue (argument checks, the
    module's init). A function stays `static` (and `inline`, where it is) in its unit, so that
    its callers there may inline it (an external one g++ did not: index_checks.searches'
    helper, called per element); the glue reaches the functions of the other units through an
    external entry of the same name in namespace unpy_exported (hidden: -fvisibility=hidden)
    that calls it. Every other line is emit_module's."""
    emitted = dict(zip((f.name for f in module.functions), _emit_functions(module, checks,
                                                                           fastmath, model)))
    if units is None:
        lines = sum(len(body) + len(dispatcher) for _, body, dispatcher in emitted.values())
        units = kernel_unit_count(lines, jobs)
    if units < 2:
        return [_one_unit(module, source, fastmath, list(emitted.values()), checks, model)]
    params = {f.name: ", ".join(cname(p.name) for p in f.params) for f in module.functions}
    texts = []
    groups = kernel_groups(module.functions, units, emitted)
    for k, names in enumerate(groups):
        out = _preamble(module, glue=k == 0)
        if k == 0:
            elsewhere = [n for n in emitted if n not in names]
            out += ["}  // namespace unpy_module", "", "namespace unpy_exported {",
                    "using unpy::Array;"]
            out += [f"{emitted[name][0]};" for name in elsewhere]
            out += ["}  // namespace unpy_exported", "", "namespace unpy_module {",
                    "using unpy::Array;"]
            out += [f"using unpy_exported::{cname(name)};" for name in elsewhere] + [""]
        out += [f"static {emitted[name][0]};" for name in names] + [""]
        for name in names:
            _, body, dispatcher = emitted[name]
            out += body + [""] + dispatcher + [""]
        out += ["}  // namespace unpy_module", ""]
        if k == 0:
            out += _glue_and_init(module, source, fastmath, checks, model)
        else:
            out += ["// The glue's way in (its unit declares them)", "namespace unpy_exported {",
                    "using unpy::Array;"]
            out += [f"{emitted[name][0]} {{ return unpy_module::{cname(name)}({params[name]}); }}"
                    for name in names]
            out += ["}  // namespace unpy_exported", ""]
        texts.append("\n".join(out) + "\n")
    return texts


def kernel_groups(functions, count: int, emitted: dict) -> list:
    """The names of `functions` in at most `count` groups, each closed under calls and about
    equal in generated lines (the largest call group first into the smallest group), in source
    order within a group, the smallest group first; empty groups dropped."""
    parent = {f.name: f.name for f in functions}

    def root(name):
        while parent[name] != name:
            name = parent[name]
        return name
    for f in functions:
        for e in walk_exprs(f.body):
            if isinstance(e, ir.CallCompiled) and e.func in parent:
                parent[root(e.func)] = root(f.name)
    components = {}
    for f in functions:
        components.setdefault(root(f.name), []).append(f.name)

    def lines(names):
        return sum(len(emitted[n][1]) + len(emitted[n][2]) for n in names)
    groups = [[] for _ in range(max(1, count))]
    for names in sorted(components.values(), key=lines, reverse=True):
        min(groups, key=lines).extend(names)
    order = {f.name: i for i, f in enumerate(functions)}
    return sorted((sorted(g, key=order.get) for g in groups if g), key=lines)


def _emit_functions(module: ir.Module, checks: str, fastmath: bool,
                    model: CpuModel | None = None) -> list:
    signatures = {f.name: f for f in module.functions}
    model = model or CpuModel.for_machine()
    return [emit_function(f, module.name, checks, signatures, fastmath, model)
            for f in module.functions]


def _preamble(module: ir.Module, glue: bool = False) -> list:
    """The head of a unit: the glue's unit includes Python's C API (unpy_glue.hpp), a unit of
    compiled functions only the runtime."""
    header = "unpy_glue.hpp" if glue else "unpy_runtime.hpp"
    return [f"// Generated by unpy from {module.path}. Do not edit.", f'#include "{header}"',
            f"#define UNPY_MODULE_NAME \"{module.name}\"", "",
            "namespace unpy_module {", "using unpy::Array;", ""]


def _glue_and_init(module: ir.Module, source: str, fastmath: bool, checks: str,
                   model: CpuModel | None) -> list:
    """The lines after the compiled functions: the glue of each signature, the choosers of
    functions with several, the functions Python calls, and the module's init (which also
    keeps the C++ path's loop optimisations of each nest, `__unpy_loopopt__`: JSON of
    {function: [transforms of each nest]}, for unpython.explain)."""
    written = written_params(module.functions)
    out = []
    polling = polling_functions(module.functions)
    draws = native_draws(module.functions)
    for f in module.functions:
        out += glue(f, written[f.name], f.name in polling, draws[f.name]) + [""]
    visible = by_python_name(module.functions)
    several = [overloads for overloads in visible.values() if len(overloads) > 1]
    if several:
        # Of each function with several signatures, the one Python called last.
        out += ["static const char* unpy_called_last[] = {" +
                ", ".join(f'"{overloads[0].name}"' for overloads in several) + "};", ""]
    for slot, overloads in enumerate(several):
        out += signature_dispatcher(overloads, slot) + [""]
    methods, defaults = [], []
    for name, overloads in visible.items():
        target = f"py_{overloads[0].name}" if len(overloads) == 1 else f"py_choose_{name}"
        out += entry(name, overloads[0].params, target) + [""]
        defaults += [f"        unpy_defaults_{name}[{k}] = "
                     f"{python_default(p, len(overloads) > 1)};"
                     for k, p in enumerate(overloads[0].params) if p.default is not None]
        variants = weak_variants(overloads).values()
        doc = "; ".join(f"{name}({', '.join(f'{p.name}: {p.type}' for p in f.params)}) -> "
                        f"{f.return_type}" for f in overloads
                        if f not in variants) + ": compiled by unpy"
        methods.append(f'    {{"{name}", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>('
                       f'unpy_entry_{name})), METH_FASTCALL | METH_KEYWORDS, "{doc}"}},')
    out += ["static PyMethodDef unpy_methods[] = {"] + methods + [
        "    {nullptr, nullptr, 0, nullptr}};", "",
        f'static PyModuleDef unpy_module_def = {{PyModuleDef_HEAD_INIT, "{module.name}", '
        "nullptr, -1, unpy_methods};", "",
        "static void unpy_locate() {}", "",
        f"PyMODINIT_FUNC PyInit_{module.name}() {{",
        "    PyObject* m = PyModule_Create(&unpy_module_def);",
        "    if (!m) return nullptr;", "    try {"]
    out += defaults
    for f in module.functions:
        # Keyed by the ir.Function's name, which the GPU hook gives (jitgpu/report.py finds
        # a function's signatures by their Python name).
        fn_nests = gpu_nests(f, fastmath, {g.name: g for g in module.functions})
        signature = f"({', '.join(str(p.type) for p in f.params)}) -> {f.return_type}"
        out.append(f'        unpy::add_function_record(m, "{f.name}", {str(f.gpu).lower()}, '
                   f'{len(list(outermost_pranges(f.body)))}, "{f.python_name}", "{signature}");')
        if fn_nests:
            out.append(f"        static const char* const unpy_nests_{f.name}[] = {{" + ", ".join(
                raw_string(ir.to_json(n)) for n in fn_nests) + "};")
            out.append(f'        unpy::add_nest_records(m, "{f.name}", unpy_nests_{f.name}, '
                       f"{len(fn_nests)});")
    model = model or CpuModel.for_machine()
    functions = {f.name: f for f in module.functions}
    transforms = {f.name: nest_transforms(optimise_for_cpu(f, checks, fastmath, model, functions))
                  for f in module.functions}
    out.append(f'        if (PyModule_AddStringConstant(m, "__unpy_loopopt__", '
               f'{raw_string(json.dumps(transforms))}) < 0) throw unpy::PythonErrorSet();')
    if several:
        names = ", ".join(f'"{overloads[0].python_name}"' for overloads in several)
        out += [f"        static const char* const unpy_several[] = {{{names}}};",
                f"        unpy::def_called_last(m, unpy_several, unpy_called_last, "
                f"{len(several)});"]
    names = ", ".join(f'"{name}"' for name in visible)
    out += ["        Dl_info unpy_info;",
            "        dladdr(reinterpret_cast<void*>(&unpy_locate), &unpy_info);",
            f"        static const char* const unpy_compiled[] = {{{names}}};",
            f"        unpy::finish_module(m, unpy_info.dli_fname, {raw_string(source)}, "
            f"{raw_string(module.path)}, unpy_compiled, {len(visible)});",
            "    } catch (...) {", "        Py_DECREF(m);", "        return unpy::python_error();",
            "    }", "    return m;", "}"]
    return out
