"""Typed IR -> readable C++17 with OpenMP (the function bodies).

Arrays are accessed through their live strides. Each function body is a template on `C`: when
every array has a contiguous last dimension the dispatcher runs the `C=true` instance, where the
innermost stride is the constant 1 and inner loops vectorise.
"""
from __future__ import annotations

import math

import numpy as np

from unpy import ir
from unpy.cexpr import MATH_WITHOUT_ERRORS, CExprPrinter
from unpy.ir import Array
from unpy.cpp_emit.nest_contents import dying_locals, lone_nests
from unpy.cpp_emit.odometer import odometer
from unpy.loopopt import optimise_for_cpu
from unpy.loopopt.register_blocks import PANEL_ROWS
from unpy.typeinfer.array_races import update_parts
from unpy.typeinfer.lower_linalg import LIBRARY_OUTPUTS, library_arrays
from unpy.typeinfer.written import lists_bound_again
from unpy.typeinfer.python_calls import native_draw, python_call_arrays
from unpy.typeinfer.reductions import (assigned_names, escapes, own_expressions, reads_of,
                                       walk_exprs, walk_stmts)
from unpy.work import COMPILED_CALL, expensive_work

CTYPES = {"bool": "bool", "int8": "int8_t", "int16": "int16_t", "int32": "int32_t",
          "int64": "int64_t", "uint8": "uint8_t", "uint16": "uint16_t", "uint32": "uint32_t",
          "uint64": "uint64_t", "float32": "float", "float64": "double",
          "complex64": "std::complex<float>", "complex128": "std::complex<double>"}
SMALL_INTS = {"int8", "int16", "uint8", "uint16", "bool"}
CXX_RESERVED = {
    "alignas", "alignof", "asm", "auto", "bool", "case", "catch", "char", "class", "const",
    "constexpr", "const_cast", "decltype", "default", "delete", "do", "double", "dynamic_cast",
    "enum", "explicit", "export", "extern", "float", "friend", "goto", "inline", "int", "long",
    "mutable", "namespace", "new", "noexcept", "nullptr", "operator", "private", "protected",
    "public", "register", "reinterpret_cast", "short", "signed", "sizeof", "static",
    "static_assert", "static_cast", "struct", "switch", "template", "this", "throw", "try",
    "typedef", "typeid", "typename", "union", "unsigned", "using", "virtual", "void", "volatile",
    "wchar_t", "std", "py", "unpy", "C", "Array", "main", "and", "or", "not", "xor", "bitand",
    "bitor", "compl", "NULL", "int8_t", "int16_t", "int32_t", "int64_t", "uint8_t", "uint16_t",
    "uint32_t", "uint64_t", "omp_in_parallel", "true", "false"}

MATH_CXX = {"sqrt": "std::sqrt", "exp": "std::exp", "log": "std::log", "log10": "std::log10",
            "sin": "std::sin", "cos": "std::cos", "tan": "std::tan", "asin": "std::asin",
            "acos": "std::acos", "atan": "std::atan", "atan2": "std::atan2",
            "sinh": "std::sinh", "cosh": "std::cosh", "tanh": "std::tanh",
            "floor": "std::floor", "ceil": "std::ceil", "fabs": "std::fabs", "pow": "std::pow",
            "hypot": "std::hypot", "log1p": "std::log1p", "expm1": "std::expm1",
            "log2": "std::log2", "exp2": "std::exp2", "cbrt": "std::cbrt",
            "trunc": "std::trunc", "copysign": "std::copysign", "erf": "std::erf",
            "erfc": "std::erfc", "gamma": "std::tgamma", "lgamma": "std::lgamma",
            # (rint's value, without its inexact flag, which nothing reads: g++ 12 vectorises
            # no loop calling std::rint; round() is np.rint)
            "rint": "std::nearbyint",
            "arcsinh": "std::asinh", "arccosh": "std::acosh", "arctanh": "std::atanh"}
# Complex operations: the runtime's NumPy formulas for the operators, std:: (glibc's, as NumPy
# calls them) for the functions.
COMPLEX_CXX = {"*": "unpy::complex_multiply", "/": "unpy::complex_divide",
               "**": "unpy::complex_power", "abs": "std::abs", "real": "std::real",
               "imag": "std::imag", "conjugate": "std::conj", "angle": "std::arg",
               "sqrt": "std::sqrt", "exp": "std::exp", "log": "std::log", "log10": "std::log10",
               "sin": "std::sin", "cos": "std::cos", "tan": "std::tan", "sinh": "std::sinh",
               "cosh": "std::cosh", "tanh": "std::tanh"}
ERROR_KINDS = {"ValueError": "value", "IndexError": "index", "ZeroDivisionError": "zero_division",
               "UnboundLocalError": "unbound_local", "TypeError": "type_error",
               "RuntimeError": "runtime", "OverflowError": "overflow",
               "AssertionError": "assertion", "LinAlgError": "linalg"}
CXX_HELPERS = {"//": "floordiv", "%": "mod", "**": "power", "<<": "shift_left",
               ">>": "shift_right", "/": "int_true_divide"}     # the runtime's templates


def c_text(text: str) -> str:
    """`text` as the inside of a C++ string literal: backslashes, quotes and control characters
    escaped (octal, which no following digit can extend past three), the rest as UTF-8."""
    return "".join("\\\\" if c == "\\" else '\\"' if c == '"' else
                   f"\\{ord(c):03o}" if ord(c) < 32 or ord(c) == 127 else c for c in text)


def ctype(t) -> str:
    if isinstance(t, Array):
        return f"unpy::Array<{CTYPES[t.dtype]}, {t.ndim}>"
    if isinstance(t, ir.TupleType):
        return f"std::tuple<{', '.join(ctype(x) for x in t.items)}>"
    if isinstance(t, ir.ListType):
        return f"unpy::List<{ctype(t.item)}>"
    if t is None:
        return "void"
    if isinstance(t, ir.DtypeType):
        return "int64_t"        # a dtype known while compiling: no value at run time
    return CTYPES[t.dtype]


def initial(t) -> str:
    """The initialiser of a declared local: scalars start at 0 (see never_negative)."""
    return "" if isinstance(t, (Array, ir.TupleType, ir.ListType)) else " = 0"


def cname(name: str) -> str:
    """A C++ name for a Python variable: keywords, our own names and ALL-CAPS names (which may
    be macros of the C headers, such as NAN or EOF) get a trailing underscore."""
    clash = name in CXX_RESERVED or name.startswith("unpy_") or (len(name) > 1 and name.isupper())
    return name + "_" if clash else name


def int_literal(value, dtype):
    """An integer constant of integer type `dtype`."""
    if dtype != "int64":
        return f"{CTYPES[dtype]}({value}{'LL' if dtype[0] == 'i' else 'ULL'})"
    if value == -2 ** 63:
        return "INT64_MIN"
    return f"INT64_C({value})" if abs(value) > 2 ** 31 - 1 else f"int64_t({value})"


def special_float(value, dtype):
    """nan, inf or -inf of float type `dtype`."""
    limits = f"std::numeric_limits<{CTYPES[dtype]}>"
    if math.isnan(value):
        return f"{limits}::quiet_NaN()"
    return f"{limits}::infinity()" if value > 0 else f"(-{limits}::infinity())"


def narrow(text, dtype):
    """C++ computes small integers in `int`: back to their own type (wrapping)."""
    return f"static_cast<{CTYPES[dtype]}>{text}" if dtype in SMALL_INTS else text


def flat_position(e: ir.Subscript):
    """The name k where the indices of `e` (an array of 2 or more dimensions) are the C-order
    unravelling of k over that array's own shape, as typeinfer's flat_indices writes a.flat[k]
    (`k // (n1 * n2)`, `k // n2 % n1`, `k % n2`, n the array's shape); else None."""
    n, array = len(e.indices), e.array.id

    def length(x, d):
        return isinstance(x, ir.ArrayAttr) and x.attr == "shape" and x.dim == d and \
            isinstance(x.array, ir.Name) and x.array.id == array

    def product(x, dims):           # x is the product of the lengths of `dims`, in any order
        if isinstance(x, ir.BinOp) and x.op == "*":
            factors, x = [x.right], x.left
            while isinstance(x, ir.BinOp) and x.op == "*":
                factors.append(x.right)
                x = x.left
            factors.append(x)
        else:
            factors = [x]
        found = sorted(f.dim for f in factors if isinstance(f, ir.ArrayAttr) and
                       length(f, f.dim))
        return len(found) == len(factors) and found == list(dims)
    if n < 2 or not isinstance(e.array, ir.Name):
        return None
    last = e.indices[-1]
    if not (isinstance(last, ir.BinOp) and last.op == "%" and length(last.right, n - 1) and
            isinstance(last.left, ir.Name) and isinstance(last.left.type, ir.Scalar) and
            last.left.type.dtype == "int64"):
        return None
    k = last.left.id

    def quotient(x, dims):          # k // (the product of the lengths of dims)
        return isinstance(x, ir.BinOp) and x.op == "//" and isinstance(x.left, ir.Name) and \
            x.left.id == k and product(x.right, dims)
    for d, x in enumerate(e.indices[:-1]):
        dims = range(d + 1, n)
        if d == 0:
            if not quotient(x, dims):
                return None
        elif not (isinstance(x, ir.BinOp) and x.op == "%" and length(x.right, d) and
                  quotient(x.left, dims)):
            return None
    return last.left


def const_lower_bound(e, bounds):
    """A proven lower bound of an integer expression, or None (used to skip index wrapping)."""
    if isinstance(e, ir.Cast):
        return const_lower_bound(e.value, bounds)
    if isinstance(e, ir.Const) and isinstance(e.value, int):
        return int(e.value)
    if isinstance(e, ir.Name):
        return bounds.get(e.id)
    if isinstance(e, ir.ArrayAttr):
        return 0
    if isinstance(e, ir.BinOp) and e.op in ("+", "*", "//", "%"):
        a, b = const_lower_bound(e.left, bounds), const_lower_bound(e.right, bounds)
        if a is None or b is None or a < 0 or b < 0:
            return None
        if e.op == "+":
            return a + b
        if e.op == "*":
            return a * b
        return 0 if e.op == "%" or b > 0 else None
    if isinstance(e, ir.Call) and e.func in ("min", "max"):
        found = [const_lower_bound(a, bounds) for a in e.args]
        known = [b for b in found if b is not None]
        if e.func == "max":
            return max(known) if known else None
        return None if len(known) < len(found) else min(known)
    if isinstance(e, ir.BinOp) and e.op == "-":
        a = const_lower_bound(e.left, bounds)
        if a is not None and isinstance(e.right, (ir.Const, ir.Cast)):
            b = e.right.value if isinstance(e.right, ir.Const) else None
            if isinstance(b, int):
                return a - b
    return None


# A nest runs in parallel from this many estimated operations (about 10-30 us of work, what
# waking a team of threads costs); fewer run on the calling thread (unpy::nest_team).
PARALLEL_WORK = 32768
GUESSED_TRIPS = 32      # the trip count of a loop whose bounds the estimate cannot compute


