"""Module-level constants: strings, so that a module of many kernels can name its type strings
once (`F2 = 'ndarray[float64, 2]'`, `@unpython.type(F2, F2, None)`; issue 6 item 5), and
numbers, which compiled code reads as literals (`N = 64`, `EPS = 1e-9`) and defaults may name.

A name is a constant when the module binds it exactly once, by a plain assignment at its top
level, to a string literal or a `+` of string literals and constants assigned before it (a
number, `True`/`False`, arithmetic of numbers and numeric constants, or a `math` function of
them), or to a NumPy scalar type of such a number (`EPS = np.float32(1e-6)`, Numba users'
typed constants). Any other binding (a
second assignment, an import, a `def`, a loop variable, `del`, a `global` declaration in a
function, which may rebind it) makes it a variable, refused as a type string or in compiled code.
"""
from __future__ import annotations

import math
import operator

import gast
import numpy

# Nodes that open a scope of their own: names bound inside are not module names.
SCOPES = (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef, gast.Lambda, gast.ListComp,
          gast.SetComp, gast.DictComp, gast.GeneratorExp)

NOT_A_STRING = ("type annotations must be strings such as 'ndarray[float64, 2]' or None, "
                "module-level string constants, or '+' of them")


class NotConstant(Exception):
    """Why an expression is not a constant string, and the node to point at."""

    def __init__(self, reason: str, node):
        super().__init__(reason)
        self.reason = reason
        self.node = node


def _module_scope(node):
    """Every node whose name bindings are module bindings (scope-opening nodes themselves
    included, their insides not)."""
    for child in gast.iter_child_nodes(node):
        yield child
        if not isinstance(child, SCOPES):
            yield from _module_scope(child)


def module_bindings(tree: gast.Module) -> dict:
    """name -> [(line, what binds it, node)] for every binding of a module-level name."""
    bindings = {}

    def bind(name, node, what):
        bindings.setdefault(name, []).append((node.lineno, what, node))

    for node in _module_scope(tree):
        if isinstance(node, gast.Name) and isinstance(node.ctx, (gast.Store, gast.Del)):
            bind(node.id, node, "deleted" if isinstance(node.ctx, gast.Del) else "assigned")
        elif isinstance(node, (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef)):
            bind(node.name, node, "defined")
        elif isinstance(node, (gast.Import, gast.ImportFrom)):
            for alias in node.names:
                bind(alias.asname or alias.name.split(".")[0], node, "imported")
    for node, function in _global_statements(tree, None):
        for name in node.names:
            bind(name, node, f"declared global in function '{function}'")
    return bindings


def _global_statements(node, function):
    """(`global` statement, name of the function it is in) everywhere under `node`."""
    for child in gast.iter_child_nodes(node):
        if isinstance(child, gast.Global):
            yield child, function
        inner = child.name if isinstance(child, (gast.FunctionDef, gast.AsyncFunctionDef)) \
            else function
        yield from _global_statements(child, inner)


class ModuleConstants:
    """The module's names bound exactly once, by a plain assignment at its top level."""

    def __init__(self, tree: gast.Module):
        self.bindings = module_bindings(tree)
        # The Name target of each top-level `name = value` -> that statement.
        self.assignments = {id(stmt.targets[0]): stmt for stmt in tree.body
                            if isinstance(stmt, gast.Assign) and len(stmt.targets) == 1
                            and isinstance(stmt.targets[0], gast.Name)}

    def assignment(self, use: gast.Name, role: str, kind: str, ordered: bool = True):
        """The statement `name = value` that makes the name `use` reads a constant; raises
        NotConstant with the reason otherwise. `role` says what the name serves as (in the
        messages), `kind` what it must be; `ordered`: the use runs when the module is loaded
        (a decorator, a default), so the assignment must come before it."""
        name = use.id
        found = self.bindings.get(name, [])
        if not found:
            raise NotConstant(f"'{name}' is not a name this module assigns", use)
        if len(found) > 1:
            where = "; ".join(f"{what} at line {line}" for line, what, _ in found)
            raise NotConstant(f"'{name}' is bound more than once in this module ({where}); "
                              f"{role} must be assigned exactly once, at the top level of the "
                              "module", use)
        ((line, what, node),) = found
        if what != "assigned":
            raise NotConstant(f"'{name}' is {what} at line {line}; {role} must be a {kind} "
                              "constant assigned at the top level of this module", use)
        statement = self.assignments.get(id(node))
        if statement is None:
            raise NotConstant(f"'{name}' is assigned at line {line} by something other than a "
                              f"plain assignment at the top level of the module; {role} must "
                              "be one", use)
        if ordered and (statement.end_lineno, statement.end_col_offset) > \
                (use.lineno, use.col_offset):
            raise NotConstant(f"'{name}' is assigned at line {line}, after this use", use)
        return statement


