"""Attach a type to every expression and variable (SPEC section 2).

Locals take the type of their first assignment unless declared; later assignments must convert
without loss. Every value that changes type gets an explicit `Cast`, so the emitters never need to
know a promotion rule. Augmented assignments become `x = x op e`.
"""
from __future__ import annotations

import contextlib
import copy

from unpy import ir
from unpy.errors import CompileError
from unpy.ir import Array, DtypeType, ListType, Scalar, TupleType
import numpy as np

from unpy.typeinfer import lists
from unpy.typeinfer.array_calls import type_array_call
from unpy.typeinfer.overloads import NoSignature, choose_signature
from unpy.typeinfer.types import (BOOL, COMPLEX_FUNCTIONS, ELEMENTWISE_RULES, FLOAT64, INT64,
                                  NUMPY_MATH, PY_INT, UFUNCS, cast, conversion_loses, fits,
                                  is_bool, is_complex, is_float, is_int, literal_type, ndim_of,
                                  real_part, resolve, shown_type)

MATH_TO_INT = {"floor", "ceil"}        # math.floor/ceil return Python ints


def element_type(t):
    """The scalar type of one element of `t` (a scalar is its own element)."""
    return Scalar(t.dtype) if isinstance(t, Array) else t


def shaped(dtype, ndim):
    """The type of a value of `ndim` dimensions: a scalar for none."""
    return Array(dtype, ndim) if ndim else Scalar(dtype)