class FunctionEmitter(CExprPrinter):
    def __init__(self, fn: ir.Function, module_name: str, checks: str, signatures: dict):
        self.fn = fn
        self.module_name = module_name
        self.checks = checks        # unpy.loopopt.CHECKS: which indices are checked
        self.signatures = signatures
        self.lines = []
        self.tested_call = None     # a call whose value is a test: see truth
        self.helpers = []           # functions the body calls, emitted before its template
        self.depth = 1
        self.counter = 0
        self.lower_bounds = {}      # loop variable -> proven lower bound (while in the loop)
        self.checks_math = uses_checked_math(fn.body)
        self.lone_nests = lone_nests(fn)     # their data has nobody to stay on the device for
        self.math_errors = ["unpy_math_error"]  # where math calls record errors, innermost last
        # Inside a prange's nest: the flags where int() of a float records its errors, one per
        # place that converts (float_to_int), and the next place's
        self.int_errors = []
        self.int_site = 0
        self.in_region = False      # emitting a prange nest's iterations
        # A @gpu function with GPU nests keeps data on the device for the call (SPEC section 8):
        # a call scope, and flush points before host code that touches arrays.
        self.residency = any(isinstance(x, ir.For) and x.nest_id is not None
                             for x in walk_stmts(fn.body))
        self.flushed = False        # inside a host statement flushed as a whole
        self.strided = strided_locals(fn)
        self.tiles = set()          # the LocalTiles declared so far (C arrays)
        self.on_stack = {}          # id(AllocArray) -> the C array of a prange iteration
        self.private_copies = {}    # array -> its threads' private copy, while one is emitted
        # id(expression) -> (the test, the counter) of an unravelled position that a loop's
        # odometer (unpy/cpp_emit/odometer.py) keeps, while its body is emitted
        self.odometer_nodes = {}
        # Ctrl-C polls (unpy::interrupted, see unpy_runtime.hpp): none inside loopopt's counted
        # loops (simd, unroll). A poll is a test and a jump, no call (a call in a loop, even on
        # its cold path, makes GCC keep accumulators in other registers): to `stop_label`, the
        # end of the iteration, inside a prange's; else to the function's end (`leaves`), which
        # throws or returns. `break_labels` has, per enclosing loop, the label a `break` jumps
        # to where the loop is strip-mined for its polls (else None: C++'s break).
        self.counted_depth = 0
        self.loop_depth = 0         # enclosing sequential loops that poll (in the region)
        self.stop_label = None
        self.leaves = False
        self.break_labels = []

    def expr(self, e) -> str:
        kept = self.odometer_nodes.get(id(e))
        if kept is not None:
            return f"({kept[0]} ? {kept[1]} : {super().expr(e)})"
        return super().expr(e)

    def out(self, text):
        self.lines.append("    " * self.depth + text)

    def fresh(self, stem):
        self.counter += 1
        return f"unpy_{stem}{self.counter}"

    # --- the function -------------------------------------------------------------------

    def signature(self, name):
        # a list parameter is the caller's list (its changes are the caller's), unless the
        # function binds another list to it
        by_value = lists_bound_again(self.fn)
        params = ", ".join(f"{ctype(p.type)}"
                           f"{'&' * (isinstance(p.type, ir.ListType) and p.name not in by_value)}"
                           f" {cname(p.name)}" for p in self.fn.params)
        return f"{ctype(self.fn.return_type)} {name}({params})"

    def emit(self):
        fn = self.fn
        head = ["template <bool C>",
                f"static {self.inline()}{self.signature(fn.name + '_body')} {{"]
        for name, t in fn.locals.items():
            self.out(f"{ctype(t)} {cname(name)}{initial(t)};")
        if self.checks_math:
            self.out("double unpy_math_error = 0;   // see unpy::math_result")
        if self.residency:
            self.call_scope()
        if fn.name in _module_recursive_functions(self.signatures):
            self.poll(False)    # a recursion may be long without any loop
        first = len(self.lines)
        self.block(fn.body)
        leave = "return;" if fn.return_type is None else "return {};"
        if self.leaves:
            # The body in a block of its own: jumping to the label after it enters the scope of
            # none of its declarations.
            self.lines[first:] = ["    {"] + ["    " + x for x in self.lines[first:]] + ["    }"]
        if fn.returns_none:     # (ends that never come need no code: typeinfer.falls_through)
            self.out("unpy::returned_none = true;")
            self.out("return {};")
        if self.leaves:
            if fn.return_type is None:
                self.out("return;")
            self.lines.append("unpy_interrupted:   // Ctrl-C: see unpy::interrupt")
            self.out("unpy::interrupt();")
            self.out(leave)
        return self.helpers + head + self.lines + ["}"]

    def returned(self, s):
        """`return`, `return value`; in a function that may return None (ir.Function), the
        mark of which it was."""
        value = "" if s.value is None else self.list_value(s.value, self.fn.return_type)
        if self.checks_math or (self.fn.returns_none and value):
            # The value first: its own math calls (and calls) are done before it is returned.
            self.out(f"auto unpy_return = {value};")
            value = "unpy_return"
        if self.checks_math:
            self.out(f"unpy::math_check({' + '.join(self.math_errors)});")
        if self.fn.returns_none:
            self.out(f"unpy::returned_none = {'false' if value else 'true'};")
        self.out(f"return {value};" if value else
                 "return {};" if self.fn.return_type is not None else "return;")

    def inline(self) -> str:
        """`inline ` for a small helper (inlined_helpers): g++ then inlines it where called
        (its limit for a function not declared inline is some 15 instructions)."""
        return "inline " if self.fn.name in _per_module(self.signatures, inlined_helpers) else ""

    def dispatcher(self):
        fn = self.fn
        arrays = [cname(p.name) for p in fn.params if isinstance(p.type, Array)]
        args = ", ".join(cname(p.name) for p in fn.params)
        test = " && ".join(f"{a}.last_contiguous()" for a in arrays) or "true"
        return [f"static {self.inline()}{self.signature(cname(fn.name))} {{",
                f"    if ({test}) return {fn.name}_body<true>({args});",
                f"    return {fn.name}_body<false>({args});",
                "}"]

    # --- statements ---------------------------------------------------------------------

    def block(self, body, in_parallel=False):
        for s in body:
            self.stmt(s, in_parallel)

    def stmt(self, s, in_parallel):
        flush = self.residency and not in_parallel and not self.flushed
        if flush:
            self.flush_point(s)
        # A loop or branch that runs nothing on the device was flushed as a whole, before it:
        # the statements inside need no flush points of their own (a serial reduction loop of
        # lenet's conv2d asked Python at every element: 225 s a call on PoCL).
        whole = flush and isinstance(s, (ir.For, ir.While, ir.If)) and not may_run_nests(s)
        self.flushed = self.flushed or whole
        try:
            self.plain_stmt(s, in_parallel)
        finally:
            self.flushed = self.flushed and not whole
        # Math errors raise right after the statement, except inside a sequential loop with
        # checks, which sums them and raises after the loop (so that it can vectorise).
        if (self.checks_math and self.math_errors[-1] == "unpy_math_error"
                and not isinstance(s, ir.Return) and uses_checked_math(s)):
            self.out("unpy::math_check(unpy_math_error);")

    def again(self, s, in_parallel) -> bool:
        """Whether `s` makes a new array into a local that may already hold one whose block it
        can take again (unpy::allocate_again): outside a parallel region (a thread's local is
        its own), not on a prange iteration's stack, of the local's own type."""
        e, t = s.value, s.target.type
        return (isinstance(e, ir.AllocArray) and isinstance(s.target, ir.Name)
                and not in_parallel and id(e) not in self.on_stack and isinstance(t, Array)
                and t.dtype == e.dtype and t.ndim == len(e.shape))

    def plain_stmt(self, s, in_parallel):
        if isinstance(s, ir.Assign) and s.atomic:
            self.atomic_update(s)
        elif isinstance(s, ir.Assign) and self.again(s, in_parallel):
            dims, fill = self.allocation(s.value)
            self.out(f"unpy::allocate_again({self.target(s.target)}, {{{dims}}}, {fill});")
        elif isinstance(s, ir.Assign):
            self.out(f"{self.target(s.target)} = {self.list_value(s.value, s.target.type)};")
        elif isinstance(s, ir.For):
            if s.parallel and not in_parallel:
                self.parallel_for(s)
            elif s.proof:
                self.proved_or_checked(s, lambda nest: self.serial_nest(nest, in_parallel))
            else:
                self.serial_nest(s, in_parallel)
        elif isinstance(s, ir.While):
            reads = array_uses(s.test, self.fn)[0]
            if self.residency and not in_parallel and reads and contains_gpu_nest(s):
                # The test reads arrays the nests may keep on the device: flushed before
                # every evaluation (`continue` comes back here too).
                self.out("while (true) {")
                self.flush_ranges(reads, [])
                self.out(f"    if (!({self.truth(s.test)})) break;")
            else:
                self.out(f"while ({self.truth(s.test)}) {{")
            self.depth += 1
            self.poll(in_parallel)
            self.depth -= 1
            self.break_labels.append(None)
            self.loop_depth += 1
            self.nested(s.body, in_parallel)
            self.loop_depth -= 1
            self.break_labels.pop()
            self.out("}")
        elif isinstance(s, ir.If):
            self.out(f"if ({self.truth(s.test)}) {{")
            self.nested(s.body, in_parallel)
            if s.orelse:
                self.out("} else {")
                self.nested(s.orelse, in_parallel)
            self.out("}")
        elif isinstance(s, ir.Break):
            label = self.break_labels[-1] if self.break_labels else None
            self.out(f"goto {label};" if label else "break;")
        elif isinstance(s, ir.Continue):
            self.out("continue;")
        elif isinstance(s, ir.Return):
            self.returned(s)
        elif isinstance(s, ir.ExprStmt) and isinstance(s.value, ir.Print):
            e = s.value
            values = iter(e.args)
            items = [f'unpy::PrintText{{"{c_text(p)}"}}' if p is not None
                     else self.expr(next(values)) for p in e.parts]
            self.out(f'unpy::print("{c_text(e.sep)}", "{c_text(e.end)}", '
                     f'{"true" if e.flush else "false"}' + "".join(f", {x}" for x in items)
                     + ");")
        elif isinstance(s, ir.ExprStmt) and isinstance(s.value, ir.CallCompiled):
            self.out(f"{self.call(s.value)};")      # (its value unused: None is fine)
        elif isinstance(s, ir.ExprStmt):
            self.out(f"{self.expr(s.value)};")
        elif isinstance(s, ir.Pass):
            pass
        elif isinstance(s, ir.LocalTile):
            self.tiles.add(s.name)
            dims = "".join(f"[{n}]" for n in s.shape)
            self.out(f"alignas(64) {CTYPES[s.dtype]} {cname(s.name)}{dims};")
        elif isinstance(s, ir.Raise):
            # the message's `{}`s are the values (lengths: NumPy's broadcasting errors)
            parts = [c_text(p) for p in (s.message.split("{}") if s.values else [s.message])]
            message = f'std::string("{parts[0]}")' if s.values else f'"{parts[0]}"'
            for value, part in zip(s.values, parts[1:]):
                message += f' + std::to_string(int64_t({self.expr(value)})) + "{part}"'
            self.out(f'unpy::raise(unpy::ErrorKind::{ERROR_KINDS[s.kind]}, {message});')
            if not in_parallel:
                # Called inside another function's parallel loop, raise records the error
                # (raised when that loop ends): leave the function, as the raise would.
                self.out("return;" if self.fn.return_type is None else "return {};")
        else:
            raise TypeError(f"cannot emit {s!r}")

    def atomic_update(self, s):
        """An update that other iterations of a prange may make to the same element
        (typeinfer/array_races.py): OpenMP's atomic construct for the arithmetic and bitwise
        operators, else a compare-and-swap loop computing the value as Python does."""
        op, operand, first = update_parts(s)
        dtype = s.target.type.dtype
        target, value = self.subscript(s.target, False), self.expr(operand)
        copy = self.private_copies.get(s.target.array.id)
        if copy:    # the thread's own copy of the array (private_updates): no atomic
            self.out(f"{copy}[&{target} - {cname(s.target.array.id)}.data] {op}= {value};")
            return
        if dtype.startswith("complex"):    # + and -: each part its own atomic sum
            part = CTYPES[{"complex64": "float32", "complex128": "float64"}[dtype]]
            self.out("{")
            self.out(f"    {part}* unpy_parts = reinterpret_cast<{part}*>(&{target});")
            self.out(f"    const {CTYPES[dtype]} unpy_v = {value};")
            for k, part_of in enumerate(("real", "imag")):
                self.out("    #pragma omp atomic")
                self.out(f"    unpy_parts[{k}] {op}= unpy_v.{part_of}();")
            self.out("}")
            return
        if op in ("+", "-", "*", "&", "|", "^") and dtype != "bool":
            self.out("#pragma omp atomic")
            self.out(f"{target} {op}= {value};")
            return
        args = ("unpy_old", "unpy_v") if first else ("unpy_v", "unpy_old")
        new = (self.min_max(op, *args, dtype) if op in ("min", "max")
               else self.arith(op, *args, dtype))
        t = CTYPES[dtype]
        self.out(f"unpy::atomic_update<{t}>({target}, {value}, [](const {t} unpy_old, "
                 f"const {t} unpy_v) {{ return {t}({new}); }});")

    def nested(self, body, in_parallel):
        self.depth += 1
        self.block(body, in_parallel)
        self.depth -= 1

    def poll(self, in_parallel):
        """Stop here on Ctrl-C: in a prange's iteration skip to its end (the region then
        skips the rest of its iterations, and check_errors raises after it); elsewhere leave
        the function (unpy::interrupt throws outside an OpenMP region)."""
        if self.counted_depth:
            return
        if in_parallel:
            self.out(f"if (unpy::interrupted()) goto {self.stop_label};")
        else:
            self.leaves = True
            self.out("if (unpy::interrupted()) goto unpy_interrupted;")

    def proved_or_checked(self, loop, emit):
        """`emit(proof.nest)`, its indices unchecked, where the bounds of `loop.proof` hold
        (computed here, before the nest), else `emit(loop)`, checked (index_proof)."""
        proof = loop.proof
        spans = {s.name for s in proof.spans}
        for s in proof.spans:
            self.out(f"const unpy::Span {cname(s.name)} = unpy::span_loop("
                     f"{self.span(s.first, spans)}, {self.span(s.last, spans)});")
        tests = [f"unpy::span_within({self.span(b.index, spans)}, "
                 f"{cname(b.array.id)}.shape[{b.dim}])" for b in proof.bounds]
        self.if_else(" && ".join(dict.fromkeys(tests)), lambda: emit(proof.nest),
                     lambda: emit(loop))

    def if_else(self, test: str, then, orelse):
        """`if (test) {...} else {...}`, each branch's lines from calling `then` / `orelse`."""
        self.out(f"if ({test}) {{")
        self.depth += 1
        then()
        self.depth -= 1
        self.out("} else {")
        self.depth += 1
        orelse()
        self.depth -= 1
        self.out("}")

    def span(self, e, spans: set) -> str:
        """C++ of the unpy::Span of index_proof's expression `e` (`spans`: the names of the
        loop variables' spans)."""
        if isinstance(e, ir.Name) and e.id in spans:
            return cname(e.id)
        if isinstance(e, (ir.Name, ir.Const, ir.ArrayAttr)):
            return f"unpy::span({self.expr(e)})"
        if isinstance(e, ir.Cast):
            return self.span(e.value, spans)
        if isinstance(e, ir.UnaryOp):
            inner = self.span(e.operand, spans)
            return f"unpy::span_neg({inner})" if e.op == "-" else inner
        if isinstance(e, ir.BinOp) and e.op in ("//", "%"):
            name = "span_floordiv" if e.op == "//" else "span_mod"
            return f"unpy::{name}({self.span(e.left, spans)}, int64_t({e.right.value}))"
        if isinstance(e, ir.BinOp):
            name = {"+": "span_add", "-": "span_sub", "*": "span_mul"}[e.op]
            return f"unpy::{name}({self.span(e.left, spans)}, {self.span(e.right, spans)})"
        if isinstance(e, ir.Call) and e.func in ("min", "max"):
            text = self.span(e.args[0], spans)
            for a in e.args[1:]:
                text = f"unpy::span_{e.func}({text}, {self.span(a, spans)})"
            return text
        raise TypeError(f"no span for {ir.format_expr(e)}")

    def bounds(self, loop):
        start, stop, step = (self.fresh(x) for x in ("start", "stop", "step"))
        self.out(f"const int64_t {start} = {self.expr(loop.start)}, {stop} = "
                 f"{self.expr(loop.stop)}, {step} = {self.expr(loop.step)};")
        return start, stop, step

    def step_sign(self, loop):
        if not isinstance(loop.step, ir.Const):
            low = const_lower_bound(loop.step, self.lower_bounds)
            return 1 if low is not None and low > 0 else None
        return 1 if loop.step.value > 0 else -1

    def loop_lower_bound(self, loop):
        sign = self.step_sign(loop)
        if sign == 1:
            return const_lower_bound(loop.start, self.lower_bounds)
        if sign == -1:
            b = const_lower_bound(loop.stop, self.lower_bounds)
            return None if b is None else b + 1
        return None

    def enter_loop_var(self, loop):
        """Track the loop variable's lower bound unless the body reassigns it."""
        reassigned = any(isinstance(x, ir.Assign) and isinstance(x.target, ir.Name)
                         and x.target.id == loop.var for x in walk_stmts(loop.body))
        bound = None if reassigned else self.loop_lower_bound(loop)
        saved = self.lower_bounds.get(loop.var)
        if bound is None:
            self.lower_bounds.pop(loop.var, None)
        else:
            self.lower_bounds[loop.var] = bound
        return saved

    def leave_loop_var(self, loop, saved):
        if saved is None:
            self.lower_bounds.pop(loop.var, None)
        else:
            self.lower_bounds[loop.var] = saved

    def counted_for(self, loop, in_parallel):
        """A loop of unpy/loopopt (bounds constant or computed before it, step 1, its variable
        read only inside) with its own variable: vectorised with OpenMP's simd construct, or
        unrolled completely."""
        if loop.simd:
            own = [cname(x) for x in assigned_names(loop.body) if x != loop.var]
            self.out("#pragma omp simd" + (f" private({', '.join(own)})" if own else ""))
        else:
            self.out(f"#pragma GCC unroll {loop.stop.value}")
        self.out(f"for (int64_t {cname(loop.var)} = {self.expr(loop.start)}; {cname(loop.var)} "
                 f"< {self.expr(loop.stop)}; ++{cname(loop.var)}) {{")
        saved = self.enter_loop_var(loop)
        self.counted_depth += 1
        self.break_labels.append(None)
        self.nested(loop.body, in_parallel)
        self.break_labels.pop()
        self.counted_depth -= 1
        self.leave_loop_var(loop, saved)
        self.out("}")

    def serial_nest(self, loop, in_parallel):
        """A serial loop, or the form unpy/loopopt gave it instead (interchange: the prange
        of its body moved outward) where no array of a pair in `disjoint` overlaps the other;
        compiled for contiguous rows only, as the register-blocked forms."""
        if not loop.blocked or in_parallel:
            return self.sequential_for(loop, in_parallel)
        taken = self.fresh("blocked")
        tests = [f"unpy::disjoint({cname(w)}, {cname(r)})" for w, r in loop.disjoint]
        self.out(f"bool {taken} = false;")
        self.out(f"if constexpr (C) if ({' && '.join(tests) or 'true'}) {{")
        self.depth += 1
        self.block(loop.blocked)
        self.out(f"{taken} = true;")
        self.depth -= 1
        self.out("}")
        self.out(f"if (!{taken}) {{")
        self.depth += 1
        self.sequential_for(loop, in_parallel)
        self.depth -= 1
        self.out("}")

    def sequential_for(self, loop, in_parallel):
        if loop.simd or loop.unroll:
            return self.counted_for(loop, in_parallel)
        # Python evaluates range() once; the variable keeps its last value after the loop.
        self.out("{")
        self.depth += 1
        start, stop, step = self.bounds(loop)
        counter = self.fresh("k")
        # The loop's math checks add into a local of the loop: a plain scalar reduction that
        # does not keep the loop from vectorising (a variable of the function would).
        own_error = self.checks_math and uses_checked_math(loop.body)
        if own_error:
            self.math_errors.append(self.fresh("math_error"))
            self.out(f"double {self.math_errors[-1]} = 0;")
        # Ctrl-C: a loop holding other loops polls at each iteration; any other is strip-mined
        # into chunks of unpy::INTERRUPT_CHUNK iterations with a poll between them (its
        # iterations stay free of polls and vectorise as before), unless it is inside a loop,
        # whose polls cover it.
        heavy = has_loops(loop.body)
        chunked = not heavy and not self.counted_depth and not self.loop_depth
        odo = odometer(loop, self.fn)
        if odo:
            self.odometer_counters(odo)
        break_label = self.fresh("break") if chunked and escapes(loop.body, (ir.Break,)) else None
        if isinstance(loop.step, ir.Const) and loop.step.value in (1, -1):
            up = loop.step.value > 0
            cmp = "<" if up else ">"
            first = start
            if chunked:
                first, end = self.fresh("kb"), self.fresh("ke")
                far = (f"{first} < {stop} && uint64_t({stop}) - uint64_t({first})" if up else
                       f"{first} > {stop} && uint64_t({first}) - uint64_t({stop})")
                self.out(f"for (int64_t {first} = {start};;) {{")
                self.depth += 1
                self.out(f"const int64_t {end} = {far} > unpy::INTERRUPT_CHUNK ? "
                         f"{first} {'+' if up else '-'} unpy::INTERRUPT_CHUNK : {stop};")
                last, stop = stop, end
            self.out(f"for (int64_t {counter} = {first}; {counter} {cmp} {stop}; "
                     f"{counter} += {step}) {{")
            self.out(f"    {cname(loop.var)} = {counter};")
            if odo:
                self.depth += 1
                self.odometer_step(odo, cname(loop.var))
                self.depth -= 1
        else:
            # Counted: `i += step` past a bound near the int64 limits would wrap around.
            n = self.fresh("n")
            self.out(f"const int64_t {n} = unpy::range_length({start}, {stop}, {step});")
            first = "0"
            if chunked:
                first, end = self.fresh("kb"), self.fresh("ke")
                self.out(f"for (int64_t {first} = 0;;) {{")
                self.depth += 1
                self.out(f"const int64_t {end} = {n} - {first} > unpy::INTERRUPT_CHUNK ? "
                         f"{first} + unpy::INTERRUPT_CHUNK : {n};")
                last, n = n, end
            self.out(f"for (int64_t {counter} = {first}; {counter} < {n}; ++{counter}) {{")
            self.out(f"    {cname(loop.var)} = {start} + {counter} * {step};")
        if heavy and not self.counted_depth:
            self.depth += 1
            self.poll(in_parallel)
            self.depth -= 1
        saved = self.enter_loop_var(loop)
        self.break_labels.append(break_label)
        self.loop_depth += 1
        if odo:
            self.odometer_nodes.update({node: (odo.ok, getattr(pair, which))
                                        for node, (pair, which) in odo.nodes.items()})
        self.nested(loop.body, in_parallel)
        for node in odo.nodes if odo else ():
            del self.odometer_nodes[node]
        self.loop_depth -= 1
        self.break_labels.pop()
        self.leave_loop_var(loop, saved)
        self.out("}")
        if chunked:
            self.out(f"if ({end} == {last}) break;")
            self.out(f"{first} = {end};")
            self.poll(in_parallel)
            self.depth -= 1
            self.out("}")
            if break_label:
                self.out(f"{break_label}:;")
        if own_error:
            inner = self.math_errors.pop()
            self.out(f"{self.math_errors[-1]} += {inner};")
        self.depth -= 1
        self.out("}")

    def odometer_counters(self, odo):
        """Before a loop with an odometer (unpy/cpp_emit/odometer.py): each pair's divisor, once,
        its counters, whether they run (every divisor positive) and whether they started."""
        odo.ok, odo.started = self.fresh("odometer"), self.fresh("started")
        for p in odo.pairs:
            p.c, p.q, p.r = self.fresh("c"), self.fresh("q"), self.fresh("r")
            self.out(f"const int64_t {p.c} = {self.expr(p.divisor)};")
            self.out(f"int64_t {p.q} = 0, {p.r} = 0;")
        self.out(f"const bool {odo.ok} = {' && '.join(f'{p.c} > 0' for p in odo.pairs)};")
        self.out(f"bool {odo.started} = false;")

    def odometer_step(self, odo, var):
        """At the top of an iteration: the counters of its position, by division in the first
        iteration, else one step on from the last iteration's."""
        def carry(source, pairs):
            for p in pairs:
                if p.source == source:
                    self.out(f"if (++{p.r} == {p.c}) {{")
                    self.depth += 1
                    self.out(f"{p.r} = 0;")
                    self.out(f"++{p.q};")
                    carry(p.key, p.children)
                    self.depth -= 1
                    self.out("}")
        self.out(f"if ({odo.ok}) {{")
        self.depth += 1
        self.out(f"if ({odo.started}) {{")
        self.depth += 1
        roots = [p for p in odo.pairs if p.parent is None]
        for p in roots:
            carry(p.source, [p])
        self.depth -= 1
        self.out("} else {")
        self.depth += 1
        for p in odo.pairs:
            e = var if p.parent is None else p.parent.q
            self.out(f"{p.q} = unpy::floordiv<int64_t>({e}, {p.c});")
            self.out(f"{p.r} = unpy::mod<int64_t>({e}, {p.c});")
        self.out(f"{odo.started} = true;")
        self.depth -= 1
        self.out("}")
        self.depth -= 1
        self.out("}")

    def collapsed_levels(self, loop):
        """The perfectly nested pranges under `loop` whose bounds do not depend on outer ones."""
        levels = [loop]
        while len(levels) < 3:
            body = levels[-1].body
            if len(body) != 1 or not isinstance(body[0], ir.For) or not body[0].parallel:
                break
            inner = body[0]
            outer_vars = {l.var for l in levels}
            if outer_vars & set(reads_of([inner.start, inner.stop, inner.step])):
                break
            levels.append(inner)
        return levels

    def parallel_for(self, loop, triangular=False):
        """An outermost prange nest; `triangular`: schedule it as one whose inner ranges
        depend on the outer variable (the register-blocked form of such a nest)."""
        self.out("{")
        self.depth += 1
        # Python evaluates range() before the loop runs: the bounds come before the GPU hook.
        levels = self.collapsed_levels(loop)
        names = []
        for level in levels:
            start, stop, step = self.bounds(level)
            n = self.fresh("n")
            self.out(f"const int64_t {n} = unpy::range_length({start}, {stop}, {step});")
            names.append((start, step, n, self.fresh("t")))
        split = None     # a @gpu nest's unpy::SplitRange: the outer iterations OpenMP runs
        timer = None     # its unpy::NestTimer: times the OpenMP code when the hook asks
        if loop.nest_id is not None:
            split = self.fresh("split")
            self.out(f"unpy::SplitRange {split}({names[0][2]});")
            timer = self.gpu_hook(loop, split)
            self.flush_ranges(*array_uses(loop, self.fn))   # OpenMP runs: the host's turn
        body = levels[-1].body
        loop_vars = {l.var for l in levels}
        triangular = triangular or any(loop_vars & set(reads_of([x.start, x.stop, x.step]))
                                       for x in walk_stmts(body) if isinstance(x, ir.For))
        # A small nest runs on one thread: waking the team would cost more than it saves. A
        # larger one on the CPUs free now (unpy::nest_team), but a reduction of floats on the
        # whole team always: its sum depends on how many partial sums the threads make.
        work = " * ".join([f"double({n})" for _, _, n, _ in names]
                          + [f"({self.work_estimate(body, loop_vars | set(assigned_names(body)))})"])
        team = self.fresh("team")
        reduces_floats = any(getattr(self.fn.locals.get(r.var), "dtype", "").startswith(
            ("float", "complex")) for r in loop.reductions)
        fixed = ", true" if reduces_floats else ""
        self.out(f"const int {team} = unpy::nest_team({work} >= {PARALLEL_WORK}{fixed});")
        # A @gpu nest split with devices leaves their feeding threads' cores to them.
        threads = f"std::min({team}, {split}.threads())" if split else team
        clauses = f"num_threads({threads}) if({team} > 1)"
        for r in loop.reductions:
            clauses += f" reduction({r.op}:{cname(r.var)})"
        if self.checks_math and uses_checked_math(loop):
            clauses += " reduction(+:unpy_math_error)"
        # int() of a float (unpy::float_to_int): each place's own flag, a reduction updated
        # once an iteration (g++ vectorises no loop updating one twice)
        around = self.int_errors
        self.int_errors = [self.fresh("int_error") for _ in range(converts_floats_to_ints(
            loop.body))]
        if self.int_errors:
            self.out(f"int64_t {' = 0, '.join(self.int_errors)} = 0;   // see unpy::float_to_int")
            clauses += f" reduction(|:{', '.join(self.int_errors)})"
        private = (private_updates(loop, self.fn), team, work)
        if loop.proof:
            self.proved_or_checked(loop, lambda nest: self.openmp_nest(
                nest, names, clauses, split, triangular, private))
        else:
            self.openmp_nest(loop, names, clauses, split, triangular, private)
        if timer:
            self.out(f"{timer}.report();")
        if self.int_errors:
            self.out(f"unpy::float_to_int_check({' | '.join(self.int_errors)});")
        self.int_errors = around
        self.out("unpy::check_errors();")
        if loop.nest_id is not None:
            self.depth -= 1
            self.out("}")
        self.last_values(loop, levels, names)
        self.depth -= 1
        self.out("}")

    def openmp_nest(self, loop, names, clauses, split, triangular, private=((), None, None)):
        """The OpenMP code of an outermost nest (after its bounds and GPU hook): a BLAS for a
        matrix product, else the register-blocked form where it may run, else the loops
        (omp_loops); each part of a split nest in turn."""
        levels = self.collapsed_levels(loop)
        if loop.blas:
            # A matrix product: the BLAS when the whole nest runs here (not a split's part).
            whole = f"{split}.lo == 0 && {split}.hi == {names[0][2]} && " if split else ""
            when = "".join(f"{self.expr(c)} && " for c in loop.blas_when)
            if loop.blas_then:
                self.blas_then(loop, whole + when)
            else:
                operands = ", ".join(self.expr(x) for x in loop.blas)
                self.out(f"if (!({whole}{when}unpy::blas_matmul({operands}))) {{")
            self.depth += 1
        if split:
            self.out("do {")
            self.depth += 1
        if loop.blocked:
            # The register-blocked form (unpy/loopopt) where OpenMP runs the whole nest and
            # the arrays it writes overlap none it reads; compiled for contiguous rows only
            # (`if constexpr`: the build of the other body skips it, half the g++ time).
            taken = self.fresh("blocked")
            tests = [f"{split}.lo == 0 && {split}.hi == {names[0][2]}"] if split else []
            tests += [f"unpy::disjoint({cname(w)}, {cname(r)})" for w, r in loop.disjoint]
            self.out(f"bool {taken} = false;")
            self.out(f"if constexpr (C) if ({' && '.join(tests) or 'true'}) {{")
            self.depth += 1
            for s in loop.blocked:
                if isinstance(s, ir.For) and s.parallel:
                    self.parallel_for(s, triangular and s is loop.blocked[-1])
                else:
                    self.plain_stmt(s, False)
            self.out(f"{taken} = true;")
            self.depth -= 1
            self.out("}")
            self.out(f"if (!{taken}) {{")
            self.depth += 1
        self.with_private_copies(loop, clauses, lambda clauses: self.omp_loops(
            loop, levels, names, clauses, triangular, split), *private)
        if loop.blocked:
            self.depth -= 1
            self.out("}")
        if split:
            self.split_finish(loop, split)
            self.depth -= 1
            self.out(f"}} while ({split}.next());")
        if loop.blas:
            self.depth -= 1
            self.out("}")

    def blas_then(self, loop, tests: str):
        """A centred product's BLAS (unpy/loopopt/matmul_loops): `out = (a - ca) @ (b - cb)`,
        `out` a new array, where the arrays its nest writes overlap none the product reads,
        then the nest reading its sums from `out`; opens the `else` of the loops."""
        out, a, b = (self.expr(x) for x in loop.blas)
        ca, cb = (self.expr(c.array) if c is not None else "nullptr" for c in loop.blas_centres)
        # (a covariance reads one centre twice: tested once)
        read = dict.fromkeys([a, b] + [c for c in (ca, cb) if c != "nullptr"])
        written = dict.fromkeys(s.target.array.id for s in walk_stmts(loop.blas_then)
                                if isinstance(s, ir.Assign) and isinstance(s.target, ir.Subscript))
        tests += "".join(f"unpy::disjoint({cname(w)}, {r}) && " for w in written for r in read)
        self.out(f"if ({tests}unpy::blas_centred_matmul({out}, {a}, {ca}, {b}, {cb})) {{")
        self.depth += 1
        for s in loop.blas_then:
            self.parallel_for(s)
        self.out(f"{out} = {{}};   // its memory back")
        self.depth -= 1
        self.out("} else {")

    def with_private_copies(self, loop, clauses, loops, arrays, team, work):
        """`loops(clauses)`, the nest's OpenMP loops; where it updates `arrays` (private_updates)
        and they are few elements for its work, each thread updates a zeroed copy of its own
        instead, without atomics (a float64 histogram of 16 bins: 27x faster on 2 threads), the copies
        added up into the array after the loop. Taken where the array is contiguous and
        overlaps no other array of the nest, and its elements times the threads are at most
        an eighth of the nest's work; else the atomic updates."""
        if not arrays:
            return loops(clauses)
        types = {**self.fn.locals, **{p.name: p.type for p in self.fn.params}}
        others = [a for a in dict.fromkeys(reads_of([loop.start, loop.stop, loop.body]))
                  if isinstance(types.get(a), Array) and a not in arrays]
        cells = {a: self.fresh("cells") for a in arrays}
        tests = []
        for a in arrays:
            self.out(f"const int64_t {cells[a]} = {cname(a)}.size();")
            # (an empty one: OpenMP's reduction of an empty section of a null pointer crashes)
            tests.append(f"{cells[a]} > 0 && {cname(a)}.c_contiguous()")
            tests += [f"unpy::disjoint({cname(a)}, {cname(b)})" for b in others]
        total = " + ".join(f"double({c})" for c in cells.values())
        tests.append(f"({total}) * {team} * 8 <= {work}")

        def privately():
            copies = {}
            for a in arrays:
                t = CTYPES[self.fn.variable_type(a).dtype]
                buffer, copies[a] = self.fresh("private"), self.fresh("copy")
                self.out(f"std::vector<{t}> {buffer}({cells[a]});")
                self.out(f"{t}* {copies[a]} = {buffer}.data();")
            extra = "".join(f" reduction(+:{copies[a]}[:{cells[a]}])" for a in arrays)
            self.private_copies = copies
            loops(clauses + extra)
            self.private_copies = {}
            for a in arrays:
                k = self.fresh("k")
                self.out(f"for (int64_t {k} = 0; {k} < {cells[a]}; ++{k}) "
                         f"{cname(a)}.data[{k}] += {copies[a]}[{k}];")
        self.if_else(" && ".join(tests), privately, lambda: loops(clauses))

    def work_estimate(self, body, varying: set) -> str:
        """C++ for the operations an iteration of `body` makes, roughly: a statement one and
        its expensive operations' extra (unpy/work.py: a libm call 20), a loop its trip count
        (GUESSED_TRIPS where its bounds vary in the nest or could raise) times its body's."""
        total, loops = 0, []
        for s in body:
            if isinstance(s, (ir.For, ir.While)):
                trips = str(GUESSED_TRIPS)
                bounds = [s.start, s.stop, s.step] if isinstance(s, ir.For) else []
                if bounds and all(isinstance(b, ir.Const) for b in bounds):
                    trips = str(len(range(*(int(b.value) for b in bounds))))
                elif bounds and isinstance(s.step, ir.Const) and plain_bound(bounds, varying):
                    trips = (f"double(unpy::range_length({self.expr(s.start)}, "
                             f"{self.expr(s.stop)}, {self.expr(s.step)}))")
                inner = self.work_estimate(s.body, varying)
                loops.append(trips if inner == "1" else f"{trips} * ({inner})")
            elif isinstance(s, ir.If):
                total += self.expensive(s.test)
                loops.append(f"({self.work_estimate(s.body + s.orelse, varying)})")
            else:
                total += 1 + self.expensive(s)
        return " + ".join([str(total)] * bool(total) + loops) or "1"

    def expensive(self, node, seen=frozenset()) -> int:
        """unpy/work.py's extra operations of `node`, where a call of a compiled function of
        the module counts what its body does (`body_work`: its loops too), not COMPILED_CALL
        alone: a prange calling per iteration a function with a loop of its own
        (index_checks.nested_prange_rows, 1920 rows) was estimated at 11 operations an
        iteration, ran on one thread, and its callee's prange woke the team for every row
        (11.5 ms against Numba's 0.27 on 16 cores)."""
        total = expensive_work(node)
        for e in walk_exprs(node):
            callee = self.signatures.get(e.func) if isinstance(e, ir.CallCompiled) else None
            if callee is not None and e.func not in seen:
                total += max(0, self.body_work(callee.body, seen | {e.func}) - COMPILED_CALL)
        return total

    def body_work(self, body, seen) -> int:
        """The operations `body` makes, roughly, as a number: work_estimate's, a loop
        GUESSED_TRIPS iterations where its bounds are not constants (at most 10**9)."""
        total = 0
        for s in body:
            if isinstance(s, (ir.For, ir.While)):
                trips = GUESSED_TRIPS
                bounds = [s.start, s.stop, s.step] if isinstance(s, ir.For) else []
                if bounds and all(isinstance(b, ir.Const) for b in bounds):
                    trips = len(range(*(int(b.value) for b in bounds)))
                total += trips * max(1, self.body_work(s.body, seen))
            elif isinstance(s, ir.If):
                total += self.expensive(s.test, seen) + self.body_work(s.body, seen) + \
                    self.body_work(s.orelse, seen)
            else:
                total += 1 + self.expensive(s, seen)
        return min(total, 10 ** 9)

    def last_values(self, loop, levels, names):
        """After the loop, each loop variable holds its last value, as after Python's loop
        (unchanged where its loop ran no iteration); only where the function reads it."""
        counts = []
        for level, (start, step, n, t) in zip(levels, names):
            counts.append(f"{n} > 0")
            if reads_of(self.fn.body).count(level.var) > reads_of(loop).count(level.var):
                self.out(f"if ({' && '.join(counts)}) {cname(level.var)} = {start} + ({n} - 1) "
                         f"* {step};")

    def omp_loops(self, loop, levels, names, clauses, triangular, split=None):
        """The OpenMP loop nest over `levels` (trip counts computed), with its private variables;
        a @gpu nest's outer level over its `split` range. `triangular`: the outer iterations
        go round-robin to the threads (else in blocks).

        Several levels (not triangular) run in a parallel region that shares out their
        flattened iterations in blocks, as collapse() would, but walks each block a run of the
        innermost level at a time: one form that balances a short outer level and keeps the
        innermost loop a plain loop that vectorises (two forms, per row and collapsed, doubled
        the nest's g++ time). Iterations that may throw IndexError (unpy::out_of_bounds) run in
        such a region too, each thread's share in a `try` that records the error
        (unpy::record): nothing is thrown out of the region, and the loops keep their values in
        registers (a `catch` per iteration, that the loop goes on from, would have them
        reloaded at every iteration)."""
        body = levels[-1].body
        loop_vars = {l.var for l in levels}
        throws = self.may_throw_index_errors(body)
        flat = len(levels) > 1 and not triangular
        bounds = [(f"{split}.lo", f"{split}.hi") if split and k == 0 else ("0", n)
                  for k, (_, _, n, _) in enumerate(names)]
        shadows = self.region_arrays(loop, body, loop_vars)
        if shadows:
            self.out("{")
            self.depth += 1
            for name in shadows:
                held = self.fresh("held")
                self.out(f"auto {held} = unpy::borrowed({cname(name)});")
                self.out(f"auto {cname(name)} = {held};")
            clauses += f" firstprivate({', '.join(cname(a) for a in shadows)})"
        region = lambda alone: self.omp_region(loop, levels, names, clauses, triangular,
                                               bounds, throws, flat, alone)
        if self.fn.name in _module_called_in_regions(self.signatures):
            self.if_else("unpy::region_inactive()", lambda: region(True), lambda: region(False))
        else:
            region(False)
        if shadows:
            self.depth -= 1
            self.out("}")

    def omp_region(self, loop, levels, names, clauses, triangular, bounds, throws, flat, alone):
        """omp_loops' parallel region, or where `alone` the same loops without it, all their
        iterations on this thread: the form a function called in a prange's iteration takes
        (unpy::region_inactive), its reductions and math errors then made in the function's
        own variables."""
        body = levels[-1].body
        loop_vars = {l.var for l in levels}
        if throws or flat:
            if not alone:
                self.out(f"#pragma omp parallel {clauses}")
            self.out("{")
            self.depth += 1
            share = self.fresh("share")
            (lo, hi), t = bounds[0], names[0][3]
            first, end = lo, hi
            if flat:
                first, end = "0", " * ".join([f"({hi} - {lo})"] + [n for _, _, n, _ in names[1:]])
            if alone:
                self.out(f"const unpy::Share {share} = unpy::Share::whole({first}, {end});")
            else:
                self.out(f"const unpy::Share {share}({first}, {end}, "
                         f"{'true' if triangular else 'false'});")
            kept = {}
            if throws:
                self.out("try {")
                self.depth += 1
                kept = self.kept_in_try(loop)
            if flat:
                headers = [self.flat_run(share, names, lo)]
            else:
                self.out(f"for (int64_t {t} = {share}.first; {t} < {share}.last; "
                         f"{t} += {share}.step)")
                headers = list(zip(names, bounds))[1:]
        else:
            schedule = "schedule(static, 1)" if triangular else "schedule(static)"
            if not alone:
                self.out(f"#pragma omp parallel for {schedule} {clauses}")
            headers = list(zip(names, bounds))
        for (_, _, _, t), (lo, hi) in headers:
            self.out(f"for (int64_t {t} = {lo}; {t} < {hi}; ++{t})")
        self.out("{")
        self.depth += 1
        saved = []
        for level, (start, step, n, t) in zip(levels, names):
            self.out(f"const int64_t {cname(level.var)} = {start} + {t} * {step};")
            saved.append(self.enter_loop_var(level))
        # Variables written in the loop (other than reductions) are private to an iteration.
        reduced = {r.var for r in loop.reductions}
        for name in assigned_names(body):
            if name not in reduced and name not in loop_vars:
                t = self.fn.locals[name]
                self.out(f"{ctype(t)} {cname(name)}{initial(t)};")
        stacked = small_allocations(body)
        for alloc, count in stacked:
            self.on_stack[id(alloc)] = buffer = self.fresh("stack")
            self.out(f"alignas(64) {CTYPES[alloc.dtype]} {buffer}[{max(count, 1)}];")
        # Inside, `unpy_math_error` is each thread's copy (the reduction clause), so are the
        # int() flags (the first place's first: each form of the nest the same places)
        self.math_errors.append("unpy_math_error")
        self.in_region, self.int_site = True, 0
        if has_loops(body):
            # Ctrl-C: an iteration holding loops polls first; a poll inside skips to its end.
            self.stop_label = self.fresh("stop")
            self.poll(True)
            self.out("{")
            outer_depth, self.loop_depth = self.loop_depth, 0
            self.nested(body, True)
            self.loop_depth = outer_depth
            self.out("}")
            self.out(f"{self.stop_label}:;")
            self.stop_label = None
        else:
            self.block(body, in_parallel=True)
        for alloc, _ in stacked:    # (its buffers are this iteration's: another form of the
            del self.on_stack[id(alloc)]    # nest declares its own)
        self.math_errors.pop()
        self.in_region = False
        for level, old in zip(reversed(levels), reversed(saved)):
            self.leave_loop_var(level, old)
        self.depth -= 1
        self.out("}")
        if flat:
            self.advance_run()
            self.depth -= 1
            self.out("}")
        if throws:
            for var, held in kept.items():
                self.out(f"{held} = {var};")
            self.depth -= 1
            self.out("} catch (const unpy::Error& unpy_error) { unpy::record(unpy_error); }")
        if throws or flat:
            self.depth -= 1
            self.out("}")

    def kept_in_try(self, loop) -> dict:
        """Declares, at the top of a region's `try`, a copy of each reduction variable (and of
        the math-error count) that the loops update instead, written back at the end of the
        `try`; returns {variable: reference to it}. The variable itself is read after the
        `try`, also where an index error thrown in it (out_of_bounds) is caught: g++ keeps such
        a variable in a register that a throw preserves, a general-purpose one for a float, and
        moves it to and from a vector register at every addition (nested_prange_rows's
        `s += a[i, idx[j]]`: 10 cycles an element). An error loses the copy's partial result:
        the error is raised instead of it."""
        names = [cname(r.var) for r in loop.reductions]
        if self.checks_math and uses_checked_math(loop):
            names.append("unpy_math_error")
        names += self.int_errors
        kept = {}
        for name in dict.fromkeys(names):
            kept[name] = self.fresh("kept")
            self.out(f"auto& {kept[name]} = {name};")
            self.out(f"auto {name} = {kept[name]};")
        return kept

    def region_arrays(self, loop, body, loop_vars) -> list:
        """The arrays of a parallel region that each thread takes a copy of its own (firstprivate)
        of: the arrays the nest reads or writes through (parameters and locals it does not
        assign). Shared, the region reaches an array's data pointer, shape and strides through
        the region's pointer to the function's variable, and a store of an integer or a bool
        element may be a store into them as far as g++ can tell (same type, or char): it reads
        them again after each such store, and a loop writing an integer array of 2 dimensions
        or a strided one neither vectorises nor keeps its row's address (3x slower, 2-D int64).
        A thread's own copy is a local whose address nothing takes: no store reaches it. The
        copy is `unpy::borrowed` (the caller's variable keeps the memory for the region): no
        reference count counted up and down by every thread. Not where the region may keep an
        array beyond it (a Python call, a list)."""
        if any(isinstance(e, (ir.PythonCall, ir.Print, ir.ListAppend, ir.ListInsert, ir.ListNew))
               for e in walk_exprs([loop.start, loop.stop, loop.step, loop.body])):
            return []
        types = {**self.fn.locals, **{p.name: p.type for p in self.fn.params}}
        assigned = set(assigned_names(body)) | loop_vars
        return [a for a in dict.fromkeys(reads_of(body))
                if isinstance(types.get(a), Array) and a not in assigned]

    def flat_run(self, share, names, lo):
        """Opens the loop over a thread's block of a nest's flattened iterations (omp_loops), a
        run of the innermost level at a time: the position of the block's first iteration
        unravelled once (divisions), the outer levels' counters then counted up after each run
        (`run_advance`: a division per run made a nest of (n, 3) spend more on its divisions
        than on its elements); returns the innermost level's loop header (names, (first,
        end))."""
        f, first, end, rest = (self.fresh(x) for x in ("f", "first", "end", "rest"))
        innermost = names[-1][2]
        counters = [self.fresh("c") for _ in names[:-1]]
        self.out(f"int64_t {f} = {share}.first, {first} = 0;")
        self.out(f"int64_t {', '.join(f'{c} = 0' for c in counters)};")
        self.out(f"if ({f} < {share}.last) {{")
        self.depth += 1
        self.out(f"{first} = {f} % {innermost};")
        self.out(f"int64_t {rest} = {f} / {innermost};")
        for (_, _, n, _), c in reversed(list(zip(names[1:-1], counters[1:]))):
            self.out(f"{c} = {rest} % {n};")
            self.out(f"{rest} /= {n};")
        self.out(f"{counters[0]} = {rest};")
        self.depth -= 1
        self.out("}")
        self.out(f"for (; {f} < {share}.last;)")
        self.out("{")
        self.depth += 1
        self.out(f"const int64_t {end} = std::min({innermost}, {first} + ({share}.last - {f}));")
        for (_, _, _, t), c in zip(names[1:-1], counters[1:]):
            self.out(f"const int64_t {t} = {c};")
        self.out(f"const int64_t {names[0][3]} = {lo} + {counters[0]};")
        self.out(f"{f} += {end} - {first};")
        self.run_advance = (first, counters, [n for _, _, n, _ in names[:-1]])
        return names[-1], (first, end)

    def advance_run(self):
        """After a run of flat_run's loop: the next run starts at the innermost level's first
        iteration, the outer levels' counters one on (carried)."""
        first, counters, lengths = self.run_advance
        self.out(f"{first} = 0;")
        depth = self.depth
        for k in range(len(counters) - 1, 0, -1):
            self.out(f"if (++{counters[k]} == {lengths[k]}) {{")
            self.depth += 1
            self.out(f"{counters[k]} = 0;")
        self.out(f"++{counters[0]};")
        while self.depth > depth:
            self.depth -= 1
            self.out("}")

    def may_throw_index_errors(self, body) -> bool:
        """Whether `body` has a checked index, or calls a compiled function (which may)."""
        return self.checks != "none" and any(
            isinstance(e, ir.CallCompiled) or (isinstance(e, ir.Subscript)
                                               and len(e.in_range) < len(e.indices))
            for e in walk_exprs(body))

    def split_finish(self, loop, split):
        """After the OpenMP code ran its range of a split nest: wait for the devices' parts and
        take the reductions combined with theirs (see unpy::SplitRange)."""
        # Out of the function's template, as the offer (see offer()); once for a nest's proved
        # and checked copies (proved_or_checked).
        name = f"unpy_finish_{self.fn.name}_{loop.nest_id}"
        reduced = [(cname(r.var), ctype(self.fn.variable_type(r.var)), r.var)
                   for r in loop.reductions]
        params = ["unpy::SplitRange& unpy_split"] + [f"{t}& {c}" for c, t, _ in reduced]
        head = f"static void {name}({', '.join(params)}) {{"
        if head not in self.helpers:
            self.helpers += [head, "    unpy::Gil unpy_gil;", "    unpy::HookValues unpy_reductions;"]
            self.helpers += [f'    unpy_reductions.add("{v}", {c});' for c, _, v in reduced]
            self.helpers += ["    unpy::PyRef unpy_combined = unpy_split.finish(unpy_reductions);",
                             "    if (!unpy_combined.get()) return;"]
            self.helpers += [f'    {c} = unpy::answer_get<{t}>(unpy_combined, "{v}");'
                             for c, t, v in reduced]
            self.helpers += ["}", ""]
        args = ", ".join([split] + [c for c, _, _ in reduced])
        self.out(f"if ({split}.pending()) {name}({args});")

    def gpu_hook(self, loop, split):
        """Offer the nest to jitgpu (SPEC section 4, the offer function: see offer()); run the
        OpenMP code unless it is done. Returns the name of the nest's `unpy::NestTimer`, which
        times the OpenMP code when the hook measures a close call (jitgpu/decide.py)."""
        timer = self.fresh("timer")
        self.out(f"unpy::NestTimer {timer};")
        names = nest_free_variables(loop, self.fn)
        reduced = [r.var for r in loop.reductions if r.var not in names]
        offer = self.offer(loop, names)
        args = ", ".join([cname(n) for n in names + reduced] + ["unpy_scope", split, f"&{timer}"])
        self.out(f"if (!{offer}({args})) {{")
        self.depth += 1
        return timer

    def offer(self, loop, names) -> str:
        """The function that offers a nest to jitgpu and carries out the answer: whether the
        device ran the whole nest, its reductions then set. The call's inputs as bytes
        (`unpy::HookKey`) go along: the Python side keys its reused analysis by them, and a
        nest whose inputs were refused last time skips the hook (and the GIL) while they come
        again; a nest without reductions replays a call that ran on the device from the hook's
        record while they come again (`unpy::Replay`, no GIL), and a nest launched again in its
        call with only scalars changed is relaunched from the hook's record (`unpy::Relaunch`,
        no GIL; its reductions combined there); else unpy::gpu_hook with the GIL. Out of the
        function's template (emitted once, not per contiguity: their memos are the same, as
        the keys hold the strides), which halves the g++ time of this part."""
        name = f"unpy_offer_{self.fn.name}_{loop.nest_id}"
        types = [self.fn.variable_type(n) for n in names]
        reduced = [r.var for r in loop.reductions]
        keyed = all(isinstance(t, (ir.Array, ir.Scalar)) for t in types)
        # A keyed nest without reductions may replay a repeated call in C++ (jitgpu/replay.py).
        replay = keyed and not loop.reductions
        scoped = loop.nest_id not in self.lone_nests
        # One launched again in its call, only scalars changed, from C++ (jitgpu/relaunch.py).
        relaunch = keyed and scoped
        params = ([f"{'' if n in reduced else 'const '}{ctype(t)}& {cname(n)}"
                   for n, t in zip(names, types)]
                  + [f"{ctype(self.fn.variable_type(v))}& {cname(v)}" for v in reduced
                     if v not in names]
                  + ["unpy::CallScope& unpy_scope", "unpy::SplitRange& unpy_split",
                     "unpy::NestTimer* unpy_timer"])
        lines = [f"static bool {name}({', '.join(params)}) {{",
                 "    static unpy::HookSkip unpy_skip;"]
        lines += ["    static unpy::Replay unpy_replay;"] if replay else []
        lines += ["    static unpy::Relaunch unpy_relaunch;"] if relaunch else []
        # A call the call choice runs all with OpenMP (jitgpu/calls.py) asks nothing.
        lines += ["    if (omp_in_parallel()" + (" || unpy_scope.host_only()" if scoped else "")
                  + ") return false;",
                  "    const std::string& unpy_switches = unpy_scope.switches();   // (read once a call)"]
        if keyed:
            lines += ["    unpy::HookKey unpy_key;"]
            lines += [f"    unpy_key.add({cname(n)});" for n in names]
            outs = ""
            if relaunch and loop.reductions:
                items = ", ".join(
                    f"{{&{cname(r.var)}, unpy::HookKey::type_code<"
                    f"{ctype(self.fn.variable_type(r.var))}>()}}" for r in loop.reductions)
                lines += [f"    const unpy::ReductionOut unpy_outs[] = {{{items}}};"]
                outs = f", unpy_outs, {len(loop.reductions)}"
            ran = ([f"unpy_relaunch.run(unpy_key.bytes, unpy_switches, unpy_scope.id_{outs})"]
                   if relaunch else []) + \
                (["unpy_replay.run(unpy_key.bytes, unpy_switches)"] if replay else [])
            if ran:
                lines += [f"    if ({' || '.join(ran)}) return true;"]
            lines += ["    if (unpy_skip.skips(unpy_key, unpy_switches, unpy_scope.id_, "
                      "&unpy_scope.skipped_in_call)) return false;"]
        else:
            lines += ["    if (!unpy_skip.active(unpy_switches)) return false;"]
        lines += ["    unpy::Gil unpy_gil;",
                  "    unpy::HookValues unpy_values;",
                  "    unpy_values.add(\"__unpy_scope__\", int64_t(" +
                  ("unpy_scope.id()" if scoped else "-1") + "));"]
        lines += [f'    unpy_values.add("{n}", {cname(n)});' for n in names]
        if scoped:
            lines += [f'    if (!unpy_scope.begin(UNPY_MODULE_NAME, "{self.fn.name}")) return false;']
        lines += [f'    unpy::PyRef unpy_result = unpy::gpu_hook(UNPY_MODULE_NAME, "{self.fn.name}", '
                  f"{loop.nest_id}, unpy_values, unpy_switches, "
                  + ("unpy_scope.id()" if scoped else "-1") + ", unpy_skip, unpy_split, "
                  + ("&unpy_key" if keyed else "nullptr") + ", unpy_timer, "
                  + ("&unpy_replay" if replay else "nullptr") + ", "
                  + ("&unpy_relaunch" if relaunch else "nullptr") + ");",
                  "    if (!unpy_result.get()) return false;"]
        lines += [f'    {cname(v)} = unpy::answer_get<{ctype(self.fn.variable_type(v))}>('
                  f'unpy_result, "{v}");' for v in reduced]
        self.helpers += lines + ["    return true;", "}", ""]
        return name

    # --- residency (SPEC section 8) --------------------------------------------------------

    def call_scope(self):
        """The call's unpy::CallScope, after the locals (destroyed before them), naming the
        local arrays that die with the call: their copy-back is dropped."""
        # Data a nest leaves on the device may serve another nest of the call only where some
        # nest is not alone in it (otherwise the call keeps what `unpython.resident` holds).
        nests = {s.nest_id for s in walk_stmts(self.fn.body)
                 if isinstance(s, ir.For) and s.nest_id is not None}
        if nests - self.lone_nests:
            # The whole call is what jitgpu/calls.py chooses for, by its arrays' layouts.
            self.out("static unpy::HookSkip unpy_calls_memo;")
            self.out("unpy::CallScope unpy_scope(true, &unpy_calls_memo);")
            adds = " ".join(f"unpy_layout.add({cname(p.name)});" for p in self.fn.params
                            if isinstance(p.type, ir.Array))
            self.out(f"unpy_scope.layout_of = [&](unpy::HookKey& unpy_layout) {{ {adds} }};")
        else:
            self.out("unpy::CallScope unpy_scope(false);")
        dead = dying_locals(self.fn)
        if dead:
            adds = " ".join(f"unpy_dead.add({cname(name)});" for name in dead)
            self.out(f"unpy_scope.dead = [&](unpy::ByteRanges& unpy_dead) {{ {adds} }};")

    def flush_point(self, s):
        """Before a host statement: the arrays it reads or writes come back from the device
        (and the device copies of those it writes are forgotten). A statement holding GPU
        nests only has its own header read here; its body gets flush points of its own."""
        if isinstance(s, ir.For) and s.nest_id is not None:   # its OpenMP code flushes
            reads, writes = array_uses([s.start, s.stop, s.step], self.fn)
        elif contains_gpu_nest(s):
            header = ([s.start, s.stop, s.step] if isinstance(s, ir.For)
                      else [s.test] if isinstance(s, ir.If) else [])
            reads, writes = array_uses(header, self.fn)
        else:
            reads, writes = array_uses(s, self.fn)
        self.flush_ranges(reads, writes)

    def flush_ranges(self, reads, writes):
        if not reads and not writes:
            return
        adds = [f"unpy_r.add({cname(a)});" for a in reads]
        adds += [f"unpy_w.add({cname(a)});" for a in writes]
        self.out("if (unpy::anything_resident()) {")
        self.out(f"    unpy::ByteRanges unpy_r, unpy_w; {' '.join(adds)}")
        self.out("    unpy::flush_host(unpy_r, unpy_w);")
        self.out("}")

    def target(self, t):
        if isinstance(t, ir.Name):
            return cname(t.id)
        if isinstance(t, ir.ListItem):
            return f"{self.list_ref(t.list)}.store({self.expr(t.index)})"
        return self.subscript(t)

    # --- expressions: the C++ spellings of CExprPrinter ------------------------------------

    int_literal = staticmethod(int_literal)
    special_float = staticmethod(special_float)

    def convert(self, text, dtype):
        return f"static_cast<{CTYPES[dtype]}>({text})"

    def bool_to_float(self, text, dtype):
        return f"unpy::bool_float<{CTYPES[dtype]}>({text})"

    def arith(self, op, a, b, dtype):
        return narrow(f"({a} {op} {b})", dtype)

    def negate_or_invert(self, op, text, dtype):
        return narrow(f"({op}{text})", dtype)

    def helper(self, op, args, dtype):
        return f"unpy::{CXX_HELPERS[op]}<{CTYPES[dtype]}>({', '.join(args)})"

    def compare_mixed_integers(self, op, a, b, types):
        funcs = {"<": f"unpy::less({a}, {b})", ">": f"unpy::less({b}, {a})",
                 "<=": f"!unpy::less({b}, {a})", ">=": f"!unpy::less({a}, {b})",
                 "==": f"unpy::equal({a}, {b})", "!=": f"!unpy::equal({a}, {b})"}
        return f"({funcs[op]})"

    def float_to_int(self, text, source):
        if self.int_errors and self.in_region:
            self.int_site += 1
            flag = self.int_errors[(self.int_site - 1) % len(self.int_errors)]
            return f"unpy::float_to_int({text}, {flag})"
        return f"unpy::float_to_int({text})"

    def min_max(self, name, a, b, dtype):
        return f"unpy::py_{name}<{CTYPES[dtype]}>({a}, {b})"

    def abs_value(self, text, dtype):
        return f"unpy::py_abs<{CTYPES[dtype]}>({text})"

    def math_function(self, func, args):
        return f"{MATH_CXX[func]}({', '.join(args)})"

    def checked_math(self, func, args):
        return f"unpy::math_{func}({', '.join(args)}, {self.math_errors[-1]})"

    def complex_value(self, re, im, dtype):
        return f"{CTYPES[dtype]}({re}, {im})"

    def complex_operation(self, func, args, dtype):
        if func in ("==", "!="):
            return f"({args[0]} {func} {args[1]})"
        return f"{COMPLEX_CXX[func]}({', '.join(args)})"

    def expr_Name(self, e):
        return cname(e.id)

    def expr_Const(self, e):
        if isinstance(e.type, ir.DtypeType):
            return "int64_t(0)"     # a dtype argument: known while compiling, no value
        return super().expr_Const(e)

    def index(self, array, d, e):
        """--unchecked: index `e` of dimension `d`, wrapped where it may be negative."""
        text = self.expr(e)
        bound = const_lower_bound(e, self.lower_bounds)
        if bound is not None and bound >= 0:
            return text
        temp = self.fresh("i")
        return (f"[&]() {{ int64_t {temp} = {text}; return {temp} < 0 ? {temp} + "
                f"{array}.shape[{d}] : {temp}; }}()")

    def subscript(self, e, flat=True):
        array = cname(e.array.id)
        # A view's last dimension may have any stride: C holds for the parameters only.
        if e.array.id in self.tiles:
            return cname(e.array.id) + "".join(f"[{self.expr(i)}]" for i in e.indices)
        position = flat_position(e) if flat else None
        if position is not None:
            # a.flat[k] (typeinfer's unravelling of k over a's own shape): of a C-contiguous
            # array, and k in [0, a.size), element k of its data, no division; else as written
            # (an index out of range raises there).
            return (f"({array}.flat_contiguous({cname(position.id)}) ? "
                    f"{array}.data[{cname(position.id)}] : {self.subscript(e, False)})")
        contiguous = "false" if e.array.id in self.strided else "C"
        if len(e.in_range) == len(e.indices):
            indices = ", ".join(self.expr(i) for i in e.indices)
            return f"{array}.template at<{contiguous}>({indices})"
        if self.checks == "none":
            indices = ", ".join(self.expr(i) if d in e.in_range else self.index(array, d, i)
                                for d, i in enumerate(e.indices))
            return f"{array}.template at<{contiguous}>({indices})"
        # Checked (at_checked wraps negative indices itself, after reporting them as written);
        # the dimensions proved in range are marked so.
        indices = ", ".join(f"unpy::InRange{{{self.expr(i)}}}" if d in e.in_range
                            else self.expr(i) for d, i in enumerate(e.indices))
        return f'{array}.template at_checked<{contiguous}>("{e.array.id}", {indices})'

    def expr_TupleValue(self, e):
        return f"{ctype(e.type)}({', '.join(self.expr(x) for x in e.items)})"

    def expr_TupleItem(self, e):
        return f"std::get<{e.index}>({self.expr(e.value)})"

    def expr_StridedView(self, e):
        ints = lambda xs: "{" + ", ".join(self.expr(x) for x in xs) + "}"
        axes = "{" + ", ".join(str(-1 if a is None else a) for a in e.axes) + "}"
        return (f"unpy::strided_view<{len(e.axes)}>({cname(e.array.id)}, {ints(e.offsets)}, "
                f"{axes}, {ints(e.lengths)}, {ints(e.steps)})")

    def expr_Reshape(self, e):
        dims = ", ".join(self.expr(d) for d in e.shape)
        return f"unpy::reshape<{len(e.shape)}>({cname(e.array.id)}, {{{dims}}})"

    def expr_Subscript(self, e):
        if e.type.dtype == "bool" and e.array.id not in self.tiles:
            # read as its byte (unpy::bool_value): g++ vectorises no loop that widens a bool
            # loaded from memory (count += a[i], if a[i]: n += 1), it does one of a byte's test
            return f"unpy::bool_value({self.subscript(e)})"
        return self.subscript(e)

    def expr_ArrayAttr(self, e):
        array = cname(e.array.id)
        if e.attr == "shape":
            return f"{array}.shape[{e.dim}]"
        return f"{array}.size()"

    def list_value(self, e, t) -> str:
        """The list `e` where a list of type `t` goes: a converting copy where its items are of
        another type (a list of ints stored into a list of lists of floats)."""
        if isinstance(e.type, ir.ListType) and isinstance(t, ir.ListType) and \
                ctype(e.type) != ctype(t):
            return f"{ctype(t)}({self.expr(e)})"
        return self.expr(e)

    def expr_ListNew(self, e):
        return f"{ctype(e.type)}{{{', '.join(self.list_value(x, e.type.item) for x in e.items)}}}"

    def list_ref(self, e) -> str:
        """A list itself (not a copy): a variable, or an item of a list of lists."""
        if isinstance(e, ir.ListItem):
            return f"{self.list_ref(e.list)}.at({self.expr(e.index)})"
        return cname(e.id)

    def expr_ListItem(self, e):
        if isinstance(e.type, ir.ListType):
            return self.list_ref(e)
        return f"{self.list_ref(e.list)}.get({self.expr(e.index)})"

    def expr_ListLen(self, e):
        return f"{self.list_ref(e.list)}.size()"

    def expr_ListAppend(self, e):
        return f"{self.list_ref(e.list)}.append({self.list_value(e.value, e.list.type.item)})"

    def expr_ListPop(self, e):
        return f"{self.list_ref(e.list)}.pop({'' if e.index is None else self.expr(e.index)})"

    def expr_ListInsert(self, e):
        return (f"{self.list_ref(e.list)}.insert({self.expr(e.index)}, "
                f"{self.list_value(e.value, e.list.type.item)})")

    def expr_Call(self, e):
        if e.func == PANEL_ROWS:            # a register-blocked nest's panels (unpy/loopopt)
            return f"unpy::panel_rows({', '.join(self.expr(a) for a in e.args)})"
        if e.func in LIBRARY_OUTPUTS:       # np.linalg: unpy_runtime.hpp's LAPACK calls
            args = ", ".join(self.expr(a) for a in e.args)
            return f"unpy::{e.func.replace('.', '_')}({args})"
        return super().expr_Call(e)

    def expr_PythonCall(self, e):
        """A draw through Python (unpy_runtime.hpp's python_call), or one of np.random's that
        compiled code makes natively (np_random and the others there)."""
        native = native_draw(e)
        if native is not None:
            return self.native_draw(e, *native)
        module, _, name = e.func.rpartition(".")
        head = f'"{module}", "{name}", "{",".join(e.keywords)}"'
        args = "".join(f", {self.expr(a)}" for a in e.args)
        if e.into is not None:
            return (f"unpy::python_fill({cname(e.into.id)}, {'true' if e.sized else 'false'}, "
                    f"{head}{args})")
        if e.type is None:
            return f"unpy::python_call({head}{args})"
        return f"unpy::python_call_value<{CTYPES[e.type.dtype]}>({head}{args})"

    def native_draw(self, e, name, params):
        """np.random's function `name` drawn natively (typeinfer/python_calls.native_draw)."""
        args = "".join(", " + (repr(float(p)) if isinstance(p, float) else f"int64_t({p})"
                               if isinstance(p, int) else self.expr(p)) for p in params)
        if name == "randint":
            return (f"unpy::np_fill_randint({cname(e.into.id)}{args})" if e.into is not None
                    else f"unpy::np_randint({args[2:]})")
        f = f"unpy::NpDraw::{name}"
        if e.into is not None:
            return f"unpy::np_fill({cname(e.into.id)}, {f}{args})"
        if not params and name not in ("standard_normal", "randn", "standard_exponential"):
            return f"unpy::np_random({f})"
        return f"unpy::np_value({f}{args})"

    def call(self, e):
        # An array given to a function that returns no array is borrowed: the caller holds its
        # memory for the call, and a copy that owned it would count the reference up and down
        # at every call, an atomic every thread shares where a helper is called in a prange
        # (signatures.doubled, 16 cores: 1.0 -> 0.44 ms). (A const reference instead made the
        # callee reload the array's fields after each int64 store: 2-D loops 1.7x slower.)
        borrow = not _holds_array(self.signatures[e.func].return_type)
        args = [f"unpy::borrowed({self.expr(a)})" if borrow and isinstance(a.type, Array)
                else self.expr(a) for a in e.args]
        return f"{cname(e.func)}({', '.join(args)})"

    def expr_CallCompiled(self, e):
        tested, self.tested_call = self.tested_call, None
        if not self.signatures[e.func].returns_none:
            return self.call(e)
        if tested is e:         # a test (`if f(x):`): None is false, as Python's
            return f"unpy::or_zero({self.call(e)})"
        return f'unpy::valued({self.call(e)}, "{self.signatures[e.func].python_name}")'

    def truth(self, e):
        inner = e.value if isinstance(e, ir.Cast) else e
        self.tested_call = inner if isinstance(inner, ir.CallCompiled) else None
        return super().truth(e)

    def allocation(self, e) -> tuple:
        """(the extents, the runtime's fill code) of an allocation `e`."""
        dims = ", ".join(self.expr(d) for d in e.shape)
        return dims, {"zeros": 0, "ones": 1, "empty": 2}[e.fill]

    def expr_AllocArray(self, e):
        dims, fill = self.allocation(e)
        if id(e) in self.on_stack:
            return (f"unpy::on_stack<{CTYPES[e.dtype]}, {len(e.shape)}>({self.on_stack[id(e)]}, "
                    f"{{{dims}}}, {fill})")
        return f"unpy::allocate<{CTYPES[e.dtype]}, {len(e.shape)}>({{{dims}}}, {fill})"


