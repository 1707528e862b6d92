"""Types of a function's Python lists (`out = []`, `out.append(v)`, `out[i]`, `len(out)`,
`return out`), of numbers or bools, or of lists of them (`m = [[0.0] * n for _ in range(k)]`,
`m[i][j]`, `m[i].append(v)`, 'list[list[float64]]').

A list's items have one type: the promotion of every value the list takes (its literal's
items, the values appended and stored), as np.array makes the dtype of them (a Python int is
int64, a float float64, an int and a float give float64, np.float32 values float32), weak
(Python's own numbers, NEP 50) where all of them are; a list of lists holds lists of one depth,
their numbers' type the promotion of them all. The values a list takes come anywhere in the
function, so `infer_function` types it again from the start until the items' types settle, as
it does for a scalar first bound to a Python number (`TypeInference.strengthen`).

A parameter declared 'list[float64]' is the caller's list: its items have the declared type
(a value stored into it converts to that type, or is refused where it would lose), the changes
the function makes are the caller's (unpy/cpp_emit/module.py writes them back to a Python
caller's list), and binding the name to a new list makes a new variable, as Python's name
then stops naming the caller's list. A list passed to a compiled function's list parameter is
passed as itself (its items joined with the parameter's: the callee may store those).

Python's lists are objects that several names and lists may hold; compiled code's are values.
So a list stored into another (`out.append(row)`, `m[i] = row`) is copied, which is Python's
meaning only where nothing changes it afterwards through its own name (`copies_checked`), and a
name bound to an item of a list of lists (`row = m[i]`, `for row in m`) is a copy, which is
Python's meaning only where neither changes (the same check). A list lives in the host code:
not inside a prange (whose iterations run in any order, and on the GPU), not under a second
name (`b = a`).
"""
from __future__ import annotations

import copy

import numpy as np

from unpy import ir
from unpy.errors import CompileError
from unpy.ir import ListType, Scalar, TupleType
from unpy.typeinfer.reductions import walk_exprs, walk_stmts
from unpy.typeinfer.written import _may_be, returned_params, written_params
from unpy.typeinfer.types import (INT64, PY_INT, cast, conversion_loses, is_int, same_items,
                                  shown_type)

# The items of a list that takes no value at all: np.array([]) is float64.
NO_ITEMS = Scalar("float64", weak=True)
# An item read before any value of its list was met (typed again once they are): the type that
# any other joins to itself, so that the items' types settle at the least that holds them all.
UNSEEN = Scalar("bool", weak=True)
USES = ("a list is used in compiled code through len(out), out[i] (read and stored), "
        "out.append(v), for v in out, sum(out) (and min, max, any, all), np.array(out) and "
        "return out")


class MixedItems(Exception):
    """A list takes numbers and lists, or lists of two depths."""


def joined(known, t):
    """The items' type of a list of `known` items (None: none so far) that takes a `t` (a
    Scalar or a ListType)."""
    if known is None:
        return ListType(joined(None, t.item)) if isinstance(t, ListType) else \
            TupleType(tuple(joined(None, x) for x in t.items)) if isinstance(t, TupleType) \
            else Scalar(t.dtype, t.weak)
    if type(known) is not type(t):
        raise MixedItems()
    if isinstance(t, ListType):
        return ListType(joined(known.item, t.item))
    if isinstance(t, TupleType):
        if len(t.items) != len(known.items):
            raise MixedItems()
        return TupleType(tuple(joined(k, x) for k, x in zip(known.items, t.items)))
    return Scalar(np.result_type(known.dtype, t.dtype).name, known.weak and t.weak)


def nested(t, depth: int):
    """`t` as the items of a list `depth` levels above it (0: `t` itself)."""
    for _ in range(depth):
        t = ListType(t)
    return t


def root(e):
    """(the Name at the bottom of a list expression `m[i][j]`, how many items deep it is)."""
    depth = 0
    while isinstance(e, ir.ListItem):
        e, depth = e.list, depth + 1
    return e, depth


def is_list(infer, node) -> bool:
    return isinstance(node, ir.Name) and isinstance(
        infer.vars.get(infer.renamed.get(node.id, node.id)), ListType)