class TypeInference:
    def __init__(self, fn: ir.Function, signatures: dict, errors, strengthened=None,
                 list_items=None, tolerant=False):
        self.fn = fn
        self.signatures = signatures    # function name -> its overloads.Signature list
        self.errors = errors
        self.vars = {p.name: p.type for p in fn.params}
        self.defined_at = {p.name: fn.loc[0] for p in fn.params}
        self.declared = set(fn.locals)
        self.store_target = None        # the subscript being assigned to, while typed
        for name, t in fn.locals.items():
            self.vars[name] = t
            self.defined_at[name] = fn.loc[0]
        # Locals first bound to a Python scalar that a later assignment makes a NumPy scalar
        # (`s = 0.0` then `s += x32[i]`): the interpreter's variable changes type there, so it
        # holds the NumPy type from the start (`infer_function` runs again with them).
        self.strengthened = dict(strengthened or {})
        # The items' type of each list, from the values it takes (unpy/typeinfer/lists.py):
        # those of the run before, joined with the values met so far; the lists read before
        # any value of theirs was met (lists.UNSEEN).
        self.list_items = dict(list_items or {})
        # A list parameter's items have the declared type (lists.takes converts to it).
        self.list_params = {p.name for p in fn.params if isinstance(p.type, ListType)}
        self.list_items.update({p.name: p.type.item for p in fn.params
                                if isinstance(p.type, ListType)})
        self.guessed = set()
        # Skip the statements that do not type, rather than stop (to find the lists' values).
        self.tolerant = tolerant
        # A name the function's top level binds again to a value of another type
        # (`x = np.reshape(x, (n, -1))`): every later use reads the new binding, so it is a new
        # variable from there on. Name -> the variable it stands for now.
        self.renamed = {}
        self.depth = 0                  # how many loops and branches hold the statement typed
        self.in_prange = 0              # how many prange loops hold it

    def error(self, message, node):
        return self.errors.error(message, node.loc)

    def run(self):
        self.fn.body = self.block(self.fn.body)
        if self.fn.return_type is not None and falls_through(self.fn.body):
            self.fn.returns_none = True     # its end gives None, as Python's
        params = {p.name for p in self.fn.params}
        self.fn.locals = {k: v for k, v in self.vars.items() if k not in params}

    # --- statements ---------------------------------------------------------------------

    def block(self, stmts):
        if not self.tolerant:
            return [self.stmt(s) for s in stmts]
        typed = []
        for s in stmts:
            with contextlib.suppress(CompileError):
                typed.append(self.stmt(s))
        return typed

    def nested(self, stmts):
        self.depth += 1
        try:
            return self.block(stmts)
        finally:
            self.depth -= 1

    def stmt(self, s):
        if isinstance(s, ir.Assign) and isinstance(s.value, ir.ListNew):
            return lists.new_list(self, s)
        if isinstance(s, ir.Assign) and lists.is_list(self, s.value) and \
                isinstance(s.target, ir.Subscript):
            return lists.stored_list(self, s)
        if isinstance(s, ir.Assign) and isinstance(s.target, ir.Subscript) and \
                isinstance(s.value, ir.Subscript) and lists.is_list(self, s.value.array) and \
                not lists.is_list(self, s.target.array):
            return lists.rows_stored(self, s)
        if isinstance(s, ir.Assign) and lists.is_list(self, s.value):
            # `b = a`: a copy (lists.copies_checked: where neither changes)
            return lists.bound_copy(self, s.target, lists.list_name(self, s.value), s.loc)
        if isinstance(s, ir.Assign):
            return self.assign(s.target, self.expr(s.value), s.loc)
        if isinstance(s, ir.AugAssign):
            current = self.expr_target(_copy_target(s.target))
            value = self.binop(ir.BinOp(s.op, current, self.expr(s.value), s.loc))
            if isinstance(current.type, Array):
                return self.in_place(current, value, s)
            return self.assign(s.target, value, s.loc)
        if isinstance(s, ir.For):
            for part in ("start", "stop", "step"):
                value = self.expr(getattr(s, part))
                if not (is_int(value.type) or is_bool(value.type)):
                    raise self.error(f"range() arguments must be integers, got {value.type}",
                                     value)
                setattr(s, part, cast(value, INT64))
            self.define(s.var, PY_INT, s, s.loc)
            self.in_prange += s.parallel
            try:
                s.body = self.nested(s.body)
            finally:
                self.in_prange -= s.parallel
            return s
        if isinstance(s, ir.While):
            s.test = self.condition(s.test)
            self.require_scalar(s.test)
            s.body = self.nested(s.body)
            return s
        if isinstance(s, ir.If):
            s.test = self.condition(s.test)
            self.require_scalar(s.test)
            s.body = self.nested(s.body)
            s.orelse = self.nested(s.orelse)
            return s
        if isinstance(s, ir.Return):
            return self.ret(s)
        if isinstance(s, ir.ExprStmt):
            if isinstance(s.value, ir.ArrayCall) and s.value.func == "ufunc_at":
                return self.ufunc_at(s)
            if isinstance(s.value, ir.ArrayCall) and s.value.func == "unpacked":
                return self.unpacked(s.value)
            if isinstance(s.value, ir.ArrayCall) and s.value.func == "flat_index":
                return self.flat_index(s.value)
            s.value = self.expr(s.value)
            return s
        if isinstance(s, ir.Raise):
            s.values = [cast(self.expr(v), INT64) for v in s.values]   # the message's `{}`s
        return s

    def unpacked(self, e):
        """The frontend's mark after `x, y = value` bound `value` to a name: a tuple's count is
        its items' (checked by each TupleItem while compiling); an array's length along its
        first dimension is checked as Python's (ValueError: too many / not enough values)."""
        value, n, loc = self.expr(e.args[0]), e.keywords["count"].value, e.loc
        if isinstance(value.type, TupleType):
            return ir.Pass(loc)
        if not (isinstance(value.type, Array) and value.type.ndim >= 1):
            raise self.error(f"cannot unpack {value.type}: tuple unpacking needs a tuple "
                             "(several values a compiled function returns), a.shape, (x, y) or "
                             "an array", e)
        length = lambda: ir.ArrayAttr(ir.Name(value.id, loc), "shape", 0, loc)
        return self.stmt(ir.If(
            ir.Compare(length(), [">"], [ir.Const(n, loc)], loc),
            [ir.Raise("ValueError", f"too many values to unpack (expected {n})", loc)],
            [ir.If(ir.Compare(length(), ["<"], [ir.Const(n, loc)], loc),
                   [ir.Raise("ValueError", f"not enough values to unpack (expected {n}, got {{}})",
                             loc, [length()])], [], loc)], loc))

    def flat_index(self, e):
        """The frontend's mark before `a.flat[i]` (`Lowering.flat_item`), the position i a
        local of its own: IndexError where it is outside [-a.size, a.size), NumPy's words;
        then counted from the end where negative."""
        a, position, loc = self.expr(e.args[0]), self.expr(e.args[1]), e.loc
        if isinstance(position.type, Array):
            raise self.error("a.flat indexed by an array is not supported in compiled code; "
                             "read a.ravel()[idx], or assign a.flat[i] in a loop over the "
                             "indices", e)
        if not is_int(position.type):
            raise self.error(f"a.flat takes an integer index, got {position.type}", e)
        size = lambda: ir.ArrayAttr(ir.Name(a.id, loc), "size", None, loc)   # noqa: E731
        at = lambda: ir.Name(position.id, loc)                                  # noqa: E731
        outside = ir.BoolOp("or", [ir.Compare(at(), ["<"], [ir.UnaryOp("-", size(), loc)], loc),
                                   ir.Compare(at(), [">="], [size()], loc)], loc)
        return self.stmt(ir.If(
            outside, [ir.Raise("IndexError", "index {} is out of bounds for size {}", loc,
                               [at(), size()])],
            [ir.If(ir.Compare(at(), ["<"], [ir.Const(0, loc)], loc),
                   [ir.Assign(at(), ir.BinOp("+", at(), size(), loc), loc)], [], loc)], loc))

    def ufunc_at(self, s):
        """`np.add.at(a, indices, values)` & co: its args become the target `a[indices]` and
        the value `a[indices] op values` in a's dtype (NumPy casts within the kind). Lowered
        as one element at a time, in order, unbuffered: a repeated index takes every value."""
        e = s.value
        a, indices, values = e.args
        op = e.keywords["ufunc"].value
        shown = {"+": "add", "-": "subtract", "*": "multiply", "|": "bitwise_or",
                 "&": "bitwise_and", "^": "bitwise_xor"}.get(op, op[3:])
        current = self.expr(ir.Subscript(copy.deepcopy(a), copy.deepcopy(indices), e.loc))
        target = self.expr_target(ir.Subscript(a, indices, e.loc))
        if not isinstance(target.type, Array):
            raise self.error(f"np.{shown}.at() of one element is a[i] = a[i] {op} v here; "
                             f"write that", e)
        if isinstance(target, ir.Masked):
            raise self.error(f"np.{shown}.at() with a boolean mask is not supported; write "
                             f"a[mask] {op}= v", e)
        values = self.expr(values)
        if op.startswith("np."):
            value = self.elementwise(ir.Call(op, [current, values], e.loc), [current, values])
        else:
            value = self.binop(ir.BinOp(op, current, values, e.loc))
        dtype = target.type.dtype
        if not np.can_cast(value.type.dtype, dtype, "same_kind"):
            raise self.error(f"np.{shown}.at() would store {value.type.dtype} values in the "
                             f"{dtype} array (NumPy refuses: casting rule 'same_kind')", e)
        e.args = [target, cast(value, Scalar(dtype))]
        return s

    def ret(self, s):
        expected = self.fn.return_type
        if s.value is None:
            if expected is not None:        # None, as Python's (see ir.Function)
                self.fn.returns_none = True
            return s
        if expected is None:
            raise self.error("this function is declared to return None; declare the return "
                             "type as the last argument of @unpython.type", s)
        if lists.is_list(self, s.value):
            s.value = lists.returned(self, s.value, expected)
            return s
        if isinstance(s.value, ir.TupleValue) and isinstance(expected, TupleType) and \
                len(s.value.items) == len(expected.items):
            # `return a, b` of lists: each as declared
            s.value.items = [lists.returned(self, x, t) if lists.is_list(self, x) else x
                             for x, t in zip(s.value.items, expected.items)]
        value = self.expr(s.value)
        if isinstance(value, ir.TupleValue) and isinstance(expected, TupleType):
            s.value = self.converted_items(value, expected)
            return s
        s.value = self.converted(value, expected, f"cannot return {value.type} as {expected}")
        return s

    def converted(self, value, t, what):
        """`value` given to something of type `t` (a return, a parameter): converted, or the
        compile error `what: why not`."""
        why = conversion_loses(value.type, t, _const_value(value))
        if why:
            raise self.error(f"{what}: {why}", value)
        return value if isinstance(t, (Array, TupleType, ListType)) else cast(value, t)

    def converted_items(self, value, expected):
        """`(a, b)` returned as the declared tuple type: each item converted as a return."""
        if len(value.items) != len(expected.items):
            raise self.error(f"this returns {len(value.items)} values; the declared type "
                             f"{expected} has {len(expected.items)}", value)
        value.items = [self.converted(item, t, f"cannot return {item.type} as {t}")
                       for item, t in zip(value.items, expected.items)]
        value.type = expected
        return value

    def expr_TupleValue(self, e):
        e.items = [x if isinstance(x.type, ListType) else self.expr(x) for x in e.items]
        for x in e.items:
            if x.type is None or isinstance(x.type, TupleType):
                raise self.error("a tuple holds scalars and arrays only", x)
        e.type = TupleType(tuple(x.type for x in e.items))
        return e

    def expr_TupleItem(self, e):
        e.value = self.expr(e.value)
        t = e.value.type
        if isinstance(t, Array) and isinstance(e.value, ir.Name):
            # an array unpacked (`x, y = p[i]`): its items along the first dimension, its
            # length checked before (`unpacked`)
            return self.expr(ir.Subscript(ir.Name(e.value.id, e.loc), [ir.Const(e.index, e.loc)],
                                          e.loc))
        if not isinstance(t, TupleType):
            raise self.error(f"cannot unpack {t}: tuple unpacking needs a tuple (several "
                             "values a compiled function returns), a.shape, or (x, y)", e)
        if e.count != len(t.items):
            raise self.error(f"cannot unpack {len(t.items)} values into {e.count} names", e)
        e.type = t.items[e.index]
        return e

    def in_place(self, current, value, s):
        """`a op= b` of an array: NumPy writes the result into `a` (a view of all of it when
        `a` is a name), converting it only within its kind."""
        dtype = current.type.dtype
        if not np.can_cast(value.type.dtype, dtype, "same_kind"):
            raise self.error(f"'{s.op}=' would store {value.type.dtype} values in the {dtype} "
                             f"array (NumPy refuses: casting rule 'same_kind'); write "
                             f"a[...] = (a {s.op} b).astype(...) or use another array", s)
        target = current
        if isinstance(current, ir.Name):
            target = ir.View(current, [], current.loc, current.type)
        return ir.Assign(target, cast(value, Scalar(dtype)), s.loc)

    def tuple_stored(self, value, target):
        """A tuple of scalars (written out, or a name of one) stored into a slice (`force[0] =
        0, 0`): the 1-D array NumPy makes of it (np.array's dtype for the items), converted as
        other stored values are."""
        items = self.tuple_items(value) if isinstance(value, (ir.TupleValue, ir.Name)) else []
        if not isinstance(target.type, Array) or not items or not all(
                isinstance(x.type, Scalar) for x in items):
            raise self.error("a tuple is stored into an array here: store a tuple of scalars "
                             "into a slice (a[i] = x, y) or np.array(...) of it", value)
        found = np.result_type(*[np.dtype(x.type.dtype) for x in items]).name
        return ir.ArrayCall("array_literal", list(items),
                            {"shape": ir.Const((len(items),), value.loc),
                             "dtype": ir.Const(found, value.loc)}, value.loc, Array(found, 1))

    def stored(self, value, dtype):
        """`value` converted to the dtype of the array it is stored into: NumPy casts unsafely,
        but refuses (Python complex) or warns (NumPy complex) when a complex loses its
        imaginary part."""
        if is_complex(element_type(value.type)) and not is_complex(Scalar(dtype)):
            raise self.error(f"storing complex values into a {dtype} array would drop their "
                             "imaginary part (NumPy raises or warns); store z.real, z.imag or "
                             "abs(z), or make the array complex", value)
        return cast(value, Scalar(dtype))

    def assign(self, target, value, loc):
        if isinstance(target, ir.Subscript):
            target = self.expr_target(target)
            if isinstance(target, ir.ListItem):
                return lists.stored(self, target, value, loc)
            if isinstance(value.type, TupleType):
                value = self.tuple_stored(value, target)
            if isinstance(target, (ir.View, ir.Masked)):
                if isinstance(target.type, Scalar):
                    raise self.error("cannot assign to an element of a computed array", target)
                if isinstance(value.type, Array) and value.type.ndim > target.type.ndim:
                    raise self.error(f"cannot store a {value.type.ndim}-D array into a "
                                     f"{target.type.ndim}-D slice", value)
                # NumPy converts stored values to the array's dtype (unsafe casting).
                return ir.Assign(target, self.stored(value, target.type.dtype), loc)
            if isinstance(value.type, Array):
                raise self.error("cannot store an array into an array element", value)
            # NumPy converts a stored value to the array's dtype (as `a[i] = 2.7` does).
            return ir.Assign(target, self.stored(value, target.type.dtype), loc)
        if isinstance(value.type, ListType):        # `row = m[i]`, `row = m.pop()`
            return lists.bound_copy(self, target, value, loc)
        name = self.renamed.get(target.id, target.id)
        if value.type is None:
            raise self.error("this call returns no value", value)
        if name in self.vars and self.depth == 0 and name not in self.declared and \
                conversion_loses(value.type, self.vars[name], _const_value(value)):
            name = self.rebound(target.id)
        if name in self.vars:
            t = self.vars[name]
            if (isinstance(t, Scalar) and t.weak and isinstance(value.type, Scalar)
                    and name not in self.declared and (not value.type.weak or conversion_loses(
                        value.type, t, _const_value(value)))):
                self.strengthen(name, t, value.type)    # typed again from the start
                t = self.strengthened[name]
            why = conversion_loses(value.type, t, _const_value(value))
            if why:
                origin = ("declared" if name in self.declared else
                          f"first assigned on line {self.defined_at[name]}")
                raise self.errors.error(
                    f"'{name}' is {shown_type(t)} ({origin}); {why}. Convert explicitly "
                    f"(e.g. int(...), np.float32(...)) or use another variable", loc)
            t = self.vars[name]
        else:
            t = self.strengthened.get(name) or value.type
            why = conversion_loses(value.type, t, _const_value(value))
            if why:
                raise self.errors.error(f"'{name}' is {shown_type(t)} (from its later "
                                        f"assignments); {why}", loc)
            self.vars[name] = t
            self.defined_at[name] = loc[0]
        target = ir.Name(name, target.loc, t)
        return ir.Assign(target, value if isinstance(t, Array) else cast(value, t), loc)

    def rebound(self, name):
        """A new variable for `name` from here on (its next binding at the top level)."""
        count = sum(1 for v in self.renamed.values() if v.startswith(f"{name}__v")) + 1
        self.renamed[name] = f"{name}__v{count}"
        return self.renamed[name]

    def strengthen(self, name, weak, t):
        """Note that `name`, a Python scalar of type `weak` so far, takes a value of type `t`
        here: a NumPy scalar (it holds both as NumPy would: a Python float and an int32 give
        float64) or a Python scalar of a wider kind (`udiff = 1`, then a float: a Python
        float), promoted with the types it takes elsewhere."""
        if t.weak:
            dtype = np.result_type(PYTHON_VALUE[weak.dtype], PYTHON_VALUE[t.dtype])
        else:
            dtype = np.result_type(PYTHON_VALUE[weak.dtype], np.dtype(t.dtype))
        new = Scalar(dtype.name, t.weak)
        known = self.strengthened.get(name)
        if known is not None:
            new = Scalar(np.promote_types(known.dtype, new.dtype).name, known.weak and new.weak)
        self.strengthened[name] = new

    def expr_target(self, target):
        """An assignment target typed (`a[i, ...] = v` stores the element, where reading it
        would be a 0-d array)."""
        saved, self.store_target = self.store_target, target
        try:
            return self.expr(target)
        finally:
            self.store_target = saved

    def define(self, name, t, node, loc):
        if name in self.vars and self.vars[name].dtype != t.dtype:
            raise self.error(f"loop variable '{name}' is {shown_type(self.vars[name])} "
                             "elsewhere; loop variables are int64", node)
        self.vars.setdefault(name, t)
        self.defined_at.setdefault(name, loc[0])

    def require_scalar(self, e):
        if not isinstance(e.type, Scalar):
            raise self.error("the truth value of an array is ambiguous; reduce it with "
                             "np.any(...) or np.all(...), or compare elements", e)

    # --- expressions --------------------------------------------------------------------

    def expr(self, e):
        method = getattr(self, "expr_" + type(e).__name__)
        return method(e)

    def expr_list(self, e):
        """A list written out where NumPy takes an array-like (the frontend keeps it a list:
        it may be a shape)."""
        at = next((x for x in e if not isinstance(x, list)), None)
        raise self.error("a list of values is not supported here in compiled code; write "
                         "np.array([...]) for an array, or a tuple", at or self.fn)

    def expr_Const(self, e):
        e.type = literal_type(e.value)
        return e

    def expr_Name(self, e):
        e.id = self.renamed.get(e.id, e.id)
        if e.id not in self.vars:
            raise self.error(f"name '{e.id}' is not defined here (compiled functions see their "
                             "parameters and local variables only, assigned before use)", e)
        e.type = self.vars[e.id]
        if isinstance(e.type, ListType):
            raise self.error(f"'{e.id}' is a list; {lists.USES}", e)
        if isinstance(e.type, DtypeType):
            raise self.error(f"'{e.id}' is a dtype (a parameter of type {e.type}), which "
                             f"compiled code takes only as the dtype of an allocation or "
                             f"conversion (np.empty(n, dtype={e.id}), a.astype({e.id})) or passes "
                             "on to a compiled function", e)
        return e

    def dtype_parameter(self, e):
        """The type of `e`, a Name given as a dtype: a parameter of type `type[...]`."""
        t = self.vars.get(self.renamed.get(e.id, e.id))
        if not isinstance(t, DtypeType):
            shown = "an array" if isinstance(t, Array) else str(t) if t else "not defined"
            raise self.error(f"'{e.id}' is not a dtype ({shown}); give a dtype such as "
                             f"np.float64, '{e.id}.dtype' of an array, or a parameter of type "
                             "'type[float64]'", e)
        e.type = t
        return t

    def expr_BinOp(self, e):
        e.left, e.right = self.expr(e.left), self.expr(e.right)
        return self.binop(e)

    def binop(self, e):
        for side in (e.left, e.right):
            if side.type is None:
                raise self.error("this call returns no value", side)
        if e.op == "@":
            return self.expr(ir.ArrayCall("matmul", [e.left, e.right], {}, e.loc))
        if isinstance(e.left.type, TupleType) or isinstance(e.right.type, TupleType):
            if not (e.op == "+" and isinstance(e.left.type, TupleType)
                    and isinstance(e.right.type, TupleType)):
                raise self.error(f"operator {e.op} of tuples is not supported; tuples may be "
                                 "concatenated with '+'", e)
            items = self.tuple_items(e.left) + self.tuple_items(e.right)
            return ir.TupleValue(items, e.loc, TupleType(tuple(x.type for x in items)))
        left, right = e.left, e.right
        arrays = isinstance(left.type, Array) or isinstance(right.type, Array)
        if e.op not in ("&", "|", "^") and not arrays:
            left, right = _arithmetic_bools(left, right)
        resolved = resolve(UFUNCS[e.op], [element_type(left.type), element_type(right.type)])
        if resolved is None:
            raise self.error(f"operator {e.op} is not defined for {shown_type(left.type)} and "
                             f"{shown_type(right.type)}", e)
        (lt, rt), out = resolved
        for side, t in ((left, lt), (right, rt)):
            if _const_value(side) is not None and is_int(t) and not isinstance(
                    side.value, bool) and not fits(side.value, t.dtype):
                raise self.error(f"{side.value} does not fit in {t.dtype}, the type of this "
                                 f"operation (NumPy raises OverflowError for it)", side)
        e.left, e.right = cast(left, lt), cast(right, rt)
        e.type = shaped(out.dtype, ndim_of((left, right))) if arrays else out
        return e

    def condition(self, e):
        """A test (`if`, `while`, `not`, `x if c else y`): a list is true where it has items,
        as Python's (`while stack:`)."""
        if lists.is_list(self, e):
            e = ir.Compare(ir.ListLen(e, e.loc), [">"], [ir.Const(0, e.loc)], e.loc)
        return self.expr(e)

    def expr_UnaryOp(self, e):
        e.operand = self.condition(e.operand) if e.op == "not" else self.expr(e.operand)
        if isinstance(e.operand.type, Array):
            return self.array_unary(e)
        self.require_scalar(e.operand)
        if e.op == "not":
            e.type = BOOL
            return e
        if is_bool(e.operand.type):
            if e.op == "~":
                raise self.error("'~' on a bool is ambiguous (Python gives -2 for ~True, NumPy "
                                 "gives False); use 'not'", e)
            e.operand = _bool_as_int(e.operand)
        if e.op == "~" and not is_int(e.operand.type):
            raise self.error(f"'~' needs an integer, got {e.operand.type}", e)
        e.type = e.operand.type
        return e

    def array_unary(self, e):
        t = e.operand.type
        if e.op == "not":
            raise self.error("'not' of an array is ambiguous; use '~' (or np.logical_not) for "
                             "each element, or np.any/np.all", e)
        if e.op == "~" and t.dtype == "bool":
            e.op = "not"          # NumPy's ~ of a bool array is the logical not
        elif e.op == "~" and not is_int(Scalar(t.dtype)):
            raise self.error(f"'~' needs integers or bools, got {t}", e)
        elif e.op == "-" and t.dtype == "bool":
            raise self.error("NumPy refuses '-' of a bool array; use '~' or np.logical_not", e)
        e.type = t
        return e

    def expr_Compare(self, e):
        operands = [self.expr(x) for x in [e.left] + e.comparators]
        if any(isinstance(x.type, TupleType) for x in operands):
            return self.tuple_compare(e, operands)
        if any(isinstance(x.type, Array) for x in operands):
            return self.array_compare(e, operands)
        for x in operands:
            self.require_scalar(x)
        # Each comparison is resolved on its own pair, as Python evaluates a chain.
        pairs = []
        for op, a, b in zip(e.ops, operands, operands[1:]):
            self.refuse_complex_order(op, a, b, e)
            resolved = resolve(UFUNCS[op], [a.type, b.type])
            if resolved is None:
                raise self.error(f"cannot compare {a.type} with {b.type}", e)
            pair = [t.dtype for t in resolved[0]]
            # A Python int against a sized integer compares values, as NumPy 2 does
            # (`u8 == 300` is False): keep the Python int in int64.
            for k, (x, y) in enumerate(((a, b), (b, a))):
                if _is_python_int(x.type) and is_int(y.type) and not y.type.weak:
                    pair[k] = "int64"
            pairs.append(pair)
        # Operands are left as they are; the emitter converts each pair to the pair's types.
        e.left, e.comparators = operands[0], operands[1:]
        e.operand_types = pairs
        e.type = BOOL
        return e

    def tuple_compare(self, e, operands):
        """`a.shape == b.shape`, `t != (n, m)`: Python's comparison of tuples, item by item
        (tuples of other lengths are unequal)."""
        if len(e.ops) != 1 or e.ops[0] not in ("==", "!=") or not all(
                isinstance(x.type, TupleType) for x in operands):
            raise self.error("tuples compare with == and != to another tuple in compiled code",
                             e)
        a, b = (self.tuple_items(x) for x in operands)
        if len(a) != len(b):
            return ir.Const(e.ops[0] == "!=", e.loc, Scalar("bool", weak=True))
        same = [self.expr(ir.Compare(x, ["=="], [y], e.loc)) for x, y in zip(a, b)]
        equal = same[0] if len(same) == 1 else ir.BoolOp("and", same, e.loc, BOOL)
        if not same:
            equal = ir.Const(True, e.loc, Scalar("bool", weak=True))
        return equal if e.ops[0] == "==" else ir.UnaryOp("not", equal, e.loc, BOOL)

    def array_compare(self, e, operands):
        if len(e.ops) != 1:
            raise self.error("a chained comparison of arrays is ambiguous (NumPy raises); "
                             "write (a < b) & (b < c)", e)
        a, b = operands
        self.refuse_complex_order(e.ops[0], a, b, e)
        resolved = resolve(UFUNCS[e.ops[0]], [element_type(a.type), element_type(b.type)])
        if resolved is None:
            raise self.error(f"cannot compare {a.type} with {b.type}", e)
        pair = [t.dtype for t in resolved[0]]
        for k, (x, y) in enumerate(((a, b), (b, a))):
            if _is_python_int(x.type) and is_int(element_type(y.type)):
                pair[k] = "int64"
        e.left, e.comparators, e.operand_types = a, [b], [pair]
        e.type = Array("bool", ndim_of((a, b)))
        return e

    def refuse_complex_order(self, op, a, b, node):
        if op not in ("==", "!=") and any(is_complex(element_type(x.type)) for x in (a, b)):
            raise self.error(f"'{op}' of complex numbers: they have no order (Python raises; "
                             "NumPy's lexicographic order is not supported); compare abs(z), "
                             "z.real or z.imag", node)

    def refuse_complex(self, args, what, node):
        if any(is_complex(element_type(a.type)) for a in args):
            raise self.error(f"{what} is not defined for complex values here; use the real "
                             "parts (z.real, z.imag, abs(z)) or the np.* functions that take "
                             "complex values (docs/supported.md lists them)", node)

    def expr_BoolOp(self, e):
        values = [self.expr(v) for v in e.values]
        for v in values:
            if isinstance(v.type, Array):
                raise self.error(f"'{e.op}' of arrays is ambiguous (NumPy raises); use "
                                 f"'{'&' if e.op == 'and' else '|'}' for each element", v)
            self.require_scalar(v)
        t = self.promote(values, e)
        e.values = [cast(v, t) for v in values]
        e.type = t
        return e

    def expr_IfExp(self, e):
        e.test = self.condition(e.test)
        self.require_scalar(e.test)
        body, orelse = self.expr(e.body), self.expr(e.orelse)
        if isinstance(body.type, Array) or isinstance(orelse.type, Array):
            if body.type != orelse.type:
                raise self.error("both branches must be arrays of the same type", e)
            e.body, e.orelse, e.type = body, orelse, body.type
            return e
        if not (isinstance(body.type, Scalar) and isinstance(orelse.type, Scalar)):
            return self.tuple_branches(e, body, orelse)
        t = self.promote([body, orelse], e)
        e.body, e.orelse, e.type = cast(body, t), cast(orelse, t), t
        return e

    def tuple_branches(self, e, body, orelse):
        """`p if c else (0, 0.0)`: tuples of scalars, item by item promoted (a tuple written
        out converted; one from a variable or a list converts in C++)."""
        kinds = [x.type for x in (body, orelse)]
        if not all(isinstance(t, TupleType) and all(isinstance(i, Scalar) for i in t.items)
                   for t in kinds) or len(kinds[0].items) != len(kinds[1].items):
            raise self.error(f"the branches of this conditional expression are "
                             f"{shown_type(kinds[0])} and {shown_type(kinds[1])}: both must be "
                             "numbers, arrays of one type or "
                             "tuples of as many numbers", e)
        t = TupleType(tuple(self.promote([ir.Const(0, e.loc, a), ir.Const(0, e.loc, b)], e)
                            for a, b in zip(kinds[0].items, kinds[1].items)))
        branches = []
        for x in (body, orelse):
            if not isinstance(x, ir.TupleValue) and x.type != t:
                if not isinstance(x, (ir.Name, ir.ListItem)):
                    raise self.error(f"this branch is {x.type} where the other makes it {t}: "
                                     "convert it first (a variable of that type)", x)
                # a variable's or a list's tuple, item by item (reads only)
                x = ir.TupleValue([ir.TupleItem(copy.deepcopy(x), k, len(t.items), x.loc, u)
                                   for k, u in enumerate(x.type.items)], x.loc, x.type)
            if isinstance(x, ir.TupleValue):
                x.items = [cast(v, u) for v, u in zip(x.items, t.items)]
                x.type = t
            branches.append(x)
        e.body, e.orelse = branches
        e.type = t
        return e

    def promote(self, values, node):
        types = [v.type for v in values]
        if all(is_bool(t) for t in types):
            return Scalar("bool", all(t.weak for t in types))
        out = resolve(UFUNCS["+"], [_number(types[0], types[1]), _number(types[1], types[0])])[1]
        for t in types[2:]:
            out = resolve(UFUNCS["+"], [out, _number(t, out)])[1]
        return out

    def expr_Subscript(self, e):
        if lists.is_list(self, e.array):
            return lists.item(self, e)
        arr = self.expr(e.array)
        if isinstance(arr.type, TupleType):
            return self.tuple_subscript(arr, e)
        if not isinstance(arr.type, Array):
            shown = f"'{arr.id}'" if isinstance(arr, ir.Name) else "this value"
            raise self.error(f"{shown} is {arr.type}, not an array; it cannot be indexed", e)
        e.indices = [i if isinstance(i, (ir.Slice, ir.NewAxis)) or is_ellipsis(i)
                     else self.expr(i) for i in e.indices]
        if len(e.indices) == 1 and isinstance(e.indices[0].type, TupleType) and all(
                is_int(t) or isinstance(t, Array) and is_int(Scalar(t.dtype)) and t.ndim == 1
                for t in e.indices[0].type.items):
            # `a[t]` of a tuple of integers or index arrays is `a[t[0], t[1], ...]` (`idx =
            # (i, j)`, `d[np.triu_indices(n, 1)]`)
            e.indices = self.tuple_items(e.indices[0])
        first = next((k for k, i in enumerate(e.indices) if isinstance(i.type, Array) and
                      not isinstance(i, (ir.Slice, ir.NewAxis)) and not is_ellipsis(i)), None)
        split = next((j for j in e.joins if first is not None and j > first), None)
        if split is not None:
            if e is self.store_target:
                raise self.error("a store into the result of an index array or mask "
                                 "(a[idx][j] = v) writes a copy, not a (NumPy's too); write "
                                 "a[idx[j]] = v", e)
            # `ind[cond][-1]`: the selected elements, then indexed (NumPy's copy, indexed)
            selected = ir.Subscript(arr, e.indices[:split], e.loc,
                                    joins=[j for j in e.joins if j < split])
            return self.expr(ir.Subscript(selected, e.indices[split:], e.loc,
                                          joins=[j - split for j in e.joins if j > split]))
        self.expand_ellipsis(e, arr)
        # One element: a scalar index per dimension of an array variable; else a view.
        if len(e.indices) != arr.type.ndim or not isinstance(arr, ir.Name) or any(
                not isinstance(i.type, Scalar) for i in e.indices):
            return self.view(e, arr)
        indices = []
        for index in e.indices:
            if not is_int(index.type):
                raise self.error(f"array indices must be integers, got {index.type}", index)
            indices.append(cast(index, INT64))
        e.indices = indices
        e.type = Scalar(arr.type.dtype)
        return e

    def tuple_items(self, value):
        """The items of a typed tuple value, each an expression (`shape[k]` of a tuple
        variable)."""
        if isinstance(value, ir.TupleValue):
            return list(value.items)
        if not isinstance(value, ir.Name):
            raise self.error("bind this tuple to a name first", value)
        n = len(value.type.items)
        return [ir.TupleItem(value, k, n, value.loc, t) for k, t in enumerate(value.type.items)]

    def tuple_subscript(self, value, e):
        """`t[k]` and `t[a:b:c]` of a tuple (`a.shape[:-1]`, `shape[0]`, `f(x)[0]`): k, a, b, c
        literals."""
        index = e.indices[0] if len(e.indices) == 1 else None
        literal = lambda x: x is None or (isinstance(x, ir.Const) and type(x.value) is int)
        n = len(value.type.items)
        if isinstance(index, ir.Const) and literal(index):
            if not -n <= index.value < n:
                raise self.error(f"tuple index {index.value} is out of range (the tuple has "
                                 f"{n} items)", index)
            k = index.value % n
            if isinstance(value, (ir.Name, ir.TupleValue)):
                return self.tuple_items(value)[k]
            return ir.TupleItem(value, k, n, e.loc, value.type.items[k])   # the call runs once
        if isinstance(index, ir.Slice) and all(literal(x) for x in (index.start, index.stop,
                                                                    index.step)):
            bound = lambda x: None if x is None else x.value
            chosen = self.tuple_items(value)[bound(index.start):bound(index.stop):
                                             bound(index.step)]
            return ir.TupleValue(chosen, e.loc, TupleType(tuple(x.type for x in chosen)))
        raise self.error("a tuple is indexed with one integer literal or a slice of "
                         "literals (t[0], t[:-1])", e)

    def expand_ellipsis(self, e, arr):
        """`...` in `e`'s indices becomes one ':' per dimension the other indices leave, as in
        NumPy (`a[...]` is all of `a`, `a[..., 0]` its last dimension's first elements)."""
        dots = [k for k, i in enumerate(e.indices) if is_ellipsis(i)]
        if not dots:
            return
        if len(dots) > 1:
            raise self.error("an index can only have a single ellipsis ('...')",
                             e.indices[dots[1]])
        named = sum(i.type.ndim if isinstance(i.type, Array) else 1 for i in e.indices
                    if not isinstance(i, ir.NewAxis) and not is_ellipsis(i))
        fill = max(arr.type.ndim - named, 0)
        if fill == 0 and e is not self.store_target and all(
                isinstance(i.type, Scalar) for i in e.indices if not is_ellipsis(i)):
            raise self.error("an integer index per dimension and '...' make a 0-d array in "
                             "NumPy, which compiled code does not have; drop the '...' to read "
                             "the element", e.indices[dots[0]])
        k = dots[0]
        e.indices[k:k + 1] = [ir.Slice(None, None, None, e.indices[k].loc)
                              for _ in range(fill)]

    def view(self, e, arr):
        """A subscript that is not one element: a view (slices, `None`, fewer indices), an
        element of a computed array, or a boolean mask."""
        indices = []
        for index in e.indices:
            if isinstance(index, ir.Slice):
                for part in ("start", "stop", "step"):
                    value = getattr(index, part)
                    if value is not None:
                        value = self.expr(value)
                        if not is_int(value.type):
                            raise self.error(f"slice bounds must be integers, got {value.type}",
                                             value)
                        setattr(index, part, cast(value, INT64))
                indices.append(index)
            elif isinstance(index, ir.NewAxis):
                indices.append(index)
            else:                            # typed by expr_Subscript
                if isinstance(index.type, Array):
                    if index.type.dtype == "bool" and index is e.indices[-1] and \
                            index.type.ndim <= arr.type.ndim - len(indices) and \
                            all(isinstance(i.type, Scalar) for i in indices):
                        if indices:         # a[i][mask], a[i, mask]: a mask of the row a[i]
                            arr = ir.View(arr, indices, e.loc,
                                          Array(arr.type.dtype, arr.type.ndim - len(indices)))
                        # Written into: the array's elements where the mask holds; read: the
                        # selected elements, a 1-D array (NumPy's boolean indexing), or of
                        # a mask over the leading axes, the selected rows (dat[labels == i]).
                        rows = arr.type.ndim - index.type.ndim
                        t = arr.type if e is self.store_target else \
                            Array(arr.type.dtype, 1 + rows)
                        return ir.Masked(arr, index, e.loc, t)
                    if index.type.dtype == "bool" and index is e.indices[0] and \
                            e is not self.store_target and index.type.ndim < arr.type.ndim and \
                            all(isinstance(i, ir.Slice) or isinstance(i.type, Scalar)
                                for i in e.indices[1:]):
                        # A[labels == i, j] (k-means): NumPy's rows selected by the mask of
                        # the leading axes, then the other indices of each: A[mask][:, j]
                        rows = Array(arr.type.dtype, 1 + arr.type.ndim - index.type.ndim)
                        selected = ir.Masked(arr, index, e.loc, rows)
                        return self.view(ir.Subscript(selected, [ir.Slice(
                            None, None, None, e.loc)] + e.indices[1:], e.loc), selected)
                    if is_int(Scalar(index.type.dtype)) and index.type.ndim == 1:
                        # a gather: a[idx], a[:, idx], a[idx, jdx]; written into: a scatter
                        indices.append(index)
                        continue
                    if is_int(Scalar(index.type.dtype)) and len(e.indices) == 1 and \
                            e is not self.store_target:
                        return self.gather_shaped(e, arr, index)
                    raise self.error(
                        "index arrays (NumPy's advanced indexing) are supported as 1-D integer "
                        "arrays side by side (x[idx], a[:, idx], a[idx, jdx], also assigned "
                        "to), one integer array of more dimensions alone and read (lut[img]), "
                        "or one boolean mask of the shape of the array indexed (a[a < 0] = 0, "
                        "a[i][a[i] < 0] = 0); loop over the indices instead", index)
                if not is_int(index.type):
                    raise self.error(f"array indices must be integers, got {index.type}", index)
                indices.append(cast(index, INT64))
        named = sum(not isinstance(i, ir.NewAxis) for i in indices)
        if named > arr.type.ndim:
            raise self.error(f"too many indices: the array has {arr.type.ndim} dimension(s)", e)
        self.refuse_split_gathers(indices, e)
        # The index arrays broadcast together into one dimension.
        kept = sum(isinstance(i, (ir.Slice, ir.NewAxis)) for i in indices) + any(
            isinstance(i.type, Array) for i in indices if not isinstance(i, (ir.Slice, ir.NewAxis)))
        return ir.View(arr, indices, e.loc, shaped(arr.type.dtype, kept + arr.type.ndim - named))

    def gather_shaped(self, e, arr, index):
        """`lut[img]`, `colors[labels]` with an index array of several dimensions: NumPy's
        result has the index array's shape (then the array's other dimensions); read as the
        gather of the index array's elements in C order, reshaped."""
        if not isinstance(index, ir.Name) or not (isinstance(arr, ir.Name) or
                                                  arr.type.ndim == 1):
            raise self.error("an index array of more than one dimension is supported as "
                             "a[idx] of array variables (or of a 1-D array's expression, "
                             "np.linspace(a, b, n)[idx]); bind the arrays to names first", e)
        flat = self.expr(ir.ArrayCall("ravel", [index], {}, e.loc))
        gathered = ir.View(arr, [flat], e.loc, Array(arr.type.dtype, arr.type.ndim))
        dims = [ir.ArrayAttr(ir.Name(x.id, e.loc), "shape", k, e.loc)
                for x, ks in ((index, range(index.type.ndim)), (arr, range(1, arr.type.ndim)))
                for k in ks]
        return self.expr(ir.ArrayCall("reshape", [gathered] + dims, {}, e.loc))

    def refuse_split_gathers(self, indices, e):
        """Index arrays with other integer indices or index arrays on both sides of a slice (or
        None): NumPy then puts their dimension first (a[0, :, idx] has the shape
        (len(idx), a.shape[1])), which compiled code does not."""
        advanced = [k for k, i in enumerate(indices) if not isinstance(i, (ir.Slice, ir.NewAxis))]
        if any(isinstance(indices[k].type, Array) for k in advanced) and \
                advanced and advanced[-1] - advanced[0] + 1 != len(advanced):
            raise self.error(
                "index arrays with integer indices or other index arrays on both sides of a "
                "slice or None are not supported: NumPy puts the indexed dimension first there "
                "(a[0, :, idx] is a[0][:, idx].T); index in two steps", e)

    def expr_View(self, e):           # typed already (an in-place target read again)
        return e

    def expr_Masked(self, e):
        return e

    def expr_ArrayAttr(self, e):
        arr = self.expr(e.array)
        if not isinstance(arr.type, Array) and arr.id.startswith("__seq"):
            raise self.error(f"a for loop iterates over ranges and arrays; this is "
                             f"{shown_type(arr.type)}", e)
        if not isinstance(arr.type, Array):
            raise self.error(f"'{arr.id}' is not an array", e)
        if e.attr == "ndim":
            return ir.Const(arr.type.ndim, e.loc, PY_INT)
        if e.attr == "shape" and e.dim is None:     # the shape tuple as a value
            items = [ir.ArrayAttr(arr, "shape", k, e.loc, PY_INT) for k in range(arr.type.ndim)]
            return ir.TupleValue(items, e.loc, TupleType((PY_INT,) * arr.type.ndim))
        if e.attr == "shape":
            ndim = arr.type.ndim
            if not -ndim <= e.dim < ndim:
                raise self.error(f"'{arr.id}' has {ndim} dimension(s); shape index {e.dim} is "
                                 "out of range", e)
            e.dim %= ndim
        e.type = PY_INT
        return e

    def expr_Cast(self, e):
        e.value = self.expr(e.value)
        return e

    def expr_Call(self, e):
        if e.func == "np.round":
            return self.rounded(e)
        if e.func == "round":
            return self.builtin_round(e)
        if e.func in ("sum", "any", "all"):
            return self.builtin_reduction(e)
        args = [self.expr(a) for a in e.args]
        for a in args:
            if a.type is None:
                raise self.error("this call returns no value", a)
        if e.func.startswith("np.") and e.func[3:] in ELEMENTWISE_RULES:
            return self.elementwise(e, args)
        if any(isinstance(a.type, Array) for a in args):
            if e.func in ("abs",) or (e.func.startswith("np.") and e.func[3:] in NUMPY_MATH):
                return self.elementwise(e, args)
            what = {"min": "np.minimum or np.min", "max": "np.maximum or np.max"}.get(
                e.func, f"np.{e.func.split('.')[-1]}")
            raise self.error(f"{e.func}() takes scalars; for arrays use {what}", e)
        name = e.func
        if name.startswith("cast:"):
            if len(args) != 1:
                raise self.error(f"{name[5:]}() takes one value", e)
            # int() and float() give Python scalars, weak in NEP 50; np.int64() etc. do not.
            python = {"int": "int64", "float": "float64", "bool": "bool",
                      "complex": "complex128"}
            dtype = python.get(name[5:], name[5:])
            if not is_complex(Scalar(dtype)) and dtype != "bool":
                self.refuse_complex(args, f"{name[5:]}()", e)
            e.args, e.type = args, Scalar(dtype, weak=name[5:] in ("int", "float", "complex"))
            return e
        if name == "complex":
            return self.complex_from_parts(e, args)
        if name in ("min", "max"):
            if len(args) < 2:
                raise self.error(f"{name}() needs two or more scalar arguments", e)
            self.refuse_complex(args, f"{name}()", e)
            t = self.promote(args, e)
            e.args, e.type = [cast(a, t) for a in args], t
            return e
        if name == "abs":
            self.arity(e, args, 1)
            a = _bool_as_int(args[0])
            e.args, e.type = [a], real_part(a.type)
            return e
        module, _, func = name.partition(".")
        self.arity(e, args, 2 if func in ("atan2", "pow", "hypot") else 1)
        if module == "cmath":
            # cmath computes in complex double and returns a Python complex (phase: a float).
            e.args = [cast(a, Scalar("complex128")) for a in args]
            e.func = "np.angle" if func == "phase" else "np." + func
            e.type = Scalar("float64" if func == "phase" else "complex128", weak=True)
            return e
        if module == "math":
            self.refuse_complex(args, f"math.{func}", e)
            # The math module computes in double and returns a Python float (int for floor/ceil).
            e.args = [cast(a, FLOAT64) for a in args]
            e.type = PY_INT if func in MATH_TO_INT else Scalar("float64", weak=True)
            return e
        resolved = resolve(NUMPY_MATH[func], [_bool_as_int(a).type for a in args])
        if resolved is None:
            raise self.error(f"np.{func} is not defined for {', '.join(str(a.type) for a in args)}",
                             e)
        inputs, out = resolved
        if is_complex(out) and func not in COMPLEX_FUNCTIONS:
            self.refuse_complex(args, f"np.{func}", e)
        e.args = [cast(a, t) for a, t in zip(args, inputs)]
        e.type = Scalar(out.dtype)
        return e

    def complex_from_parts(self, e, args):
        """complex(x) or complex(x, y) of real numbers: a Python complex."""
        if not 1 <= len(args) <= 2:
            raise self.error("complex() takes the real part and, optionally, the imaginary "
                             "part", e)
        self.refuse_complex(args, "complex() of complex parts", e)
        t = Scalar("complex128", weak=True)
        e.args = [cast(a, FLOAT64) for a in args]
        if len(args) == 1:
            return ir.Call("cast:complex128", e.args, e.loc, t)
        # x + y*1j, exactly: the parts are stored, not computed (y*1j would give nan parts
        # for an infinite y).
        e.type = t
        return e

    def builtin_round(self, e):
        """Python's `round(x)` of a real scalar: an int, the nearest to x, halves to even
        (np.rint), OverflowError and ValueError for inf and nan as int() raises them."""
        if len(e.args) != 1:
            raise self.error("round(x, ndigits) is not supported in compiled code: "
                             "np.round(x, ndigits) rounds as NumPy does (its last digit may "
                             "differ from Python's round)", e)
        x = self.expr(e.args[0])
        if x.type is None or isinstance(x.type, (Array, TupleType)):
            raise self.error("round() takes a number here; for arrays use np.round(a)", e)
        self.refuse_complex([x], "round()", e)
        if is_float(x.type):
            x = self.elementwise(ir.Call("np.rint", [x], e.loc), [x])
        return ir.Call("cast:int", [x], e.loc, Scalar("int64", weak=True))

    def rounded(self, e):
        """`np.round(x, decimals)` as NumPy computes it: np.rint(x) for 0 decimals, else
        np.rint(x * 10.0**d) / 10.0**d (for d < 0, / then *), the factor a Python float (weak:
        float32 stays float32); integers are themselves for d >= 0."""
        x, decimals = self.expr(e.args[0]), e.args[1]
        if not (isinstance(decimals, ir.Const) and type(decimals.value) is int):
            raise self.error("the decimals of np.round() must be an integer literal in "
                             "compiled code", decimals)
        d = decimals.value
        t = element_type(x.type)
        if is_complex(t):
            raise self.error("np.round() of complex values is not supported; round z.real and "
                             "z.imag", e)
        if not is_float(t):
            if d < 0:
                raise self.error("np.round() of integers to negative decimals is not supported; "
                                 "write (x // 10**k) * 10**k with the rounding you want", e)
            return self.expr(ir.ArrayCall("copy", [x], {}, e.loc)) if isinstance(
                x.type, Array) else x
        if d == 0:
            return self.elementwise(ir.Call("np.rint", [x], e.loc), [x])
        first, then = ("*", "/") if d > 0 else ("/", "*")
        scaled = self.binop(ir.BinOp(first, x, self.expr(ir.Const(10.0 ** abs(d), e.loc)), e.loc))
        rounded = self.elementwise(ir.Call("np.rint", [scaled], e.loc), [scaled])
        return self.binop(ir.BinOp(then, rounded, self.expr(ir.Const(10.0 ** abs(d), e.loc)),
                                   e.loc))

    def elementwise(self, e, args):
        """A NumPy function applied to each element (arrays broadcast; scalars give a scalar),
        with NumPy's dtype for it."""
        func = e.func.split(".")[-1]
        func = {"abs": "abs"}.get(func, func)
        rule = ELEMENTWISE_RULES.get(func) or NUMPY_MATH.get(func)
        arity = {"where": 3, "clip": 3}.get(func, rule.nin if hasattr(rule, "nin") else 1)
        self.arity(e, args, arity)
        ndim = ndim_of(args)
        if func == "where":
            cond, x, y = args
            t = resolve(UFUNCS["+"], [element_type(x.type), element_type(y.type)])[1]
            e.args = [cast(cond, BOOL), cast(x, t), cast(y, t)]
            e.type = shaped(t.dtype, ndim) if ndim else Scalar(t.dtype)
            return e
        if func in ("real", "imag", "angle"):
            t = element_type(args[0].type)
            out = real_part(t) if func != "angle" else resolve(np.arctan2, [real_part(t)] * 2)[1]
            e.args, e.type = args, shaped(out.dtype, ndim) if ndim else Scalar(out.dtype)
            return e
        if func == "clip":
            self.refuse_complex(args, "np.clip", e)
            resolved = resolve(np.minimum, [element_type(args[0].type),
                                            element_type(args[1].type)])
            t = resolve(np.minimum, [resolved[1], element_type(args[2].type)])[1]
            e.args = [cast(a, t) for a in args]
            e.type = shaped(t.dtype, ndim) if ndim else Scalar(t.dtype)
            return e
        operands = [element_type(a.type) for a in args]
        if func == "abs" and is_bool(operands[0]):
            operands = [Scalar("bool")]
        resolved = resolve(rule, operands)
        if resolved is None:
            raise self.error(f"np.{func} is not defined for "
                             f"{', '.join(str(a.type) for a in args)}", e)
        inputs, out = resolved
        if any(is_complex(t) for t in inputs) and func not in COMPLEX_FUNCTIONS:
            self.refuse_complex(args, f"np.{func}", e)
        e.args = [cast(a, t) for a, t in zip(args, inputs)]
        if e.func == "abs":
            e.func = "np.abs"
        e.type = shaped(out.dtype, ndim) if ndim else Scalar(out.dtype)
        return e

    def arity(self, e, args, n):
        if len(args) != n:
            raise self.error(f"{e.func}() takes {n} argument(s), got {len(args)}", e)

    def expr_CallCompiled(self, e):
        signatures = self.signatures[e.func]
        n = len(signatures[0].params)
        if len(e.args) != n:
            raise self.error(f"{e.func}() takes {n} argument(s), got {len(e.args)}", e)
        args = [self.argument(arg) for arg in e.args]
        try:
            chosen = choose_signature(e.func, signatures, args)
        except NoSignature as why:
            raise self.error(str(why), e)
        for arg, p in zip(args, chosen.params):
            if isinstance(p, Scalar) and p.weak and not (isinstance(arg.type, Scalar)
                                                         and arg.type.weak):
                raise self.error(f"{e.func}() compiles only for a Python scalar here (its "
                                 f"types hold only for a value weak in NEP 50); this is a "
                                 f"NumPy {arg.type}: pass a Python value (float(x), int(x))",
                                 arg)
        for arg, p in zip(args, chosen.params):
            if isinstance(arg.type, Array) and isinstance(p, Scalar):
                # (Numba's @vectorize applies a scalar function to each element; the
                # interpreter runs the body on the whole array)
                raise self.error(
                    f"{e.func}() is declared for a {p} here and is given an array, {arg.type}: a "
                    f"compiled function runs its body on what it is given, as the interpreter "
                    f"does, so declare a signature that takes the array too (several "
                    f"@unpython.type lines: the body then computes on the whole array, with "
                    f"np.exp, np.where, ... where it uses math.exp or an if), or call it on "
                    f"each element in a loop", arg)
        args = [lists.given(self, arg, p) if isinstance(p, ListType) else arg
                for arg, p in zip(args, chosen.params)]
        e.args = [self.converted(arg, p, f"argument of {e.func}()")
                  for arg, p in zip(args, chosen.params)]
        e.func, e.type = chosen.name, chosen.ret    # the chosen signature's own function
        return e

    def argument(self, arg):
        """An argument of a compiled function, typed: a dtype parameter passes on as itself
        (a dtype known while compiling)."""
        if lists.is_list(self, arg):
            return lists.passed(self, arg)
        if isinstance(arg, ir.Name) and isinstance(self.vars.get(arg.id), DtypeType):
            self.dtype_parameter(arg)
            return arg
        return self.expr(arg)

    def expr_ArrayCall(self, e):
        return type_array_call(self, e)

    def expr_ListNew(self, e):
        raise self.error(f"a list is bound to a name in compiled code (out = [], then "
                         f"out.append(v)); {lists.USES}; for an array of values write "
                         "np.array([a, b, c])", e)

    def expr_ListAppend(self, e):
        return lists.appended(self, e)

    def expr_ListLen(self, e):
        return lists.length(self, e)

    def expr_ListPop(self, e):
        return lists.popped(self, e)

    def expr_ListInsert(self, e):
        return lists.inserted(self, e)

    def expr_Print(self, e):
        """print() of scalars and arrays: no value; not in a prange, whose iterations print in
        any order."""
        if self.in_prange:
            raise self.error("print() inside a prange is not supported: its iterations run in "
                             "any order; keep the values in an array and print it after the "
                             "loop", e)
        e.args = [self.expr(a) for a in e.args]
        for a in e.args:
            if a.type is None:
                raise self.error("this call returns no value", a)
            if isinstance(a.type, (TupleType, DtypeType)):
                raise self.error(f"print() of a {a.type} is not supported in compiled code; "
                                 "print its items", a)
        e.type = None
        return e

    def builtin_reduction(self, e):
        """Python's sum(a[, start]), any(a) and all(a) of a 1-D array: they walk its elements,
        as np.sum, np.any and np.all do (sum adds `start`, 0 by default, which keeps the
        array's dtype as NumPy's scalar + int does; its additions may be grouped otherwise, as
        a prange reduction's are). Of an array of more dimensions they walk its rows: refused
        with what to write."""
        most = 2 if e.func == "sum" else 1
        if not 1 <= len(e.args) <= most:
            takes = "an array and a start value" if e.func == "sum" else "one array"
            raise self.error(f"{e.func}() takes {takes} in compiled code", e)
        array = self.expr(copy.deepcopy(e.args[0]))      # its type only: typed again below
        if not isinstance(array.type, Array):
            raise self.error(f"{e.func}() takes an array in compiled code (a generator or a "
                             "list is not supported: write the loop, or an array expression)",
                             e)
        if array.type.ndim != 1:
            numpy = f"np.{e.func}(a, axis=0)" if e.func == "sum" else f"np.{e.func}(a)"
            raise self.error(f"{e.func}() of a {array.type.ndim}-D array walks its rows; write "
                             f"{numpy}", e)
        reduced = ir.ArrayCall(e.func, [e.args[0]], {}, e.loc)
        return self.expr(reduced if len(e.args) == 1 else ir.BinOp("+", e.args[1], reduced,
                                                                    e.loc))

    def shape_dims(self, shape, node):
        """A shape argument (expressions, `a.shape` as one ArrayAttr without a dimension) as
        int64 expressions, one per dimension."""
        dims = []
        for d in shape if isinstance(shape, list) else [shape]:
            if isinstance(d, ir.ArrayAttr) and d.attr == "shape" and d.dim is None:
                arr = self.expr(d.array)
                if not isinstance(arr.type, Array):
                    raise self.error(f"'{arr.id}' is not an array", d)
                dims += [ir.ArrayAttr(arr, "shape", k, d.loc, PY_INT)
                         for k in range(arr.type.ndim)]
                continue
            d = self.expr(d)
            for item in self.tuple_items(d) if isinstance(d.type, TupleType) else [d]:
                if not is_int(item.type):
                    raise self.error(f"array dimensions must be integers, got {item.type}", d)
                dims.append(cast(item, INT64))
        if not dims:
            raise self.error("arrays need at least one dimension in compiled code", node)
        return dims

    def expr_AllocArray(self, e):
        e.shape = self.shape_dims(e.shape, e)
        e.type = Array(e.dtype, len(e.shape))
        return e