def _holds_array(t) -> bool:
    """Whether a value of type `t` may hold an array (a returned array, a tuple with one)."""
    if isinstance(t, ir.TupleType):
        return any(_holds_array(x) for x in t.items)
    return isinstance(t, Array)


# The largest array of a prange iteration kept on its stack (`small_allocations`).
STACK_BYTES = 1024


def small_allocations(body) -> list:
    """(allocation, element count) of each `a = np.zeros(3)` of a prange iteration's `body`, of a
    constant shape of
    at most STACK_BYTES, made once per iteration (not inside a loop of the body): each takes a C
    array of the iteration instead of the heap (a malloc and a free per iteration, 60 ns on 16
    threads where Numba's LLVM keeps such an array in registers). The array cannot outlive
    the iteration: it is read nowhere after the loop (reductions.py), and a prange holds no
    list, print or Python call it could reach."""
    found = []
    for s in body:
        if isinstance(s, ir.If):
            found += small_allocations(s.body) + small_allocations(s.orelse)
        elif isinstance(s, ir.Assign) and isinstance(s.value, ir.AllocArray) and all(
                isinstance(d, ir.Const) and type(d.value) is int and d.value >= 0
                for d in s.value.shape):
            count = math.prod(d.value for d in s.value.shape)
            if count * np.dtype(s.value.dtype).itemsize <= STACK_BYTES:
                found.append((s.value, count))
    return found


