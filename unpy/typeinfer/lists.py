"""Types of a function's Python lists of scalars (`out = []`, `out.append(v)`, `out[i]`,
`len(out)`, `return out`).

A list's items have one type: the promotion of every value the list takes (its literal's
items, the values appended and stored), as np.array makes the dtype of them (a Python int is
int64, a float float64, an int and a float give float64, np.float32 values float32), weak
(Python's own numbers, NEP 50) where all of them are. The values a list takes come anywhere in the
function, so `infer_function` types it again from the start until the items' types settle, as
it does for a scalar first bound to a Python number (`TypeInference.strengthen`).

A parameter declared 'list[float64]' is the caller's list: its items have the declared type
(a value stored into it converts to that type, or is refused where it would lose), the changes
the function makes are the caller's (unpy/cpp_emit/module.py writes them back to a Python
caller's list), and binding the name to a new list makes a new variable, as Python's name
then stops naming the caller's list. A list passed to a compiled function's list parameter is
passed as itself (its items joined with the parameter's: the callee may store those).

A list lives in the host code: not inside a prange (whose iterations run in any order, and on
the GPU), not under a second name.
"""
from __future__ import annotations

import numpy as np

from unpy import ir
from unpy.ir import ListType, Scalar
from unpy.typeinfer.types import INT64, PY_INT, cast, conversion_loses, is_int

# The items of a list that takes no value at all: np.array([]) is float64.
NO_ITEMS = Scalar("float64", weak=True)
# An item read before any value of its list was met (typed again once they are): the type that
# any other joins to itself, so that the items' types settle at the least that holds them all.
UNSEEN = Scalar("bool", weak=True)
USES = ("a list is used in compiled code through len(out), out[i] (read and stored), "
        "out.append(v), for v in out, sum(out) (and min, max, any, all), np.array(out) and "
        "return out")


def joined(known, t: Scalar) -> Scalar:
    """The items' type of a list of `known` items (None: none so far) that takes a `t`."""
    if known is None:
        return Scalar(t.dtype, t.weak)
    return Scalar(np.result_type(known.dtype, t.dtype).name, known.weak and t.weak)


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


def takes(infer, name: str, value, node):
    """`value` as an item of the list `name` (its type joined to the items')."""
    if value.type is None:
        raise infer.error("this call returns no value", value)
    if not isinstance(value.type, Scalar):
        raise infer.error(f"a list of {value.type} values is not supported in compiled code: "
                          "its items are numbers or bools; collect arrays in a 2-D array "
                          "(np.empty((n, m)) and a count) or tuples as the columns of one", node)
    takes_type(infer, name, value.type, node,
               value.value if isinstance(value, ir.Const) else None)


def takes_type(infer, name: str, t: Scalar, node, const=None):
    """A value of type `t` (the constant `const`) stored into the list `name`: joined to its
    items' type, or checked against a parameter's declared one."""
    if name in infer.list_params:
        item = infer.list_items[name]
        why = conversion_loses(t, item, const)
        if why:
            raise infer.error(f"the list parameter '{name}' holds {item.dtype} items (its "
                              f"declared type list[{item.dtype}]): {why}", node)
        return
    infer.list_items[name] = joined(infer.list_items.get(name), t)


def new_list(infer, s: ir.Assign):
    """`out = [a, b]` (or `[]`): a new list bound to `out`."""
    e = s.value
    if not isinstance(s.target, ir.Name):
        raise infer.error("a list is bound to a variable in compiled code (out = []); an "
                          "element of an array holds a number", e)
    outside_pranges(infer, s.target.id, e)
    items = [infer.expr(x) for x in e.items]       # (of the name's binding before this one)
    name = infer.renamed.get(s.target.id, s.target.id)
    known = infer.vars.get(name)
    if name in infer.list_params:
        # the name no longer names the caller's list: a new variable from here on
        if infer.depth:
            raise infer.error(f"'{s.target.id}' is a list parameter (the caller's list): a new "
                              "list bound to it inside a loop or a branch is not supported; "
                              "bind the new list to another name", e)
        name = infer.rebound(s.target.id)
    elif known is not None and not isinstance(known, ListType):
        if infer.depth or name in infer.declared:
            shown = known.dtype if isinstance(known, Scalar) else known
            raise infer.error(f"'{s.target.id}' is {shown} (first assigned on line "
                              f"{infer.defined_at[name]}); a list cannot be stored in it; use "
                              "another variable", e)
        name = infer.rebound(s.target.id)
    for x in items:
        takes(infer, name, x, x)
    t = list_type(infer, name)
    if name not in infer.vars:
        infer.defined_at[name] = s.loc[0]
    infer.vars[name] = t
    e.items, e.type = [cast(x, t.item) for x in items], t
    return ir.Assign(ir.Name(name, s.target.loc, t), e, s.loc)


