"""OpenCL C for one loop nest (the paper's naive "GPU" kernel, `UNPY_GPU_OPT=none`).

One work-item per iteration of the collapsed outer pranges (up to 3 NDRange dimensions; the
innermost prange is dimension 0 so neighbouring work-items touch neighbouring elements). Inner
loops and scalar code run inside the work-item. Array elements are read from the device buffers
of their transfer groups at the addresses of the group mapping. Reductions are private per
work-item, tree-reduced in local memory per work-group, and the partial results are combined on
the host. Errors the CPU path would raise (integer division by zero, math domain errors, an index
out of range) set a flag; the host then discards the kernel's results and runs the OpenMP code.
"""
from __future__ import annotations

import math
import re

import numpy as np
from dataclasses import dataclass, field

from jitgpu.nest import NestInstance, NotOffloadable, evaluate
from unpy import ir
from unpy.cexpr import CExprPrinter
from unpy.ir import Array, Scalar
from unpy.typeinfer.reductions import assigned_names, walk_exprs, walk_stmts

CL_TYPES = {"bool": "bool", "int8": "char", "int16": "short", "int32": "int", "int64": "long",
            "uint8": "uchar", "uint16": "ushort", "uint32": "uint", "uint64": "ulong",
            "float32": "float", "float64": "double"}
BUFFER_TYPES = dict(CL_TYPES, bool="uchar")
INT_SIZES = {"char": 1, "short": 2, "int": 4, "long": 8}
INT_TYPES = ["char", "short", "int", "long", "uchar", "ushort", "uint", "ulong"]
MATH = {"sqrt", "exp", "log", "log10", "sin", "cos", "tan", "asin", "acos", "atan", "atan2",
        "sinh", "cosh", "tanh", "floor", "ceil", "fabs", "pow", "hypot"}
WRAPPING = {"int": "uint", "long": "ulong"}   # signed types whose arithmetic can overflow
IDENTITY = {"+": "0", "*": "1", "|": "0", "^": "0", "&": "~0"}

# Lower-case words a user's variable may not be in OpenCL C: keywords, type names, and the
# functions the kernels call (a variable would hide them). Names with capitals or a leading
# underscore may be macros of the OpenCL headers (NAN, M_PI, ...).
CL_RESERVED = set("""
    auto break case char const continue default do double else enum extern float for goto if
    inline int long register restrict return short signed sizeof static struct switch typedef
    union unsigned void volatile while bool true false half quad uchar ushort uint ulong size_t
    ptrdiff_t intptr_t uintptr_t complex imaginary global local constant private kernel
    read_only write_only read_write uniform pipe image1d_t image1d_array_t image1d_buffer_t
    image2d_t image2d_array_t image2d_depth_t image2d_array_depth_t image3d_t sampler_t event_t
    queue_t clk_event_t reserve_id_t ndrange_t cl_mem_fence_flags vec_step printf barrier
    get_global_id get_local_id get_group_id get_num_groups fmod floor ceil isnan isinf isfinite
    copysign fabs pow
""".split()) | MATH
CL_VECTOR_TYPE = re.compile(r"(u?(char|short|int|long)|float|double|half|bool)(2|3|4|8|16)")


def cl_name(name: str) -> str:
    """A user's variable as an OpenCL identifier: itself when that is safe, else `unpy_v_` and
    the name (no name of the kernel's own starts so, and a user's `unpy_` names get it too)."""
    if (re.fullmatch(r"[a-z][a-z0-9_]*", name) and not name.startswith("unpy_")
            and name not in CL_RESERVED and not CL_VECTOR_TYPE.fullmatch(name)):
        return name
    return "unpy_v_" + name


LOCAL_SIZES = {1: (256,), 2: (16, 16), 3: (16, 4, 4)}   # dimension 0 first
INDEX_HELPER = ("inline long unpy_index(long i, long n, __global int* f) { if (i < 0) i += n; "
                "if (i < 0 || i >= n) { *f = 1; return 0; } return i; }")