def plain_bound(exprs, varying: set) -> bool:
    """Whether the loop bounds `exprs` can be evaluated before their nest, as an estimate: only
    names the nest does not assign, constants, array extents, + - * (nothing that raises)."""
    return all(isinstance(e, (ir.Name, ir.Const, ir.ArrayAttr, ir.BinOp, ir.Cast))
               and not (isinstance(e, ir.BinOp) and e.op not in ("+", "-", "*"))
               and not (isinstance(e, ir.Name) and e.id in varying)
               for x in exprs for e in walk_exprs(x))


def strided_locals(fn: ir.Function) -> set:
    """Local arrays whose last dimension may have a stride other than 1 when the parameters'
    have it: views with a step or a transposition there, arrays a compiled function returns,
    and names that may be one of those."""
    params = {p.name for p in fn.params}
    values = {}
    for s in walk_stmts(fn.body):
        if isinstance(s, ir.Assign) and isinstance(s.target, ir.Name) and \
                isinstance(s.value.type, Array) and s.target.id not in params:
            values.setdefault(s.target.id, []).append(s.value)
    for e in walk_exprs(fn.body):
        if isinstance(e, ir.NamedExpr) and isinstance(e.type, Array):
            values.setdefault(e.target.id, []).append(e.value)
    strided = set()

    def unit_stride(v):
        if isinstance(v, (ir.AllocArray, ir.Reshape)):
            return True
        if isinstance(v, ir.Name):
            return v.id not in strided
        if isinstance(v, ir.IfExp):
            return unit_stride(v.body) and unit_stride(v.orelse)
        if isinstance(v, ir.StridedView):
            last = v.axes[-1] if v.axes else None
            return (v.array.id not in strided and last == v.array.type.ndim - 1
                    and isinstance(v.steps[-1], ir.Const) and v.steps[-1].value == 1)
        return False

    changed = True
    while changed:
        changed = False
        for var, assigned in values.items():
            if var not in strided and not all(unit_stride(v) for v in assigned):
                strided.add(var)
                changed = True
    return strided


