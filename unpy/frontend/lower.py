"""Lower the gast of a decorated function to the (untyped) IR. Everything outside the accepted
subset (SPEC section 3) is refused here with its location."""
from __future__ import annotations

import contextlib
import copy
import inspect

import gast
import numpy as np

from unpy import ir
from unpy.frontend.constants import LIBRARY_CONSTANTS, NotConstant
from unpy.frontend.discover import (Decorated, ModuleSource, collect_imports, dtype_named,
                                   loc_of, qualified_name)

BINOPS = {gast.Add: "+", gast.Sub: "-", gast.Mult: "*", gast.Div: "/", gast.FloorDiv: "//",
          gast.Mod: "%", gast.Pow: "**", gast.BitAnd: "&", gast.BitOr: "|", gast.BitXor: "^",
          gast.LShift: "<<", gast.RShift: ">>", gast.MatMult: "@"}
CMPOPS = {gast.Lt: "<", gast.LtE: "<=", gast.Gt: ">", gast.GtE: ">=", gast.Eq: "==",
          gast.NotEq: "!="}
UNARYOPS = {gast.USub: "-", gast.UAdd: "+", gast.Not: "not", gast.Invert: "~"}

MATH_FUNCS = {"sqrt", "exp", "log", "log10", "sin", "cos", "tan", "asin", "acos", "atan",
              "atan2", "sinh", "cosh", "tanh", "floor", "ceil", "fabs", "pow", "hypot"}
MATH_ONLY = {"erf", "erfc", "gamma", "lgamma"}      # math functions NumPy does not have
NUMPY_ALIASES = {"arcsin": "asin", "arccos": "acos", "arctan": "atan", "arctan2": "atan2",
                 "power": "pow", "absolute": "abs", "abs": "abs", "conj": "conjugate"}
# cmath functions (complex in, complex out; phase gives a float).
CMATH_FUNCS = {"sqrt", "exp", "log", "log10", "sin", "cos", "tan", "sinh", "cosh", "tanh",
               "phase"}
SCALAR_CASTS = {"bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
                "uint64", "float32", "float64", "single", "double", "intc", "intp", "float_",
                "bool_", "byte", "ubyte", "short", "ushort", "longlong", "ulonglong", "complex64",
                "complex128", "csingle", "cdouble"}
ALLOCATORS = {"numpy.zeros": "zeros", "numpy.empty": "empty", "numpy.ones": "ones"}
# NumPy's ufuncs of Python's operators, written as functions (np.add(a, b) is a + b).
OPERATOR_UFUNCS = {"add": "+", "subtract": "-", "multiply": "*", "divide": "/",
                   "true_divide": "/", "floor_divide": "//", "remainder": "%", "mod": "%",
                   "bitwise_and": "&", "bitwise_or": "|", "bitwise_xor": "^",
                   "left_shift": "<<", "right_shift": ">>"}
COMPARE_UFUNCS = {"less": "<", "less_equal": "<=", "greater": ">", "greater_equal": ">=",
                  "equal": "==", "not_equal": "!="}
# ufuncs whose `.at(a, indices, values)` (unbuffered, in place) compiles: the IR operator or
# element-wise function of each.
UNBUFFERED_UFUNCS = {"add": "+", "subtract": "-", "multiply": "*", "maximum": "np.maximum",
                     "minimum": "np.minimum", "bitwise_or": "|", "bitwise_and": "&",
                     "bitwise_xor": "^"}
# Element-wise NumPy functions beyond the math ones (IR name 'np.<name>').
ELEMENTWISE = {"where", "minimum", "maximum", "fmin", "fmax", "clip", "isnan", "isinf",
               "isfinite", "sign", "square", "log1p", "expm1", "log2", "exp2", "cbrt",
               "logical_and", "logical_or", "logical_not", "logical_xor", "negative", "positive",
               "reciprocal", "degrees", "radians", "rint", "trunc", "copysign", "conjugate",
               "real", "imag", "angle", "arcsinh", "arccosh", "arctanh", "deg2rad", "rad2deg"}
# Element-wise NumPy functions that are others under another name.
ELEMENTWISE_ALIASES = {"deg2rad": "radians", "rad2deg": "degrees"}
# NumPy functions on whole arrays (ir.ArrayCall), by NumPy name -> IR name.
ARRAY_FUNCTIONS = {name: name for name in (
    "sum", "prod", "mean", "std", "var", "argmin", "argmax", "any", "all", "dot", "matmul",
    "outer", "vdot", "inner", "zeros_like", "empty_like", "ones_like", "full_like", "full", "copy",
    "arange", "linspace", "eye", "identity", "transpose", "reshape", "ravel", "trace", "cumsum",
    "max", "min", "concatenate", "hstack", "vstack", "triu", "tril", "roll", "diff",
    "sort", "argsort", "bincount", "stack", "column_stack", "cumprod", "expand_dims", "diag")}
ARRAY_FUNCTIONS.update({"maximum.accumulate": "cummax", "minimum.accumulate": "cummin",
                        "amax": "max", "amin": "min", "array": "copy", "asarray": "asarray",
                        "ascontiguousarray": "copy", "linalg.norm": "norm", "flip": "flip",
                        "fliplr": "fliplr", "flipud": "flipud"})
ARRAY_FUNCTIONS.update({f"linalg.{name}": name for name in ("solve", "inv", "cholesky", "det",
                                                            "eigh")})
ARRAY_FUNCTIONS.update({"cov": "cov", "histogram": "histogram", "interp": "interp",
                        "searchsorted": "searchsorted", "polyval": "polyval",
                        "meshgrid": "meshgrid", "repeat": "repeat", "tile": "tile",
                        "nonzero": "nonzero", "flatnonzero": "flatnonzero",
                        "argwhere": "argwhere"})
ARRAY_FUNCTIONS.update({name: name for name in ("nanprod", "nanmean", "nanvar", "nanstd",
                                                 "nanmax", "nanmin", "quantile", "percentile",
                                                 "convolve", "unique", "einsum",
                                                 "nanmedian", "nanquantile", "nanpercentile",
                                                 "take_along_axis", "average", "digitize",
                                                 "cross", "pad")})
# The modules whose functions compiled code calls through Python (typeinfer/python_calls.py).
CALLED_THROUGH_PYTHON = ("numpy.random.", "random.", "time.")
# The exceptions compiled code raises (`raise ValueError("why")`, `assert`).
RAISED = ("ValueError", "IndexError", "TypeError", "RuntimeError", "ZeroDivisionError",
          "OverflowError", "AssertionError")
# What to write instead of an expression compiled code does not have, by its gast class.
UNSUPPORTED_EXPRESSIONS = {
    "Dict": "index arrays by integers instead (a lookup table as an array), or call it outside",
    "Set": "mark the values in a boolean array (seen[v] = True), or use np.unique",
    "Lambda": "bind it to a name and call that (f = lambda x: 1 - x * x; f(a)), or define "
              "the function at module level with @unpython.type and call it",
    "JoinedStr": "format the text outside the compiled function",
}
# NumPy functions whose dtype may be given by position (np.full(n, v, np.float32)): the index
# of that argument in NumPy's signature. It becomes the dtype= keyword.
DTYPE_POSITION = {"full": 2, "full_like": 2, "zeros_like": 1, "ones_like": 1, "empty_like": 1,
                  "array": 1, "asarray": 1, "ascontiguousarray": 1, "identity": 1, "arange": 3}
# Methods of arrays (ir.ArrayCall with the array first).
ARRAY_METHODS = {"sum", "prod", "mean", "std", "var", "argmin", "argmax", "any", "all", "dot",
                 "copy", "transpose", "reshape", "ravel", "flatten", "max", "min", "astype",
                 "trace", "cumsum", "cumprod", "fill", "argsort", "sort", "clip", "round",
                 "searchsorted", "repeat", "nonzero"}


def numpy_function(name: str):
    """NumPy's function `name` ('var', 'linalg.norm'), whose signature names its parameters;
    None where NumPy has none of that name."""
    found = np
    for part in name.split("."):
        found = getattr(found, part, None)
    return found if callable(found) else None


def ufunc_arity(name: str):
    """How many inputs the NumPy ufunc `name` takes (NumPy's own `nin`; np.clip's 3), before
    an output array by position; None: it takes none by position."""
    ufunc = getattr(np, name, None)
    return ufunc.nin if isinstance(ufunc, np.ufunc) else {"clip": 3}.get(name)


QUANTILES = ("quantile", "percentile", "nanquantile", "nanpercentile")


def quantile_q(e):
    """The q of a call of one of QUANTILES (its second argument, or q=), or None."""
    if len(e.args) > 1:
        return e.args[1]
    return next((k.value for k in e.keywords if k.arg == "q"), None)


def builtin_name(qualified: str):
    """The IR name of a builtin call ('math.sqrt', 'np.sqrt', 'abs', 'cast:float32'), or None."""
    if qualified in ("abs", "min", "max", "sum", "any", "all", "round"):
        return qualified
    if qualified in ("int", "float", "bool"):
        return "cast:" + qualified          # Python's int()/float()/bool(): typeinfer knows
    if qualified == "complex":
        return "complex"
    head, _, tail = qualified.rpartition(".")
    if head == "cmath" and tail in CMATH_FUNCS:
        return "cmath." + tail
    head, _, tail = qualified.rpartition(".")
    if head == "math" and (tail in MATH_FUNCS or tail in MATH_ONLY):
        return "math." + tail
    if head == "math" and tail in ("isnan", "isinf", "isfinite"):
        return "np." + tail     # of a real scalar: the same truth
    if head == "numpy":
        tail = NUMPY_ALIASES.get(tail, tail)
        if tail in MATH_FUNCS or tail == "abs":
            return "np." + tail
        if tail in SCALAR_CASTS:
            import numpy
            return "cast:" + numpy.dtype(tail).name
    return None