class StringConstants(ModuleConstants):
    """The string value of a type expression written with literals, module constants and '+'."""

    def value(self, node) -> str:
        """The string `node` stands for; raises NotConstant with the reason otherwise."""
        if isinstance(node, gast.Constant) and isinstance(node.value, str):
            return node.value
        if isinstance(node, gast.BinOp) and isinstance(node.op, gast.Add):
            return self.value(node.left) + self.value(node.right)
        if isinstance(node, gast.JoinedStr):
            raise NotConstant("f-strings are not accepted as type strings; join constants "
                              "with '+' instead", node)
        if isinstance(node, gast.Name):
            return self.name_value(node)
        raise NotConstant(NOT_A_STRING, node)

    def name_value(self, use: gast.Name) -> str:
        if use.id not in self.bindings:
            raise NotConstant(f"{NOT_A_STRING}; '{use.id}' is not a name this module assigns",
                              use)
        statement = self.assignment(use, "a type alias", "string")
        try:
            return self.value(statement.value)
        except NotConstant as inner:
            reason = (inner.reason if inner.reason != NOT_A_STRING else
                      "its value is not made of string literals, '+' and other constants")
            raise NotConstant(f"'{use.id}' (line {statement.lineno}) is not a constant string: "
                              f"{reason}", use) from None


# Constants of the math and numpy modules, Python floats in the interpreter too.
LIBRARY_CONSTANTS = {f"{module}.{name}": value for module in ("math", "numpy", "cmath")
                     for name, value in (("pi", math.pi), ("e", math.e), ("inf", math.inf),
                                         ("nan", math.nan))}
LIBRARY_CONSTANTS["math.tau"] = LIBRARY_CONSTANTS["cmath.tau"] = math.tau

NUMERIC_OPERATORS = {gast.Add: operator.add, gast.Sub: operator.sub, gast.Mult: operator.mul,
                     gast.Div: operator.truediv, gast.FloorDiv: operator.floordiv,
                     gast.Mod: operator.mod, gast.Pow: operator.pow, gast.LShift: operator.lshift,
                     gast.RShift: operator.rshift, gast.BitAnd: operator.and_,
                     gast.BitOr: operator.or_, gast.BitXor: operator.xor,
                     gast.USub: operator.neg, gast.UAdd: operator.pos, gast.Invert: operator.invert,
                     gast.Not: operator.not_}
# math functions a constant may call (`KT = 2 / math.log(1 + math.sqrt(2))`): computed when the
# module is built, as the interpreter computes them when it loads the module.
CONSTANT_FUNCTIONS = {f"math.{name}": getattr(math, name) for name in (
    "sqrt", "exp", "expm1", "log", "log10", "log2", "log1p", "sin", "cos", "tan", "asin",
    "acos", "atan", "atan2", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh", "hypot", "pow",
    "fabs", "floor", "ceil", "trunc", "erf", "erfc", "gamma", "lgamma", "degrees", "radians")}
NOT_A_NUMBER = ("its value is not made of number literals, True/False, math.pi and the like, "
                "other constants, arithmetic and math functions")
READ_IN_CODE = "a module-level name read by a compiled function"