def has_loops(body) -> bool:
    """Whether `body` holds a loop other than loopopt's counted ones (simd, unroll): one whose
    length may be anything, which Ctrl-C polls in or around (see FunctionEmitter.poll)."""
    return any(isinstance(x, ir.While) or (isinstance(x, ir.For) and not (x.simd or x.unroll))
               for x in walk_stmts(body))


def recursive_functions(functions: dict) -> set:
    """The names of the functions of `functions` (name -> ir.Function) that may call
    themselves, directly or not: they poll for Ctrl-C on entry."""
    calls = {name: {e.func for e in walk_exprs(f.body) if isinstance(e, ir.CallCompiled)}
             for name, f in functions.items()}
    found = set()
    for name in calls:
        seen, todo = set(), list(calls[name])
        while todo:
            callee = todo.pop()
            if callee == name:
                found.add(name)
                break
            if callee not in seen:
                seen.add(callee)
                todo.extend(calls.get(callee, ()))
    return found


def called_in_regions(functions: dict) -> set:
    """The names of the functions of `functions` that may run inside a parallel region: called
    in a prange's iteration, or by such a function. Their prange nests get a form without a
    region too (FunctionEmitter.omp_region)."""
    calls = {name: {e.func for e in walk_exprs(f.body) if isinstance(e, ir.CallCompiled)}
             for name, f in functions.items()}
    todo = [e.func for f in functions.values() for x in walk_stmts(f.body)
            if isinstance(x, ir.For) and x.parallel
            for e in walk_exprs(x.body) if isinstance(e, ir.CallCompiled)]
    found = set()
    while todo:
        name = todo.pop()
        if name not in found:
            found.add(name)
            todo.extend(calls.get(name, ()))
    return found


