"""Assemble the C++ of a whole extension module: bodies, dispatchers, pybind11 glue that checks
every argument, the embedded IR of @gpu nests, and the module's own source for the drop-in import.
"""
from __future__ import annotations

from unpy import ir
from unpy.cpp_emit.emit import (CTYPES, cname, ctype, default_literal, emit_function,
                                has_loops, nest_free_variables, recursive_functions)
from unpy.cpp_emit.nest_contents import dead_after_nests, undefined_at_nests
from unpy.ir import Array
from unpy.typeinfer import overloads
from unpy.typeinfer.overloads import Signature
from unpy.typeinfer.reductions import outermost_pranges, walk_exprs, walk_stmts
from unpy.typeinfer.types import literal_type


def written_params(functions) -> dict:
    """Function name -> names of array parameters it may write: directly, through a local
    variable that may be the same array (`b = a`, `b = a if c else d`, `b = f(a)`), or through
    calls."""
    by_name = {f.name: f for f in functions}
    written = {f.name: set() for f in functions}
    changed = True
    while changed:
        changed = False
        for f in functions:
            params = {p.name for p in f.params if isinstance(p.type, Array)}
            aliases = array_aliases(f)
            found = set()
            for s in walk_stmts(f.body):
                if isinstance(s, ir.Assign) and isinstance(s.target, ir.Subscript):
                    found |= aliases.get(s.target.array.id, {s.target.array.id})
            for e in walk_exprs(f.body):
                if isinstance(e, ir.CallCompiled):
                    callee = by_name[e.func]
                    for arg, p in zip(e.args, callee.params):
                        if p.name in written[callee.name]:
                            for name in _may_be(arg):
                                found |= aliases.get(name, {name})
            found &= params
            if not found <= written[f.name]:
                written[f.name] |= found
                changed = True
    return written


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


def array_aliases(fn: ir.Function) -> dict:
    """Array variable -> the variables (itself included) whose array it may be."""
    aliases = {}
    for s in walk_stmts(fn.body):
        if isinstance(s, ir.Assign) and isinstance(s.target, ir.Name) and \
                isinstance(s.value.type, Array):
            aliases.setdefault(s.target.id, {s.target.id}).update(_may_be(s.value))
    changed = True
    while changed:
        changed = False
        for name, others in aliases.items():
            closure = set().union(*(aliases.get(o, {o}) for o in others))
            if not closure <= others:
                others |= closure
                changed = True
    return aliases


def _may_be(e) -> set:
    """The array variables an array-valued expression may be (not a copy of)."""
    if isinstance(e, ir.Name):
        return {e.id}
    if isinstance(e, ir.IfExp):
        return _may_be(e.body) | _may_be(e.orelse)
    if isinstance(e, ir.CallCompiled):    # may return one of its array arguments
        return set().union(*(_may_be(a) for a in e.args if isinstance(a.type, Array)))
    return set()


def gpu_nests(fn: ir.Function, fastmath: bool = False, functions: dict = None):
    nests = []
    undefined, dead = undefined_at_nests(fn), dead_after_nests(fn)
    for s in walk_stmts(fn.body):
        if isinstance(s, ir.For) and s.nest_id is not None:
            free = [ir.Param(n, fn.variable_type(n)) for n in nest_free_variables(s, fn)]
            nests.append(ir.Nest(fn.name, s.nest_id, s, free, fastmath,
                                 kernel_helpers(s, functions or {}), undefined[s.nest_id],
                                 dead[s.nest_id]))
    return nests


def kernel_helpers(node, functions: dict) -> list:
    """The compiled functions `node` calls, directly or not, when a GPU kernel can call them
    all (scalar parameters and result, no arrays, no recursion), callees first; else []
    (jitgpu then keeps the nest on OpenMP, saying which call)."""
    order, visiting = [], set()

    def visit(name):
        if any(f.name == name for f in order):
            return True
        fn = functions.get(name)
        if fn is None or name in visiting or not _scalar_only(fn):
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