def list_type(infer, name: str) -> ListType:
    return ListType(infer.list_items.get(name, NO_ITEMS))


def outside_pranges(infer, name: str, node):
    if infer.in_prange:
        raise infer.error(f"the list '{name}' inside a prange is not supported: its iterations "
                          "run in any order (and a @gpu function's on the device); make it an "
                          f"array before the loop ({name}_array = np.array({name})) and read "
                          "that", node)


def receiver(infer, node, method: str):
    """The list a method, len() or a loop works on, typed: a list's name, or an item of a list
    of lists (`m[i].append(v)`)."""
    if isinstance(node, ir.Name):
        if not is_list(infer, node):
            known = infer.vars.get(infer.renamed.get(node.id, node.id))
            shown = f"is {known}" if known is not None else "is not defined here"
            raise infer.error(f"'{node.id}' {shown}: {method}() is the method of a list (bound "
                              f"with {node.id} = [] before); arrays have a fixed length "
                              "(np.concatenate makes a longer one)", node)
        return list_name(infer, node)
    typed = infer.expr(node)
    if not isinstance(typed.type, ListType):
        raise infer.error(f"this is {typed.type}, not a list: {method}() is the method of a "
                          "list", node)
    return typed


def takes(infer, into, value, node):
    """`value` as an item of the list `into` (a typed list expression): its type joined to the
    items' of the list at the bottom; the value converted to the items' type where it is a
    number."""
    if value.type is None:
        raise infer.error("this call returns no value", value)
    if not (isinstance(value.type, (Scalar, ListType)) or isinstance(
            value.type, TupleType) and all(isinstance(t, Scalar) for t in value.type.items)):
        raise infer.error(f"a list of {value.type} values is not supported in compiled code: "
                          "its items are numbers, bools, tuples of numbers or lists of them; "
                          "collect arrays in a 2-D array (np.empty((n, m)) and a count)", node)
    if isinstance(value.type, ListType) and not isinstance(value, ir.Name):
        raise infer.error("a list stored into a list is a list made there or a list variable "
                          "here; for an item of another list, store a copy (list(m[i]))", value)
    name, depth = root(into)
    takes_type(infer, name.id, nested(value.type, depth), node,
               value.value if isinstance(value, ir.Const) else None)
    return _as_item(value, item_type(infer, name.id, depth + 1))


def _as_item(value, item):
    """`value` converted to a list's items' type: a number cast, a tuple written out cast item
    by item (a tuple variable converts in C++, a list where it is copied: emit.list_value)."""
    if isinstance(value.type, Scalar) and isinstance(item, Scalar):
        return cast(value, item)
    if isinstance(value, ir.TupleValue) and isinstance(item, TupleType):
        value.items = [cast(x, t) for x, t in zip(value.items, item.items)]
        value.type = item
    return value


def takes_type(infer, name: str, t, node, const=None):
    """A value of type `t` (the constant `const`) stored into the list `name`: joined to its
    items' type, or checked against a parameter's declared one."""
    known = infer.list_items.get(name)
    if name in infer.list_params:
        why = None if type(t) is type(known) and (
            not isinstance(t, ListType) or t.depth == known.depth) else \
            f"a {shown_type(t)} value is not an item of it"
        why = why or conversion_loses(t.leaf if isinstance(t, ListType) else t,
                                      known.leaf if isinstance(known, ListType) else known, const)
        if why:
            raise infer.error(f"the list parameter '{name}' holds {shown_type(known)} items (its "
                              f"declared type {ListType(known)}): {why}", node)
        return
    try:
        infer.list_items[name] = joined(known, t)
    except MixedItems:
        raise infer.error(f"the list '{name}' takes {shown_type(t)} items here and "
                          f"{shown_type(known)} items "
                          "elsewhere; a list in compiled code holds numbers, or lists of one "
                          "depth", node) from None


def item_type(infer, name: str, depth: int):
    """The type of an item `depth` levels into the list `name` (1: its own items), or UNSEEN
    where no value of it was met yet (typed again once they are)."""
    t = infer.list_items.get(name)
    for _ in range(depth - 1):
        if not isinstance(t, ListType):
            break
        t = t.item
    if t is None or t is UNSEEN or name not in infer.list_items:
        infer.guessed.add(name)
        return UNSEEN
    return t


