"""Find the compiled functions of a module: parse with gast, resolve the module's imports, read the
unpython decorators."""
from __future__ import annotations

from dataclasses import dataclass, field

import gast

from unpy import ir
from unpy.errors import ErrorSink
from unpy.frontend.constants import (NOT_A_NUMBER, NotConstant, NumericConstants,
                                     StringConstants)


@dataclass
class WrittenSignature:
    """One signature as written: parameter type strings, then the return type string or None."""
    types: list
    loc: tuple                  # the @unpython.type(...) call, or the item of its list


@dataclass
class Decorated:
    """A function marked for compilation, with its annotations as written (type strings)."""
    node: gast.FunctionDef
    # Of WrittenSignature, in source order: the order in which a call tries them.
    signatures: list = field(default_factory=list)
    locals: dict = field(default_factory=dict)
    gpu: bool = False
    defaults: list = field(default_factory=list)    # ir.Const of the last parameters' defaults


@dataclass
class ModuleSource:
    path: str
    source: str
    tree: gast.Module
    imports: dict               # local name -> qualified name ('np' -> 'numpy', 'sqrt' -> 'math.sqrt')
    functions: list             # of Decorated, in source order
    errors: ErrorSink
    numbers: NumericConstants   # the module's numeric constants


def loc_of(node):
    return (getattr(node, "lineno", 0), getattr(node, "col_offset", 0))


def collect_imports(tree: gast.Module) -> dict:
    """Names bound by the module's top-level imports, as qualified names."""
    names = {}
    for stmt in tree.body:
        if isinstance(stmt, gast.Import):
            for alias in stmt.names:
                if alias.asname:
                    names[alias.asname] = alias.name
                else:
                    top = alias.name.split(".")[0]
                    names[top] = top
        elif isinstance(stmt, gast.ImportFrom) and stmt.module and not stmt.level:
            for alias in stmt.names:
                names[alias.asname or alias.name] = f"{stmt.module}.{alias.name}"
    return names


def qualified_name(node, imports: dict):
    """'numpy.float32' for `np.float32` when `import numpy as np`; None if not a dotted name."""
    parts = []
    while isinstance(node, gast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, gast.Name):
        return None
    head = imports.get(node.id, node.id)
    return ".".join([head] + parts[::-1])


def _type_arg(node, constants: StringConstants, errors):
    """The type string of a decorator argument: a literal, None, or a module constant."""
    if isinstance(node, gast.Constant) and node.value is None:
        return None
    if isinstance(node, gast.Tuple):        # a return type ('float64', 'ndarray[float64, 1]')
        items = [_type_arg(x, constants, errors) for x in node.elts]
        if any(x is None for x in items):
            raise errors.error("the items of a tuple type cannot be None", loc_of(node))
        return "tuple[" + ", ".join(items) + "]"
    try:
        return constants.value(node)
    except NotConstant as refusal:
        raise errors.error(refusal.reason, loc_of(refusal.node))


def _signatures(call: gast.Call, constants: StringConstants, errors) -> list:
    """The signatures one @unpython.type gives: its arguments, or each item of a list of
    tuples, `@unpython.type([('ndarray[float32, 1]', 'float32'), ...])`."""
    if not (call.args and isinstance(call.args[0], gast.List)):
        return [WrittenSignature([_type_arg(a, constants, errors) for a in call.args],
                                 loc_of(call))]
    listed = call.args[0]
    if len(call.args) > 1:
        raise errors.error("a list of signatures is the only argument of @unpython.type",
                           loc_of(call.args[1]))
    if not listed.elts:
        raise errors.error("the list of signatures is empty; give at least one tuple of "
                           "types, e.g. [('float64', 'float64')]", loc_of(listed))
    found = []
    for item in listed.elts:
        if not isinstance(item, (gast.Tuple, gast.List)):
            raise errors.error(
                "each item of a list of signatures is a tuple of type strings: the "
                "parameters' types, then the return type, e.g. ('ndarray[float64, 1]', "
                "'float64')", loc_of(item))
        found.append(WrittenSignature([_type_arg(x, constants, errors) for x in item.elts],
                                      loc_of(item)))
    return found