def glue(fn: ir.Function, written: set, polls: bool = True) -> list:
    """The Python-facing wrapper: check and convert arguments, release the GIL (armed for
    Ctrl-C), convert back."""
    params = ", ".join(f"py::handle {cname(p.name)}" for p in fn.params)
    lines = [f"static py::object py_{fn.name}({params}) {{"]
    args = []
    for p in fn.params:
        local = f"unpy_arg_{p.name}"
        args.append(local)
        if isinstance(p.type, Array):
            flag = "true" if p.name in written else "false"
            lines.append(f'    auto {local} = unpy::array_arg<{CTYPES[p.type.dtype]}, '
                         f'{p.type.ndim}>({cname(p.name)}, "{fn.python_name}", "{p.name}", '
                         f'"{p.type}", {flag});')
        elif isinstance(p.type, ir.DtypeType):
            lines.append(f'    auto {local} = unpy::dtype_arg({cname(p.name)}, "{fn.python_name}", '
                         f'"{p.name}", "{p.type.dtype}");')
        elif is_weak(p.type):
            lines.append(f'    auto {local} = unpy::python_scalar_arg<{CTYPES[p.type.dtype]}>('
                         f'{cname(p.name)}, "{fn.python_name}", "{p.name}", '
                         f'"a Python {PYTHON_NAMES[p.type.dtype]}");')
        else:
            lines.append(f'    auto {local} = unpy::scalar_arg<{CTYPES[p.type.dtype]}>('
                         f'{cname(p.name)}, "{fn.python_name}", "{p.name}", "{p.type.dtype}");')
    call = f"unpy_module::{cname(fn.name)}({', '.join(args)})"
    # Ctrl-C stops the call (unpy::InterruptScope): Interrupted comes out of it, caught here
    # with the GIL back, and becomes Python's KeyboardInterrupt.
    interruptible = ["    unpy::InterruptScope unpy_interrupt;", "    try {",
                     "        py::gil_scoped_release unpy_release;"]
    caught = ["    } catch (const unpy::Interrupted&) {",
              "        unpy_interrupt.keyboard_interrupt();", "    }"]
    if not polls:
        interruptible, caught = ["    {", "        py::gil_scoped_release unpy_release;"], ["    }"]
    if fn.return_type is None:
        lines += interruptible + [f"        {call};"] + caught + ["    return py::none();", "}"]
        return lines
    convert = "to_python" if isinstance(fn.return_type, Array) else \
        "tuple_result" if isinstance(fn.return_type, ir.TupleType) else "scalar_result"
    lines += ([f"    {ctype(fn.return_type)} unpy_result;"] + interruptible
              + [f"        unpy_result = {call};"] + caught
              + [f"    return unpy::{convert}(unpy_result);", "}"])
    return lines


def signature_dispatcher(signatures: list, slot: int) -> list:
    """The Python-facing function of a function with several signatures (one ir.Function
    each, in source order): the first signature that takes the arguments' own dtypes, else the
    first that takes them converted within their kinds (a Python float for a float32), else
    the first that takes them converted as a single signature's glue does (a Python int for a
    float64); unpy/typeinfer/overloads.py chooses alike for calls inside the module. Arrays are
    never converted, so a float32 array never goes to a float64 signature. When none takes
    them, a TypeError names the parameter where the signatures that took the most arguments
    stop, what they expect there, what came, and every signature. A signature's weak variant
    (typeinfer/weak_params.py, just before it) is taken instead where its weak parameters
    receive Python scalars. The signature taken is noted in `unpy_called_last[slot]` (for
    unpython.explain)."""
    first = signatures[0]
    n = len(first.params)
    params = ", ".join(f"py::handle {cname(p.name)}" for p in first.params)
    handles = ", ".join(cname(p.name) for p in first.params)
    variants = weak_variants(signatures)
    declared = [f for f in signatures if f not in variants.values()]

    def call(f, indent):
        lines = []
        v = variants.get(f.name)
        if v:
            python = " && ".join(f"unpy::python_scalar<{CTYPES[p.type.dtype]}>({cname(p.name)})"
                                 for p in v.params if is_weak(p.type))
            lines += [f"{indent}if ({python}) {{",
                      f'{indent}    unpy_called_last[{slot}] = "{v.name}";',
                      f"{indent}    return py_{v.name}({handles});", f"{indent}}}"]
        return lines + [f'{indent}unpy_called_last[{slot}] = "{f.name}";',
                        f"{indent}return py_{f.name}({handles});"]

    lines = [f"static py::object py_choose_{first.python_name}({params}) {{"]
    if len(declared) == 1:      # its own glue converts the arguments or names what is wrong
        return lines + call(declared[0], "    ") + ["}"]
    fits = []
    for f in declared:
        # How many leading arguments this signature takes with conversions up to unpy_rank
        # (unpy::scalar_rank).
        fits.append(f"static int unpy_fit_{f.name}({params}, int unpy_rank) {{")
        for k, p in enumerate(f.params):
            t = CTYPES[p.type.dtype]
            takes = (f"unpy::array_takes<{t}, {p.type.ndim}>({cname(p.name)})"
                     if isinstance(p.type, Array) else
                     f'unpy::dtype_takes({cname(p.name)}, "{p.type.dtype}")'
                     if isinstance(p.type, ir.DtypeType) else
                     f"unpy::scalar_rank<{t}>({cname(p.name)}) <= unpy_rank")
            fits.append(f"    if (!({takes})) return {k};")
        fits += [f"    return {n};", "}", ""]
    lines = fits + lines + ["    for (int unpy_rank = 0; unpy_rank <= 2; ++unpy_rank) {"]
    for f in declared:
        lines += [f"        if (unpy_fit_{f.name}({handles}, unpy_rank) == {n}) {{"]
        lines += call(f, "            ") + ["        }"]
    names = ", ".join(f'"{p.name}"' for p in first.params)
    types = ", ".join("{" + ", ".join(f'"{p.type}"' for p in f.params) + "}" for f in declared)
    fitted = ", ".join(f"unpy_fit_{f.name}({handles}, 2)" for f in declared)
    lines += ["    }", f'    unpy::no_signature("{first.python_name}", {{{names}}}, {{{handles}}}, '
              f'{{{types}}}, {{{fitted}}});', "}"]
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