def new_list(infer, s: ir.Assign):
    """`out = [a, b]` (or `[]`): a new list bound to `out`."""
    e = s.value
    if not isinstance(s.target, ir.Name):
        raise infer.error("a list is bound to a variable in compiled code (out = []); an "
                          "element of an array holds a number", e)
    outside_pranges(infer, s.target.id, e)
    items = [infer.expr(x) if not is_list(infer, x) else list_name(infer, x) for x in e.items]
    name = _bound_name(infer, s.target, e)
    target = ir.Name(name, s.target.loc)
    for x in items:
        takes(infer, target, x, x)
    t = _defined(infer, name, s.loc)
    e.items = [_as_item(x, t.item) for x in items]
    e.type = t
    return ir.Assign(ir.Name(name, s.target.loc, t), e, s.loc)


def _bound_name(infer, target: ir.Name, node) -> str:
    """The variable a list bound to `target` goes into: the name's, or a new one where the
    name held a parameter's list or a value of another type before (at the top level)."""
    name = infer.renamed.get(target.id, target.id)
    known = infer.vars.get(name)
    if name in infer.list_params:
        # the name no longer names the caller's list: a new variable from here on; in a loop
        # or a branch the parameter itself, passed by value then (copies_checked: where the
        # function does not change the caller's list)
        return name if infer.depth else infer.rebound(target.id)
    if known is not None and not isinstance(known, ListType):
        if infer.depth or name in infer.declared:
            shown = known.dtype if isinstance(known, Scalar) else known
            raise infer.error(f"'{target.id}' is {shown} (first assigned on line "
                              f"{infer.defined_at[name]}); a list cannot be stored in it; use "
                              "another variable", node)
        return infer.rebound(target.id)
    return name


def _defined(infer, name: str, loc) -> ListType:
    t = list_type(infer, name)
    if name not in infer.vars:
        infer.defined_at[name] = loc[0]
    infer.vars[name] = t
    return t


def bound_copy(infer, target: ir.Name, value, loc) -> ir.Assign:
    """`row = m[i]` (and `for row in m`), `row = m.pop()`: a list of its own, the item's items
    copied (`copies_checked` makes sure that nothing changes either where Python's would be
    one list)."""
    outside_pranges(infer, target.id, value)
    name = _bound_name(infer, target, value)
    takes_type(infer, name, value.type.item, value)
    t = _defined(infer, name, loc)
    return ir.Assign(ir.Name(name, target.loc, t), value, loc)


def stored_list(infer, s: ir.Assign) -> ir.Assign:
    """`m[i] = row` (a list variable, or the list the frontend made of `[0] * n`): a copy of
    it stored (`copies_checked`)."""
    target = infer.expr_target(s.target)
    if not isinstance(target, ir.ListItem):
        raise infer.error("a list is stored into an item of a list of lists here, not into an "
                          "array (make it an array first: np.array(values))", s.value)
    return stored(infer, target, list_name(infer, s.value), s.loc)


def rows_stored(infer, s: ir.Assign):
    """`a[k] = m[k]` (np.array(m) of a list of lists, as the frontend fills it): a row's items
    stored along the array's next dimension, its length checked first (NumPy's ValueError of
    rows of two lengths); a number stored as any other."""
    row = infer.expr(copy.deepcopy(s.value))
    if not isinstance(row.type, ListType):
        return infer.assign(s.target, row, s.loc)
    loc, target, value = s.loc, s.target, s.value
    j = f"__row{len(target.indices)}"
    length = ir.ListLen(copy.deepcopy(value), loc)
    extent = ir.ArrayAttr(ir.Name(target.array.id, loc), "shape", len(target.indices), loc)
    fill = ir.For(j, ir.Const(0, loc), length, ir.Const(1, loc), [ir.Assign(
        ir.Subscript(target.array, target.indices + [ir.Name(j, loc)], loc),
        ir.Subscript(value.array, value.indices + [ir.Name(j, loc)], loc), loc)], loc=loc)
    uneven = ir.Compare(copy.deepcopy(length), ["!="], [extent], loc)
    return infer.stmt(ir.If(uneven, [ir.Raise(
        "ValueError", "setting an array element with a sequence. The requested array has an "
        f"inhomogeneous shape after {len(target.indices)} dimensions.", loc)], [fill], loc))


