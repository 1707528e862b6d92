"""Module-level string constants, so that a module of many kernels can name its type strings once
(`F2 = 'ndarray[float64, 2]'`, `@unpython.type(F2, F2, None)`; issue 6 item 5).

A name is a constant when the module binds it exactly once, by a plain assignment at its top
level, to a string literal or a `+` of string literals and constants assigned before it. Any
other binding (a second assignment, an import, a `def`, a loop variable, `del`, a `global`
declaration in a function, which may rebind it) makes it a variable, refused as a type string.
"""
from __future__ import annotations

import gast

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


class StringConstants:
    """The string value of a type expression written with literals, module constants and '+'."""

    def __init__(self, tree: gast.Module):
        self.bindings = module_bindings(tree)
        # The Name target of each top-level `name = value` -> that statement.
        self.assignments = {id(stmt.targets[0]): stmt for stmt in tree.body
                            if isinstance(stmt, gast.Assign) and len(stmt.targets) == 1
                            and isinstance(stmt.targets[0], gast.Name)}

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
        name = use.id
        found = self.bindings.get(name, [])
        if not found:
            raise NotConstant(f"{NOT_A_STRING}; '{name}' is not a name this module assigns",
                              use)
        if len(found) > 1:
            where = "; ".join(f"{what} at line {line}" for line, what, _ in found)
            raise NotConstant(f"'{name}' is bound more than once in this module ({where}); a "
                              "type alias must be assigned exactly once, at the top level of "
                              "the module", use)
        ((line, what, node),) = found
        if what != "assigned":
            raise NotConstant(f"'{name}' is {what} at line {line}; a type alias must be a "
                              "string constant assigned at the top level of this module", use)
        statement = self.assignments.get(id(node))
        if statement is None:
            raise NotConstant(f"'{name}' is assigned at line {line} by something other than a "
                              "plain assignment at the top level of the module; a type alias "
                              "must be one", use)
        if (statement.end_lineno, statement.end_col_offset) > (use.lineno, use.col_offset):
            raise NotConstant(f"'{name}' is assigned at line {line}, after this use", use)
        try:
            return self.value(statement.value)
        except NotConstant as inner:
            reason = (inner.reason if inner.reason != NOT_A_STRING else
                      "its value is not made of string literals, '+' and other constants")
            raise NotConstant(f"'{name}' (line {line}) is not a constant string: {reason}",
                              use) from None