def _bool_as_int(e):
    if is_bool(e.type):
        return ir.Cast(e, e.loc, Scalar("int64", e.type.weak))
    return e


def is_ellipsis(index) -> bool:
    """`...` in an index, as the frontend leaves it (a constant) for expand_ellipsis."""
    return isinstance(index, ir.Const) and index.value is Ellipsis


def _arithmetic_bools(left, right):
    """The operands of scalar arithmetic, a bool among them as `_number` takes it."""
    if _number(left.type, right.type) is left.type and _number(right.type, left.type) \
            is right.type:
        return left, right
    return _bool_as_int(left), _bool_as_int(right)


def _number(t, other):
    """The type a scalar of type `t` takes in arithmetic with one of type `other`, as NumPy 2
    promotes: a NumPy bool (an element of a bool array, a comparison of NumPy values) with a
    NumPy number stays a bool, which takes the number's dtype (`np.True_ - np.int32(1)` is
    int32, `np.True_ * np.float32(2)` float32), and two NumPy bools follow NumPy's loops
    (`+` is `or`, `*` is `and`, `-` is refused, `//` gives int8); a Python bool, or a bool
    with a Python number, counts as a Python int (True + True == 2)."""
    if not is_bool(t):
        return t
    if not t.weak and isinstance(other, Scalar) and not other.weak:
        return t
    return Scalar("int64", t.weak)