def python_default(p: ir.Param) -> str:
    """The default of a parameter of a function with several signatures, as the Python value
    written (an int stays an int), which then chooses the signature as a given value would."""
    return default_literal(ir.Param(p.name, literal_type(p.default), p.default))


def emit_module(module: ir.Module, source: str, checks: str = "unproved",
                fastmath: bool = False) -> str:
    """The C++ of `module` as one file (what `unpy show` and --emit-cpp give); `checks`: which
    indices are checked (unpy.loopopt.CHECKS)."""
    return _one_unit(module, source, fastmath, _emit_functions(module, checks))


def _one_unit(module: ir.Module, source: str, fastmath: bool, emitted: list) -> str:
    out = _preamble(module) + [f"static {signature};" for signature, _, _ in emitted] + [""]
    for _, body, dispatcher in emitted:
        out += body + [""] + dispatcher + [""]
    out.append("}  // namespace unpy_module")
    out.append("")
    return "\n".join(out + _glue_and_init(module, source, fastmath)) + "\n"


# Generated lines of compiled functions worth a unit of their own. Every unit costs g++ about
# 5 s of the 2-core machine for what each holds (pybind11's and the runtime's code, which it
# compiles again in each), so a small module stays one unit: split in two it took 50 % more
# CPU time and saved under 1 s on an idle machine (examples/stencil.py, mmult.py,
# tests/kernels/loops.py; bench/results/build-time-2core.md).
UNIT_LINES = 3000