class NumericConstants(ModuleConstants):
    """Module-level numeric constants (`N = 64`, `EPS = 1e-9`, `TWO_PI = 2 * math.pi`): a name
    the module binds once, by a plain assignment at its top level, to a number literal, `True`
    or `False`, a constant of math or numpy, another such constant, or arithmetic of those. Its
    value is computed here as the interpreter computes it when the module is loaded. `resolve`
    gives the qualified name of a dotted name ('math.pi'), or None."""

    def __init__(self, tree: gast.Module, resolve):
        super().__init__(tree)
        self.resolve = resolve

    def value(self, node, ordered: bool = True):
        """The number (int, float or bool) `node` stands for; raises NotConstant with the reason
        otherwise. `ordered`: `node` is evaluated when the module is loaded (a default, another
        constant's value), so the constants it names must be assigned before it."""
        if isinstance(node, gast.Constant) and type(node.value) in (bool, int, float):
            return node.value
        if isinstance(node, (gast.Name, gast.Attribute)):
            library = self.resolve(node)
            if library in LIBRARY_CONSTANTS:
                return LIBRARY_CONSTANTS[library]
            if isinstance(node, gast.Name):
                return self.name_value(node, ordered)
        if isinstance(node, (gast.UnaryOp, gast.BinOp)) and type(node.op) in NUMERIC_OPERATORS:
            operands = ([node.operand] if isinstance(node, gast.UnaryOp) else
                        [node.left, node.right])
            return self.apply(node, [self.value(x) for x in operands])
        if isinstance(node, gast.Call) and not node.keywords and \
                self.resolve(node.func) in CONSTANT_FUNCTIONS:
            function = CONSTANT_FUNCTIONS[self.resolve(node.func)]
            arguments = [self.value(x, ordered) for x in node.args]
            try:
                return function(*arguments)
            except (ArithmeticError, ValueError, TypeError) as error:
                raise NotConstant(f"computing it raises {type(error).__name__}: {error}",
                                  node) from None
        raise NotConstant(NOT_A_NUMBER, node)

    def scalar_cast(self, use: gast.Name):
        """(dtype name, number) where the constant `use` reads is a NumPy scalar type of a
        number (`EPS = np.float32(1e-6)`, or `zero = dtype(0)` after `dtype = np.int32`):
        compiled code reads it as that cast of the number, a value of that dtype as in the
        interpreter (not a weak literal). None for any other constant."""
        try:
            statement = self.assignment(use, READ_IN_CODE, "numeric", ordered=False)
        except NotConstant:
            return None
        call = statement.value
        if not (isinstance(call, gast.Call) and len(call.args) == 1 and not call.keywords):
            return None
        dtype = self.scalar_type(call.func)
        if dtype is None:
            return None
        try:
            number = self.value(call.args[0], ordered=False)
        except NotConstant as inner:
            raise NotConstant(f"'{use.id}' (line {statement.lineno}) is not a numeric constant: "
                              f"{inner.reason}", use) from None
        return dtype, number

    def scalar_type(self, node, aliases: int = 1):
        """The dtype name of a NumPy scalar type `node` names (`np.float32`, or a module
        constant bound to one, `aliases` deep), or None."""
        qualified = self.resolve(node) or ""
        head, _, tail = qualified.rpartition(".")
        kind = getattr(numpy, tail, None) if head == "numpy" else None
        if isinstance(kind, type) and issubclass(kind, (numpy.number, numpy.bool_)):
            return numpy.dtype(kind).name
        if aliases and isinstance(node, gast.Name) and node.id in self.bindings:
            try:
                statement = self.assignment(node, READ_IN_CODE, "numeric", ordered=False)
            except NotConstant:
                return None
            return self.scalar_type(statement.value, aliases - 1)
        return None

    def name_value(self, use: gast.Name, ordered: bool):
        statement = self.assignment(use, READ_IN_CODE, "numeric", ordered)
        try:
            return self.value(statement.value)
        except NotConstant as inner:
            raise NotConstant(f"'{use.id}' (line {statement.lineno}) is not a numeric constant: "
                              f"{inner.reason}", use) from None

    @staticmethod
    def apply(node, operands):
        op = type(node.op)
        if op in (gast.Pow, gast.LShift) and all(type(x) is int for x in operands) and \
                abs(operands[0]) > 1 and operands[1] > 256:
            raise NotConstant("the integer is too large for compiled code", node)
        try:
            return NUMERIC_OPERATORS[op](*operands)
        except (ArithmeticError, ValueError, TypeError) as error:
            raise NotConstant(f"computing it raises {type(error).__name__}: {error}",
                              node) from None