# The expression nodes of the largest helper declared inline (inlined_helpers).
INLINE_HELPER_NODES = 200


def inlined_helpers(functions: dict) -> set:
    """The names of the functions of `functions` that another calls, that hold no prange loop
    and are not recursive, of at most INLINE_HELPER_NODES expression nodes: declared `inline`,
    so that g++ inlines them into their callers' loops (index_checks.searches calls one with a
    while loop per element: not inlined, the call and the copies of its arrays cost 4x Numba's
    time)."""
    called = {e.func for f in functions.values() for e in walk_exprs(f.body)
              if isinstance(e, ir.CallCompiled)}
    recursive = _per_module(functions, recursive_functions)
    return {name for name in called - recursive if name in functions
            and not any(isinstance(x, ir.For) and x.parallel
                        for x in walk_stmts(functions[name].body))
            and sum(1 for _ in walk_exprs(functions[name].body)) <= INLINE_HELPER_NODES}


_last_module = (None, {})


def _per_module(signatures: dict, find) -> set:
    """find(signatures), found once per module: each of its functions asks (a module of 100
    functions spent 30 s walking them all again for each)."""
    global _last_module
    functions, found = _last_module
    if functions is not signatures:
        found = {}
        _last_module = (signatures, found)
    if find not in found:
        found[find] = find(signatures)
    return found[find]


