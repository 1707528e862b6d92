"""Lower the gast of a decorated function to the (untyped) IR. Everything outside the accepted
subset (SPEC section 3) is refused here with its location."""
from __future__ import annotations

import math

import gast

from unpy import ir
from unpy.frontend.discover import Decorated, ModuleSource, loc_of, qualified_name

BINOPS = {gast.Add: "+", gast.Sub: "-", gast.Mult: "*", gast.Div: "/", gast.FloorDiv: "//",
          gast.Mod: "%", gast.Pow: "**", gast.BitAnd: "&", gast.BitOr: "|", gast.BitXor: "^",
          gast.LShift: "<<", gast.RShift: ">>"}
CMPOPS = {gast.Lt: "<", gast.LtE: "<=", gast.Gt: ">", gast.GtE: ">=", gast.Eq: "==",
          gast.NotEq: "!="}
UNARYOPS = {gast.USub: "-", gast.UAdd: "+", gast.Not: "not", gast.Invert: "~"}

MATH_FUNCS = {"sqrt", "exp", "log", "log10", "sin", "cos", "tan", "asin", "acos", "atan",
              "atan2", "sinh", "cosh", "tanh", "floor", "ceil", "fabs", "pow", "hypot"}
NUMPY_ALIASES = {"arcsin": "asin", "arccos": "acos", "arctan": "atan", "arctan2": "atan2",
                 "power": "pow", "absolute": "abs", "abs": "abs"}
SCALAR_CASTS = {"bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
                "uint64", "float32", "float64", "single", "double", "intc", "intp", "float_",
                "bool_", "byte", "ubyte", "short", "ushort", "longlong", "ulonglong"}
ALLOCATORS = {"numpy.zeros": "zeros", "numpy.empty": "empty", "numpy.ones": "ones"}
# Module constants, Python floats in the interpreter too.
CONSTANTS = {f"{module}.{name}": value for module in ("math", "numpy") for name, value in
             (("pi", math.pi), ("e", math.e), ("inf", math.inf), ("nan", math.nan))}
CONSTANTS["math.tau"] = math.tau