def read_decorators(fn: gast.FunctionDef, imports, constants: StringConstants,
                    numbers: NumericConstants, errors):
    """A `Decorated` if `fn` carries unpython.type, else None (gpu/locals alone are an error).
    Each @unpython.type adds its signatures (it may be given several times)."""
    found = Decorated(fn)
    marked = False
    for dec in fn.decorator_list:
        call = dec if isinstance(dec, gast.Call) else None
        name = qualified_name(call.func if call else dec, imports)
        if name == "unpython.type" and call:
            found.signatures += _signatures(call, constants, errors)
            marked = True
        elif name == "unpython.locals" and call:
            found.locals = {kw.arg: _type_arg(kw.value, constants, errors) for kw in call.keywords}
            marked = True
        elif name == "unpython.gpu":
            found.gpu = marked = True
        elif name and name.startswith("unpython."):
            raise errors.error(f"unknown unpython decorator '{name}'", loc_of(dec))
    if not marked:
        return None
    if not found.signatures:
        raise errors.error(f"function '{fn.name}' needs @unpython.type(...) to be compiled",
                           loc_of(fn))
    found.defaults = [_default_value(node, numbers, errors, imports)
                      for node in fn.args.defaults]
    return found


def dtype_named(node, imports: dict):
    """The dtype name ('float64') that `node` gives as a dtype argument: a NumPy scalar type
    (`np.float64`), Python's `float`, `int`, `complex`, `bool`, or a string NumPy reads as a
    dtype ('float32'), of the kinds compiled code has; else None."""
    import numpy
    if isinstance(node, gast.Constant) and isinstance(node.value, str):
        value = node.value
    else:
        qualified = qualified_name(node, imports)
        if qualified in ("float", "int", "complex", "bool") and qualified not in imports:
            value = {"float": float, "int": int, "complex": complex, "bool": bool}[qualified]
        elif qualified and qualified.startswith("numpy."):
            value = getattr(numpy, qualified[len("numpy."):], None)
            if not (isinstance(value, type) and issubclass(value, numpy.generic)):
                return None
        else:
            return None
    try:
        dtype = numpy.dtype(value)
    except TypeError:
        return None
    return dtype.name if dtype.kind in "biufc" else None


def _default_value(node, numbers: NumericConstants, errors, imports=None):
    """A parameter's default as an ir.Const: a number, True/False, or a numeric constant; or a
    dtype (`dtype=np.float32`), as its name."""
    dtype = dtype_named(node, imports or {})
    if dtype is not None:
        return ir.Const(dtype, loc_of(node))
    if isinstance(node, gast.Constant) and node.value is None:
        raise errors.error("None is not a default of compiled functions: each parameter has one "
                           "type; give a number, or leave the default out", loc_of(node))
    try:
        return ir.Const(numbers.value(node), loc_of(node))
    except NotConstant as refusal:
        why = "" if refusal.reason == NOT_A_NUMBER else f": {refusal.reason}"
        raise errors.error("defaults of compiled functions are numbers, True/False, numeric "
                           f"module constants or arithmetic of those{why}", loc_of(refusal.node))


def discover(path: str, source: str) -> ModuleSource:
    errors = ErrorSink(path, source)
    try:
        tree = gast.parse(source, filename=path)
    except SyntaxError as e:
        raise errors.error(f"syntax error: {e.msg}", (e.lineno or 0, max((e.offset or 1) - 1, 0)))
    imports = collect_imports(tree)
    constants = StringConstants(tree)
    numbers = NumericConstants(tree, lambda node: qualified_name(node, imports))
    functions = []
    for stmt in tree.body:
        if isinstance(stmt, gast.FunctionDef):
            found = read_decorators(stmt, imports, constants, numbers, errors)
            if found:
                functions.append(found)
    return ModuleSource(path, source, tree, imports, functions, errors, numbers)