@dataclass
class KernelArg:
    kind: str          # 'buffer' (group), 'scalar' (name, dtype), 'long', 'partial', 'local', 'flag'
    name: str
    dtype: str = ""
    group: int = -1


@dataclass
class Kernel:
    source: str
    name: str
    args: list
    global_size: tuple
    local_size: tuple
    reductions: list = field(default_factory=list)   # of (var, op, dtype)
    long_args: dict = field(default_factory=dict)    # name -> value of 'long' arguments


def _preamble(fp64: bool) -> str:
    lines = []
    if fp64:
        lines.append("#pragma OPENCL EXTENSION cl_khr_fp64 : enable")
    lines.append(INDEX_HELPER)
    for t in INT_TYPES:
        signed = not t.startswith("u")
        u = f"u{t}" if signed else t
        # Signed: floor toward minus infinity; MIN // -1 wraps and MIN % -1 is 0 as in NumPy
        # (a / -1 overflows in C, and traps on x86). Powers multiply unsigned (wrapping).
        neg = " && ((a < 0) != (b < 0))" if signed else ""
        minus_one_q = f"if (b == ({t})-1) return ({t})(0 - ({u})a); " if signed else ""
        minus_one_r = f"if (b == ({t})-1) return 0; " if signed else ""
        lines.append(
            f"inline {t} unpy_floordiv_{t}({t} a, {t} b, __global int* f) {{ if (b == 0) "
            f"{{ *f = 1; return 0; }} {minus_one_q}{t} q = a / b; if ((a % b != 0){neg}) "
            f"q -= 1; return q; }}")
        lines.append(
            f"inline {t} unpy_mod_{t}({t} a, {t} b, __global int* f) {{ if (b == 0) "
            f"{{ *f = 1; return 0; }} {minus_one_r}{t} r = a % b; "
            f"if (r != 0{neg.replace('a < 0', 'r < 0')}) r += b; return r; }}")
        lines.append(
            f"inline {t} unpy_pow_{t}({t} base, {t} e, __global int* f) {{ "
            + ("if (e < 0) { *f = 1; return 0; } " if signed else "")
            + f"{u} r = 1, b = ({u})base; while (e) {{ if (e & 1) r *= b; b *= b; e >>= 1; }} "
            f"return ({t})r; }}")
        # Shifts as NumPy's: a count outside [0, bits) shifts everything out (OpenCL would take
        # it modulo the width).
        bits = 8 * INT_SIZES[t.lstrip("u")]
        lines.append(
            f"inline {t} unpy_shl_{t}({t} a, {t} b, __global int* f) {{ if (b < 0 || b >= {bits})"
            f" return 0; return ({t})(({u})a << b); }}")
        lines.append(
            f"inline {t} unpy_shr_{t}({t} a, {t} b, __global int* f) {{ if (b < 0 || b >= {bits})"
            f" return a < 0 ? ({t})-1 : 0; return ({t})(a >> b); }}")
    for t in (["float", "double"] if fp64 else ["float"]):
        # `/` of two integers: Python raises on a zero divisor (the CPU path does).
        lines.append(f"inline {t} unpy_int_truediv_{t}({t} a, {t} b, __global int* f) {{ "
                     f"if (b == 0) *f = 1; return a / b; }}")
        lines.append(
            f"inline {t} unpy_floordiv_{t}({t} a, {t} b, __global int* f) {{ if (b == 0) "
            f"return a / b; {t} m = fmod(a, b); {t} d = (a - m) / b; if (m != 0 && ((b < 0) != "
            f"(m < 0))) d -= 1; if (d != 0) {{ {t} fl = floor(d); if (d - fl > ({t})0.5) fl += 1;"
            f" return fl; }} return copysign(({t})0, a / b); }}")
        lines.append(
            f"inline {t} unpy_mod_{t}({t} a, {t} b, __global int* f) {{ if (b == 0) return "
            f"NAN; {t} m = fmod(a, b); if (m != 0) {{ if ((b < 0) != (m < 0)) m += b; }} else "
            f"m = copysign(({t})0, b); return m; }}")
        lines.append(f"inline {t} unpy_pow_{t}({t} a, {t} b, __global int* f) {{ "
                     f"return pow(a, b); }}")
        # int(x): Python raises for nan, infinities and values outside int64.
        lines.append(f"inline long unpy_to_int_{t}({t} x, __global int* f) {{ "
                     f"if (!(x >= ({t})-0x1p63 && x < ({t})0x1p63)) {{ *f = 1; return 0; }} "
                     f"return (long)x; }}")
    if fp64:
        # math.*: where CPython's math module raises (a nan from a non-nan argument, an infinity
        # from a finite one; for pow only with finite arguments), the kernel sets the flag and
        # the CPU path raises the error.
        lines.append("inline double unpy_math(double r, double x, __global int* f) { "
                     "if ((isnan(r) && !isnan(x)) || (isinf(r) && isfinite(x))) *f = 1; "
                     "return r; }")
        lines.append("inline double unpy_math_pow(double x, double y, __global int* f) { "
                     "double r = pow(x, y); if (isfinite(x) && isfinite(y) && !isfinite(r)) "
                     "*f = 1; return r; }")
    return "\n".join(lines) + "\n"