def list_name(infer, node: ir.Name) -> ir.Name:
    name = infer.renamed.get(node.id, node.id)
    return ir.Name(name, node.loc, list_type(infer, name))


def appended(infer, e: ir.ListAppend):
    """`out.append(v)`: `v` converted to the items' type; no value."""
    if not is_list(infer, e.list):
        known = infer.vars.get(infer.renamed.get(e.list.id, e.list.id))
        shown = f"is {known}" if known is not None else "is not defined here"
        raise infer.error(f"'{e.list.id}' {shown}: append() is the method of a list (bound "
                          f"with {e.list.id} = [] before); arrays have a fixed length "
                          "(np.concatenate makes a longer one)", e)
    if infer.in_prange:
        raise infer.error(f"{e.list.id}.append() inside a prange is not supported: its "
                          "iterations run in any order; append in a range loop, or fill an "
                          "array of the largest size keeping a count (out[count] = v; "
                          "count += 1)", e)
    e.list = list_name(infer, e.list)
    e.value, e.type = _new_item(infer, e), None
    return e


def _new_item(infer, e):
    """The value `e` puts into its list, converted to the items' type (joined to them)."""
    value = infer.expr(e.value)
    takes(infer, e.list.id, value, value)
    return cast(value, list_type(infer, e.list.id).item)


def _changed_here(infer, e, method: str):
    """The list `e` changes (append, pop, insert): a list of this function, not in a prange."""
    if not is_list(infer, e.list):
        raise infer.error(f"'{e.list.id}' is not a list here: {method}() is the method of a "
                          f"list (bound with {e.list.id} = [] before)", e)
    if infer.in_prange:
        raise infer.error(f"{e.list.id}.{method}() inside a prange is not supported: its "
                          "iterations run in any order; change the list in a range loop", e)
    e.list = list_name(infer, e.list)


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
    e.type = _item_read(infer, e.list.id)
    return e


def inserted(infer, e: ir.ListInsert) -> ir.ListInsert:
    """`out.insert(i, v)`: `v` before item i (i counted from the end where negative, and
    clamped to the list as Python does); no value."""
    _changed_here(infer, e, "insert")
    e.index = _index(infer, e.index)
    e.value, e.type = _new_item(infer, e), None
    return e


def item(infer, e: ir.Subscript) -> ir.ListItem:
    """`out[i]`: one item, read or stored (the index an integer, negative from the end)."""
    outside_pranges(infer, e.array.id, e)
    index = e.indices[0] if len(e.indices) == 1 else None
    if index is None or isinstance(index, (ir.Slice, ir.NewAxis)) or (
            isinstance(index, ir.Const) and index.value is Ellipsis):
        raise infer.error(f"a list takes one integer index in compiled code ({e.array.id}[i]); "
                          f"a slice of it is a new list bound to a name ({e.array.id}_part = "
                          f"{e.array.id}[lo:hi]) or made an array (np.array({e.array.id}[lo:hi]))",
                          e)
    index = _index(infer, index)
    name = list_name(infer, e.array)
    return ir.ListItem(name, index, e.loc, _item_read(infer, name.id))


def _item_read(infer, name: str) -> Scalar:
    """The type of an item read from list `name`: its items' so far, or UNSEEN where no
    value of it was met yet (typed again once they are)."""
    if name not in infer.list_items:
        infer.guessed.add(name)
    return infer.list_items.get(name, UNSEEN)


def stored(infer, target: ir.ListItem, value, loc) -> ir.Assign:
    """`out[i] = v`: `v` converted to the items' type (joined to them)."""
    takes(infer, target.list.id, value, value)
    return ir.Assign(target, cast(value, list_type(infer, target.list.id).item), loc)


def length(infer, e: ir.ListLen):
    """`len(out)` (the frontend's, of a name bound to a list somewhere): of an array where the
    name is one here (`out = np.array(out)` before)."""
    if not is_list(infer, e.list):
        return infer.expr(ir.ArrayAttr(e.list, "shape", 0, e.loc))
    outside_pranges(infer, e.list.id, e)
    e.list = list_name(infer, e.list)
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
    if not isinstance(arg.type, ListType):
        return arg
    if arg.id not in infer.list_params:
        takes_type(infer, arg.id, param.item, arg)
    return list_name(infer, arg)


def returned(infer, value: ir.Name, expected):
    """`return out`: the list as declared ('list[int64]', the items' dtype); a list that
    takes no value (`return []`) has the declared items."""
    name = infer.renamed.get(value.id, value.id)
    if isinstance(expected, ListType) and name not in infer.list_items:
        infer.list_items[name] = expected.item
    t = list_type(infer, name)
    if not (isinstance(expected, ListType) and expected.item.dtype == t.item.dtype):
        raise infer.error(f"this returns the list '{value.id}' of {t.item.dtype} items: "
                          f"declare the return type 'list[{t.item.dtype}]' (or return "
                          f"np.array({value.id}))", value)
    return list_name(infer, value)