def kernel_unit_count(lines: int, jobs: int) -> int:
    """How many units beside the glue's hold `lines` generated lines of compiled functions when
    `jobs` g++ run at once: 0 (the whole module in one unit) for a module of under UNIT_LINES
    or a single job, else one per UNIT_LINES, at most one per job."""
    if jobs < 2 or lines < UNIT_LINES:
        return 0
    return min(jobs, -(-lines // UNIT_LINES))


def emit_units(module: ir.Module, source: str, checks: str = "unproved",
               fastmath: bool = False, jobs: int = 1, kernel_units: int | None = None) -> list:
    """The C++ of `module` as translation units that g++ compiles in parallel, then links into
    one extension module (unpy/cpp_emit/build.py): emit_module's one unit when `kernel_units`
    (by default kernel_unit_count's) is 0; else first the glue (argument checks, the module's
    init), then the units holding the compiled functions (fewer when the module has fewer call
    groups), each with all the functions it calls (so that calls inline as in one file). The
    functions the glue calls then lose `static` (they stay hidden: -fvisibility=hidden); every
    other line is emit_module's."""
    emitted = dict(zip((f.name for f in module.functions), _emit_functions(module, checks)))
    if kernel_units is None:
        lines = sum(len(body) + len(dispatcher) for _, body, dispatcher in emitted.values())
        kernel_units = kernel_unit_count(lines, jobs)
    if kernel_units == 0:
        return [_one_unit(module, source, fastmath, list(emitted.values()))]
    declarations = [f"{signature};" for signature, _, _ in emitted.values()]
    glue_unit = _preamble(module) + declarations + ["}  // namespace unpy_module", ""]
    units = [glue_unit + _glue_and_init(module, source, fastmath)]
    for names in kernel_groups(module.functions, kernel_units, emitted):
        out = _preamble(module) + [f"{emitted[name][0]};" for name in names] + [""]
        for name in names:
            _, body, dispatcher = emitted[name]
            assert dispatcher[0].startswith("static ")
            out += body + [""] + [dispatcher[0][len("static "):]] + dispatcher[1:] + [""]
        units.append(out + ["}  // namespace unpy_module", ""])
    return ["\n".join(unit) + "\n" for unit in units]


def kernel_groups(functions, count: int, emitted: dict) -> list:
    """The names of `functions` in at most `count` groups, each closed under calls and about
    equal in generated lines (the largest call group first into the smallest group), in source
    order within a group; empty groups dropped."""
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
    return [sorted(g, key=order.get) for g in groups if g]


def _emit_functions(module: ir.Module, checks: str) -> list:
    signatures = {f.name: f for f in module.functions}
    return [emit_function(f, module.name, checks, signatures) for f in module.functions]


def _preamble(module: ir.Module) -> list:
    return [f"// Generated by unpy from {module.path}. Do not edit.",
            '#include "unpy_runtime.hpp"',
            f"#define UNPY_MODULE_NAME \"{module.name}\"", "namespace py = pybind11;",
            "", "namespace unpy_module {", "namespace py = pybind11;", "using unpy::Array;", ""]


def _glue_and_init(module: ir.Module, source: str, fastmath: bool) -> list:
    """The lines after the compiled functions: the glue of each, the dispatchers of functions
    with several signatures, and the module's init."""
    written = written_params(module.functions)
    out = []
    polling = polling_functions(module.functions)
    for f in module.functions:
        out += glue(f, written[f.name], f.name in polling) + [""]
    visible = by_python_name(module.functions)
    several = [overloads for overloads in visible.values() if len(overloads) > 1]
    if several:
        # Of each function with several signatures, the one Python called last.
        out += ["static const char* unpy_called_last[] = {" +
                ", ".join(f'"{overloads[0].name}"' for overloads in several) + "};", ""]
    for slot, overloads in enumerate(several):
        out += signature_dispatcher(overloads, slot) + [""]
    out.append("static void unpy_locate() {}")
    out.append("")
    out.append(f"PYBIND11_MODULE({module.name}, m) {{")
    out.append("    unpy::register_errors();")
    for name, overloads in visible.items():
        default = default_literal if len(overloads) == 1 else python_default
        chooser = f"py_{name}" if len(overloads) == 1 else f"py_choose_{name}"
        arg_names = "".join(f', py::arg("{p.name}")' + (
            "" if p.default is None else f" = {default(p)}") for p in overloads[0].params)
        variants = weak_variants(overloads).values()
        doc = "; ".join(f"{name}({', '.join(f'{p.name}: {p.type}' for p in f.params)}) -> "
                        f"{f.return_type}" for f in overloads
                        if f not in variants) + ": compiled by unpy"
        out.append(f'    m.def("{name}", &{chooser}{arg_names}, "{doc}");')
    if several:
        out += ['    m.def("__unpy_called_last__", []() {', "        py::dict called;"]
        out += [f'        called["{overloads[0].python_name}"] = unpy_called_last[{slot}];'
                for slot, overloads in enumerate(several)]
        out += ["        return called;", '    }, "function -> the name of its signature '
                'called last (see jitgpu/report.py)");']
    out.append("    py::dict functions, nests;")
    for f in module.functions:
        # Keyed by the ir.Function's name, which the GPU hook gives (jitgpu/report.py finds
        # a function's signatures by their Python name).
        fn_nests = gpu_nests(f, fastmath, {g.name: g for g in module.functions})
        signature = f"({', '.join(str(p.type) for p in f.params)}) -> {f.return_type}"
        out.append(f'    functions["{f.name}"] = py::dict(py::arg("gpu") = {str(f.gpu).lower()}, '
                   f'py::arg("nests") = {len(list(outermost_pranges(f.body)))}, '
                   f'py::arg("name") = "{f.python_name}", '
                   f'py::arg("signature") = "{signature}");')
        if fn_nests:
            out.append(f'    nests["{f.name}"] = py::make_tuple(' + ", ".join(
                raw_string(ir.to_json(n)) for n in fn_nests) + ");")
    out.append('    m.attr("__unpy_functions__") = functions;')
    out.append('    m.attr("__unpy_nests__") = nests;')
    out.append("    Dl_info unpy_info;")
    out.append("    dladdr(reinterpret_cast<void*>(&unpy_locate), &unpy_info);")
    out.append("    unpy::def_thread_hooks(m, unpy_info.dli_fname);")
    names = ", ".join(f'"{name}"' for name in visible)
    out.append(f"    unpy::exec_source(m, {raw_string(source)}, {raw_string(module.path)}, "
               f"unpy_info.dli_fname, {{{names}}});")
    out.append("}")
    return out