class KernelEmitter(CExprPrinter):
    def __init__(self, instance: NestInstance, plan, values: dict, fp64: bool):
        self.instance = instance
        self.nest = instance.nest
        self.plan = plan
        self.values = values
        self.fp64 = fp64
        self.lines = []
        self.depth = 1
        self.types = {p.name: p.type for p in self.nest.free}
        self.ref_ids = {id(e): a.ref_id for e, a in instance.accesses}
        self.access_of = {id(e): a for e, a in instance.accesses}
        for s in walk_stmts(self.nest.loop.body):
            if isinstance(s, ir.Assign) and isinstance(s.target, ir.Name):
                self.types.setdefault(s.target.id, s.target.type)
        for level in instance.boxes:
            self.types.setdefault(level, Scalar("int64"))
        # Values that differ between the tiles of one nest are kernel arguments, so that every
        # tile runs the same kernel (one build); everything else is a literal.
        self.long_args = {}

    def long_arg(self, name, value):
        self.long_args[name] = int(value)
        return name

    def out(self, text):
        self.lines.append("    " * self.depth + text)

    def require_type(self, t):
        if isinstance(t, (Scalar, Array)) and t.dtype == "float64" and not self.fp64:
            raise NotOffloadable("the device has no float64 support (cl_khr_fp64)")

    def emit(self) -> Kernel:
        inst, nest = self.instance, self.nest
        for e in walk_exprs(nest.loop):
            self.require_type(e.type)
            if isinstance(e, ir.CallCompiled):
                raise NotOffloadable(f"the nest calls compiled function {e.func}(), which the "
                                     "GPU kernel cannot call")
            if isinstance(e, ir.AllocArray):
                raise NotOffloadable("the nest allocates an array, which a GPU kernel cannot do")
        for s in walk_stmts(nest.loop.body):
            if isinstance(s, ir.Return):
                raise NotOffloadable("the nest contains 'return'")
        args = []
        params = []
        # Buffers are numbered by the first access to each group, not by the plan's group order
        # (which follows host addresses), so that the source does not depend on where NumPy put
        # the arrays.
        self.buffer_of, buffer_dtype = {}, []
        for e, a in inst.accesses:
            group = self.plan.device_map(a.ref_id).group
            if group not in self.buffer_of:
                self.buffer_of[group] = len(buffer_dtype)
                buffer_dtype.append(self.types[e.array.id].dtype)
        for group, k in self.buffer_of.items():
            params.append(f"__global {BUFFER_TYPES[buffer_dtype[k]]}* restrict g{k}")
            args.append(KernelArg("buffer", f"g{k}", buffer_dtype[k], group))
        self.buffer_dtype = buffer_dtype
        levels = inst.levels
        level_vars = [l.var for l in levels]
        reductions = nest.loop.reductions
        scalars = [p for p in nest.free if isinstance(p.type, Scalar)
                   and p.name not in {r.var for r in reductions}]
        for p in scalars:
            params.append(f"const {BUFFER_TYPES[p.type.dtype]} {cl_name(p.name)}")
            args.append(KernelArg("scalar", p.name, p.type.dtype))
        params.append("__global int* unpy_flag")
        args.append(KernelArg("flag", "unpy_flag"))
        for k, level in enumerate(inst.levels):
            self.long_arg(f"unpy_lo{k}", inst.boxes[level.var].lo)
            self.long_arg(f"unpy_step{k}", inst.boxes[level.var].step)
        red_info = []
        for r in reductions:
            dtype = self.types[r.var].dtype
            params.append(f"__global {BUFFER_TYPES[dtype]}* unpy_partial_{r.var}")
            params.append(f"__local {BUFFER_TYPES[dtype]}* unpy_scratch_{r.var}")
            args.append(KernelArg("partial", r.var, dtype))
            args.append(KernelArg("local", r.var, dtype))
            red_info.append((r.var, r.op, dtype))
        # Body.
        ndim = len(levels)
        for k, level in enumerate(levels):
            dim = ndim - 1 - k
            self.out(f"const long unpy_t{k} = get_global_id({dim});")
            self.out(f"const long {cl_name(level.var)} = unpy_lo{k} + unpy_t{k} * unpy_step{k};")
        active = " && ".join([f"unpy_t{k} < {self.long_arg(f'unpy_n{k}', n)}"
                              for k, n in enumerate(inst.trip_counts)]
                             + [self.guard(level) for level in levels
                                if level.var in inst.guarded])
        for r in reductions:
            self.out(f"{CL_TYPES[self.types[r.var].dtype]} {cl_name(r.var)} = "
                     f"{self.identity(r.op, self.types[r.var].dtype)};")
        reduced = {r.var for r in reductions}
        self.out(f"if ({active}) do {{")
        self.depth += 1
        for name in assigned_names(levels[-1].body):
            if name not in reduced and name not in level_vars:
                self.out(f"{CL_TYPES[self.types[name].dtype]} {cl_name(name)} = 0;")
        self.block(levels[-1].body)
        self.depth -= 1
        self.out("} while (0);")
        if reductions:
            self.reduction_epilogue(reductions, ndim)
        local = LOCAL_SIZES[ndim]
        global_size = []
        for k in range(ndim):
            n = inst.trip_counts[ndim - 1 - k]
            global_size.append(max(1, -(-n // local[k])) * local[k])
        for arg_name in self.long_args:
            params.append(f"const long {arg_name}")
            args.append(KernelArg("long", arg_name, "int64"))
        name = "unpy_nest"
        source = (_preamble(self.fp64) + f"\n__kernel void {name}(" + ",\n        ".join(params)
                  + ")\n{\n" + "\n".join(self.lines) + "\n}\n")
        return Kernel(source, name, args, tuple(global_size), local, red_info,
                      dict(self.long_args))

    def guard(self, level):
        """The real bounds of a triangular level, run over its bounding box."""
        start, stop = self.expr(level.start), self.expr(level.stop)
        step = self.instance.boxes[level.var].step
        real_step = evaluate(level.step, self.values)
        if real_step is None:
            raise NotOffloadable(f"the step of prange '{level.var}' must be a constant")
        v = cl_name(level.var)
        if real_step > 0:
            text = f"({v} >= {start} && {v} < {stop}"
            if real_step != step:
                text += f" && ({v} - {start}) % {real_step}L == 0"
        else:
            text = f"({v} <= {start} && {v} > {stop}"
            if real_step != step:
                text += f" && ({start} - {v}) % {-real_step}L == 0"
        return text + ")"

    def identity(self, op, dtype):
        t = CL_TYPES[dtype]
        if op in IDENTITY:
            return f"({t})({IDENTITY[op]})"
        floating = dtype.startswith("float")
        if op == "min":
            return "INFINITY" if floating else f"({t})({_int_limit(dtype, 'max')})"
        return "(-INFINITY)" if floating else f"({t})({_int_limit(dtype, 'min')})"

    def reduction_epilogue(self, reductions, ndim):
        self.out("const int unpy_lid = " + " + ".join(
            [f"get_local_id({d}) * {math.prod(LOCAL_SIZES[ndim][:d])}" for d in range(ndim)]) + ";")
        self.out("const int unpy_group = " + " + ".join(
            [f"get_group_id({d}) * {_prod_groups(d)}" for d in range(ndim)]) + ";")
        size = math.prod(LOCAL_SIZES[ndim])
        for r in reductions:
            self.out(f"unpy_scratch_{r.var}[unpy_lid] = {cl_name(r.var)};")
        self.out("barrier(CLK_LOCAL_MEM_FENCE);")
        self.out(f"for (int unpy_s = {size // 2}; unpy_s > 0; unpy_s >>= 1) {{")
        self.out("    if (unpy_lid < unpy_s) {")
        for r in reductions:
            a, b = f"unpy_scratch_{r.var}[unpy_lid]", f"unpy_scratch_{r.var}[unpy_lid + unpy_s]"
            if r.op in ("min", "max"):
                cmp = "<" if r.op == "min" else ">"
                self.out(f"        {a} = ({b} {cmp} {a}) ? {b} : {a};")
            else:
                self.out(f"        {a} = {_arith(r.op, a, b, CL_TYPES[self.types[r.var].dtype])};")
        self.out("    }")
        self.out("    barrier(CLK_LOCAL_MEM_FENCE);")
        self.out("}")
        for r in reductions:
            self.out(f"if (unpy_lid == 0) unpy_partial_{r.var}[unpy_group] = "
                     f"unpy_scratch_{r.var}[0];")

    # --- statements ---------------------------------------------------------------------

    def block(self, body):
        for s in body:
            self.stmt(s)

    def nested(self, body):
        self.depth += 1
        self.block(body)
        self.depth -= 1

    def stmt(self, s):
        if isinstance(s, ir.Assign):
            if isinstance(s.target, ir.Subscript):
                self.out(f"{self.subscript(s.target)} = {self.expr(s.value)};")
            else:
                self.out(f"{cl_name(s.target.id)} = {self.expr(s.value)};")
        elif isinstance(s, ir.For):
            self.for_loop(s)
        elif isinstance(s, ir.While):
            self.out(f"while ({self.truth(s.test)}) {{")
            self.nested(s.body)
            self.out("}")
        elif isinstance(s, ir.If):
            self.out(f"if ({self.truth(s.test)}) {{")
            self.nested(s.body)
            if s.orelse:
                self.out("} else {")
                self.nested(s.orelse)
            self.out("}")
        elif isinstance(s, ir.Break):
            self.out("break;")
        elif isinstance(s, ir.Continue):
            self.out("continue;")
        elif isinstance(s, ir.Pass):
            pass
        else:
            raise NotOffloadable(f"statement {type(s).__name__} is not supported on the GPU")

    def for_loop(self, s):
        # Same semantics as the CPU path: bounds evaluated once, the variable set per iteration.
        if self.instance.boxes[s.var].extent == 0:
            self.out(f"/* loop {s.var}: no iteration at this call */")
            return
        k = f"unpy_k_{s.var}"
        self.out("{")
        self.depth += 1
        self.out(f"const long {k}_start = {self.expr(s.start)}, {k}_stop = {self.expr(s.stop)}, "
                 f"{k}_step = {self.expr(s.step)};")
        self.out(f"if ({k}_step == 0) *unpy_flag = 1;")
        self.out(f"for (long {k} = {k}_start; {k}_step > 0 ? {k} < {k}_stop : "
                 f"({k}_step < 0 && {k} > {k}_stop); {k} += {k}_step) {{")
        self.out(f"    {cl_name(s.var)} = {k};")
        self.nested(s.body)
        self.out("}")
        self.depth -= 1
        self.out("}")

    # --- expressions --------------------------------------------------------------------

    # --- expressions: the OpenCL spellings of CExprPrinter --------------------------------

    def int_literal(self, value, dtype):
        if dtype != "int64":
            return f"(({CL_TYPES[dtype]}){value}{'L' if dtype[0] == 'i' else 'UL'})"
        return f"{value}L" if value != -2 ** 63 else "LONG_MIN"

    def special_float(self, value, dtype):
        if math.isnan(value):
            return "NAN"
        return "INFINITY" if value > 0 else "(-INFINITY)"

    def convert(self, text, dtype):
        return f"(({CL_TYPES[dtype]}){text})"

    def arith(self, op, a, b, dtype):
        return _arith(op, a, b, CL_TYPES[dtype])

    def negate_or_invert(self, op, text, dtype):
        t = CL_TYPES[dtype]
        if op == "-" and t in WRAPPING:
            return _arith("-", "0", text, t)
        return f"(({t})({op}{text}))"     # `-x` of a float keeps the sign of zero

    def helper(self, op, args, dtype):
        return f"unpy_{CL_HELPERS[op]}_{CL_TYPES[dtype]}({', '.join(args)}, unpy_flag)"

    def compare_mixed_integers(self, op, a, b, types):
        if types[0][0] != types[1][0]:
            raise NotOffloadable("comparison of signed with unsigned integers")
        return f"({a} {op} {b})"

    def float_to_int(self, text, source):
        return f"unpy_to_int_{CL_TYPES[source]}({text}, unpy_flag)"

    def min_max(self, name, a, b, dtype):
        cmp = "<" if name == "min" else ">"
        return f"(({b}) {cmp} ({a}) ? ({b}) : ({a}))"

    def abs_value(self, text, dtype):
        t = CL_TYPES[dtype]
        if dtype.startswith("float"):
            return f"fabs({text})"           # abs(-0.0) is 0.0
        if dtype[0] == "u":
            return text
        return f"(({text}) < 0 ? ({t})(0 - (u{t})({text})) : ({text}))"

    def math_function(self, func, args):
        if func not in MATH:
            raise NotOffloadable(f"{func}() is not supported on the GPU")
        return f"{func}({', '.join(args)})"

    def checked_math(self, func, args):
        if func == "pow":
            return f"unpy_math_pow({args[0]}, {args[1]}, unpy_flag)"
        return f"unpy_math({self.math_function(func, args)}, {args[0]}, unpy_flag)"

    def expr_Name(self, e):
        t = self.types.get(e.id)
        if isinstance(t, Scalar) and t.dtype == "bool" and any(
                p.name == e.id for p in self.nest.free):
            return f"({cl_name(e.id)} != 0)"
        return cl_name(e.id)

    def expr_Subscript(self, e):
        text = self.subscript(e)
        if e.type.dtype == "bool":
            return f"({text} != 0)"
        return text

    def subscript(self, e):
        access = self.access_of[id(e)]
        ref = access.ref_id
        m = self.plan.device_map(ref)
        k = self.buffer_of[m.group]
        buf = f"g{k}"
        element = BUFFER_TYPES[self.types[e.array.id].dtype]
        if element != BUFFER_TYPES[self.buffer_dtype[k]]:
            # Views of one buffer with different dtypes of one item size (a.view(np.int32)).
            buf = f"((__global {element}*){buf})"
        terms = [self.long_arg(f"unpy_off{ref}", m.offset)]
        if m.loop_coeffs is not None:
            innermost = self.instance.levels[-1].var
            # One term per variable of the index, even where the map's coefficient is 0 (a loop
            # of one iteration), so that the source does not depend on the sizes.
            coeffs = dict(m.loop_coeffs)
            names = dict.fromkeys([v for ix in access.indices if ix is not None
                                   for v, _ in ix.coeffs] + list(coeffs))
            for n, var in enumerate(names):
                c = coeffs.get(var, 0)
                terms.append(f"{self.coefficient(f'unpy_c{ref}_{n}', c, var == innermost)} * "
                             f"{self.normalised(var)}")
            return f"{buf}[{' + '.join(terms)}]"
        arr = self.values[e.array.id]
        for d, (index, stride) in enumerate(zip(e.indices, m.dim_strides)):
            idx = self.expr(index)
            if access.indices[d] is None:
                # Not analysed: wrap negatives as Python does; anything else out of range is
                # left to the CPU path (which raises).
                n = self.long_arg(f"unpy_dim{ref}_{d}", arr.shape[d])
                idx = f"unpy_index({idx}, {n}, unpy_flag)"
            last = d == len(e.indices) - 1
            terms.append(f"{self.coefficient(f'unpy_s{ref}_{d}', stride, last)} * {idx}")
        return f"{buf}[{' + '.join(terms)}]"

    def coefficient(self, name, value, unit_literal):
        """An argument: coefficients change with the array sizes and layouts, and one build
        should serve them all. Only where `unit_literal` (the innermost NDRange dimension, the
        last index) a unit coefficient is a literal: neighbouring work-items then visibly touch
        neighbouring elements, which the OpenCL compiler can vectorise or coalesce."""
        if unit_literal and value == 1:
            return "1L"
        return self.long_arg(name, value)

    def normalised(self, var):
        """A loop variable in the normalised space of the device maps: `(var - lo) / step`."""
        levels = [level.var for level in self.instance.levels]
        if var in levels:
            return f"unpy_t{levels.index(var)}"
        box = self.instance.boxes[var]
        lo = self.long_arg(f"unpy_lo_{var}", box.lo) if box.lo else "0L"
        if box.step == 1:
            return f"({cl_name(var)} - {lo})"
        return f"(({cl_name(var)} - {lo}) / {box.step}L)"

    def expr_ArrayAttr(self, e):
        arr = self.values[e.array.id]
        if e.attr == "shape":
            return self.long_arg(f"unpy_shape_{e.array.id}_{e.dim}", arr.shape[e.dim])
        return self.long_arg(f"unpy_size_{e.array.id}", arr.size)


CL_HELPERS = {"//": "floordiv", "%": "mod", "**": "pow", "<<": "shl", ">>": "shr",
              "/": "int_truediv"}     # the kernel's functions of _preamble


def _arith(op, a, b, t):
    """`a op b` in OpenCL type `t`. Integers wrap on overflow (SPEC section 3), but signed
    overflow is undefined in OpenCL C (compilers assume it away), so int and long add,
    subtract and multiply in their unsigned types."""
    if t in WRAPPING and op in ("+", "-", "*"):
        u = WRAPPING[t]
        return f"(({t})(({u})({a}) {op} ({u})({b})))"
    return f"(({t})({a} {op} {b}))"


def _int_limit(dtype, which):
    info = np.iinfo(dtype)
    value = info.max if which == "max" else info.min
    if dtype == "int64" and which == "min":
        return "LONG_MIN"
    return f"{value}{'UL' if dtype.startswith('uint') else 'L'}"


def _prod_groups(d):
    return " * ".join(["1"] + [f"get_num_groups({k})" for k in range(d)])


def emit_kernel(instance: NestInstance, plan, values: dict, fp64: bool) -> Kernel:
    """The naive OpenCL kernel of a nest bound to one call's values and transfer plan."""
    return KernelEmitter(instance, plan, values, fp64).emit()