class Lowering:
    """Lowers one function. `names` tracks parameters and assigned locals to tell a local from
    an unknown global."""

    def __init__(self, module: ModuleSource, decorated: Decorated, compiled_names: set,
                 list_names=frozenset()):
        self.module = module
        self.errors = module.errors
        self.fn = decorated.node
        self.compiled_names = compiled_names
        # The module's imports, and those of the function itself (`import numpy as np` in its
        # body binds np everywhere in it, as Python's scoping does).
        local = collect_imports(gast.Module(body=[n for n in gast.walk(self.fn) if isinstance(
            n, (gast.Import, gast.ImportFrom))], type_ignores=[]))
        self.imports = {**module.imports, **local}
        self.temp_count = 0
        # Names the function assigns are its locals everywhere in it (Python's scoping).
        self.assigned = {n.id for n in gast.walk(self.fn)
                         if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store)}
        self.assigned |= {a.id for a in self.fn.args.args}
        # Names bound to a list (`out = []`; `list_names`: parameters declared 'list[float64]',
        # names typeinfer found lists, as `row` of `for row in m`): `np.array(out)`, `sum(out)`
        # and `len(out)` read the list (typeinfer checks that it is one there).
        self.lists = set(list_names)
        while True:         # (`out = l + r` is a list where l and r are)
            found = {t.id for n in gast.walk(self.fn) if isinstance(n, gast.Assign)
                     and self.makes_list(n.value)
                     for t in n.targets if isinstance(t, gast.Name)}
            if found <= self.lists:
                break
            self.lists |= found
        # The statements a statement's generator reductions (`sum(x * x for x in a)`) run
        # first (`generator_reduction`), and whether an expression is evaluated only on a
        # condition (a branch of `x if c else y`, an operand of and/or after the first).
        self.hoisted = None
        self.conditional = 0
        # `f = lambda x: ...`, bound once to a name and only called: inlined at each call
        # (`lambda_call`); name -> the Lambda node, from its assignment on.
        self.lambdas = {}
        self.inlining = 0
        self.in_prange = 0          # how many prange loops hold the statement lowered
        # `f = a.flat`, bound once: each read of f is `a.flat` (`flat_aliases`).
        self.flat_aliases = self.flat_bindings()
        if self.flat_aliases:
            self.fn = _FlatAliased(self.flat_aliases).visit(copy.deepcopy(self.fn))

    def error(self, message, node):
        return self.errors.error(message, loc_of(node))

    def qualified(self, node):
        return qualified_name(node, self.imports)

    # --- statements ---------------------------------------------------------------------

    def body(self, stmts):
        out = []
        for s in stmts:
            if isinstance(s, gast.Expr) and isinstance(s.value, gast.Constant) \
                    and isinstance(s.value.value, str):
                continue        # a docstring, or a string as a comment (Pythran's OpenMP ones)
            if isinstance(s, (gast.Import, gast.ImportFrom)):
                continue        # its names are the function's imports (`__init__`)
            out.extend(self.stmt(s))
        return out

    def stmt(self, s):
        """The statements of `s`: those its generator reductions run first, then its own."""
        outer, self.hoisted = self.hoisted, []
        try:
            lowered = self.statement(s)
            return self.hoisted + lowered
        finally:
            self.hoisted = outer

    def statement(self, s):
        loc = loc_of(s)
        if isinstance(s, (gast.For, gast.While)) and s.orelse:
            return self.loop_else(s)
        if isinstance(s, gast.Assign):
            return self.assign(s)
        if isinstance(s, gast.AugAssign):
            op = BINOPS.get(type(s.op))
            if op is None:
                raise self.error("unsupported augmented assignment operator", s)
            return [ir.AugAssign(self.target(s.target), op, self.expr(s.value), loc)]
        if isinstance(s, gast.AnnAssign):
            raise self.error("annotated assignments are not supported; declare the type with "
                             "@unpython.locals(name='type')", s)
        if isinstance(s, gast.For):
            return self.for_loop(s)
        if isinstance(s, gast.While):
            test = self.expr(s.test)
            if self.hoisted:
                raise self.error("a generator expression in a while condition is not "
                                 "supported (nor the shape of a computed array): compute it "
                                 "into a variable before the loop and at the end of its body",
                                 s.test)
            return [ir.While(test, self.body(s.body), loc)]
        if isinstance(s, gast.If):
            return [ir.If(self.expr(s.test), self.body(s.body), self.body(s.orelse), loc)]
        if isinstance(s, gast.Break):
            return [ir.Break(loc)]
        if isinstance(s, gast.Continue):
            return [ir.Continue(loc)]
        if isinstance(s, gast.Pass):
            return [ir.Pass(loc)]
        if isinstance(s, gast.FunctionDef):
            return self.nested_function(s)
        if isinstance(s, gast.Return):
            bare = s.value is None or (isinstance(s.value, gast.Constant) and
                                       s.value.value is None)      # `return None` too
            if s.value is not None and self.makes_list(s.value):
                # `return []`, `return [e for ...]`: the list, made first, returned
                return [ir.Return(ir.Name(self.list_named(s.value), loc), loc)]
            return [ir.Return(None if bare else self.expr(s.value), loc)]
        if isinstance(s, gast.Raise):
            return [self.raised(s.exc, s)]
        if isinstance(s, gast.Assert):
            # (always checked: compiled code has no `python -O`)
            return [ir.If(ir.UnaryOp("not", self.expr(s.test), loc),
                          [self.raised(s.msg, s, "AssertionError")], [], loc)]
        if isinstance(s, gast.Expr) and isinstance(s.value, gast.Call) and \
                self.qualified(s.value.func) == "numpy.copyto":
            return self.copyto(s.value)
        if isinstance(s, gast.Expr):
            given = self.ufunc_out(s.value) if isinstance(s.value, gast.Call) else None
            if given is not None:
                # np.multiply(z, z, z), np.exp(x, out=x): out[...] = the ufunc's value
                out, call = given
                return [ir.Assign(ir.Subscript(self.expr(out), [ir.Const(Ellipsis, loc)], loc),
                                  self.expr(call), loc)]
            if isinstance(s.value, gast.Call):
                value = self.expr(s.value)
                if isinstance(value, ir.CallCompiled) or (isinstance(value, ir.ArrayCall) and (
                        value.func in ("fill", "ufunc_at") or "in_place" in value.keywords
                        or value.func.startswith(CALLED_THROUGH_PYTHON))) \
                        or isinstance(value, (ir.Print, ir.ListAppend, ir.ListPop,
                                              ir.ListInsert)):
                    return [ir.ExprStmt(value, loc)]
            raise self.error("this expression statement has no effect in compiled code; only "
                             "calls to compiled functions may stand alone", s)
        what = type(s).__name__
        raise self.error(f"'{what}' statements are not supported in compiled functions", s)

    def raised(self, exc, s, kind=None) -> ir.Raise:
        """`raise E("message")` (E one of RAISED, the message a string literal or left out),
        or an assert's message (`kind` AssertionError, `exc` its message or None)."""
        message = exc
        if kind is None:
            call = exc if isinstance(exc, gast.Call) else None
            kind = self.qualified(call.func if call else exc) if exc is not None else None
            if kind not in RAISED:
                raise self.error("compiled code raises " + ", ".join(RAISED) + " (`raise "
                                 "ValueError('why')`); raise others outside, and a bare "
                                 "`raise` is not supported", exc if exc is not None else s)
            if call is not None and (call.keywords or len(call.args) > 1):
                raise self.error(f"{kind}(...) takes one message here, a string literal", call)
            message = call.args[0] if call is not None and call.args else None
        if message is not None and not (isinstance(message, gast.Constant) and
                                        isinstance(message.value, str)):
            raise self.error("the message of a raised exception must be a string literal in "
                             "compiled code (no f-string or variable)", message)
        return ir.Raise(kind, message.value if message is not None else "", loc_of(s))

    def copyto(self, e):
        """`np.copyto(dst, src)`: `dst[...] = src` (NumPy's same_kind casting checked by the
        store's conversion, as the assignment's)."""
        if len(e.args) != 2 or e.keywords:
            raise self.error("np.copyto(dst, src) takes two arrays here (casting= and where= are "
                             "not supported: write dst[mask] = src[mask])", e)
        dst, src = e.args
        return [ir.Assign(ir.Subscript(self.expr(dst), [ir.Const(Ellipsis, loc_of(e))],
                                       loc_of(e)), self.expr(src), loc_of(e))]

    def ufunc_out(self, e):
        """(out, the call without it) of a ufunc call given an output array (`out=` or the
        operator ufuncs' third argument), else None."""
        qualified = self.qualified(e.func) or ""
        name = qualified[len("numpy."):] if qualified.startswith("numpy.") else None
        if name is None or not (name in OPERATOR_UFUNCS or name in COMPARE_UFUNCS or
                                name in ELEMENTWISE or builtin_name(qualified)):
            return None
        keywords = [k for k in e.keywords if k.arg != "out"]
        out = [k.value for k in e.keywords if k.arg == "out"]
        args = list(e.args)
        arity = ufunc_arity(name)
        if not out and arity is not None and len(args) == arity + 1:
            out = [args.pop()]
        if not out:
            return None
        call = gast.Call(e.func, args, keywords)
        gast.copy_location(call, e)
        return out[0], call

    def assign(self, s):
        loc = loc_of(s)
        if len(s.targets) != 1:
            return self.chained_assign(s)
        target = s.targets[0]
        if isinstance(target, gast.Name) and self.is_flat(s.value):
            if target.id in self.flat_aliases:
                return []           # each read of the name is `a.flat` (`flat_bindings`)
            raise self.error(f"a name for a.flat is supported where it is bound once to the "
                             f"attribute of an array's name that is not assigned after it "
                             f"(f = a.flat); write a.flat[i] (or a.ravel()) where "
                             f"'{target.id}' is used", s.value)
        if isinstance(target, gast.Tuple):
            return self.unpack(target, s.value, loc)
        if isinstance(s.value, gast.Lambda) and isinstance(target, gast.Name):
            return self.lambda_definition(target, s.value)
        if isinstance(target, gast.Name) and self.makes_list(s.value) and \
                not isinstance(s.value, gast.List):
            return self.list_made(target, s.value)
        if self.list_slice(target):
            return self.list_slice_store(target, s.value)
        if isinstance(target, gast.Subscript) and self.makes_list(s.value) and \
                (self.is_list(target.value) or self.list_item(target.value)):
            # `m[i] = [0] * n`: the new list made first
            value = self.new_list_value(s.value)
            return [ir.Assign(self.target(target), self.expr(value), loc)]
        return [ir.Assign(self.target(target), self.expr(s.value), loc)]

    def makes_list(self, value) -> bool:
        """Whether `value` makes a new list: a literal, a comprehension, `list(...)`,
        `[v] * n`, `l + r`, `l[a:b]`."""
        return isinstance(value, (gast.List, gast.ListComp)) or self.list_call(value) or \
            repeated_list(value) is not None or self.joined_lists(value) or \
            self.list_slice(value)

    def list_made(self, target, value):
        """The statements binding `target` to the new list `value` makes (not a literal)."""
        if repeated_list(value) is not None:
            return self.repeated_items(target, value)
        if self.joined_lists(value):
            return self.joined_items(target, value)
        if self.list_slice(value):
            value = self.sliced_items(value)
        return self.built_list(target, value)

    def list_named(self, value) -> str:
        """A fresh list variable bound to the new list `value` makes, before the statement
        (`return [...]`, `np.array(l + r)`)."""
        name = self.fresh("list")
        self.assigned.add(name)
        self.lists.add(name)
        self.hoisted += self.stmt(_Nodes(value).assign(name, value))
        return name

    def list_slice(self, node) -> bool:
        """Whether `node` is a slice of a list (`lst[a:b]`, `lst[:]`, `lst[::-1]`)."""
        return isinstance(node, gast.Subscript) and self.is_list(node.value) and \
            isinstance(node.slice, gast.Slice)

    def numpy_name(self, nodes):
        """A name of the numpy module in this function (one of its imports, else one made)."""
        alias = next((k for k, v in self.imports.items() if v == "numpy"), None)
        if alias is None or alias in self.assigned:
            alias = "__unpy_numpy"
            self.imports[alias] = "numpy"
        return nodes.load(alias)

    def sliced_items(self, node):
        """`lst[a:b:c]` as the comprehension of its items: Python's slice of a list is
        NumPy's of its array (bounds clamped, negatives from the end, any step)."""
        nodes = _Nodes(node)
        v = self.fresh("v")
        array = nodes.at(gast.Call(nodes.at(gast.Attribute(self.numpy_name(nodes), "array",
                                                          gast.Load())), [node.value], []))
        piece, made = self.named_bounds(node.slice)
        self.hoisted += [x for stmt in made for x in self.stmt(stmt)]
        items = nodes.at(gast.Subscript(array, piece, gast.Load()))
        return nodes.at(gast.ListComp(nodes.load(v), [
            gast.comprehension(nodes.store(v), items, [], 0)]))

    def named_bounds(self, piece):
        """(the slice `piece` with its bounds fresh names, the assignments of the bounds): a
        list's slice `[k:k + 1]` is Python's (empty past the end), not the length-1 dimension
        compiled code reads an array's `[k:k + 1]` as."""
        made, bounds = [], []
        for bound in (piece.lower, piece.upper):
            name, assigned = (None, []) if bound is None else \
                self.named_once(bound, "bound", always=True)
            bounds.append(name)
            made += assigned
        return gast.copy_location(gast.Slice(*bounds, piece.step), piece), made  # (a literal step)

    def list_slice_store(self, target, value):
        """`lst[a:b] = values` (a list, a list's slice or a list literal): the values read
        first; a slice of step 1 is replaced by them, the list growing or shrinking as
        Python's; an extended slice takes as many values as it has items (ValueError
        otherwise, as Python)."""
        if not (isinstance(value, gast.List) or self.is_list(value) or self.list_slice(value)):
            raise self.error("a slice of a list takes a list's values (a list, a list "
                             "literal, a slice of a list) in compiled code", value)
        nodes = _Nodes(target)
        at, load, assign, const, call = nodes.at, nodes.load, nodes.assign, nodes.const, \
            nodes.call
        lst = target.value.id
        piece, bounds = self.named_bounds(target.slice)
        src, where, start, j = (self.fresh(x) for x in ("src", "where", "start", "j"))
        self.assigned |= {src, where, start, j}
        self.lists.add(src)
        np_ = self.numpy_name(nodes)

        def positions(part):        # np.arange(len(lst))[part]: the items `part` takes
            return at(gast.Subscript(at(gast.Call(at(gast.Attribute(np_, "arange", gast.Load())),
                                                  [call("len", load(lst))], [])), part,
                                     gast.Load()))
        whole = value if self.list_slice(value) else at(gast.Subscript(
            value, at(gast.Slice(None, None, None)), gast.Load()))
        made = [assign(src, value if isinstance(value, gast.List) else self.sliced_items(whole))
                ] + bounds + [assign(where, positions(piece))]
        count = at(gast.Attribute(load(where), "size", gast.Load()))
        values = call("range", call("len", load(src)))
        if piece.step is None or (isinstance(piece.step, gast.Constant) and piece.step.value == 1):
            # where the values go: the slice's first position, clamped as Python clamps it
            first = const(0) if piece.lower is None else at(gast.Subscript(at(gast.Attribute(
                positions(at(gast.Slice(None, piece.lower, None))), "shape", gast.Load())),
                const(0), gast.Load()))
            made += [assign(start, first),
                     at(gast.For(nodes.store(j), call("range", count),
                                 [nodes.method_call(lst, "pop", load(start))], [], None)),
                     at(gast.For(nodes.store(j), values, [nodes.method_call(
                         lst, "insert", at(gast.BinOp(load(start), gast.Add(), load(j))),
                         at(gast.Subscript(load(src), load(j), gast.Load())))], [], None))]
        else:
            mismatch = at(gast.Compare(call("len", load(src)), [gast.NotEq()], [count]))
            made += [at(gast.If(mismatch, [at(gast.Raise(call("ValueError", const(
                        "attempt to assign a sequence to an extended slice of another size")),
                        None))], [])),
                     at(gast.For(nodes.store(j), values, [at(gast.Assign(
                         [at(gast.Subscript(load(lst), at(gast.Subscript(load(where), load(j),
                                                                         gast.Load())),
                                            gast.Store()))],
                         at(gast.Subscript(load(src), load(j), gast.Load())), None))], [],
                         None))]
        return [x for stmt in made for x in self.stmt(stmt)]

    def repeated_items(self, target, value):
        """`out = [a, b] * n` (or `n * [a, b]`): the list of the items repeated n times (as
        many appends), each item and n evaluated once, first."""
        items, times = repeated_list(value)
        nodes = _Nodes(value)
        first = []
        named = []
        for x in items:
            name, made = self.named_once(x, "item")
            named.append(name)
            first += made
        count, made = self.named_once(times, "times")
        first += made
        k = self.fresh("rep")
        self.assigned.add(k)
        appends = [nodes.method_call(target.id, "append", x) for x in named]
        made = first + [nodes.assign(target.id, nodes.at(gast.List([], gast.Load()))),
                        nodes.at(gast.For(nodes.store(k), nodes.call("range", count), appends,
                                          [], None))]
        return [x for stmt in made for x in self.stmt(stmt)]

    def joined_lists(self, value) -> bool:
        """Whether `value` is lists joined with + (`l + r`, `a + [x]`)."""
        def part(x):
            return self.is_list(x) or isinstance(x, gast.List) or self.joined_lists(x)
        return isinstance(value, gast.BinOp) and isinstance(value.op, gast.Add) and \
            part(value.left) and part(value.right)

    def joined_items(self, target, value):
        """`out = l + r`: a new list of l's items, then r's (each part read first, as Python
        evaluates both before joining them)."""
        nodes = _Nodes(value)
        parts, stack = [], [value]
        while stack:
            x = stack.pop()
            if self.joined_lists(x):
                stack += [x.right, x.left]
            else:
                parts.append(x)
        first, loads = [], []
        for x in parts:
            if isinstance(x, gast.List):
                loads.append(x)
                continue
            name = self.fresh("part")
            self.assigned.add(name)
            self.lists.add(name)
            if isinstance(x, gast.Name) and x.id == target.id:
                # `out = out + [v]`: out's items, read before out is bound anew
                first.append(nodes.assign(name, nodes.at(gast.ListComp(nodes.load(name + "_v"), [
                    gast.comprehension(nodes.store(name + "_v"), x, [], 0)]))))
                self.assigned.add(name + "_v")
                loads.append(nodes.load(name))
            else:
                loads.append(x)
        made = [nodes.assign(target.id, nodes.at(gast.List([], gast.Load())))]
        for x in loads:
            v = self.fresh("v")
            self.assigned.add(v)
            made += [nodes.method_call(target.id, "append", item) for item in x.elts] \
                if isinstance(x, gast.List) else [nodes.at(gast.For(nodes.store(v), x, [
                    nodes.method_call(target.id, "append", nodes.load(v))], [], None))]
        return [y for stmt in first + made for y in self.stmt(stmt)]

    def loop_else(self, s):
        """`for ...: ... else: E` and `while ...: ... else: E`: E runs where the loop ended
        without a `break` of its own, as Python's: a flag the loop's breaks set."""
        nodes = _Nodes(s)
        broke = self.fresh("broke")
        self.assigned.add(broke)
        loop = copy.copy(s)
        loop.body = _BreakFlagged(broke, nodes).visit_body(copy.deepcopy(s.body))
        loop.orelse = []
        made = [nodes.assign(broke, nodes.const(False)), loop,
                nodes.at(gast.If(nodes.at(gast.UnaryOp(gast.Not(), nodes.load(broke))),
                                 s.orelse, []))]
        return [x for stmt in made for x in self.stmt(stmt)]

    def list_call(self, value) -> bool:
        """Whether `value` is `list()` or `list(iterable)` (Python's list, not rebound)."""
        return isinstance(value, gast.Call) and isinstance(value.func, gast.Name) and \
            value.func.id == "list" and "list" not in self.assigned and \
            "list" not in self.imports

    def built_list(self, target, value):
        """`out = [e for t in it if c]`, `out = list(it)`, `out = list()`: the list made by the
        loops Python's comprehension runs (its variables its own), each item appended in
        order (unpy/typeinfer/lists.py)."""
        nodes = _Nodes(value)
        if isinstance(value, gast.Call):
            if value.keywords or len(value.args) > 1:
                raise self.error("list() takes one iterable here", value)
            item = self.fresh("v")
            elt = nodes.load(item)
            generators = [gast.comprehension(nodes.store(item), value.args[0], [], 0)
                          ] if value.args else []
        else:
            elt, generators = value.elt, value.generators
        renamed = {}
        for g in generators:
            names = [g.target] if isinstance(g.target, gast.Name) else \
                g.target.elts if isinstance(g.target, gast.Tuple) else None
            if names is None or not all(isinstance(n, gast.Name) for n in names):
                raise self.error("a list comprehension's loop variables are plain names here",
                                 g.target)
            for n in names:
                renamed.setdefault(n.id, self.fresh("g"))
        self.assigned |= set(renamed.values())
        if any(isinstance(n, gast.Name) and n.id == target.id for g in generators
               for n in gast.walk(g)) or any(isinstance(n, gast.Name) and n.id == target.id
                                             for n in gast.walk(elt)):
            # `out = [v * 2 for v in out]` reads the list it replaces: built aside, then moved
            built = self.fresh("built")
            self.assigned.add(built)
            self.lists.add(built)
            made = self.built_list(nodes.store(built), value)
            v = self.fresh("v")
            self.assigned.add(v)
            return made + self.built_list(target, nodes.at(gast.ListComp(
                nodes.load(v), [gast.comprehension(nodes.store(v), nodes.load(built), [], 0)])))
        body = [nodes.method_call(target.id, "append", _renamed(elt, renamed))]
        for g in reversed(generators):
            for condition in reversed(g.ifs):
                body = [nodes.at(gast.If(_renamed(condition, renamed), body, []))]
            body = [nodes.at(gast.For(_renamed(g.target, renamed), _renamed(g.iter, renamed),
                                      body, [], None))]
        made = [nodes.assign(target.id, nodes.at(gast.List([], gast.Load())))]
        made += body if generators else []
        return [x for stmt in made for x in self.stmt(stmt)]

    def print_call(self, e):
        """`print(a, "text", b, sep=..., end=..., flush=...)`: Python's own print of the values
        as the interpreter holds them (unpy::print, with the GIL)."""
        options = {"sep": " ", "end": "\n", "flush": False}
        for kw in e.keywords:
            value = kw.value.value if isinstance(kw.value, gast.Constant) else None
            if not (kw.arg in ("sep", "end") and isinstance(value, str) or
                    kw.arg == "flush" and isinstance(value, bool)):
                raise self.error("print() takes sep= and end= as string literals and "
                                 "flush=True or False in compiled code (no file=)", kw.value)
            options[kw.arg] = value
        parts, values = [], []
        for a in e.args:
            if isinstance(a, gast.Starred):
                raise self.error("print(*values) is not supported in compiled code; name "
                                 "the values", a)
            if isinstance(a, gast.Constant) and isinstance(a.value, str):
                parts.append(a.value)
            else:
                parts.append(None)
                values.append(self.expr(a))
        return ir.Print("print", values, loc_of(e), parts=parts, **options)

    def lambda_definition(self, target, fn):
        """`f = lambda x, y: body`: no statement; each call `f(a, b)` is `body` with the
        arguments in place of the parameters (`lambda_call`). Python's lambda reads the
        function's other names when called, as the inlined body does where it is called.
        Only a name bound once, to a lambda of plain positional parameters."""
        bound = sum(1 for n in gast.walk(self.fn) if isinstance(n, gast.Name)
                    and n.id == target.id and isinstance(n.ctx, gast.Store))
        a = fn.args
        if bound != 1 or a.vararg or a.kwarg or a.kwonlyargs or a.defaults or \
                getattr(a, "posonlyargs", None) or \
                not all(isinstance(p, gast.Name) for p in a.args):
            raise self.error("a lambda is supported bound once to a name, with plain "
                             "positional parameters, and called (f = lambda x: 1 - x * x; "
                             "f(a)); else define the function at module level with "
                             "@unpython.type and call it", fn)
        self.lambdas[target.id] = fn
        return []

    def nested_function(self, s):
        """`def f(x): return expr` inside the function: the lambda it is (inlined where it is
        called, reading the function's names then, as Python's closure does)."""
        body = [x for x in s.body if not (isinstance(x, gast.Expr) and isinstance(
            x.value, gast.Constant) and isinstance(x.value.value, str))]     # (a docstring)
        stored = any(isinstance(n, gast.Name) and n.id == s.name and isinstance(n.ctx, gast.Store)
                     for n in gast.walk(self.fn))
        if s.decorator_list or len(body) != 1 or not isinstance(body[0], gast.Return) or \
                body[0].value is None or stored or s.name in self.lambdas:
            raise self.error(f"a function defined inside a compiled function is supported where "
                             f"its body is one `return expression` (it is inlined where it is "
                             f"called, as a lambda); define '{s.name}' at module level with "
                             "@unpython.type and call it", s)
        a = s.args
        if a.vararg or a.kwarg or a.kwonlyargs or a.defaults or \
                getattr(a, "posonlyargs", None) or not all(isinstance(p, gast.Name)
                                                           for p in a.args):
            raise self.error("a function defined inside a compiled function takes plain "
                             "positional parameters here", s)
        self.assigned.add(s.name)
        self.lambdas[s.name] = gast.copy_location(gast.Lambda(a, body[0].value), s)
        return []

    def named_once(self, node, stem, always=False) -> tuple:
        """(`node`, []) where it is a name or a constant, else (a fresh variable, [the gast
        assignment of `node` to it]): a value the frontend's written code reads more than
        once, evaluated once first (`evaluated_once` does so for IR values). `always`: a fresh
        variable for a name or a constant too (the code after may assign the name, or must
        not see the literal)."""
        if not always and isinstance(node, (gast.Name, gast.Constant)):
            return node, []
        name, nodes = self.fresh(stem), _Nodes(node)
        self.assigned.add(name)
        return nodes.load(name), [nodes.assign(name, node)]

    def lambda_call(self, e):
        """The body of the lambda `e.func` names, its parameters replaced by the call's
        arguments: each argument evaluated once, before the statement, where the body reads
        its parameter more than once."""
        fn = self.lambdas[e.func.id]
        params = [p.id for p in fn.args.args]
        if e.keywords or len(e.args) != len(params) or \
                any(isinstance(x, gast.Starred) for x in e.args):
            raise self.error(f"{e.func.id}() takes {len(params)} positional argument(s) here "
                             f"(a lambda's parameters)", e)
        if self.inlining > 20:
            raise self.error("a lambda that calls itself is not supported; write a loop", e)
        reads = {p: sum(1 for n in gast.walk(fn.body) if isinstance(n, gast.Name)
                        and n.id == p) for p in params}
        values = {}
        for p, given in zip(params, e.args):
            arg, made = self.named_once(given, "arg") if reads[p] > 1 else (given, [])
            if made:
                if self.hoisted is None or self.conditional:
                    raise self.error("this argument is read more than once by the lambda: "
                                     "put it in a variable first", given)
                self.hoisted += self.stmt(*made)
            values[p] = arg
        body = _Substituted(values).visit(copy.deepcopy(fn.body))
        self.inlining += 1
        try:
            return self.expr(body)
        finally:
            self.inlining -= 1

    def chained_assign(self, s):
        """`a = b[i] = e`: `e` is evaluated once, then assigned to each target from left to
        right, as Python does. A literal or a variable is assigned as itself (so that a literal
        stays weak); anything else goes through a temporary."""
        loc = loc_of(s)
        for target in s.targets:
            if isinstance(target, gast.Tuple):
                raise self.error("tuple unpacking in a chained assignment is not supported; "
                                 "unpack in a statement of its own", target)
        if isinstance(s.value, gast.List):
            raise self.error("a list in a chained assignment would be one list under several "
                             "names, which compiled code does not have; bind a list of its "
                             "own to each name (a = []; b = [])", s.value)
        value = self.expr(s.value)
        out = []
        if not isinstance(value, (ir.Const, ir.Name)):
            temp = self.fresh("tmp")
            out.append(ir.Assign(ir.Name(temp, loc), value, loc))
            value = ir.Name(temp, loc)
        for target in s.targets:
            out.append(ir.Assign(self.target(target), copy.deepcopy(value), loc))
        return out

    def flat_bindings(self) -> dict:
        """The names bound to `a.flat` (`a` an array's name) by their one assignment in the
        function, where `a` is not assigned after it: name -> `a`. Python's `f = a.flat` is an
        iterator over the array a named then, so each read of f is read as `a.flat`."""
        stores = {}
        for n in gast.walk(self.fn):
            if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store):
                stores.setdefault(n.id, []).append(n)
        found = {}
        for n in gast.walk(self.fn):
            if not (isinstance(n, gast.Assign) and len(n.targets) == 1 and
                    isinstance(n.targets[0], gast.Name) and self.is_flat(n.value) and
                    isinstance(n.value.value, gast.Name)):
                continue
            name, array = n.targets[0].id, n.value.value.id
            if len(stores[name]) == 1 and array != name and all(
                    x.lineno < n.lineno for x in stores.get(array, [])):
                found[name] = array
        return found

    def is_flat(self, node) -> bool:
        """Whether `node` is `a.flat` of an array `a`."""
        return isinstance(node, gast.Attribute) and node.attr == "flat" and \
            not self.is_module(node.value)

    def flat_item(self, e):
        """`a.flat[i]`, read or assigned: the element at C-order position i of a (any
        dimensions and strides). i is evaluated once, before the statement, and checked there
        (typeinfer's `flat_index`: counted from the end where negative, IndexError outside, as
        NumPy's); the element is a's at the indices i unravels to (`flat_element`). A slice
        of a.flat read is a copy of those elements of a.ravel(); assigned, it is refused."""
        base, p, loc = e.value.value, e.slice, loc_of(e)
        if isinstance(p, gast.Slice):
            if isinstance(e.ctx, gast.Store):
                raise self.error("assigning to a slice of a.flat is not supported in compiled "
                                 "code; assign the elements in a loop (for k in range(2, 5): "
                                 "a.flat[k] = v)", e)
            ravelled = ir.ArrayCall("ravel", [self.expr(base)], {}, loc)
            return ir.ArrayCall("copy", [ir.Subscript(ravelled, [self.index(p)], loc)], {}, loc)
        if isinstance(p, (gast.Tuple, gast.List)) or (isinstance(p, gast.Constant) and (
                p.value is None or p.value is Ellipsis)):
            raise self.error("a.flat takes one integer index in compiled code (a.flat[i], "
                             "counted in C order), or a slice to read (a.flat[2:5])", p)
        if self.hoisted is None or self.conditional:
            raise self.error("a.flat[i] is read here inside a conditional expression (x if c "
                             "else y, and, or) or a while condition: put it in a variable "
                             "first", e)
        array = self.array_name(base)
        position = self.fresh("flat")
        self.assigned.add(position)
        self.hoisted += [ir.Assign(ir.Name(position, loc_of(p)), self.expr(p), loc),
                         ir.ExprStmt(ir.ArrayCall("flat_index", [
                             ir.Name(array.id, loc), ir.Name(position, loc)], {}, loc), loc)]
        return self.flat_element(array.id, position, loc)

    @staticmethod
    def flat_element(array: str, position: str, loc):
        """The element of the array `array` at the C-order position `position`, a name in
        [0, size): `array[unravelled indices]` (typeinfer's 'flat_indices' makes the tuple)."""
        return ir.Subscript(ir.Name(array, loc), [ir.ArrayCall(
            "flat_indices", [ir.Name(array, loc), ir.Name(position, loc)], {}, loc)], loc)

    def may_write_arrays(self, body) -> bool:
        """Whether the statements `body` may write into an array: a store into a subscript
        or an attribute, a call of a compiled function or of an array's method, a ufunc's
        output, np.copyto."""
        for n in (x for stmt in body for x in gast.walk(stmt)):
            if isinstance(n, (gast.Subscript, gast.Attribute)) and isinstance(n.ctx, gast.Store):
                return True
            if not isinstance(n, gast.Call):
                continue
            if isinstance(n.func, gast.Name) and n.func.id in self.compiled_names or \
                    isinstance(n.func, gast.Attribute) and not self.is_module(n.func.value) or \
                    self.qualified(n.func) in ("numpy.copyto",) or \
                    (self.qualified(n.func) or "").endswith(".at") or \
                    self.ufunc_out(n) is not None:
                return True
        return False

    def fresh(self, stem):
        """A new variable of the lowering's own (`__tmp0`, `__k1`)."""
        name = f"__{stem}{self.temp_count}"
        self.temp_count += 1
        return name

    def unpack(self, target, value, loc):
        """`x, y = ...`: names, elements or slices (`KE[0], PE[0] = f(...)`) as targets,
        assigned from left to right after the whole value is evaluated."""
        names = []
        for elt in target.elts:
            if not isinstance(elt, (gast.Name, gast.Subscript)):
                raise self.error("tuple unpacking needs variable names, elements or slices as "
                                 "targets", elt)
            names.append(elt)
        array = self.shape_source(value)
        if array is not None:
            return [ir.Assign(self.target(n), ir.ArrayAttr(array, "shape", k, loc_of(value)), loc)
                    for k, n in enumerate(names)]
        if isinstance(value, gast.Tuple) and len(value.elts) == len(names):
            # Evaluate every value before assigning any (a, b = b, a).
            temps, out = [], []
            for v in value.elts:
                temp = self.fresh("tmp")
                temps.append(temp)
                out.append(ir.Assign(ir.Name(temp, loc_of(v)), self.expr(v), loc))
            out += [ir.Assign(self.target(n), ir.Name(t, loc), loc)
                    for n, t in zip(names, temps)]
            return out
        if isinstance(value, gast.Tuple):
            raise self.error(f"cannot unpack {len(value.elts)} values into {len(names)} names",
                             value)
        # A tuple value (a compiled function's several results) or an array (`x, y = p[i]`:
        # along its first dimension, as Python iterates it): once into a temporary, whose
        # count typeinfer checks (`unpacked`).
        temp = self.fresh("tmp")
        out = [ir.Assign(ir.Name(temp, loc_of(value)), self.expr(value), loc),
               ir.ExprStmt(ir.ArrayCall("unpacked", [ir.Name(temp, loc)],
                                        {"count": ir.Const(len(names), loc)}, loc), loc)]
        return out + [ir.Assign(self.target(n),
                                ir.TupleItem(ir.Name(temp, loc_of(value)), k, len(names),
                                             loc_of(n)), loc)
                      for k, n in enumerate(names)]

    def shape_source(self, node):
        """The array whose shape `node` is (`a.shape` or `shape(a)`), else None."""
        if isinstance(node, gast.Attribute) and node.attr == "shape":
            return self.array_name(node.value)
        if (isinstance(node, gast.Call) and self.qualified(node.func) == "numpy.shape"
                and len(node.args) == 1):
            return self.array_name(node.args[0])
        return None

    def array_name(self, node):
        """The name of the array whose shape, size or length is read: a name, or an array
        expression (`len(np.unique(a))`, `np.nonzero(m)[0].size`) evaluated once into a
        temporary the statement sets first."""
        if isinstance(node, gast.Name):
            return ir.Name(node.id, loc_of(node))
        if self.hoisted is None or self.conditional:
            raise self.error("the shape of a computed array is read here inside a conditional "
                             "expression (x if c else y, and, or): put the array in a variable "
                             "first", node)
        return self.evaluated_once(self.expr(node), self.hoisted, loc_of(node))()

    def target(self, t):
        if isinstance(t, gast.Name):
            return ir.Name(t.id, loc_of(t))
        if isinstance(t, gast.Subscript):
            return self.subscript(t)
        if isinstance(t, gast.Attribute) and t.attr == "shape":
            raise self.error("assigning to an array's .shape is not supported in compiled "
                             "code; write a = a.reshape(new_shape)", t)
        raise self.error("you can assign to a variable or to an array element only", t)

    def for_loop(self, s):
        """A `for` loop as a list of statements: over range/prange, or over arrays
        (`for x in a`, `for x in a.ravel()`, `for i, x in enumerate(a)`, `for x, y in zip(a,
        b)`)."""
        loc = loc_of(s)
        it = s.iter
        kind = self.qualified(it.func) if isinstance(it, gast.Call) else None
        if kind in ("enumerate", "zip"):
            return self.for_tuples(s, kind)
        if kind == "itertools.product":
            return self.product_loops(s, it)
        if kind == "numpy.ndindex":
            return self.ndindex_loops(s, it)
        if isinstance(s.target, gast.Tuple) and isinstance(it, (gast.Tuple, gast.List)):
            return self.literal_unpacked(s)
        if isinstance(s.target, gast.Tuple) and kind not in ("range", "unpython.prange"):
            # `for x, y in pairs`: each item unpacked, as Python's loop does
            nodes, item = _Nodes(s.target), self.fresh("item")
            self.assigned.add(item)
            loop = copy.copy(s)
            loop.target = nodes.store(item)
            loop.body = [gast.copy_location(gast.Assign([s.target], nodes.load(item), None),
                                            s.target)] + s.body
            return self.for_loop(loop)
        if not isinstance(s.target, gast.Name):
            raise self.error("the loop variable must be a plain name", s.target)
        if kind == "reversed" and it.args and isinstance(it.args[0], gast.Call) and \
                self.qualified(it.args[0].func) == "range":
            return self.reversed_range(s, it)
        if kind == "itertools.repeat":
            return self.repeated(s, it)
        if kind not in ("range", "unpython.prange"):
            return self.for_sequences(s, [(s.target, it)])
        args = self.range_args(it, kind)
        parallel = kind == "unpython.prange"
        self.in_prange += parallel
        try:
            body = self.body(s.body)
        finally:
            self.in_prange -= parallel
        return [ir.For(s.target.id, args[0], args[1], args[2], body, parallel=parallel,
                       loc=loc)]

    def evaluated_once(self, value, before: list, loc):
        """A maker of `value`'s nodes, `value` evaluated once before a loop (a temporary
        assigned in `before`, unless a constant), as Python evaluates range's arguments."""
        if isinstance(value, ir.Const):
            return lambda: ir.Const(value.value, value.loc)
        temp = self.fresh("v")
        self.assigned.add(temp)
        before.append(ir.Assign(ir.Name(temp, value.loc), value, loc))
        return lambda: ir.Name(temp, value.loc)

    @staticmethod
    def range_count(start, stop, step: ir.Const, loc):
        """The length of range(start(), stop(), step) (makers of the bounds' nodes)."""
        first, last = (start(), stop()) if step.value > 0 else (stop(), start())
        span = ir.BinOp("+", ir.BinOp("-", last, first, loc),
                        ir.Const(abs(step.value) - 1, loc), loc)
        return ir.Call("max", [ir.BinOp("//", span, ir.Const(abs(step.value), loc), loc),
                               ir.Const(0, loc)], loc)

    def product_loops(self, s, it):
        """`for i, j in itertools.product(range(n), a)`: nested loops, the iterables evaluated
        once first, the first outermost (Python's order). A `break` would leave only the
        innermost loop: refused."""
        if it.keywords or not it.args or any(isinstance(a, gast.Starred) for a in it.args):
            raise self.error("itertools.product() takes its iterables by position here (no "
                             "repeat=)", it)
        if not (isinstance(s.target, gast.Tuple) and len(s.target.elts) == len(it.args) and
                all(isinstance(t, gast.Name) for t in s.target.elts)):
            raise self.error("a loop over itertools.product() unpacks one plain name per "
                             "iterable here (for i, j in product(a, b))", s.target)
        if any(isinstance(n, gast.Break) for n in _own_statements(s.body)):
            raise self.error("a break in a loop over itertools.product() is not supported "
                             "here (it would leave the innermost loop only); loop over "
                             "nested ranges and break with a flag", s)
        first, loops = [], []

        def before(node, stem):     # (a copy even of a name: the loops may assign it)
            name, made = self.named_once(node, stem, always=True)
            first.extend(made)
            return name
        for target, iterable in zip(s.target.elts, it.args):
            if isinstance(iterable, gast.Call) and self.qualified(iterable.func) == "range":
                iterable = gast.copy_location(gast.Call(iterable.func, [
                    before(a, "bound") for a in iterable.args], []), iterable)
            else:
                iterable = before(iterable, "seq")
            loops.append((target, iterable))
        body = s.body
        for target, iterable in reversed(loops):
            body = [gast.copy_location(gast.For(target, iterable, body, [], None), s)]
        return [x for stmt in first + body for x in self.stmt(stmt)]

    def ndindex_loops(self, s, it):
        """`for idx in np.ndindex(n, m)` (or `np.ndindex((n, m))`, `np.ndindex(a.shape)`,
        `np.ndindex(*a.shape)`): the indices of an array of that shape in C order, the
        variable the tuple of them (or unpacked: `for i, j in np.ndindex(n, m)`). The lengths
        are read once, before the loop (ValueError for a negative one, NumPy's). With the
        lengths written out and no `break` of its own, a nest of range loops; else one loop
        over the positions, each unravelled (typeinfer's 'flat_indices', where a.shape's
        length is known)."""
        loc = loc_of(s)
        args = list(it.args)
        if len(args) == 1 and isinstance(args[0], gast.Starred):
            args = [args[0].value]              # np.ndindex(*a.shape): a.shape
        if len(args) == 1 and isinstance(args[0], (gast.Tuple, gast.List)):
            args = args[0].elts                 # np.ndindex((n, m))
        if it.keywords or not args or any(isinstance(a, gast.Starred) for a in args):
            raise self.error("np.ndindex() takes the lengths here: np.ndindex(n, m), "
                             "np.ndindex((n, m)), np.ndindex(a.shape) or "
                             "np.ndindex(*a.shape)", it)
        names = s.target.elts if isinstance(s.target, gast.Tuple) else None
        if names is not None and not all(isinstance(t, gast.Name) for t in names) or \
                names is None and not isinstance(s.target, gast.Name):
            raise self.error("a loop over np.ndindex() binds one name (the tuple of indices) "
                             "or unpacks into plain names (for i, j in np.ndindex(n, m))",
                             s.target)
        array = self.shape_source(args[0]) if len(args) == 1 else None
        before, lengths = [], []
        if array is None:
            for a in args:
                value = self.expr(a)
                if len(args) == 1:      # one length, or a tuple variable (typeinfer tells)
                    value = ir.ArrayCall("ndindex_length", [value], {}, loc_of(a))
                length = self.evaluated_once(value, before, loc)
                lengths.append(length)
                if isinstance(value, ir.Const) and value.value >= 0:
                    continue
                before.append(ir.If(ir.Compare(length(), ["<"], [ir.Const(0, loc)], loc), [
                    ir.Raise("ValueError", "negative dimensions are not allowed", loc)], [],
                                    loc))
            if names is not None and len(names) != len(lengths):
                raise self.error(f"np.ndindex() of {len(lengths)} length(s) unpacks into as "
                                 f"many names here, not {len(names)}", s.target)
        if array is None and not any(isinstance(n, gast.Break)
                                     for n in _own_statements(s.body)):
            variables = [t.id for t in names] if names is not None else \
                [self.fresh("i") for _ in lengths]
            self.assigned |= set(variables)
            body = [] if names is not None else [ir.Assign(ir.Name(s.target.id, loc),
                                                           ir.TupleValue([ir.Name(v, loc) for v in
                                                                          variables], loc), loc)]
            body = body + self.body(s.body)
            for v, length in reversed(list(zip(variables, lengths))):
                body = [ir.For(v, ir.Const(0, loc), length(), ir.Const(1, loc), body, loc=loc)]
            return before + body
        k = self.fresh("k")
        self.assigned.add(k)
        if array is not None:
            source, total = ir.Name(array.id, loc), ir.ArrayAttr(ir.Name(array.id, loc),
                                                                 "size", None, loc)
        else:
            source = ir.TupleValue([length() for length in lengths], loc)
            total = lengths[0]()
            for length in lengths[1:]:
                total = ir.BinOp("*", total, length(), loc)

        def indices(**keywords):
            return ir.ArrayCall("flat_indices", [copy.deepcopy(source), ir.Name(k, loc)],
                                keywords, loc)
        if names is None:
            bind = [ir.Assign(ir.Name(s.target.id, loc), indices(), loc)]
        else:
            count = ir.Const(len(names), loc)
            bind = [ir.Assign(ir.Name(t.id, loc_of(t)), ir.Subscript(
                indices(unpacked=count), [ir.Const(j, loc)], loc), loc)
                for j, t in enumerate(names)]
        return before + [ir.For(k, ir.Const(0, loc), total, ir.Const(1, loc),
                                bind + self.body(s.body), loc=loc)]

    def repeated(self, s, it):
        """`for _ in itertools.repeat(None, n)` (a loop run n times, as Pythran's descent
        writes it): range(n), the loop variable given the repeated value where it is not
        None."""
        if it.keywords or len(it.args) != 2:
            raise self.error("itertools.repeat(value, times) takes the two here (an endless "
                             "repeat is a while loop)", it)
        value, times = it.args
        body, before = self.body(s.body), []
        if not (isinstance(value, gast.Constant) and value.value is None):
            once = self.evaluated_once(self.expr(value), before, loc_of(s))
            body = [ir.Assign(ir.Name(s.target.id, loc_of(s.target)), once(), loc_of(s))] + body
        elif any(isinstance(n, gast.Name) and n.id == s.target.id
                 for b in s.body for n in gast.walk(b)):
            raise self.error("the loop variable of itertools.repeat(None, n) is None, which "
                             "compiled code has not; do not read it", s.target)
        return before + [ir.For(self.fresh("rep"), ir.Const(0, loc_of(it)), self.expr(times),
                                ir.Const(1, loc_of(it)), body, loc=loc_of(s))]

    def reversed_range(self, s, it):
        """`for i in reversed(range(start, stop, step))`: the range from its last value down
        to `start`, by -step (a literal), its bounds evaluated once, before the loop."""
        loc = loc_of(s)
        if it.keywords or len(it.args) != 1:
            raise self.error("reversed() takes one range() here", it)
        start, stop, step = self.range_args(it.args[0], "range")
        if not isinstance(step, ir.Const):
            raise self.error("reversed(range()) needs a literal step here", it)
        before = []
        start, stop = (self.evaluated_once(v, before, loc) for v in (start, stop))
        count = self.range_count(start, stop, step, loc)
        last = ir.BinOp("+", start(), ir.BinOp("*", ir.BinOp("-", count, ir.Const(1, loc), loc),
                                               ir.Const(step.value, loc), loc), loc)
        past = ir.BinOp("-", start(), ir.Const(step.value, loc), loc)
        return before + [ir.For(s.target.id, last, past, ir.Const(-step.value, loc),
                                self.body(s.body), loc=loc)]

    def range_args(self, it, kind):
        """[start, stop, step] of `range(...)` (or prange)."""
        if it.keywords or not 1 <= len(it.args) <= 3:
            raise self.error(f"{kind.split('.')[-1]}() takes 1 to 3 positional arguments", it)
        args = [self.expr(a) for a in it.args]
        if len(args) == 1:
            args = [ir.Const(0, loc_of(it))] + args
        if len(args) == 2:
            args.append(ir.Const(1, loc_of(it)))
        if isinstance(args[2], ir.Const) and args[2].value == 0:
            raise self.error("range() step must not be zero", it.args[2])
        return args

    def for_tuples(self, s, kind):
        """`for i, x in enumerate(a, start)` and `for x, y, ... in zip(a, b, ...)`: a loop
        over the arrays (or ranges) side by side, unpacked into plain names; also
        `for n, (x, y) in enumerate(zip(a, b))`, zip's sequences side by side, counted."""
        it = s.iter
        targets = s.target.elts if isinstance(s.target, gast.Tuple) else None
        zipped = kind == "enumerate" and targets is not None and len(targets) == 2 and \
            isinstance(targets[1], gast.Tuple) and it.args and \
            isinstance(it.args[0], gast.Call) and self.qualified(it.args[0].func) == "zip"
        names = targets and ([targets[0]] + targets[1].elts if zipped else targets)
        if not names or not all(isinstance(t, gast.Name) for t in names):
            raise self.error(f"a loop over {kind}() unpacks each item into plain names "
                             f"(for i, x in {kind}(...), for n, (x, y) in enumerate(zip(a, "
                             f"b)))", s.target)
        if kind == "enumerate":
            start = [k.value for k in it.keywords if k.arg == "start"]
            if len(it.keywords) != len(start) or len(it.args) + len(start) not in (1, 2) or \
                    not it.args or len(targets) != 2:
                raise self.error("enumerate(a, start=0) takes one array and unpacks into two "
                                 "names (for i, x in enumerate(a))", it)
            start = it.args[1] if len(it.args) == 2 else (start[0] if start else None)
            if zipped:
                return self.for_sequences(s, self.zipped(targets[1].elts, it.args[0]),
                                          (targets[0], start))
            return self.for_sequences(s, [(targets[1], it.args[0])], (targets[0], start))
        return self.for_sequences(s, self.zipped(targets, it))

    def zipped(self, targets, it):
        """(target, sequence) pairs of `zip(a, b, ...)` unpacked into `targets`."""
        if it.keywords or not it.args or len(it.args) != len(targets):
            raise self.error(f"zip() of {len(it.args)} sequence(s) unpacks into as many names "
                             "here (no strict=)", it)
        return list(zip(targets, it.args))

    def for_sequences(self, s, pairs, counter=None):
        """`for __k in range(n)` with each target of `pairs` (target, sequence) bound to the
        sequence's item `__k` first: an array's element (a row view of one of more dimensions,
        as Python iterates), a range's value; `counter` (target, start): the count. The
        sequences are evaluated once, before the loop (an array expression bound to a name of
        its own); `n` is the shortest's length. The loop must not rebind an array it iterates
        over, which Python's iterator would not see."""
        loc = loc_of(s)
        index_name = self.fresh("k")
        index = lambda: ir.Name(index_name, loc)      # noqa: E731 (a node per use)
        before, lengths, items = [], [], []

        def once(value):
            return self.evaluated_once(value, before, loc)

        for target, seq in pairs:
            kind = self.qualified(seq.func) if isinstance(seq, gast.Call) else None
            if kind == "range":
                start, stop, step = self.range_args(seq, kind)
                start, stop = once(start), once(stop)
                if not isinstance(step, ir.Const):
                    raise self.error("a range() zipped or enumerated needs a literal step here",
                                     seq)
                lengths.append(self.range_count(start, stop, step, loc))
                items.append((target, ir.BinOp("+", start(), ir.BinOp("*", index(), step, loc),
                                               loc)))
                continue
            if kind in ("unpython.prange", "enumerate", "zip"):
                raise self.error(f"a loop over {kind.split('.')[-1]}() nested in zip() or "
                                 "enumerate() is not supported; index the arrays with a range "
                                 "loop instead", seq)
            if self.makes_list(seq) and not isinstance(seq, gast.List) and \
                    self.hoisted is not None:
                # `for t in [e for ...]`: the list made first, then looped over
                seq = _Nodes(seq).load(self.list_named(seq))
            if isinstance(seq, (gast.Tuple, gast.List)):
                # `for d in (-1, 0, 1)`: the items evaluated once, in order, before the loop
                # (a constant as itself); item k chosen by the counter, as both back ends
                # print it (no array made: the loop may run in a GPU nest)
                if not seq.elts or any(isinstance(x, gast.Starred) for x in seq.elts):
                    raise self.error("a loop over a tuple or list written out takes its items "
                                     "written out (no *values), at least one", seq)
                lengths.append(ir.Const(len(seq.elts), loc))
                items.append((target, self.chosen(
                    index, [once(self.expr(x)) for x in seq.elts], loc_of(seq))))
                continue
            if isinstance(seq, gast.Attribute) and seq.attr == "shape":
                raise self.error("loops over a shape tuple are not supported; unpack it "
                                 "(m, n = a.shape) or loop over range(a.ndim)", seq)
            if kind == "reversed":
                raise self.error("reversed() of an array is not supported in compiled "
                                 "functions; loop over a[::-1] (reversed(range(...)) is)", seq)
            if self.is_flat(seq) and (self.in_prange or self.may_write_arrays(s.body)):
                # `for v in a.flat` whose body may write arrays: a's elements read live, one
                # per iteration, in C order (as NumPy's iterator reads them); in a prange too
                # (a.ravel() bound to a name there would keep the nest off the GPU)
                base = seq.value
                if isinstance(base, gast.Name):
                    array = base.id
                    self.refuse_rebinding(s, pairs, counter, array)
                else:
                    array = self.fresh("seq")
                    self.assigned.add(array)
                    before.append(ir.Assign(ir.Name(array, loc_of(base)), self.expr(base), loc))
                lengths.append(ir.ArrayAttr(ir.Name(array, loc_of(seq)), "size", None,
                                            loc_of(seq)))
                items.append((target, self.flat_element(array, index_name, loc_of(seq))))
                continue
            if isinstance(seq, gast.Name) and not self.is_module(seq):
                array = seq.id
                self.refuse_rebinding(s, pairs, counter, array)
                grown = [n for stmt in s.body for n in gast.walk(stmt)
                         if isinstance(n, gast.Call) and isinstance(n.func, gast.Attribute)
                         and n.func.attr == "append" and isinstance(n.func.value, gast.Name)
                         and n.func.value.id == array]
                if grown:
                    raise self.error(f"this loop appends to '{array}', the list it iterates "
                                     "over (Python's loop would go on over the new items); loop "
                                     "over a range of indices instead", grown[0])
            else:       # Python evaluates the iterable once: the array a name of its own
                array = self.fresh("seq")
                self.assigned.add(array)
                if self.list_item(seq):     # `for v in m[i]`: a copy of the list (typeinfer)
                    self.lists.add(array)
                before.append(ir.Assign(ir.Name(array, loc_of(seq)), self.expr(seq), loc))
            lengths.append(self.length(ir.Name(array, loc_of(seq))))
            items.append((target, ir.Subscript(ir.Name(array, loc_of(seq)), [index()],
                                               loc_of(seq))))
        stop = lengths[0] if len(lengths) == 1 else ir.Call("min", lengths, loc)
        bind = [ir.Assign(ir.Name(t.id, loc_of(t)), value, loc) for t, value in items]
        if counter is not None:
            target, start = counter
            value = index() if start is None else ir.BinOp("+", index(),
                                                           once(self.expr(start))(), loc)
            bind.insert(0, ir.Assign(ir.Name(target.id, loc_of(target)), value, loc))
        return before + [ir.For(index_name, ir.Const(0, loc), stop, ir.Const(1, loc),
                                bind + self.body(s.body), loc=loc)]

    @staticmethod
    def chosen(index, makers, loc):
        """`v0 if index == 0 else v1 if index == 1 else ... vn` of the makers' values (the
        last one taken for index n and beyond)."""
        value = makers[-1]()
        for k in reversed(range(len(makers) - 1)):
            value = ir.IfExp(ir.Compare(index(), ["=="], [ir.Const(k, loc)], loc),
                             makers[k](), value, loc)
        return value

    def literal_unpacked(self, s):
        """`for dx, dy in ((0, 1), (1, 0))`: each item a tuple (or list) written out with one
        value per name. The values are evaluated once, item by item, before the loop (a
        constant as itself); then it is zip() of each name's values."""
        names, rows = s.target.elts, s.iter.elts
        if not all(isinstance(t, gast.Name) for t in names) or not rows or not all(
                isinstance(r, (gast.Tuple, gast.List)) and len(r.elts) == len(names)
                for r in rows):
            raise self.error(f"a loop over a tuple or list written out unpacks items written "
                             f"out with one value per name into plain names here (for dx, dy "
                             f"in ((0, 1), (1, 0))): {len(names)} name(s)", s.iter)
        first, columns = [], [[] for _ in names]
        for row in rows:
            for column, value in zip(columns, row.elts):
                if isinstance(value, gast.Starred):
                    raise self.error("a loop over a tuple or list written out takes its items "
                                     "written out (no *values), at least one", value)
                name, made = (value, []) if _number_literal(value) else \
                    self.named_once(value, "item", always=True)
                first += made
                column.append(name)
        nodes = _Nodes(s.iter)
        pairs = [(t, nodes.at(gast.Tuple(column, gast.Load()))) for t, column in zip(names,
                                                                                     columns)]
        return [x for stmt in first for x in self.stmt(stmt)] + self.for_sequences(s, pairs)

    def refuse_rebinding(self, s, pairs, counter, array):
        """A loop over the array named `array` must not bind that name, which Python's
        iterator would not see."""
        rebound = [n for stmt in s.body for n in gast.walk(stmt)
                   if isinstance(n, gast.Name) and n.id == array
                   and isinstance(n.ctx, gast.Store)]
        rebound += [t for t in ([p[0] for p in pairs] + ([counter[0]] if counter else []))
                    if t.id == array]
        if rebound:
            raise self.error(f"this loop assigns '{array}', the array it iterates over; "
                             "iterate over a copy or use an index loop", rebound[0])

    # --- expressions --------------------------------------------------------------------

    def expr(self, e):
        loc = loc_of(e)
        if isinstance(e, gast.Constant):
            if isinstance(e.value, (bool, int, float, complex)):
                return ir.Const(e.value, loc)
            if e.value is None:
                raise self.error("None is not a value compiled code has; as an argument, give "
                                 "the others by keyword instead (a.var(axis=1, ddof=1), not "
                                 "a.var(1, None, None, 1))", e)
            raise self.error(f"a {type(e.value).__name__} constant is not a value compiled "
                             "code has: strings are NumPy's options (mode='edge'), messages "
                             "(raise ValueError(\"why\"), print) and float('inf'); for a "
                             "number write it as one", e)
        if isinstance(e, gast.Name):
            if e.id in self.lambdas:
                raise self.error(f"'{e.id}' is a lambda, which compiled code only calls "
                                 f"({e.id}(x)); to pass a function, define it at module "
                                 "level with @unpython.type", e)
            if e.id in self.assigned:
                return ir.Name(e.id, loc)
            imported = self.imports.get(e.id)
            if imported in LIBRARY_CONSTANTS:
                return ir.Const(LIBRARY_CONSTANTS[imported], loc)      # `from math import pi`
            if e.id in self.module.numbers.bindings:
                return self.module_constant(e)
            return ir.Name(e.id, loc)
        if isinstance(e, gast.BinOp):
            op = BINOPS.get(type(e.op))
            if op is None:
                raise self.error("unsupported operator", e)
            return ir.BinOp(op, self.expr(e.left), self.expr(e.right), loc)
        if isinstance(e, gast.UnaryOp):
            operand = self.expr(e.operand)
            if isinstance(e.op, gast.USub) and isinstance(operand, ir.Const) and \
                    not isinstance(operand.value, bool):
                return ir.Const(-operand.value, loc)    # a negative literal (`range(n, 0, -1)`)
            return ir.UnaryOp(UNARYOPS[type(e.op)], operand, loc)
        if isinstance(e, gast.Compare):
            ops = []
            for op in e.ops:
                if type(op) not in CMPOPS:
                    raise self.error("only < <= > >= == != comparisons are supported", e)
                ops.append(CMPOPS[type(op)])
            return ir.Compare(self.expr(e.left), ops, [self.expr(c) for c in e.comparators], loc)
        if isinstance(e, gast.BoolOp):
            op = "and" if isinstance(e.op, gast.And) else "or"
            first = self.expr(e.values[0])
            with self.on_condition():
                return ir.BoolOp(op, [first] + [self.expr(v) for v in e.values[1:]], loc)
        if isinstance(e, gast.IfExp):
            test = self.expr(e.test)
            with self.on_condition():
                return ir.IfExp(test, self.expr(e.body), self.expr(e.orelse), loc)
        if isinstance(e, gast.Subscript):
            return self.subscript_or_shape(e)
        if isinstance(e, gast.Tuple):
            return ir.TupleValue([self.expr(x) for x in e.elts], loc)
        if isinstance(e, gast.List):
            if any(isinstance(x, gast.Starred) for x in e.elts):
                raise self.error("a list of *values is not supported in compiled code; write "
                                 "the values", e)
            return ir.ListNew([self.expr(self.new_list_value(x)) for x in e.elts], loc)
        if isinstance(e, gast.Attribute):
            return self.attribute(e)
        if isinstance(e, gast.Call):
            if e.args and isinstance(e.args[0], gast.ListComp) and \
                    self.qualified(e.func) in ("sum", "min", "max"):
                # sum([x for ...]): the list's items in the generator's order, each taken
                gen = gast.copy_location(gast.GeneratorExp(e.args[0].elt,
                                                           e.args[0].generators), e.args[0])
                e = gast.copy_location(gast.Call(e.func, [gen] + e.args[1:], e.keywords), e)
            if e.args and isinstance(e.args[0], gast.GeneratorExp) and \
                    self.qualified(e.func) in GENERATOR_REDUCTIONS:
                return self.generator_reduction(e)
            if e.args and isinstance(e.args[0], gast.ListComp) and \
                    self.qualified(e.func) in ("numpy.array", "numpy.asarray"):
                return self.comprehension_array(e)
            if e.args and (self.joined_lists(e.args[0]) or self.list_slice(e.args[0])) and \
                    self.qualified(e.func) in ("numpy.array", "numpy.asarray"):
                # np.array(l + r), np.array(l[a:b]): that list made first, named
                named = _Nodes(e).load(self.list_named(e.args[0]))
                e = gast.copy_location(gast.Call(e.func, [named] + e.args[1:], e.keywords), e)
            if e.args and self.is_list(e.args[0]) and \
                    self.qualified(e.func) in ("numpy.array", "numpy.asarray"):
                return self.list_array(e)
            if (self.qualified(e.func) in ("min", "max") and len(e.args) == 1 and
                    not e.keywords) or (e.args and (self.is_list(e.args[0]) or
                                                    self.list_item(e.args[0])) and
                                        self.qualified(e.func) in ("sum", "any", "all")):
                # min(a) of one argument walks it: min(v for v in a); so do sum(out), any(out)
                # and all(out) of a list
                v = self.fresh("v")
                gen = gast.copy_location(gast.GeneratorExp(
                    gast.Name(v, gast.Load(), None, None),
                    [gast.comprehension(gast.Name(v, gast.Store(), None, None), e.args[0], [],
                                        0)]), e)
                return self.generator_reduction(gast.copy_location(
                    gast.Call(e.func, [gen] + e.args[1:], e.keywords), e))
            return self.call(e)
        if isinstance(e, (gast.GeneratorExp, gast.ListComp)):
            what, where = ("generator expression", "sum(), min(), max(), any() or all()") \
                if isinstance(e, gast.GeneratorExp) else ("list comprehension",
                                                          "sum(), min() or max()")
            raise self.error(f"a {what} is not supported in compiled functions except as the "
                             f"argument of {where}; write an array expression (np.sin(x), "
                             "a[a > 0]) or a loop into an array", e)
        kind = type(e).__name__
        raise self.error(f"'{kind}' expressions are not supported in compiled functions; "
                         + UNSUPPORTED_EXPRESSIONS.get(kind, "write it with arrays and loops, "
                                                       "or call it outside"), e)

    def reused(self, value, node):
        """A maker of copies of `value`, an expression a construct reads more than once:
        evaluated once, into a variable the statement sets first, unless a name or a
        constant."""
        if isinstance(value, (ir.Name, ir.Const)):
            return lambda: copy.deepcopy(value)
        if self.hoisted is None or self.conditional:
            raise self.error("this argument is read more than once here: put it in a variable "
                             "first", node)
        return self.evaluated_once(value, self.hoisted, value.loc)

    def clipped(self, e, array, bounds, method):
        """`np.clip(a, a_min, a_max)` (or NumPy 2.1's `np.clip(a, min=, max=)`), `a.clip(min,
        max)`: either bound None or, where NumPy lets it, left out: np.maximum(a, lo) or
        np.minimum(a, hi) then, as NumPy's clip computes it (NaN propagates). The arguments
        NumPy refuses (np.clip with a_min but no a_max, a.clip(a_min=)) are refused."""
        names = ("min", "max") if method else ("a_min", "a_max")
        signature = "a.clip(min=None, max=None)" if method else \
            "np.clip(a, a_min, a_max) (or np.clip(a, min=, max=))"
        if len(bounds) > 2:
            raise self.error(f"{signature} takes two bounds here (an output array only in a "
                             f"statement of its own: np.clip(a, lo, hi, out))", e)
        given = dict(zip(names, bounds))
        for k in e.keywords:
            if k.arg not in names + ("min", "max") or k.arg in given:
                raise self.error(f"{signature} takes each bound once, by position or as "
                                 f"{'=, '.join(dict.fromkeys(names + ('min', 'max')))}= (NumPy "
                                 f"raises TypeError)", k.value)
            given[k.arg] = k.value
        if not method and given and ({"a_min", "a_max"} & set(given)) and \
                set(given) != {"a_min", "a_max"}:
            raise self.error(f"{signature} takes a_min and a_max both (either may be None), or "
                             f"min= and max= alone (NumPy raises TypeError)", e)
        given = {name[-3:]: self.expr(v) for name, v in given.items()
                 if not (isinstance(v, gast.Constant) and v.value is None)}
        if not given:
            raise self.error(f"{signature} needs a bound that is not None in compiled code "
                             "(without bounds, write a.copy())", e)
        a, loc = self.expr(array), loc_of(e)
        if len(given) == 2:
            return ir.Call("np.clip", [a, given["min"], given["max"]], loc)
        side, bound = next(iter(given.items()))
        return ir.Call("np.maximum" if side == "min" else "np.minimum", [a, bound], loc)

    def quantiles(self, e, name):
        """`np.percentile(a, [25, 75])` (also np.quantile, np.nanpercentile, np.nanquantile):
        q a list or tuple written out. NumPy's array of one result per q, each q a float64:
        np.array of the scalars, or, along an axis, np.stack of the arrays along a new first
        axis; `a` read once."""
        loc, q = loc_of(e), quantile_q(e)
        if not q.elts:
            raise self.error(f"np.{name}() takes at least one q in compiled code", q)
        keywords = {k.arg: k for k in e.keywords if k.arg != "q"}
        if "keepdims" in keywords:
            raise self.error(f"np.{name}() of a list of q takes no keepdims= in compiled code: "
                             f"call it once per q", keywords["keepdims"].value)
        rest = e.args[2:]
        a = self.reused(self.expr(e.args[0]), e.args[0])
        # (NumPy reads q as np.asarray(q): a float64 array, which the result takes, for Python
        # numbers)
        items = [ir.ArrayCall(name, [a(), ir.Call("cast:float64", [self.expr(x)], loc)]
                              + [self.array_call_arg(r) for r in rest],
                              {k: self.keyword_value(kw) for k, kw in keywords.items()}, loc)
                 for x in q.elts]
        if rest or "axis" in keywords:
            return ir.ArrayCall("stack", [items], {"axis": ir.Const(0, loc)}, loc)
        return ir.ArrayCall("asarray", [items], {}, loc)

    def trapezoid(self, e, name):
        """np.trapezoid(y, x=None, dx=1.0) (np.trapz before NumPy 2) along the last axis, as
        NumPy computes it: sum(d * (y[..., 1:] + y[..., :-1]) / 2.0, axis=-1), with
        d = np.diff(x) where x is given, else dx."""
        loc = loc_of(e)
        given = dict(zip(("y", "x", "dx", "axis"), e.args))
        for kw in e.keywords:
            if kw.arg not in ("x", "dx", "axis") or kw.arg in given:
                raise self.error(f"np.{name}(y, x=None, dx=1.0) takes y, x and dx here", e)
            given[kw.arg] = kw.value
        axis = given.get("axis")
        if "y" not in given or (axis is not None and not (
                isinstance(axis, gast.UnaryOp) and isinstance(axis.op, gast.USub)
                and isinstance(axis.operand, gast.Constant) and axis.operand.value == 1)):
            raise self.error(f"np.{name}(y, x=None, dx=1.0) integrates along the last axis "
                             "here (axis=-1)", e)
        y = self.reused(self.expr(given["y"]), given["y"])
        ends = [ir.Subscript(y(), [ir.Const(Ellipsis, loc), ir.Slice(*bounds, None, loc)], loc)
                for bounds in ((ir.Const(1, loc), None), (None, ir.Const(-1, loc)))]
        if given.get("x") is not None:
            d = ir.ArrayCall("diff", [self.expr(given["x"])], {}, loc)
        else:
            d = self.expr(given["dx"]) if "dx" in given else ir.Const(1.0, loc)
        heights = ir.BinOp("/", ir.BinOp("*", d, ir.BinOp("+", *ends, loc), loc),
                           ir.Const(2.0, loc), loc)
        return ir.ArrayCall("sum", [heights], {"axis": ir.Const(-1, loc)}, loc)

    def median(self, e):
        """np.median(a) of the whole array, as NumPy computes it: np.mean of the middle values
        of the sorted elements (two of an even count, one of an odd count: in float64 for
        integers, so int32 maxima do not wrap, and an odd count's value itself, so 1.7e308 is
        not doubled into inf), NaN where any element is NaN (which sorts last) or there is
        none."""
        loc = loc_of(e)
        if len(e.args) != 1 or e.keywords:
            raise self.error("np.median(a) of a whole array is supported here (not axis= or "
                             "out=): for rows, sort them (np.sort(a)) and take the middle", e)
        flat = ir.ArrayCall("ravel", [self.expr(e.args[0])], {}, loc)
        # (`middle`: only the middle positions and the last in sorted order, as NumPy's
        # np.partition: lower_sorting.select_middle)
        s = self.reused(ir.ArrayCall("sort", [flat], {"middle": ir.Const(True, loc)}, loc), e)

        def at(index):
            return ir.Subscript(s(), [index], loc)

        def count(minus, half):
            n = ir.ArrayAttr(s(), "shape", 0, loc)
            n = ir.BinOp("-", n, ir.Const(minus, loc), loc) if minus else n
            return ir.BinOp("//", n, ir.Const(2, loc), loc) if half else n
        middle = ir.ArrayCall("mean", [ir.Subscript(s(), [ir.Slice(
            count(1, True), ir.BinOp("+", count(0, True), ir.Const(1, loc), loc), None, loc)],
            loc)], {}, loc)
        last = at(count(1, False))
        valued = ir.IfExp(ir.Call("np.isnan", [last], loc), at(count(1, False)), middle, loc)
        # (no element: NaN, as NumPy's mean of an empty slice; NumPy warns too; math.nan, the
        # IR's one NaN object: see ir.from_data)
        return ir.IfExp(ir.Compare(count(0, False), ["=="], [ir.Const(0, loc)], loc),
                        ir.Const(LIBRARY_CONSTANTS["math.nan"], loc), valued, loc)

    def bound_arguments(self, e, names, signature):
        """{name: gast node} of the call `e` bound to NumPy's parameters `names` by position,
        then by keyword; too many, an unknown one or one given twice is an error showing
        `signature`."""
        if len(e.args) > len(names):
            raise self.error(f"{signature} takes at most {len(names)} arguments here", e)
        given = dict(zip(names, e.args))
        for kw in e.keywords:
            if kw.arg not in names or kw.arg in given:
                raise self.error(f"{signature} got '{kw.arg}' "
                                 f"{'twice' if kw.arg in given else 'which it does not take'}",
                                 kw.value)
            given[kw.arg] = kw.value
        return given

    def tensordot(self, e):
        """np.tensordot(a, b, axes=2) with the axes written out (an integer, or a pair of
        integers or of lists of them): the call 'tensordot' with the keyword `axes`, a Const
        (an int, or a pair of tuples)."""
        given = self.bound_arguments(e, ("a", "b", "axes"), "np.tensordot(a, b, axes=2)")
        if "b" not in given:
            raise self.error("np.tensordot(a, b, axes=2) takes two arrays and the axes", e)

        def literal(node):
            if isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.USub):
                value = literal(node.operand)
                return -value if type(value) is int else None
            return node.value if isinstance(node, gast.Constant) and \
                type(node.value) is int else None
        axes = given.get("axes")
        value = 2 if axes is None else literal(axes)
        if value is None and isinstance(axes, (gast.Tuple, gast.List)) and len(axes.elts) == 2:
            value = tuple(tuple(literal(x) for x in side.elts)
                          if isinstance(side, (gast.Tuple, gast.List))
                          else (literal(side),) for side in axes.elts)
            if any(x is None for side in value for x in side):
                value = None
        if value is None:
            raise self.error("the axes of np.tensordot() must be written out in compiled code: "
                             "an integer (axes=2) or a pair of lists of integers "
                             "(axes=([1], [0]))", axes)
        loc = loc_of(e)
        return ir.ArrayCall("tensordot", [self.expr(given["a"]), self.expr(given["b"])],
                            {"axes": ir.Const(value, loc_of(axes) if axes else loc)}, loc)

    def polyfit(self, e):
        """np.polyfit(x, y, deg): the least-squares coefficients (highest power first), through
        the normal equations of NumPy's scaled Vandermonde matrix (numpy/lib/_polynomial_impl.py:
        lhs = vander(x + 0.0, deg + 1), each column divided by its 2-norm `scale`, then
        lstsq(lhs, y + 0.0) / scale): np.linalg.solve(lhs.T @ lhs, lhs.T @ y) / scale. The
        arrays are computed once each, before the statement, after NumPy's checks (ValueError
        for deg < 0, an empty x, or x and y of different lengths)."""
        loc = loc_of(e)
        names = ("x", "y", "deg", "rcond", "full", "w", "cov")
        given = self.bound_arguments(e, names, "np.polyfit(x, y, deg)")
        defaults = {"rcond": None, "full": False, "w": None, "cov": False}
        for k, default in defaults.items():
            node = given.get(k)
            if node is not None and not (isinstance(node, gast.Constant) and
                                         node.value is default):
                raise self.error(f"np.polyfit() with {k}= is not supported in compiled code "
                                 "(the coefficients alone, unweighted, with NumPy's default "
                                 "rcond); for more, call it outside", node)
        if not all(k in given for k in names[:3]):
            raise self.error("np.polyfit(x, y, deg) needs x, y and deg", e)
        if self.hoisted is None or self.conditional:
            raise self.error("np.polyfit() is computed before its statement: write it in a "
                             "statement of its own (p = np.polyfit(x, y, deg)), not inside a "
                             "conditional expression", e)

        def floats(node):       # NumPy's x + 0.0
            return self.reused(ir.BinOp("+", self.expr(node), ir.Const(0.0, loc), loc), node)
        x, y, deg = floats(given["x"]), floats(given["y"]), self.reused(
            self.expr(given["deg"]), given["deg"])
        n = ir.ArrayAttr(x(), "shape", 0, loc)
        for bad, message in ((ir.Compare(deg(), ["<"], [ir.Const(0, loc)], loc),
                              "expected deg >= 0"),
                             (ir.Compare(n, ["=="], [ir.Const(0, loc)], loc),
                              "expected non-empty vector for x"),
                             (ir.Compare(copy.deepcopy(n), ["!="], [
                                 ir.ArrayAttr(y(), "shape", 0, loc)], loc),
                              "expected x and y to have same length")):
            self.hoisted.append(ir.If(bad, [ir.Raise("ValueError", message, loc)], [], loc))
        every = ir.Slice(None, None, None, loc)

        def column(v):
            return ir.Subscript(v, [every, ir.NewAxis(loc)], loc)

        def transposed(v):
            return ir.ArrayCall("transpose", [v], {}, loc)
        powers = ir.ArrayCall("arange", [deg(), ir.Const(-1, loc), ir.Const(-1, loc)], {}, loc)
        vander = self.reused(ir.BinOp("**", column(x()), ir.Subscript(
            powers, [ir.NewAxis(loc), copy.deepcopy(every)], loc), loc), e)
        scale = self.reused(ir.Call("np.sqrt", [ir.ArrayCall(
            "sum", [ir.BinOp("*", vander(), vander(), loc)], {"axis": ir.Const(0, loc)}, loc)],
            loc), e)
        lhs = self.reused(ir.BinOp("/", vander(), scale(), loc), e)
        solved = ir.ArrayCall("solve", [ir.BinOp("@", transposed(lhs()), lhs(), loc),
                                        ir.BinOp("@", transposed(lhs()), y(), loc)], {}, loc)
        return transposed(ir.BinOp("/", transposed(solved), scale(), loc))

    @contextlib.contextmanager
    def on_condition(self):
        self.conditional += 1
        try:
            yield
        finally:
            self.conditional -= 1

    def generator_reduction(self, e):
        """`sum(elt for t in it if c)` (and min, max, any, all): a loop that the statement
        runs first, into a variable of its own, as Python's builtin walks the generator: sum
        adds each item to `start` (0 by default) in turn; min and max keep an item that
        compares less (greater) than the one kept, the first to begin with, and raise
        ValueError when there is none; any and all stop at the first true (false) item. The
        generator's names are its own (Python's scope): renamed, they touch no local."""
        name = self.qualified(e.func)
        gen = e.args[0]
        if self.hoisted is None or self.conditional:
            raise self.error(f"{name}() of a generator expression inside a conditional "
                             "expression (x if c else y, and, or) is not supported: compute "
                             "it in a statement of its own first", e)
        most = 2 if name == "sum" else 1
        if e.keywords or len(e.args) > most:
            raise self.error(f"{name}() of a generator expression takes "
                             f"{'a start value' if name == 'sum' else 'no other argument'} "
                             "here", e)
        if len(gen.generators) != 1:
            raise self.error("a generator expression with one 'for' is supported here; write "
                             "the nested loops", gen)
        comp = gen.generators[0]
        targets = comp.target.elts if isinstance(comp.target, gast.Tuple) else [comp.target]
        if not all(isinstance(t, gast.Name) for t in targets):
            raise self.error("a generator's loop variables must be plain names", comp.target)
        renamed = {t.id: self.fresh("g") for t in targets}
        self.assigned |= set(renamed.values())
        elt, target = _renamed(gen.elt, renamed), _renamed(comp.target, renamed)
        conditions = [_renamed(c, renamed) for c in comp.ifs]
        acc, seen, item = self.fresh("acc"), self.fresh("seen"), self.fresh("item")
        self.assigned |= {acc, seen, item}
        nodes = _Nodes(e)
        at, load, assign, const = nodes.at, nodes.load, nodes.assign, nodes.const
        start = e.args[1] if len(e.args) > 1 else const(0)
        first = {"sum": [assign(acc, start)], "any": [assign(acc, const(False))],
                 "all": [assign(acc, const(True))]}.get(
            name, [assign(seen, const(False)), assign(acc, const(0))])
        if name == "sum":
            step = [assign(acc, at(gast.BinOp(load(acc), gast.Add(), elt)))]
        elif name in ("any", "all"):
            test = elt if name == "any" else at(gast.UnaryOp(gast.Not(), elt))
            step = [at(gast.If(test, [assign(acc, const(name == "any")), at(gast.Break())],
                               []))]
        else:
            beats = at(gast.Compare(load(item), [gast.Lt() if name == "min" else gast.Gt()],
                                    [load(acc)]))
            keep = at(gast.BoolOp(gast.Or(), [at(gast.UnaryOp(gast.Not(), load(seen))),
                                              beats]))
            step = [assign(item, elt),
                    at(gast.If(keep, [assign(acc, load(item)), assign(seen, const(True))],
                               []))]
        if conditions:
            test = conditions[0] if len(conditions) == 1 else \
                at(gast.BoolOp(gast.And(), conditions))
            step = [at(gast.If(test, step, []))]
        loop = at(gast.For(target, comp.iter, step, [], None))
        lowered = []
        for stmt in first + [loop]:
            lowered += self.stmt(stmt)
        if name in ("min", "max"):
            lowered.append(ir.If(ir.UnaryOp("not", ir.Name(seen, loc_of(e)), loc_of(e)),
                                 [ir.Raise("ValueError", f"{name}() arg is an empty sequence",
                                           loc_of(e))], [], loc_of(e)))
        self.hoisted += lowered
        return ir.Name(acc, loc_of(e))

    def comprehension_array(self, e):
        """`np.array([elt for t in it])`, and `[[elt for u in inner] for t in it]` (2-D): a new
        array of the items in order, filled by loops that the statement runs first (as
        `generator_reduction`'s), each item cast to the array's dtype: `dtype=`, else the
        item's type (NumPy's for any item; for none NumPy makes float64); a 1-D one may filter
        (`if`: the items kept, copied out of an array of the iterable's length). `it` is
        `range(...)` (a step, if any, an integer literal) or an array (its elements, or rows
        for the inner level); an inner level's iterable does not read the outer's variable
        (rows of one length). The loop variables are the comprehension's own (renamed)."""
        if self.hoisted is None or self.conditional:
            raise self.error("np.array() of a list comprehension inside a conditional "
                             "expression (x if c else y, and, or) is not supported: compute "
                             "it in a statement of its own first", e)
        dtype = [self.dtype_value(kw.value) for kw in e.keywords if kw.arg == "dtype"]
        if len(e.args) == 2:
            dtype = [self.dtype_value(e.args[1])]
        if len(e.args) > 2 or any(kw.arg != "dtype" for kw in e.keywords):
            raise self.error("np.array() of a list comprehension takes dtype= only here", e)
        comps, elt = [], e.args[0]
        while isinstance(elt, gast.ListComp):
            if len(comps) == 2:
                raise self.error("np.array() of list comprehensions nested three deep is not "
                                 "supported; fill the array in loops", elt)
            if len(elt.generators) != 1 or \
                    not isinstance(elt.generators[0].target, gast.Name):
                raise self.error("np.array() of a list comprehension takes one 'for' over a "
                                 "plain name here; fill the array in loops", elt)
            comps.append(elt.generators[0])
            elt = elt.elt
        if any(c.ifs for c in comps) and len(comps) > 1:
            raise self.error("np.array() of nested list comprehensions takes no 'if' (rows "
                             "would differ in length); fill the array in loops", e.args[0])
        if len(comps) == 2 and any(isinstance(n, gast.Name) and n.id == comps[0].target.id
                                   for n in gast.walk(comps[1].iter)):
            raise self.error("the inner list of np.array([[...] for ...]) iterates over "
                             "something that depends on the outer loop: rows may differ in "
                             "length; fill the array in loops", comps[1].iter)
        renamed = {c.target.id: self.fresh("g") for c in comps}
        self.assigned |= set(renamed.values())

        nodes = _Nodes(e)
        at, load, store, assign, const, call = (nodes.at, nodes.load, nodes.store,
                                                nodes.assign, nodes.const, nodes.call)

        first, typing, levels, lengths = [], [], [], []
        for c in comps:
            it = _renamed(c.iter, renamed)
            var = renamed[c.target.id]
            if isinstance(it, gast.Call) and self.qualified(it.func) == "range" and \
                    not it.keywords and 1 <= len(it.args) <= 3:
                args = [const(0)] + it.args if len(it.args) == 1 else list(it.args)
                step = _int_literal(args[2]) if len(args) == 3 else 1
                if not step:
                    raise self.error("np.array() of a list comprehension over a range takes a "
                                     "step that is a nonzero integer literal here", it)
                # (the iterable is read for its length and by the loop)
                (lo, made_lo), (hi, made_hi) = (self.named_once(args[0], "lo"),
                                                self.named_once(args[1], "hi"))
                first += made_lo + made_hi
                span = at(gast.BinOp(hi, gast.Sub(), lo)) if step > 0 else \
                    at(gast.BinOp(lo, gast.Sub(), hi))
                size = abs(step)
                count = span if size == 1 else at(gast.BinOp(
                    at(gast.BinOp(span, gast.Add(), const(size - 1))), gast.FloorDiv(),
                    const(size)))
                lengths.append(call("max", count, const(0)))
                loop_over = at(gast.Call(it.func, [lo, hi] + ([const(step)]
                                                              if step != 1 else []), []))
                typing.append(at(gast.For(store(var), call("range", const(0)),
                                          [at(gast.Pass())], [], None)))
            else:
                loop_over, made = self.named_once(it, "it")
                first += made
                lengths.append(at(gast.Subscript(at(gast.Attribute(loop_over, "shape",
                                                                   gast.Load())),
                                                 const(0), gast.Load())))
                empty = at(gast.Subscript(loop_over, at(gast.Slice(None, const(0), None)),
                                          gast.Load()))
                typing.append(at(gast.For(store(var), empty, [at(gast.Pass())], [], None)))
            levels.append((var, loop_over))
        item = _renamed(elt, renamed)
        if any(isinstance(n, (gast.GeneratorExp, gast.ListComp)) for n in gast.walk(item)):
            raise self.error("np.array() of a list comprehension whose items are generator "
                             "expressions is not supported; fill the array in a loop", elt)
        out = self.fresh("arr")
        counters = [self.fresh("k") for _ in levels]
        self.assigned |= {out, *counters}
        lowered = []
        for stmt in first + typing:
            lowered += self.stmt(stmt)
        loc = loc_of(e)
        keywords = {"dtype": dtype[0]} if dtype else {}
        lowered.append(ir.Assign(ir.Name(out, loc), ir.ArrayCall(
            "comprehension_array", [self.expr(x) for x in lengths] + [self.expr(item)],
            keywords, loc), loc))
        target = at(gast.Subscript(load(out), at(gast.Tuple([load(k) for k in counters],
                                                            gast.Load())) if len(counters) > 1
                                   else load(counters[0]), gast.Store()))
        body = [at(gast.Assign([target], item, None))]
        for (var, loop_over), k, c in reversed(list(zip(levels, counters, comps))):
            kept = body + [assign(k, at(gast.BinOp(load(k), gast.Add(), const(1))))]
            if c.ifs:
                # Filtered: each condition evaluated once, as Python's; the items kept fill
                # the front of an array of the iterable's length, copied out after.
                test = [_renamed(x, renamed) for x in c.ifs]
                kept = [at(gast.If(test[0] if len(test) == 1 else
                                   at(gast.BoolOp(gast.And(), test)), kept, []))]
            body = [assign(k, const(0)), at(gast.For(store(var), loop_over, kept, [], None))]
        for stmt in body:
            lowered += self.stmt(stmt)
        # Each counter is in range by construction: it counts the items stored so far, at
        # most its level's length (the array's extent), which was computed before the loops
        # from the bounds the loops run with (bounds read once).
        stack = list(lowered)
        while stack:
            s = stack.pop()
            stack += getattr(s, "body", []) + getattr(s, "orelse", [])
            if isinstance(s, ir.Assign) and isinstance(s.target, ir.Subscript) and \
                    s.target.array.id == out:
                s.target.in_range = list(range(len(counters)))
        self.hoisted += lowered
        if comps[0].ifs:
            return self.expr(at(gast.Call(at(gast.Attribute(at(gast.Subscript(
                load(out), at(gast.Slice(None, load(counters[0]), None)), gast.Load())),
                "copy", gast.Load())), [], [])))
        return ir.Name(out, loc)

    def module_constant(self, use):
        """A module-level numeric constant the function reads: a literal of its value, or the
        cast of it to the NumPy scalar type it was made with (`EPS = np.float32(1e-6)`). The
        interpreter reads the name when the code runs, so the assignment may come after the
        function."""
        loc = loc_of(use)
        try:
            cast = self.module.numbers.scalar_cast(use)
            if cast is not None:
                dtype, number = cast
                return ir.Call("cast:" + dtype, [ir.Const(number, loc)], loc)
            return ir.Const(self.module.numbers.value(use, ordered=False), loc)
        except NotConstant as refusal:
            raise self.error(refusal.reason, refusal.node) from None

    def subscript_or_shape(self, e):
        array = self.shape_source(e.value)
        if array is not None:
            k = e.slice
            if isinstance(k, gast.Slice):      # `a.shape[:-1]`: a tuple, sliced in typeinfer
                return ir.Subscript(ir.ArrayAttr(array, "shape", None, loc_of(e.value)),
                                    [self.index(k)], loc_of(e))
            dim = _int_literal(k)
            if dim is None:
                raise self.error("the shape index must be an integer literal", e.slice)
            return ir.ArrayAttr(array, "shape", dim, loc_of(e))
        return self.subscript(e)

    def subscript(self, e):
        """`a[i, j]` and `a[i][j]` both become one access with all indices; `a[1:][0]` (a
        slice before another subscript) stays two. Slices and `None` are kept for typeinfer,
        which tells an element from a view."""
        if self.is_flat(e.value):
            return self.flat_item(e)
        parts = e.slice.elts if isinstance(e.slice, gast.Tuple) else [e.slice]
        if self.qualified(e.value) in ("numpy.mgrid", "numpy.ogrid"):
            return self.grid(e, parts)
        indices = [self.index(p) for p in parts]
        inner = e.value
        if isinstance(inner, gast.Subscript) and self.shape_source(inner.value) is None:
            base = self.subscript(inner)
            if isinstance(base, ir.Subscript) and isinstance(base.array, ir.Name) and not any(
                    isinstance(i, (ir.Slice, ir.NewAxis)) or is_ellipsis(i)
                    for i in base.indices):
                return ir.Subscript(base.array, base.indices + indices, loc_of(e),
                                    joins=list(base.joins) + [len(base.indices)])
            return ir.Subscript(base, indices, loc_of(e))
        array = (ir.Name(inner.id, loc_of(inner)) if isinstance(inner, gast.Name)
                 else self.expr(inner))
        return ir.Subscript(array, indices, loc_of(e))

    def grid(self, e, parts):
        """`np.mgrid[a:b:s, ...]`, `np.ogrid[...]` of integer slices: ArrayCall 'mgrid' or
        'ogrid' of each slice's start, stop and step (typeinfer makes the grids)."""
        name = self.qualified(e.value)[len("numpy."):]
        args = []
        for p in parts:
            if not isinstance(p, gast.Slice) or p.upper is None or (
                    isinstance(p.step, gast.Constant) and isinstance(p.step.value, complex)):
                raise self.error(f"np.{name}[...] takes slices start:stop:step of integers in "
                                 "compiled code (a complex step, a number of points, is not "
                                 "supported); for points write np.meshgrid(np.linspace(a, b, n), "
                                 "..., indexing='ij')", p)
            args += [self.expr(p.lower) if p.lower is not None else ir.Const(0, loc_of(p)),
                     self.expr(p.upper),
                     self.expr(p.step) if p.step is not None else ir.Const(1, loc_of(p))]
        single = not isinstance(e.slice, gast.Tuple)
        return ir.ArrayCall(name, args, {"single": ir.Const(single, loc_of(e))}, loc_of(e))

    def index(self, p):
        if isinstance(p, gast.List):
            # `a[[0, 2, 3]]`: NumPy reads a list as an index array of its values
            return ir.ArrayCall("copy", [self.array_call_arg(p)], {}, loc_of(p))
        if isinstance(p, gast.Slice):
            return ir.Slice(*(None if x is None else self.expr(x)
                              for x in (p.lower, p.upper, p.step)), loc_of(p))
        if (isinstance(p, gast.Constant) and p.value is None) or \
                self.qualified(p) == "numpy.newaxis":
            return ir.NewAxis(loc_of(p))
        if isinstance(p, gast.Constant) and p.value is Ellipsis:
            # `...`: as many ':' as the dimensions the other indices leave (typeinfer knows).
            return ir.Const(Ellipsis, loc_of(p))
        return self.expr(p)

    def attribute(self, e):
        if e.attr in ("ndim", "size") and not self.is_module(e.value):
            return ir.ArrayAttr(self.array_name(e.value), e.attr, None, loc_of(e))
        if e.attr == "T" and not self.is_module(e.value):
            return ir.ArrayCall("transpose", [self.expr(e.value)], {}, loc_of(e))
        if e.attr in ("real", "imag") and not self.is_module(e.value):
            return ir.Call("np." + e.attr, [self.expr(e.value)], loc_of(e))
        if e.attr == "shape":
            return ir.ArrayAttr(self.array_name(e.value), "shape", None, loc_of(e))
        if self.is_flat(e):
            # a.flat as a value (np.sum(a.flat), zip(a.flat, b.flat)): its elements in C
            # order, as a.ravel() (a copy where a is not contiguous: read only)
            return ir.ArrayCall("ravel", [self.expr(e.value)], {}, loc_of(e))
        if self.qualified(e) in LIBRARY_CONSTANTS:
            return ir.Const(LIBRARY_CONSTANTS[self.qualified(e)], loc_of(e))
        if is_dtype_name(self.qualified(e)):
            shown = "np." + self.qualified(e)[len("numpy."):]
            raise self.error(f"{shown} is a dtype, which compiled code takes only as the dtype "
                             f"of an allocation or conversion (np.zeros(n, dtype={shown}), "
                             f"np.full(n, v, {shown}), a.astype({shown})) or as a cast "
                             f"({shown}(x))", e)
        raise self.error(f"attribute '{e.attr}' is not supported in compiled functions", e)

    def is_list(self, node) -> bool:
        """Whether `node` names a list (a name bound to a list literal, a list comprehension or
        list(...))."""
        return isinstance(node, gast.Name) and node.id in self.lists

    def list_item(self, node) -> bool:
        """Whether `node` is an item of a list (`m[i]`, `m[i][j]`), where a list is expected
        of it (a method's, len()'s, a loop's): of a list of lists, typeinfer checks."""
        return isinstance(node, gast.Subscript) and not isinstance(
            node.slice, (gast.Slice, gast.Tuple)) and (self.is_list(node.value) or
                                                       self.list_item(node.value))

    def new_list_value(self, value):
        """A value that makes a new list (`[0] * n`, `[a, b]`, a comprehension) where a list
        takes it as an item (appended, inserted, stored, in a literal): the list made first,
        named; any other value as it is."""
        if self.makes_list(value) and self.hoisted is not None and not self.conditional:
            return _Nodes(value).load(self.list_named(value))
        return value

    def length(self, name: ir.Name):
        """`len(name)`: of a list, else of an array's first dimension."""
        if name.id in self.lists:
            return ir.ListLen(name, name.loc)
        return ir.ArrayAttr(name, "shape", 0, name.loc)

    def is_module(self, node):
        """Whether `node` names an imported module or something in one (`np`, `np.linalg`)."""
        while isinstance(node, gast.Attribute):
            node = node.value
        return isinstance(node, gast.Name) and node.id in self.imports \
            and node.id not in self.assigned

    def keywords(self, e):
        return {kw.arg: self.keyword_value(kw) for kw in e.keywords}

    def keyword_value(self, kw):
        if kw.arg is None:
            raise self.error("'**' arguments are not supported in compiled functions", kw.value)
        if kw.arg == "dtype":
            return self.dtype_value(kw.value)
        if kw.arg in ("kind", "side", "indexing", "method", "mode", "optimize") and \
                isinstance(kw.value, gast.Constant) and isinstance(kw.value.value, str):
            # np.sort(a, kind='stable'), side='right', np.convolve(a, v, mode='same')
            return ir.Const(kw.value.value, loc_of(kw.value))
        if kw.arg == "axis" and isinstance(kw.value, gast.Constant) and kw.value.value is None:
            return ir.Const(None, loc_of(kw.value))     # np.sum(a, axis=None)
        return self.expr(kw.value)

    def dtype_value(self, node):
        """A dtype argument: a literal dtype (as a Const string), `a.dtype` (as an ArrayAttr) or
        a parameter of type `type[...]` (as the Name; typeinfer tells it from other names)."""
        if isinstance(node, gast.Attribute) and node.attr == "dtype" and \
                isinstance(node.value, gast.Name) and not self.is_module(node.value):
            return ir.ArrayAttr(ir.Name(node.value.id, loc_of(node.value)), "dtype", None,
                                loc_of(node))
        if isinstance(node, gast.Name) and node.id in self.assigned:
            return ir.Name(node.id, loc_of(node))
        return ir.Const(self.dtype_literal(node, node), loc_of(node))

    def argument(self, node):
        """An argument of a compiled function: a dtype (`np.float64`, for a parameter of type
        `type[float64]`) as a Const of its name, else the expression."""
        dtype = None if isinstance(node, gast.Name) and node.id in self.assigned else \
            dtype_named(node, self.imports)
        return ir.Const(dtype, loc_of(node)) if dtype is not None else self.expr(node)

    def float_of_string(self, text):
        """`float('inf')`, `float('-inf')`, `float('nan')` (any string Python's float() reads):
        the Python float it gives, a constant."""
        try:
            value = float(text.value)
        except ValueError:
            raise self.error(f"float({text.value!r}) raises ValueError in the interpreter: "
                             "float() of a string takes a number, 'inf', '-inf' or 'nan'",
                             text) from None
        # (NaN as math.nan, the one NaN object of the IR: see ir.from_data)
        return ir.Const(LIBRARY_CONSTANTS["math.nan"] if value != value else value,
                        loc_of(text))

    def call(self, e):
        loc = loc_of(e)
        if isinstance(e.func, gast.Name) and e.func.id in self.lambdas:
            return self.lambda_call(e)
        if isinstance(e.func, gast.Name) and e.func.id == "print" and \
                e.func.id not in self.assigned and e.func.id not in self.imports:
            return self.print_call(e)
        if isinstance(e.func, gast.Lambda):
            raise self.error("'Lambda' expressions are not supported in compiled functions; "
                             + UNSUPPORTED_EXPRESSIONS["Lambda"], e.func)
        if isinstance(e.func, gast.Attribute) and not self.is_module(e.func.value):
            return self.method(e)
        if isinstance(e.func, gast.Name) and e.func.id in self.compiled_names \
                and e.func.id not in self.imports:
            return self.call_compiled(e)
        qualified = self.qualified(e.func)
        if qualified == "float" and len(e.args) == 1 and not e.keywords and \
                isinstance(e.args[0], gast.Constant) and isinstance(e.args[0].value, str):
            return self.float_of_string(e.args[0])
        if qualified == "numpy.linalg.matrix_power":
            return self.matrix_power(e)
        if qualified in TRIANGLE_INDICES:
            return self.triangle_indices(e, qualified)
        if qualified and qualified.startswith(CALLED_THROUGH_PYTHON) and self.is_module(e.func):
            # np.random's and random's draws, time's clocks (typeinfer/python_calls.py)
            if qualified.rpartition(".")[2] in ("default_rng", "Generator", "RandomState"):
                shown = qualified.replace("numpy.", "np.", 1)
                raise self.error(f"{shown}() is not supported in compiled code: draw with the "
                                 "module's functions (np.random.seed(s), then "
                                 "np.random.random(n), np.random.normal(0.0, 1.0, size=n), "
                                 "...), or pass the drawn arrays in", e)
            return ir.ArrayCall(qualified, [self.expr(a) for a in e.args], self.keywords(e),
                                loc)
        if qualified and qualified.startswith("numpy."):
            name = qualified[len("numpy."):]
            if name in ARRAY_FUNCTIONS:
                e = self.nones_by_name(e, numpy_function(name), 0)
                if name in QUANTILES and isinstance(quantile_q(e), (gast.List, gast.Tuple)):
                    return self.quantiles(e, name)
                args, keywords = list(e.args), self.keywords(e)
                if len(args) == DTYPE_POSITION.get(name, -1) + 1:
                    if "dtype" in keywords:
                        raise self.error(f"np.{name}() got the dtype twice (by position and "
                                         "as dtype=)", e)
                    keywords["dtype"] = self.dtype_value(args.pop())
                args = [self.array_call_arg(a) for a in args]
                return ir.ArrayCall(ARRAY_FUNCTIONS[name], args, keywords, loc)
            name = "conjugate" if name == "conj" else name
            if name == "where" and len(e.args) == 1 and not e.keywords:
                # np.where(condition): the indices where it holds, as np.nonzero gives them
                return ir.ArrayCall("nonzero", [self.expr(e.args[0])], {}, loc)
            if name in ("round", "around"):
                return self.rounding(e, list(e.args))
            if name.endswith(".at") and name[:-3] in UNBUFFERED_UFUNCS:
                return self.ufunc_at(e, name[:-3])
            if name.endswith(".outer"):
                return self.ufunc_outer(e, name[:-len(".outer")])
            if name in ("isclose", "allclose"):
                return self.closeness(e, name)
            if name == "trapz" and not hasattr(np, "trapz"):
                raise self.error(f"np.trapz is not in NumPy {np.__version__} (removed in 2.4: "
                                 "the interpreter raises AttributeError); write np.trapezoid",
                                 e.func)
            if name in ("trapezoid", "trapz"):
                return self.trapezoid(e, name)
            if name == "ptp":
                # NumPy's: np.max(a, axis) - np.min(a, axis), in a's dtype (integers wrap)
                if len(e.args) != 1 or set(k.arg for k in e.keywords) - {"axis", "keepdims"}:
                    raise self.error("np.ptp(a, axis=None, keepdims=False) takes one array "
                                     "and axis=, keepdims= here", e)
                a = self.reused(self.expr(e.args[0]), e)
                return ir.BinOp("-", ir.ArrayCall("max", [a()], self.keywords(e), loc),
                                ir.ArrayCall("min", [a()], self.keywords(e), loc), loc)
            if name == "nansum":
                if len(e.args) != 1 or set(k.arg for k in e.keywords) - {"axis", "keepdims"}:
                    raise self.error("np.nansum(a, axis=k) takes one array here", e)
                # NumPy's: the NaNs replaced by 0, then np.sum (integers as they are)
                a = self.reused(self.expr(e.args[0]), e)
                kept = ir.Call("np.where", [ir.Call("np.isnan", [a()], loc), ir.Const(0, loc),
                                            a()], loc)
                return ir.ArrayCall("sum", [kept], self.keywords(e), loc)
            if name == "median":
                return self.median(e)
            if name == "tensordot":
                return self.tensordot(e)
            if name == "polyfit":
                return self.polyfit(e)
            if name == "clip" and e.args:
                return self.clipped(e, e.args[0], e.args[1:], method=False)
            if name == "gradient":
                if not e.args:
                    raise self.error("np.gradient(f, *varargs, axis=None, edge_order=1) needs "
                                     "the array f", e)
                f = self.reused(self.expr(e.args[0]), e.args[0])
                return ir.ArrayCall("gradient", [f()] + [self.expr(a) for a in e.args[1:]],
                                    self.keywords(e), loc)
            if name == "count_nonzero":
                if len(e.args) != 1 or set(k.arg for k in e.keywords) - {"axis", "keepdims"}:
                    raise self.error("np.count_nonzero(a, axis=k) takes one array here", e)
                return ir.ArrayCall("sum", [ir.Compare(self.expr(e.args[0]), ["!="],
                                                       [ir.Const(0, loc)], loc)],
                                    self.keywords(e), loc)
            if name in OPERATOR_UFUNCS or name in COMPARE_UFUNCS:
                if e.keywords or len(e.args) != 2:
                    raise self.error(f"np.{name}(a, b) takes two arguments in compiled code "
                                     f"(an output array only in a statement of its own: "
                                     f"np.{name}(a, b, out))", e)
                a, b = (self.expr(x) for x in e.args)
                if name in OPERATOR_UFUNCS:
                    return ir.BinOp(OPERATOR_UFUNCS[name], a, b, loc)
                return ir.Compare(a, [COMPARE_UFUNCS[name]], [b], loc)
            if name in ELEMENTWISE:
                if e.keywords:
                    raise self.error(f"np.{name}() takes positional arguments only in compiled "
                                     "functions", e)
                return ir.Call("np." + ELEMENTWISE_ALIASES.get(name, name),
                               [self.expr(a) for a in e.args], loc)
        if qualified == "numpy.ndarray":
            return self.ndarray_allocation(e)
        # (of a function compiled code calls at all: else the call itself is what is refused)
        known = qualified in ("pow", "divmod", "numpy.divmod", "len") or (
            qualified is not None and builtin_name(qualified) is not None)
        if e.keywords and not self.is_allocator(e) and known:
            raise self.error(f"keyword arguments of '{qualified}' are not supported here", e)
        if qualified in ("pow", "divmod", "numpy.divmod"):     # np.divmod: of arrays too
            if len(e.args) != 2:
                raise self.error(f"{qualified}() takes two numbers in compiled code", e)
            if qualified == "pow":
                return ir.BinOp("**", self.expr(e.args[0]), self.expr(e.args[1]), loc)
            a, b = (self.reused(self.expr(x), x) for x in e.args)
            return ir.TupleValue([ir.BinOp("//", a(), b(), loc), ir.BinOp("%", a(), b(), loc)],
                                 loc)
        if qualified == "len":
            if len(e.args) != 1:
                raise self.error("len() takes one array or list", e)
            if self.list_item(e.args[0]):       # len(m[0]) of a list of lists
                return ir.ListLen(self.subscript(e.args[0]), loc)
            return self.length(self.array_name(e.args[0]))
        if qualified in ALLOCATORS:
            return self.allocation(e, ALLOCATORS[qualified])
        name = builtin_name(qualified) if qualified else None
        if name is None:
            shown = qualified or type(e.func).__name__
            raise self.error(f"call to '{shown}' is not supported in compiled functions: they "
                             "call math and NumPy functions (docs/supported.md lists them), "
                             "casts, and the module's other compiled functions; write it with "
                             "loops or array expressions, or call it outside", e)
        return ir.Call(name, [self.expr(a) for a in e.args], loc)

    def call_compiled(self, e):
        """A call of another compiled function of the module, with its arguments in parameter
        order: keyword arguments go to their parameters, and the callee's defaults fill the
        parameters the call leaves out (as the interpreter's call does)."""
        name = e.func.id
        callee = next(d for d in self.module.functions if d.node.name == name)
        params = [a.id for a in callee.node.args.args]
        args = [self.argument(a) for a in e.args]
        if len(args) > len(params):
            return ir.CallCompiled(name, args, loc_of(e))   # typeinfer counts them
        given = dict(zip(params, args))
        for kw in e.keywords:
            if kw.arg is None:
                raise self.error("'**' arguments are not supported in compiled functions",
                                 kw.value)
            if kw.arg not in params:
                raise self.error(f"{name}() has no parameter '{kw.arg}'", kw.value)
            if kw.arg in given:
                raise self.error(f"{name}() gets two values for its parameter '{kw.arg}'",
                                 kw.value)
            given[kw.arg] = self.argument(kw.value)
        defaults = dict(zip(params[len(params) - len(callee.defaults):], callee.defaults))
        for p in params:
            if p not in given:
                if p not in defaults:
                    raise self.error(f"{name}() is missing a value for its parameter '{p}'", e)
                given[p] = ir.Const(defaults[p].value, loc_of(e))
        return ir.CallCompiled(name, [given[p] for p in params], loc_of(e))

    def array_call_arg(self, a):
        """An argument of a NumPy array function: a shape tuple is a list of expressions."""
        if isinstance(a, (gast.Tuple, gast.List)):     # a shape; np.array's rows: nested
            return [self.array_call_arg(x) if isinstance(x, (gast.Tuple, gast.List))
                    else self.expr(x) for x in a.elts]
        array = self.shape_source(a)
        if array is not None:
            return [ir.ArrayAttr(array, "shape", None, loc_of(a))]
        if isinstance(a, gast.Constant) and isinstance(a.value, str):
            return ir.Const(a.value, loc_of(a))   # np.searchsorted(a, v, 'right'), a kind
        return self.expr(a)

    def method(self, e):
        """`a.sum(axis=0)`, `a.copy()`, ...: the array is the first argument; `out.append(v)`
        of a list."""
        name = e.func.attr
        if name == "append":
            return self.list_append(e)
        if name in ("pop", "insert") and (self.is_list(e.func.value) or
                                          self.list_item(e.func.value)):
            return self.list_pop_insert(e, name)
        if self.is_list(e.func.value) and name not in ARRAY_METHODS:
            raise self.error(f"the list method '.{name}()' is not supported in compiled "
                             "functions; a list there takes append(v), pop(), insert(i, v), "
                             "len(), [i] (read and stored), for loops, sum(), min(), max() and "
                             "np.array()", e)
        if name in ("conj", "conjugate") and not e.args and not e.keywords:
            return ir.Call("np.conjugate", [self.expr(e.func.value)], loc_of(e))
        if name == "round":
            return self.rounding(e, [e.func.value] + list(e.args))
        if name == "clip":
            return self.clipped(e, e.func.value, e.args, method=True)
        if name not in ARRAY_METHODS:
            raise self.error(f"the array method '.{name}()' is not supported in compiled "
                             f"functions (supported: {', '.join(sorted(ARRAY_METHODS))})", e)
        func = {"flatten": "copy_ravel"}.get(name, name)
        e = self.nones_by_name(e, numpy_function(name), 1)
        if name == "sort":      # a.sort(): in place, no value
            keywords = self.keywords(e)
            keywords["in_place"] = ir.Const(True, loc_of(e))
            return ir.ArrayCall("sort", [self.expr(e.func.value)] + [
                self.array_call_arg(a) for a in e.args], keywords, loc_of(e))
        array = self.expr(e.func.value)
        if name == "astype":
            if len(e.args) != 1 or e.keywords:
                raise self.error("a.astype(dtype) takes one dtype", e)
            return ir.ArrayCall("astype", [array], {"dtype": self.dtype_value(e.args[0])},
                                loc_of(e))
        args = [array] + [self.array_call_arg(a) for a in e.args]
        return ir.ArrayCall(func, args, self.keywords(e), loc_of(e))

    def nones_by_name(self, e, function, skip):
        """`e` with its arguments from the first None given by position on given by name, as
        NumPy's `function` (its first `skip` parameters not in `e.args`: a method's array)
        names them, the Nones whose parameter's default is None left out: Pythran's cronbach
        writes `a.var(1, None, None, 1)` for `a.var(1, ddof=1)`."""
        first = next((k for k, a in enumerate(e.args)
                      if isinstance(a, gast.Constant) and a.value is None), None)
        if first is None or function is None:
            return e
        try:
            params = list(inspect.signature(function).parameters.values())[skip:]
        except (TypeError, ValueError):
            return e
        positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        if len(e.args) > len(positional):
            return e
        keywords = list(e.keywords)
        for a, p in zip(e.args[first:], positional[first:]):
            if not (isinstance(a, gast.Constant) and a.value is None and p.default is None):
                keywords.append(gast.keyword(p.name, a))
        named = gast.Call(e.func, e.args[:first], keywords)
        return gast.copy_location(named, e)

    def matrix_power(self, e):
        """`np.linalg.matrix_power(a, n)`, n a literal >= 0: NumPy's products in NumPy's order
        (a itself for 1, a @ a, (a @ a) @ a, then the binary decomposition: a, a @ a, ... each
        squared once, multiplied into the result for each bit set), a square matrix checked
        first (LinAlgError, as NumPy's). The operand and the products are named first."""
        n = e.args[1].value if len(e.args) == 2 and isinstance(e.args[1], gast.Constant) \
            else None
        if e.keywords or type(n) is not int or n < 0:
            raise self.error("np.linalg.matrix_power(a, n) takes a literal power n >= 0 in "
                             "compiled code (for a negative one: np.linalg.inv(a) first)", e)
        if self.hoisted is None or self.conditional:
            raise self.error("np.linalg.matrix_power() inside a conditional expression (x if c "
                             "else y, and, or) is not supported: compute it in a statement of "
                             "its own first", e)
        nodes, loc = _Nodes(e), loc_of(e)
        a, made = self.named_once(e.args[0], "mp")
        self.hoisted += [x for stmt in made for x in self.stmt(stmt)]

        def extent(k):
            return ir.ArrayAttr(ir.Name(a.id, loc), "shape", k, loc)
        self.hoisted.append(ir.If(ir.Compare(extent(0), ["!="], [extent(1)], loc), [ir.Raise(
            "LinAlgError", "Last 2 dimensions of the array must be square", loc)], [], loc))

        def product(x, y):
            return nodes.at(gast.BinOp(x, gast.MatMult(), y))

        def named(value):
            name = self.fresh("mp")
            self.assigned.add(name)
            self.hoisted += self.stmt(nodes.assign(name, value))
            return nodes.load(name)
        if n == 0:
            return self.expr(nodes.at(gast.Call(
                nodes.at(gast.Attribute(self.numpy_name(nodes), "eye", gast.Load())),
                [nodes.at(gast.Subscript(nodes.at(gast.Attribute(nodes.load(a.id), "shape",
                                                                 gast.Load())),
                                         nodes.const(0), gast.Load()))],
                [gast.keyword("dtype", nodes.at(gast.Attribute(nodes.load(a.id), "dtype",
                                                               gast.Load())))])))
        if n <= 3:
            value = nodes.load(a.id)
            for _ in range(n - 1):
                value = product(value, nodes.load(a.id))
            return self.expr(value)
        z = result = None
        while n > 0:
            z = nodes.load(a.id) if z is None else named(product(z, z))
            n, bit = divmod(n, 2)
            if bit:
                result = z if result is None else named(product(result, z))
        return self.expr(result)

    def triangle_indices(self, e, qualified):
        """`np.triu_indices(n, k=0, m=None)` (`tril_indices`; `_from(a, k=0)` of a matrix's
        shape): the (rows, columns) of the triangle in C order, as np.nonzero of the triangle
        of a matrix of True gives them."""
        params = TRIANGLE_INDICES[qualified]
        if len(e.args) > len(params) or any(k.arg not in params for k in e.keywords) or \
                any(isinstance(a, gast.Starred) for a in e.args):
            raise self.error(f"{qualified.replace('numpy.', 'np.')}() takes "
                             f"({', '.join(params)}) in compiled code", e)
        given = dict(zip(params, e.args))
        given.update({k.arg: k.value for k in e.keywords})
        nodes = _Nodes(e)
        np_ = self.numpy_name(nodes)

        def attribute(value, name):
            return nodes.at(gast.Attribute(value, name, gast.Load()))
        if qualified.endswith("_from"):
            shape = attribute(given["arr"], "shape")
            n, m = (nodes.at(gast.Subscript(copy.deepcopy(shape), nodes.const(k), gast.Load()))
                    for k in (-2, -1))
        else:
            if "n" not in given:
                raise self.error(f"{qualified.replace('numpy.', 'np.')}() takes n", e)
            n, m = given["n"], given.get("m")
            if m is None or isinstance(m, gast.Constant) and m.value is None:
                n, made = self.named_once(n, "n")
                if made and (self.hoisted is None or self.conditional):
                    raise self.error(f"{qualified.replace('numpy.', 'np.')}(n) inside a "
                                     "conditional expression or a while condition takes n as a "
                                     "name or a number: compute it into a variable first", e)
                self.hoisted += [x for stmt in made for x in self.stmt(stmt)]
                m = copy.deepcopy(n)
        ones = nodes.at(gast.Call(attribute(copy.deepcopy(np_), "ones"), [
            nodes.at(gast.Tuple([n, m], gast.Load()))], [gast.keyword(
                "dtype", attribute(copy.deepcopy(np_), "bool_"))]))
        triangle = "triu" if "triu" in qualified else "tril"
        mask = nodes.at(gast.Call(attribute(copy.deepcopy(np_), triangle),
                                  [ones, given.get("k", nodes.const(0))], []))
        found = nodes.at(gast.Call(attribute(np_, "nonzero"), [mask], []))
        if self.hoisted is None or self.conditional:
            return self.expr(found)
        # named first: the tuple indexes an array (`d[np.triu_indices(n, 1)]`)
        name = self.fresh("tri")
        self.assigned.add(name)
        self.hoisted += self.stmt(nodes.assign(name, found))
        return ir.Name(name, loc_of(e))

    def list_append(self, e):
        """`out.append(v)`, `m[i].append(v)` (typeinfer checks that `out` is a list)."""
        if not (isinstance(e.func.value, gast.Name) or self.list_item(e.func.value)) or \
                len(e.args) != 1 or e.keywords or isinstance(e.args[0], gast.Starred):
            raise self.error("append() takes one value, appended to a list variable "
                             "(out.append(v))", e)
        return ir.ListAppend(self.list_receiver(e.func.value),
                             self.expr(self.new_list_value(e.args[0])), loc_of(e))

    def list_receiver(self, node):
        """The list a method works on: a name, or an item of a list of lists (`m[i]`)."""
        if isinstance(node, gast.Name):
            return ir.Name(node.id, loc_of(node))
        return self.subscript(node)

    def list_pop_insert(self, e, name):
        """`out.pop()`, `out.pop(i)`, `out.insert(i, v)` of a list."""
        lst = self.list_receiver(e.func.value)
        wanted = "an index and a value" if name == "insert" else "an index or nothing"
        if e.keywords or any(isinstance(a, gast.Starred) for a in e.args) or \
                len(e.args) != (2 if name == "insert" else len(e.args[:1])):
            raise self.error(f"{name}() takes {wanted} here", e)
        args = [self.expr(a) for a in e.args[:1]] + \
            [self.expr(self.new_list_value(a)) for a in e.args[1:]]
        if name == "pop":
            return ir.ListPop(lst, args[0] if args else None, loc_of(e))
        return ir.ListInsert(lst, args[0], args[1], loc_of(e))

    def list_array(self, e):
        """`np.array(out)`, `np.asarray(out)` of a list (dtype= by keyword or position): a new
        1-D array of its items, of their type or dtype=, filled by a loop that the statement
        runs first (as comprehension_array's)."""
        if self.hoisted is None or self.conditional:
            raise self.error("np.array() of a list inside a conditional expression (x if c "
                             "else y, and, or) is not supported: compute it in a statement of "
                             "its own first", e)
        if len(e.args) > 2 or any(kw.arg != "dtype" for kw in e.keywords):
            raise self.error("np.array() of a list takes dtype= only here", e)
        dtype = [self.dtype_value(kw.value) for kw in e.keywords] + \
            [self.dtype_value(x) for x in e.args[1:]]
        name, loc = e.args[0].id, loc_of(e)
        out, k = self.fresh("arr"), self.fresh("k")
        self.assigned |= {out, k}
        nodes = _Nodes(e)
        at, load = nodes.at, nodes.load
        # (its item 0 is typed only: the items' type, unless dtype= is given)
        first = ir.Subscript(ir.Name(name, loc), [ir.Const(0, loc)], loc)
        lowered = [ir.Assign(ir.Name(out, loc), ir.ArrayCall(
            "comprehension_array", [ir.ListLen(ir.Name(name, loc), loc), first],
            {"dtype": dtype[0]} if dtype else {}, loc), loc)]
        item = at(gast.Subscript(load(name), load(k), gast.Load()))
        fill = at(gast.Assign([at(gast.Subscript(load(out), load(k), gast.Store()))], item, None))
        lowered += self.stmt(at(gast.For(nodes.store(k), nodes.call("range", nodes.call(
            "len", load(name))), [fill], [], None)))
        self.hoisted += lowered
        return ir.Name(out, loc)

    def ufunc_outer(self, e, name):
        """`np.<ufunc>.outer(a, b)` of a binary ufunc: the ufunc of `a` given b.ndim new last
        axes and `b` (NumPy's result, of shape a.shape + b.shape), as typeinfer makes it
        (ArrayCall 'ufunc_outer' holding the ufunc's expression of a and b)."""
        if ufunc_arity(name) != 2 or e.keywords or len(e.args) != 2:
            raise self.error(f"np.{name}.outer(a, b) is supported in compiled code for the "
                             "ufuncs of two arguments (np.add, np.multiply, np.minimum, ...) "
                             "called with two arrays; write a[:, None] op b", e)
        applied = gast.Call(func=e.func.value, args=e.args, keywords=[])
        gast.copy_location(applied, e)
        node = self.call(applied)
        if not isinstance(node, (ir.BinOp, ir.Compare, ir.Call)):
            raise self.error(f"np.{name}.outer(a, b) is not supported in compiled code; write "
                             f"np.{name}(a[:, None], b)", e)
        return ir.ArrayCall("ufunc_outer", [node], {}, loc_of(e))

    def ufunc_at(self, e, ufunc):
        """`np.add.at(a, indices, values)` & co: the call 'ufunc_at' of the array, the indices
        (a list: one index, or the items of a tuple) and the values; statement only."""
        if e.keywords or len(e.args) not in (2, 3):
            raise self.error(f"np.{ufunc}.at(a, indices, values) takes three arguments here", e)
        if len(e.args) == 2:
            raise self.error(f"np.{ufunc}.at(a, indices) without values is not supported; "
                             f"give the values", e)
        a, indices, values = e.args
        parts = indices.elts if isinstance(indices, gast.Tuple) else [indices]
        return ir.ArrayCall("ufunc_at", [self.expr(a), [self.index(p) for p in parts],
                                         self.expr(values)],
                            {"ufunc": ir.Const(UNBUFFERED_UFUNCS[ufunc], loc_of(e))}, loc_of(e))

    def closeness(self, e, name):
        """`np.isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False)` as NumPy computes it:
        `(|a - b| <= atol + rtol * |b|) & isfinite(b) | (a == b)` (`| isnan(a) & isnan(b)`
        with equal_nan=True); `np.allclose`: np.all of it. `a` and `b` are read where each
        appears (written out again: the frontend makes a new node per use)."""
        names = ["a", "b", "rtol", "atol", "equal_nan"]
        given = dict(zip(names, e.args))
        for kw in e.keywords:
            if kw.arg not in names[2:] or kw.arg in given:
                raise self.error(f"np.{name}(a, b, rtol=, atol=, equal_nan=) takes no "
                                 f"'{kw.arg}' here", kw.value)
            given[kw.arg] = kw.value
        if len(e.args) > len(names) or "b" not in given:
            raise self.error(f"np.{name}(a, b, rtol=, atol=, equal_nan=) takes two values "
                             f"to compare", e)
        loc = loc_of(e)
        a, b = (lambda: self.expr(given["a"])), (lambda: self.expr(given["b"]))
        rtol = self.expr(given["rtol"]) if "rtol" in given else ir.Const(1e-05, loc)
        atol = self.expr(given["atol"]) if "atol" in given else ir.Const(1e-08, loc)
        equal_nan = given.get("equal_nan")
        if equal_nan is not None and not (isinstance(equal_nan, gast.Constant) and
                                          isinstance(equal_nan.value, bool)):
            raise self.error(f"equal_nan of np.{name}() must be True or False", equal_nan)
        within = ir.Compare(ir.Call("np.abs", [ir.BinOp("-", a(), b(), loc)], loc), ["<="],
                            [ir.BinOp("+", atol, ir.BinOp("*", rtol, ir.Call(
                                "np.abs", [b()], loc), loc), loc)], loc)
        close = ir.BinOp("|", ir.BinOp("&", within, ir.Call("np.isfinite", [b()], loc), loc),
                         ir.Compare(a(), ["=="], [b()], loc), loc)
        if equal_nan is not None and equal_nan.value:
            close = ir.BinOp("|", close, ir.BinOp("&", ir.Call("np.isnan", [a()], loc),
                                                  ir.Call("np.isnan", [b()], loc), loc), loc)
        return close if name == "isclose" else ir.ArrayCall("all", [close], {}, loc)

    def rounding(self, e, args):
        """`np.round(x, decimals)`, `np.around`, `x.round(decimals)`: the call 'np.round' of the
        value and the number of decimals (typeinfer writes NumPy's steps)."""
        given = {kw.arg: kw.value for kw in e.keywords}
        if set(given) - {"decimals"} or len(args) + len(given) > 2 or not args:
            raise self.error("np.round(x, decimals) takes a value and a number of decimals "
                             "(no out=)", e)
        decimals = args[1] if len(args) == 2 else given.get("decimals")
        decimals = self.expr(decimals) if decimals is not None else ir.Const(0, loc_of(e))
        return ir.Call("np.round", [self.expr(args[0]), decimals], loc_of(e))

    def is_allocator(self, e):
        return self.qualified(e.func) in ALLOCATORS

    def allocation(self, e, fill):
        args = list(e.args)
        dtype_node = None
        for kw in e.keywords:
            if kw.arg == "shape" and not args:
                args.append(kw.value)
                continue
            if kw.arg != "dtype":
                raise self.error(f"np.{fill}() accepts only shape and dtype (got '{kw.arg}=')",
                                 kw.value)
            dtype_node = kw.value
        if len(args) == 2 and dtype_node is None:
            dtype_node = args.pop()
        if len(args) != 1:
            raise self.error(f"np.{fill}(shape, dtype) takes a shape and a dtype", e)
        return self.new_array(fill, args[0], dtype_node, e)

    def new_array(self, fill, shape_node, dtype_node, e):
        """np.<fill>(shape, dtype): an AllocArray where the dtype is a literal."""
        dims = self.array_call_arg(shape_node)
        dtype = self.dtype_value(dtype_node) if dtype_node is not None else \
            ir.Const("float64", loc_of(e))
        if isinstance(dtype, ir.Const):
            return ir.AllocArray(fill, dims if isinstance(dims, list) else [dims], dtype.value,
                                 loc_of(e))
        return ir.ArrayCall(fill, [dims], {"dtype": dtype}, loc_of(e))

    def ndarray_allocation(self, e):
        """`np.ndarray(shape, dtype=float)`: NumPy's constructor given a shape allocates
        uninitialised memory, as np.empty does. Over a buffer (buffer=, offset=, strides=)
        it is refused."""
        given = self.bound_arguments(e, ("shape", "dtype", "buffer", "offset", "strides",
                                         "order"), "np.ndarray(shape, dtype)")
        unknown = set(given) - {"shape", "dtype", "order"}
        order = given.get("order")
        if unknown or "shape" not in given or order is not None and not (
                isinstance(order, gast.Constant) and order.value == "C"):
            shown = ", ".join(sorted(unknown | ({"order"} if order is not None else set())))
            raise self.error("np.ndarray(shape, dtype) allocates here (as np.empty); "
                             f"{shown or 'no shape'} is not supported in compiled functions; "
                             "write np.empty(shape, dtype=...) and fill it", e)
        return self.new_array("empty", given["shape"], given.get("dtype"), e)

    def dtype_literal(self, node, call):
        import numpy
        if node is None:
            return "float64"
        if isinstance(node, gast.Constant) and isinstance(node.value, str):
            text = node.value
        else:
            text = self.qualified(node)
            if text and text.startswith("numpy."):
                text = text[len("numpy."):]
        try:
            dtype = numpy.dtype(text)
        except TypeError:
            dtype = None
        if dtype is None or dtype.kind not in "biufc":
            raise self.error("the dtype must be a literal such as np.float64 or 'int32', "
                             "'a.dtype' of an array a, or a parameter of type 'type[float64]'",
                             node if node is not None else call)
        return dtype.name