def builtin_name(qualified: str):
    """The IR name of a builtin call ('math.sqrt', 'np.sqrt', 'abs', 'cast:float32'), or None."""
    if qualified in ("abs", "min", "max"):
        return qualified
    if qualified in ("int", "float", "bool"):
        return "cast:" + qualified          # Python's int()/float()/bool(): typeinfer knows
    head, _, tail = qualified.rpartition(".")
    if head == "math" and tail in MATH_FUNCS:
        return "math." + tail
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

    def __init__(self, module: ModuleSource, decorated: Decorated, compiled_names: set):
        self.module = module
        self.errors = module.errors
        self.fn = decorated.node
        self.compiled_names = compiled_names
        self.temp_count = 0
        # Names the function assigns are its locals everywhere in it (Python's scoping).
        self.assigned = {n.id for n in gast.walk(self.fn)
                         if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store)}
        self.assigned |= {a.id for a in self.fn.args.args}

    def error(self, message, node):
        return self.errors.error(message, loc_of(node))

    def qualified(self, node):
        return qualified_name(node, self.module.imports)

    # --- statements ---------------------------------------------------------------------

    def body(self, stmts):
        out = []
        for i, s in enumerate(stmts):
            if (i == 0 and isinstance(s, gast.Expr) and isinstance(s.value, gast.Constant)
                    and isinstance(s.value.value, str)):
                continue        # docstring
            out.extend(self.stmt(s))
        return out

    def stmt(self, s):
        loc = loc_of(s)
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
            return [self.for_loop(s)]
        if isinstance(s, gast.While):
            if s.orelse:
                raise self.error("'while ... else' is not supported", s)
            return [ir.While(self.expr(s.test), self.body(s.body), loc)]
        if isinstance(s, gast.If):
            return [ir.If(self.expr(s.test), self.body(s.body), self.body(s.orelse), loc)]
        if isinstance(s, gast.Break):
            return [ir.Break(loc)]
        if isinstance(s, gast.Continue):
            return [ir.Continue(loc)]
        if isinstance(s, gast.Pass):
            return [ir.Pass(loc)]
        if isinstance(s, gast.Return):
            if isinstance(s.value, gast.Tuple):
                raise self.error("returning a tuple is not supported; return one scalar or array",
                                 s.value)
            return [ir.Return(self.expr(s.value) if s.value is not None else None, loc)]
        if isinstance(s, gast.Expr):
            if isinstance(s.value, gast.Call):
                value = self.expr(s.value)
                if isinstance(value, ir.CallCompiled):
                    return [ir.ExprStmt(value, loc)]
            raise self.error("this expression statement has no effect in compiled code; only "
                             "calls to compiled functions may stand alone", s)
        what = type(s).__name__
        raise self.error(f"'{what}' statements are not supported in compiled functions", s)

    def assign(self, s):
        loc = loc_of(s)
        if len(s.targets) != 1:
            raise self.error("chained assignment 'a = b = ...' is not supported; assign one "
                             "target at a time", s)
        target = s.targets[0]
        if isinstance(target, gast.Tuple):
            return self.unpack(target, s.value, loc)
        return [ir.Assign(self.target(target), self.expr(s.value), loc)]

    def unpack(self, target, value, loc):
        names = []
        for elt in target.elts:
            if not isinstance(elt, gast.Name):
                raise self.error("tuple unpacking needs plain variable names", elt)
            names.append(elt)
        array = self.shape_source(value)
        if array is not None:
            return [ir.Assign(ir.Name(n.id, loc_of(n)),
                              ir.ArrayAttr(array, "shape", k, loc_of(value)), loc)
                    for k, n in enumerate(names)]
        if isinstance(value, gast.Tuple) and len(value.elts) == len(names):
            # Evaluate every value before assigning any (a, b = b, a).
            temps, out = [], []
            for v in value.elts:
                temp = f"__tmp{self.temp_count}"
                self.temp_count += 1
                temps.append(temp)
                out.append(ir.Assign(ir.Name(temp, loc_of(v)), self.expr(v), loc))
            out += [ir.Assign(ir.Name(n.id, loc_of(n)), ir.Name(t, loc), loc)
                    for n, t in zip(names, temps)]
            return out
        raise self.error("tuple unpacking is supported for 'a.shape', 'shape(a)' and tuples of "
                         "the same length", value)

    def shape_source(self, node):
        """The array whose shape `node` is (`a.shape` or `shape(a)`), else None."""
        if isinstance(node, gast.Attribute) and node.attr == "shape":
            return self.array_name(node.value)
        if (isinstance(node, gast.Call) and self.qualified(node.func) == "numpy.shape"
                and len(node.args) == 1):
            return self.array_name(node.args[0])
        return None

    def array_name(self, node):
        if not isinstance(node, gast.Name):
            raise self.error("expected the name of an array here", node)
        return ir.Name(node.id, loc_of(node))

    def target(self, t):
        if isinstance(t, gast.Name):
            return ir.Name(t.id, loc_of(t))
        if isinstance(t, gast.Subscript):
            return self.subscript(t)
        raise self.error("you can assign to a variable or to an array element only", t)

    def for_loop(self, s):
        loc = loc_of(s)
        if s.orelse:
            raise self.error("'for ... else' is not supported", s)
        if not isinstance(s.target, gast.Name):
            raise self.error("the loop variable must be a plain name", s.target)
        it = s.iter
        kind = self.qualified(it.func) if isinstance(it, gast.Call) else None
        if kind not in ("range", "unpython.prange"):
            raise self.error("for loops must iterate over range(...) or prange(...)", it)
        if it.keywords or not 1 <= len(it.args) <= 3:
            raise self.error(f"{kind.split('.')[-1]}() takes 1 to 3 positional arguments", it)
        args = [self.expr(a) for a in it.args]
        if len(args) == 1:
            args = [ir.Const(0, loc_of(it))] + args
        if len(args) == 2:
            args.append(ir.Const(1, loc_of(it)))
        if isinstance(args[2], ir.Const) and args[2].value == 0:
            raise self.error("range() step must not be zero", it.args[2])
        return ir.For(s.target.id, args[0], args[1], args[2], self.body(s.body),
                      parallel=(kind == "unpython.prange"), loc=loc)

    # --- expressions --------------------------------------------------------------------

    def expr(self, e):
        loc = loc_of(e)
        if isinstance(e, gast.Constant):
            if isinstance(e.value, bool) or isinstance(e.value, (int, float)):
                return ir.Const(e.value, loc)
            raise self.error(f"constants of type {type(e.value).__name__} are not supported", e)
        if isinstance(e, gast.Name):
            imported = self.module.imports.get(e.id)
            if imported in CONSTANTS and e.id not in self.assigned:
                return ir.Const(CONSTANTS[imported], loc)      # `from math import pi`
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
            return ir.BoolOp(op, [self.expr(v) for v in e.values], loc)
        if isinstance(e, gast.IfExp):
            return ir.IfExp(self.expr(e.test), self.expr(e.body), self.expr(e.orelse), loc)
        if isinstance(e, gast.Subscript):
            return self.subscript_or_shape(e)
        if isinstance(e, gast.Attribute):
            return self.attribute(e)
        if isinstance(e, gast.Call):
            return self.call(e)
        raise self.error(f"'{type(e).__name__}' expressions are not supported in compiled "
                         "functions", e)

    def subscript_or_shape(self, e):
        array = self.shape_source(e.value)
        if array is not None:
            k = e.slice
            if isinstance(k, gast.UnaryOp) and isinstance(k.op, gast.USub) and \
                    isinstance(k.operand, gast.Constant):
                k = gast.Constant(-k.operand.value, None)
                gast.copy_location(k, e.slice)
            if not (isinstance(k, gast.Constant) and type(k.value) is int):
                raise self.error("the shape index must be an integer literal", e.slice)
            return ir.ArrayAttr(array, "shape", k.value, loc_of(e))
        return self.subscript(e)

    def subscript(self, e):
        """`a[i, j]` and `a[i][j]` both become one element access with all indices."""
        indices = []
        node = e
        while isinstance(node, gast.Subscript):
            index = node.slice
            parts = index.elts if isinstance(index, gast.Tuple) else [index]
            for p in parts:
                if isinstance(p, gast.Slice):
                    raise self.error("slices are not supported in compiled functions; index "
                                     "one element per dimension", p)
            indices = [self.expr(p) for p in parts] + indices
            node = node.value
        return ir.Subscript(self.array_name(node), indices, loc_of(e))

    def attribute(self, e):
        if isinstance(e.value, gast.Name) and e.attr in ("ndim", "size"):
            return ir.ArrayAttr(self.array_name(e.value), e.attr, None, loc_of(e))
        if e.attr == "shape":
            raise self.error("use 'a.shape[k]' or unpack 'm, n = a.shape'; the shape tuple "
                             "itself is not a value", e)
        if self.qualified(e) in CONSTANTS:
            return ir.Const(CONSTANTS[self.qualified(e)], loc_of(e))
        raise self.error(f"attribute '{e.attr}' is not supported in compiled functions", e)

    def call(self, e):
        loc = loc_of(e)
        if e.keywords and not self.is_allocator(e):
            raise self.error("keyword arguments are not supported here", e)
        if isinstance(e.func, gast.Name) and e.func.id in self.compiled_names \
                and e.func.id not in self.module.imports:
            return ir.CallCompiled(e.func.id, [self.expr(a) for a in e.args], loc)
        qualified = self.qualified(e.func)
        if qualified == "len":
            if len(e.args) != 1:
                raise self.error("len() takes one array", e)
            return ir.ArrayAttr(self.array_name(e.args[0]), "shape", 0, loc)
        if qualified in ALLOCATORS:
            return self.allocation(e, ALLOCATORS[qualified])
        name = builtin_name(qualified) if qualified else None
        if name is None:
            shown = qualified or type(e.func).__name__
            raise self.error(f"call to '{shown}' is not supported in compiled functions (only "
                             "math functions, casts, np.zeros/empty/ones and other compiled "
                             "functions of this module)", e)
        return ir.Call(name, [self.expr(a) for a in e.args], loc)

    def is_allocator(self, e):
        return self.qualified(e.func) in ALLOCATORS

    def allocation(self, e, fill):
        args = list(e.args)
        dtype_node = None
        for kw in e.keywords:
            if kw.arg != "dtype":
                raise self.error(f"np.{fill}() accepts only shape and dtype", kw.value)
            dtype_node = kw.value
        if len(args) == 2 and dtype_node is None:
            dtype_node = args.pop()
        if len(args) != 1:
            raise self.error(f"np.{fill}(shape, dtype) takes a shape and a dtype", e)
        shape = args[0]
        dims = shape.elts if isinstance(shape, gast.Tuple) else [shape]
        dtype = self.dtype_literal(dtype_node, e)
        return ir.AllocArray(fill, [self.expr(d) for d in dims], dtype, loc_of(e))

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
        if dtype is None or dtype.kind not in "biuf":
            raise self.error("the dtype must be a literal such as np.float64 or 'int32'",
                             node if node is not None else call)
        return dtype.name


def lower_function(module: ModuleSource, decorated: Decorated, compiled_names: set):
    """The untyped IR of one decorated function; types are attached by typeinfer."""
    fn = decorated.node
    lowering = Lowering(module, decorated, compiled_names)
    a = fn.args
    if a.vararg or a.kwarg or a.kwonlyargs or a.defaults or a.posonlyargs:
        raise lowering.error("compiled functions take plain positional parameters only "
                             "(no defaults, *args, **kwargs or keyword-only parameters)", fn)
    params = [ir.Param(arg.id, None) for arg in a.args]
    body = lowering.body(fn.body)
    return ir.Function(fn.name, params, None, body, {}, decorated.gpu, loc_of(fn))