def _changes(node, changed_args) -> dict:
    """Name -> how many places below `node` change the list it names (or an item of it): a
    store, an append, a pop, an insert, a compiled function it is passed to that changes it
    (`changed_args(call)`: the arguments a call may change)."""
    found = {}

    def note(e):
        name = root(e)[0]
        if isinstance(name, ir.Name):
            found[name.id] = found.get(name.id, 0) + 1
    for s in walk_stmts(node if isinstance(node, list) else [node]):
        if isinstance(s, ir.Assign) and isinstance(s.target, ir.ListItem):
            note(s.target)
    for e in walk_exprs(node):
        if isinstance(e, (ir.ListAppend, ir.ListPop, ir.ListInsert)):
            note(e.list)
        elif isinstance(e, ir.CallCompiled):
            for a in changed_args(e):
                if isinstance(a.type, ListType):
                    note(a)
    return found


def _stored_list(s):
    """The list variable statement `s` stores into a list (appends, inserts), if any."""
    value = None
    if isinstance(s, ir.ExprStmt) and isinstance(s.value, (ir.ListAppend, ir.ListInsert)):
        value = s.value.value
    elif isinstance(s, ir.Assign) and isinstance(s.target, ir.ListItem):
        value = s.value
    return value if isinstance(value, ir.Name) and isinstance(value.type, ListType) else None


def copies_checked(functions, errors):
    """Compiled code copies a list where Python's shares it: a list variable stored into a list
    (`out.append(row)`), a name bound to a list another name or list holds (`row = m[i]`,
    `b = a`, `b = f(a)` where f may return its argument), a list parameter bound to another
    list in a loop or branch (passed by value then). That is Python's meaning where nothing
    changes the list afterwards through the other: a list stored is one made in the same block
    before the store, changed only between the two, and stored once; a name bound to another's
    list, and the other, change nowhere; such a parameter changes nowhere. Raises CompileError
    with the first place of each function where that does not hold."""
    written, returned = written_params(functions), returned_params(functions)
    by_name = {f.name: f for f in functions}

    def changed_args(call):
        callee = by_name[call.func]
        return [a for a, p in zip(call.args, callee.params) if p.name in written[callee.name]]
    found = []
    for f in functions:
        try:
            _copies_checked(f, errors, returned, changed_args)
        except CompileError as e:
            found.append(e)
    if found:
        raise CompileError.of(found)


def _copies_checked(fn, errors, returned, changed_args):
    changes = _changes(fn.body, changed_args)
    lists = {p.name for p in fn.params if isinstance(p.type, ListType)}
    for s in walk_stmts(fn.body):
        if isinstance(s, ir.Assign) and isinstance(s.target, ir.Name) and \
                s.target.id in lists and changes.get(s.target.id):
            raise errors.error(f"'{s.target.id}' is a list parameter (the caller's list) that "
                               "the function changes, and another list is bound to it in a "
                               "loop or a branch here; bind that list to another name",
                               s.value.loc)

    def visit(block):
        for k, s in enumerate(block):
            if isinstance(s, ir.Assign) and isinstance(s.target, ir.Name) and \
                    isinstance(s.value.type, ListType):
                for source in _may_be(s.value, returned):
                    for name in (s.target.id, source):
                        if changes.get(name) and source != s.target.id:
                            raise errors.error(
                                f"'{s.target.id}' is the list '{source}' holds here, which "
                                "compiled code copies, and the function changes "
                                f"'{name}': Python's would change both; index the list "
                                f"itself, or make a copy (list(...))", s.value.loc)
            stored = _stored_list(s)
            if stored is not None:
                _stored_once(errors, block, k, stored, changes, changed_args)
            for inner in (s.body, s.orelse) if isinstance(s, ir.If) else \
                    (s.body,) if isinstance(s, (ir.For, ir.While)) else ():
                visit(inner)
    visit(fn.body)