# The builtins whose generator-expression argument becomes a loop (generator_reduction).
GENERATOR_REDUCTIONS = ("sum", "min", "max", "any", "all")


class _Renamer(gast.NodeTransformer):
    def __init__(self, names: dict):
        self.names = names

    def visit_Name(self, node):
        if node.id in self.names:
            return gast.copy_location(gast.Name(self.names[node.id], node.ctx, None, None), node)
        return node


class _FlatAliased(gast.NodeTransformer):
    """Each read of a name bound to `a.flat` (`Lowering.flat_bindings`) as `a.flat`."""

    def __init__(self, aliases: dict):
        self.aliases = aliases

    def visit_Name(self, node):
        if node.id in self.aliases and isinstance(node.ctx, gast.Load):
            return gast.copy_location(gast.Attribute(gast.copy_location(gast.Name(
                self.aliases[node.id], gast.Load(), None, None), node), "flat", gast.Load()),
                node)
        return node


# np.triu_indices & co: their parameters (Lowering.triangle_indices).
TRIANGLE_INDICES = {"numpy.triu_indices": ("n", "k", "m"), "numpy.tril_indices": ("n", "k", "m"),
                    "numpy.triu_indices_from": ("arr", "k"),
                    "numpy.tril_indices_from": ("arr", "k")}