def _module_recursive_functions(signatures: dict) -> set:
    return _per_module(signatures, recursive_functions)


def _module_called_in_regions(signatures: dict) -> set:
    return _per_module(signatures, called_in_regions)


def converts_floats_to_ints(node) -> int:
    """How many places of `node` convert a float to an int as Python does, raising for nan
    and infinities (CExprPrinter.float_to_int: int(), round(), math.floor, math.ceil)."""
    return sum(1 for e in walk_exprs(node) if isinstance(e, ir.Call) and (
        e.func in ("math.floor", "math.ceil") or (
            e.func.startswith("cast:") and getattr(e.type, "dtype", None) == "int64" and
            getattr(e.args[0].type, "dtype", "").startswith("float"))))


def uses_checked_math(node) -> bool:
    """Whether `node` calls a math.* function checked through `unpy_math_error`."""
    return any(isinstance(e, ir.Call) and e.func.startswith("math.")
               and e.func[5:] not in ("floor", "ceil") + MATH_WITHOUT_ERRORS
               for e in walk_exprs(node))


def nest_free_variables(loop: ir.For, fn: ir.Function):
    """Variables a nest reads that come from outside it (arrays, scalars, reduction inputs), in
    order of first use."""
    inside = {loop.var, *assigned_names(loop.body)}
    reduced = {r.var for r in loop.reductions}
    names = [e.id for e in walk_exprs([loop.start, loop.stop, loop.step, loop.body])
             if isinstance(e, ir.Name)]
    return [n for n in dict.fromkeys(names) if n not in inside or n in reduced]


