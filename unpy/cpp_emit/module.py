"""Assemble the C++ of a whole extension module: bodies, dispatchers, pybind11 glue that checks
every argument, the embedded IR of @gpu nests, and the module's own source for the drop-in import.
"""
from __future__ import annotations

from unpy import ir
from unpy.cpp_emit.emit import (CTYPES, cname, ctype, default_literal, emit_function,
                                nest_free_variables)
from unpy.ir import Array
from unpy.typeinfer.reductions import outermost_pranges, walk_exprs, walk_stmts


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


def gpu_nests(fn: ir.Function):
    nests = []
    for s in walk_stmts(fn.body):
        if isinstance(s, ir.For) and s.nest_id is not None:
            free = [ir.Param(n, fn.variable_type(n)) for n in nest_free_variables(s, fn)]
            nests.append(ir.Nest(fn.name, s.nest_id, s, free))
    return nests


def raw_string(text: str) -> str:
    delimiter = "unpy"
    while f"){delimiter}\"" in text:
        delimiter += "_"
    return f'R"{delimiter}({text}){delimiter}"'


def glue(fn: ir.Function, written: set) -> list:
    """The Python-facing wrapper: check and convert arguments, release the GIL, convert back."""
    params = ", ".join(f"py::handle {cname(p.name)}" for p in fn.params)
    lines = [f"static py::object py_{fn.name}({params}) {{"]
    args = []
    for p in fn.params:
        local = f"unpy_arg_{p.name}"
        args.append(local)
        if isinstance(p.type, Array):
            flag = "true" if p.name in written else "false"
            lines.append(f'    auto {local} = unpy::array_arg<{CTYPES[p.type.dtype]}, '
                         f'{p.type.ndim}>({cname(p.name)}, "{fn.name}", "{p.name}", '
                         f'"{p.type}", {flag});')
        else:
            lines.append(f'    auto {local} = unpy::scalar_arg<{CTYPES[p.type.dtype]}>('
                         f'{cname(p.name)}, "{fn.name}", "{p.name}", "{p.type.dtype}");')
    call = f"unpy_module::{cname(fn.name)}({', '.join(args)})"
    if fn.return_type is None:
        lines += ["    {", "        py::gil_scoped_release unpy_release;", f"        {call};",
                  "    }", "    return py::none();", "}"]
        return lines
    convert = "to_python" if isinstance(fn.return_type, Array) else \
        "tuple_result" if isinstance(fn.return_type, ir.TupleType) else "scalar_result"
    lines += [f"    {ctype(fn.return_type)} unpy_result;", "    {",
              "        py::gil_scoped_release unpy_release;",
              f"        unpy_result = {call};", "    }",
              f"    return unpy::{convert}(unpy_result);", "}"]
    return lines


def emit_module(module: ir.Module, source: str, boundscheck: bool = False) -> str:
    signatures = {f.name: f for f in module.functions}
    written = written_params(module.functions)
    out = [f"// Generated by unpy from {module.path}. Do not edit.",
           '#include "unpy_runtime.hpp"',
           f"#define UNPY_MODULE_NAME \"{module.name}\"", "namespace py = pybind11;",
           "", "namespace unpy_module {", "namespace py = pybind11;", "using unpy::Array;", ""]
    emitted = [emit_function(f, module.name, boundscheck, signatures) for f in module.functions]
    for signature, _, _ in emitted:
        out.append(f"static {signature};")
    out.append("")
    for _, body, dispatcher in emitted:
        out += body + [""] + dispatcher + [""]
    out.append("}  // namespace unpy_module")
    out.append("")
    for f in module.functions:
        out += glue(f, written[f.name]) + [""]
    out.append("static void unpy_locate() {}")
    out.append("")
    out.append(f"PYBIND11_MODULE({module.name}, m) {{")
    out.append("    unpy::register_errors();")
    for f in module.functions:
        arg_names = "".join(f', py::arg("{p.name}")' + (
            "" if p.default is None else f" = {default_literal(p)}") for p in f.params)
        doc = f"{f.name}({', '.join(f'{p.name}: {p.type}' for p in f.params)}) -> " \
              f"{f.return_type}: compiled by unpy"
        out.append(f'    m.def("{f.name}", &py_{f.name}{arg_names}, "{doc}");')
    out.append("    py::dict functions, nests;")
    for f in module.functions:
        fn_nests = gpu_nests(f)
        out.append(f'    functions["{f.name}"] = py::dict(py::arg("gpu") = {str(f.gpu).lower()}, '
                   f'py::arg("nests") = {len(list(outermost_pranges(f.body)))});')
        if fn_nests:
            out.append(f'    nests["{f.name}"] = py::make_tuple(' + ", ".join(
                raw_string(ir.to_json(n)) for n in fn_nests) + ");")
    out.append('    m.attr("__unpy_functions__") = functions;')
    out.append('    m.attr("__unpy_nests__") = nests;')
    out.append("    Dl_info unpy_info;")
    out.append("    dladdr(reinterpret_cast<void*>(&unpy_locate), &unpy_info);")
    names = ", ".join(f'"{f.name}"' for f in module.functions)
    out.append(f"    unpy::exec_source(m, {raw_string(source)}, {raw_string(module.path)}, "
               f"unpy_info.dli_fname, {{{names}}});")
    out.append("}")
    return "\n".join(out) + "\n"