def repeated_list(value):
    """(items, times) of `[a, b] * n` or `n * [a, b]` (a list literal repeated), else None."""
    if not (isinstance(value, gast.BinOp) and isinstance(value.op, gast.Mult)):
        return None
    if isinstance(value.left, gast.List) and not isinstance(value.right, gast.List):
        return value.left.elts, value.right
    if isinstance(value.right, gast.List) and not isinstance(value.left, gast.List):
        return value.right.elts, value.left
    return None


def _own_statements(body: list):
    """The statements of `body` and of the branches inside it, not of the loops inside it."""
    for stmt in body:
        yield stmt
        if isinstance(stmt, gast.If):
            yield from _own_statements(stmt.body)
            yield from _own_statements(stmt.orelse)


class _BreakFlagged(gast.NodeTransformer):
    """A loop body whose own `break`s (not those of loops inside it) first set the flag
    `name` (the loop's `else` runs where it is unset)."""

    def __init__(self, name: str, nodes):
        self.name, self.nodes = name, nodes

    def visit_body(self, stmts: list) -> list:
        out = []
        for stmt in stmts:
            done = self.visit(stmt)
            out += done if isinstance(done, list) else [done]
        return out

    def visit_Break(self, node):
        return [self.nodes.assign(self.name, self.nodes.const(True)), node]

    def visit_For(self, node):          # its breaks are its own
        return node

    visit_While = visit_For

    def visit_FunctionDef(self, node):
        return node