def _stored_once(errors, block, k, stored: ir.Name, changes, changed_args):
    """The list `stored`, stored into another list by `block[k]`, made before in `block`,
    changed only between the two, and stored once."""
    name = stored.id
    made = next((j for j in range(k - 1, -1, -1) if isinstance(block[j], ir.Assign) and
                 isinstance(block[j].target, ir.Name) and block[j].target.id == name), None)
    later = next((j for j in range(k + 1, len(block)) if isinstance(block[j], ir.Assign) and
                  isinstance(block[j].target, ir.Name) and block[j].target.id == name),
                 len(block))
    between = _changes(block[made + 1:k], changed_args).get(name, 0) if made is not None else -1
    stores = sum(1 for s in block[0 if made is None else made + 1:later]
                 if (x := _stored_list(s)) is not None and x.id == name)
    if made is None or not isinstance(block[made].value, ir.ListNew) or \
            between != changes.get(name, 0) or stores != 1:
        raise errors.error(f"the list '{name}' stored here into another list is a copy there "
                          "in compiled code, where Python's list would be one object in both: "
                          f"make '{name}' a new list just before (in the same block: "
                          f"{name} = [] ...), change it only before it is stored, and store it "
                          f"once (a second store: list({name}))", stored.loc)


def list_name(infer, node: ir.Name) -> ir.Name:
    name = infer.renamed.get(node.id, node.id)
    return ir.Name(name, node.loc, list_type(infer, name))


def appended(infer, e: ir.ListAppend):
    """`out.append(v)`: `v` converted to the items' type; no value."""
    e.list = receiver(infer, e.list, "append")
    if infer.in_prange:
        raise infer.error(f"{_shown(e.list)}.append() inside a prange is not supported: its "
                          "iterations run in any order; append in a range loop, or fill an "
                          "array of the largest size keeping a count (out[count] = v; "
                          "count += 1)", e)
    e.value, e.type = _new_item(infer, e), None
    return e


def _shown(e) -> str:
    name, depth = root(e)
    return name.id + "[...]" * depth


def _new_item(infer, e):
    """The value `e` puts into its list, converted to the items' type (joined to them)."""
    value = e.value
    value = list_name(infer, value) if is_list(infer, value) else infer.expr(value)
    return takes(infer, e.list, value, value)


def _changed_here(infer, e, method: str):
    """The list `e` changes (append, pop, insert): a list of this function, not in a prange."""
    e.list = receiver(infer, e.list, method)
    if infer.in_prange:
        raise infer.error(f"{_shown(e.list)}.{method}() inside a prange is not supported: its "
                          "iterations run in any order; change the list in a range loop", e)


def _index(infer, index):
    index = infer.expr(index)
    if not is_int(index.type):
        raise infer.error(f"list indices must be integers, got {index.type}", index)
    return cast(index, INT64)


def popped(infer, e: ir.ListPop) -> ir.ListPop:
    """`out.pop()`, `out.pop(i)`: the item taken out (the last by default; IndexError as
    Python's where there is none)."""
    _changed_here(infer, e, "pop")
    if e.index is not None:
        e.index = _index(infer, e.index)
    name, depth = root(e.list)
    e.type = item_type(infer, name.id, depth + 1)
    return e


def inserted(infer, e: ir.ListInsert) -> ir.ListInsert:
    """`out.insert(i, v)`: `v` before item i (i counted from the end where negative, and
    clamped to the list as Python does); no value."""
    _changed_here(infer, e, "insert")
    e.index = _index(infer, e.index)
    e.value, e.type = _new_item(infer, e), None
    return e


def item(infer, e: ir.Subscript):
    """`out[i]` (and `m[i][j]` of a list of lists): one item, read or stored (each index an
    integer, negative from the end)."""
    outside_pranges(infer, e.array.id, e)
    if any(isinstance(i, (ir.Slice, ir.NewAxis)) or (isinstance(i, ir.Const) and
                                                     i.value is Ellipsis) for i in e.indices):
        raise infer.error(f"a list takes integer indices in compiled code ({e.array.id}[i]); "
                          f"a slice of it is a new list bound to a name ({e.array.id}_part = "
                          f"{e.array.id}[lo:hi]) or made an array (np.array({e.array.id}[lo:hi]))",
                          e)
    name = infer.renamed.get(e.array.id, e.array.id)
    typed = list_name(infer, e.array)
    for depth, index in enumerate(e.indices, 1):
        if isinstance(typed.type, TupleType):     # `pairs[i][0]`: an item of a tuple item
            return _tuple_item(infer, typed, e.indices[depth - 1:], e)
        if depth > 1 and not isinstance(typed.type, ListType) and typed.type is not UNSEEN:
            raise infer.error(f"'{e.array.id}' is a list of {typed.type.dtype}; it takes "
                              f"{depth - 1} index(es) here", e)
        t = UNSEEN if typed.type is UNSEEN else item_type(infer, name, depth)
        typed = ir.ListItem(typed, _index(infer, index), e.loc, t)
    return typed