def contains_gpu_nest(s) -> bool:
    return any(isinstance(x, ir.For) and x.nest_id is not None for x in walk_stmts([s]))


def may_run_nests(s) -> bool:
    """Whether `s` holds a GPU nest or calls a compiled function (whose nests may leave data on
    the device)."""
    return contains_gpu_nest(s) or any(isinstance(e, ir.CallCompiled)
                                       for e in walk_exprs(s))


def array_uses(node, fn: ir.Function) -> tuple:
    """(arrays read, arrays written) by `node`'s elements: a subscript reads (or, as an
    assignment's target, writes) its array; an array passed to a compiled function may be both.
    Shapes are not data; binding a name moves no data, but what a name bound inside `node`
    reads or writes (a view made there: `v = view(d2, ...)`, then `v[k]`) is read or written
    in the arrays it may view."""
    reads, writes = {}, {}
    stmts = [x for x in (node if isinstance(node, list) else [node])
             if isinstance(x, ir.Stmt.__args__)]
    views = {}          # a name bound inside `node` -> the array names its value mentions
    for s in walk_stmts(stmts):
        if isinstance(s, (ir.Assign, ir.AugAssign)) and isinstance(s.target, ir.Subscript):
            writes[s.target.array.id] = True
        elif isinstance(s, ir.Assign) and isinstance(s.target, ir.Name) \
                and isinstance(s.target.type, Array):
            # (a dict, not a set: the C++ lists the arrays in one order, which the build
            # cache's key needs)
            views.setdefault(s.target.id, {}).update(dict.fromkeys(
                x.id for x in walk_exprs(s.value)
                if isinstance(x, ir.Name) and isinstance(fn.variable_type(x.id), Array)))
    for e in walk_exprs(node):
        if isinstance(e, ir.Subscript):
            reads[e.array.id] = True
        elif isinstance(e, ir.CallCompiled):
            for a in e.args:
                if isinstance(a, ir.Name) and isinstance(fn.variable_type(a.id), Array):
                    reads[a.id] = writes[a.id] = True
        elif isinstance(e, ir.PythonCall):
            read, written = python_call_arrays(e)
            reads.update(dict.fromkeys(read + written, True))
            writes.update(dict.fromkeys(written, True))
        elif isinstance(e, ir.Call) and e.func in LIBRARY_OUTPUTS:
            read, written = library_arrays(e)
            reads.update(dict.fromkeys(read + written, True))
            writes.update(dict.fromkeys(written, True))
    return _through_views(reads, views), _through_views(writes, views)


def _through_views(names: dict, views: dict) -> list:
    """`names` and every array they may view (`views`: name -> names its value mentions)."""
    found, todo = dict(names), list(names)
    while todo:
        for other in views.get(todo.pop(), ()):
            if other not in found:
                found[other] = True
                todo.append(other)
    return list(found)


def private_updates(loop: ir.For, fn: ir.Function) -> tuple:
    """The arrays that an outermost prange nest only adds to or subtracts from by atomic
    updates (`hist[b[i]] += w[i]`, typeinfer/array_races.py) of integers or floats, and reads
    and writes in no other way: threads may update copies of their own instead, added up
    after the loop (FunctionEmitter.with_private_copies)."""
    updated, used = set(), set()
    for s in walk_stmts([loop]):
        if isinstance(s, ir.Assign) and s.atomic and isinstance(s.target.array, ir.Name):
            op, operand, first = update_parts(s)
            dtype = s.target.type.dtype
            if (op == "+" or (op == "-" and first)) and dtype not in ("bool", "complex64",
                                                                       "complex128"):
                updated.add(s.target.array.id)
                used.update(_elements_read([s.target.indices, operand]))
                continue
        used.update(_elements_read(own_expressions(s)))
    return tuple(sorted(a for a in updated - used if isinstance(fn.variable_type(a), Array)))


def _elements_read(node) -> set:
    """The names `node` reads, but not an array of which it reads only the shape (`out.shape[0]`
    in the test of a broadcasting statement's two versions): a private copy has its shape."""
    exprs = list(walk_exprs(node))
    shape_only = {id(e.array) for e in exprs if isinstance(e, ir.ArrayAttr)}
    return {e.id for e in exprs if isinstance(e, ir.Name) and id(e) not in shape_only}


def emit_function(fn, module_name, checks, signatures, fastmath=False, model=None):
    """(signature, body, dispatcher) of `fn`, its indices checked as `checks` says
    (unpy.loopopt.CHECKS), optimised as a --fastmath build may be where `fastmath`, its loops
    as CpuModel `model` says (by default the building machine's)."""
    emitter = FunctionEmitter(optimise_for_cpu(fn, checks, fastmath, model, signatures),
                              module_name, checks, signatures)
    body = emitter.emit()
    return emitter.signature(cname(fn.name)), body, emitter.dispatcher()