class _Nodes:
    """Makers of gast nodes placed at `where`: the statements the frontend writes in place of
    a construct (a generator's loop, a comprehension's)."""

    def __init__(self, where):
        self.where = where

    def at(self, node):
        return gast.copy_location(node, self.where)

    def load(self, name):
        return self.at(gast.Name(name, gast.Load(), None, None))

    def store(self, name):
        return self.at(gast.Name(name, gast.Store(), None, None))

    def assign(self, name, value):
        return self.at(gast.Assign([self.store(name)], value, None))

    def const(self, value):
        return self.at(gast.Constant(value, None))

    def call(self, f, *args):
        return self.at(gast.Call(self.load(f), list(args), []))

    def method_call(self, name, method, *args):
        """The statement `name.method(*args)` (`out.append(v)`)."""
        return self.at(gast.Expr(self.at(gast.Call(self.at(gast.Attribute(
            self.load(name), method, gast.Load())), list(args), []))))


class _Substituted(gast.NodeTransformer):
    """The lambda body with its parameters' names replaced by the call's argument
    expressions (copies)."""

    def __init__(self, values):
        self.values = values

    def visit_Name(self, node):
        if node.id in self.values and isinstance(node.ctx, gast.Load):
            return gast.copy_location(copy.deepcopy(self.values[node.id]), node)
        return node