def _tuple_item(infer, typed, indices, e):
    """Item k (a literal) of the tuple `typed`, an item of a list of tuples."""
    n = len(typed.type.items)
    k = indices[0].value if isinstance(indices[0], ir.Const) and \
        isinstance(indices[0].value, int) and len(indices) == 1 else None
    if k is None or not -n <= k < n:
        raise infer.error(f"an item of a list of tuples takes one literal index from {-n} to "
                          f"{n - 1} here (pairs[i][0]), or unpacking (x, y = pairs[i])", e)
    if e is infer.store_target:
        raise infer.error("'tuple' object does not support item assignment: store a new tuple "
                          "(pairs[i] = (x, y))", e)
    return ir.TupleItem(typed, k % n, n, e.loc, typed.type.items[k % n])


def stored(infer, target: ir.ListItem, value, loc) -> ir.Assign:
    """`out[i] = v`: `v` converted to the items' type (joined to them)."""
    return ir.Assign(target, takes(infer, target.list, value, value), loc)


def length(infer, e: ir.ListLen):
    """`len(out)` (the frontend's, of a name bound to a list somewhere, or of an item of a
    list of lists): of an array where the name is one here (`out = np.array(out)` before)."""
    if isinstance(e.list, ir.Name) and not is_list(infer, e.list):
        return infer.expr(ir.ArrayAttr(e.list, "shape", 0, e.loc))
    if not isinstance(e.list, ir.Name):
        typed = infer.expr(e.list)
        if isinstance(typed.type, TupleType):       # len(pairs[i]): the tuple's count
            return ir.Const(len(typed.type.items), e.loc, PY_INT)
    e.list = receiver(infer, e.list, "len")
    outside_pranges(infer, _shown(e.list), e)
    e.type = PY_INT
    return e


def passed(infer, arg: ir.Name) -> ir.Name:
    """A list given to a compiled function (typed against the parameter by `given`)."""
    if infer.in_prange:
        raise infer.error(f"the list '{arg.id}' passed inside a prange is not supported: its "
                          "iterations run in any order; call in a range loop", arg)
    return list_name(infer, arg)


def given(infer, arg, param: ListType):
    """`arg` given to a parameter declared `param`: a list of this function takes the
    parameter's items too (the callee may store them), then passes as itself where its items
    have the parameter's type; `arg` unchanged otherwise (the call's conversion says why)."""
    if not isinstance(arg.type, ListType) or not isinstance(arg, ir.Name):
        return arg
    if arg.id not in infer.list_params and arg.type.depth == param.depth:
        takes_type(infer, arg.id, param.item, arg)
    return list_name(infer, arg)


def returned(infer, value: ir.Name, expected):
    """`return out`: the list as declared ('list[float64]'), its items joined with the declared
    ones (a list of ints returned as floats; `return []` has the declared items); refused where
    they are of another kind or depth."""
    name = infer.renamed.get(value.id, value.id)
    if isinstance(expected, ListType) and name not in infer.list_params and (
            name not in infer.list_items or
            type(infer.list_items[name]) is type(expected.item)):
        # the declared items are a value it takes (`return [0] * n` declared 'list[float64]')
        takes_type(infer, name, expected.item, value)
    t = list_type(infer, name)
    if not (isinstance(expected, ListType) and same_items(expected, t)):
        raise infer.error(f"this returns the list '{value.id}' of {t.item} items: declare the "
                          f"return type '{t}' (or return np.array({value.id}))", value)
    return list_name(infer, value)