def _is_python_int(t):
    return isinstance(t, Scalar) and t.weak and t.dtype == "int64"


PYTHON_VALUE = {"bool": False, "int64": 0, "float64": 0.0, "complex128": 0j}    # a weak type's Python value


def _const_value(e):
    return e.value if isinstance(e, ir.Const) else None


def _copy_target(t):
    return copy.deepcopy(t)


def falls_through(body) -> bool:
    """Whether running `body` may reach its end (a conservative answer: its last statement is
    no return, raise, or if of which both branches end so)."""
    last = body[-1] if body else None
    if isinstance(last, (ir.Return, ir.Raise)):
        return False
    if isinstance(last, ir.If):
        return falls_through(last.body) or falls_through(last.orelse)
    return True


def infer_function(fn: ir.Function, signatures: dict, errors):
    """Types `fn` in place. A local first bound to a Python scalar and later to a NumPy scalar
    is typed again from the start with the NumPy type (the interpreter's type from that
    assignment on; the weak value before it converts exactly or as NEP 50 converts it)."""
    strengthened, list_items = {}, {}
    for _ in range(64):
        attempt = ir.copy_tree(fn)
        inference = TypeInference(attempt, signatures, errors, strengthened, list_items)
        try:
            inference.run()
        except CompileError as e:
            # (the names typed as lists so far: the frontend lowers them again as lists,
            # pipeline.compile_function)
            listed = {k for k, t in inference.vars.items() if isinstance(t, ListType)}
            e.list_names = listed | {k for k, now in inference.renamed.items() if now in listed}
            if inference.strengthened != strengthened:
                # (a local first bound to a Python number took a NumPy one later: typed again
                # from the start with it, as on success)
                strengthened = inference.strengthened
                continue
            if not inference.guessed:
                raise
            # A list read before the values it takes appear in the code, its items guessed
            # wrong: their types from a run that skips the statements it cannot type.
            values = TypeInference(ir.copy_tree(fn), signatures, errors, strengthened,
                                   list_items, tolerant=True)
            values.run()
            if values.list_items == list_items:
                raise
            list_items = values.list_items
            continue
        if inference.strengthened == strengthened and inference.list_items == list_items:
            fn.__dict__.update(attempt.__dict__)
            return fn
        strengthened, list_items = inference.strengthened, inference.list_items
    raise AssertionError(f"the types of {fn.name}'s locals do not settle")