def _int_literal(node):
    """The value of an integer literal (`3`, `-1`), or None."""
    sign = 1
    if isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.USub):
        sign, node = -1, node.operand
    if isinstance(node, gast.Constant) and type(node.value) is int:
        return sign * node.value
    return None


def _number_literal(node) -> bool:
    """Whether `node` is a number written out (`3`, `-0.5`, `True`)."""
    if isinstance(node, gast.UnaryOp) and isinstance(node.op, (gast.USub, gast.UAdd)):
        node = node.operand
    return isinstance(node, gast.Constant) and isinstance(node.value, (bool, int, float,
                                                                      complex))


def _renamed(node, names: dict):
    """A copy of `node` with the names of `names` renamed (a generator's own variables)."""
    return _Renamer(names).visit(copy.deepcopy(node))


def is_ellipsis(index) -> bool:
    """`...` in an index, as the frontend leaves it for typeinfer (which expands it)."""
    return isinstance(index, ir.Const) and index.value is Ellipsis


def is_dtype_name(qualified) -> bool:
    """Whether `qualified` ('numpy.float64') names a NumPy scalar type."""
    import numpy
    if not qualified or not qualified.startswith("numpy."):
        return False
    value = getattr(numpy, qualified[len("numpy."):], None)
    return isinstance(value, type) and issubclass(value, numpy.generic)


def lower_function(module: ModuleSource, decorated: Decorated, compiled_names: set,
                   list_names=frozenset()):
    """The untyped IR of one decorated function, `list_names` names it binds to lists (beyond
    those the frontend sees: `out = []`); types are attached by typeinfer."""
    fn = decorated.node
    lowering = Lowering(module, decorated, compiled_names, list_names)
    a = fn.args
    if a.vararg or a.kwarg or a.kwonlyargs or a.posonlyargs:
        raise lowering.error("compiled functions take plain parameters only (no *args, "
                             "**kwargs, keyword-only or positional-only parameters)", fn)
    defaults = [None] * (len(a.args) - len(decorated.defaults)) + \
        [c.value for c in decorated.defaults]
    params = [ir.Param(arg.id, None, default) for arg, default in zip(a.args, defaults)]
    body = lowering.body(lowering.fn.body)     # (`f = a.flat` read as a.flat: a copy)
    return ir.Function(fn.name, params, None, body, {}, decorated.gpu, loc_of(fn))
