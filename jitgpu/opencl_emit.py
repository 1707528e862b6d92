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

import itertools
import math
import re

import numpy as np

from jitgpu.bind import KernelNest, array_attr_name
from jitgpu.loopopt.nodes import (Barrier, GroupActive, LaneCombine, LanePartials, TileLoad,
                                  UnrolledLevel)
from unpy.loopopt.rewrite import rename
from jitgpu.nest import NotOffloadable
from unpy import ir
from unpy.cexpr import CExprPrinter
from unpy.ir import Scalar
from unpy.typeinfer.array_races import update_parts
from unpy.typeinfer.reductions import walk_exprs, walk_stmts

CL_TYPES = {"bool": "bool", "int8": "char", "int16": "short", "int32": "int", "int64": "long",
            "uint8": "uchar", "uint16": "ushort", "uint32": "uint", "uint64": "ulong",
            "float32": "float", "float64": "double", "complex64": "float2",
            "complex128": "double2"}
BUFFER_TYPES = dict(CL_TYPES, bool="uchar")
COMPLEX = ("complex64", "complex128")
INT_SIZES = {"char": 1, "short": 2, "int": 4, "long": 8}
INT_TYPES = ["char", "short", "int", "long", "uchar", "ushort", "uint", "ulong"]
MATH = {"sqrt", "exp", "log", "log10", "sin", "cos", "tan", "asin", "acos", "atan", "atan2",
        "sinh", "cosh", "tanh", "floor", "ceil", "fabs", "pow", "hypot", "log1p", "expm1",
        "log2", "exp2", "cbrt", "rint", "trunc", "copysign", "erf", "erfc", "tgamma", "lgamma",
        "asinh", "acosh", "atanh"}
CL_MATH_NAMES = {"gamma": "tgamma", "arcsinh": "asinh", "arccosh": "acosh",
                 "arctanh": "atanh"}     # Python's name -> OpenCL C's, where they differ
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


INDEX_HELPER = ("inline long unpy_index(long i, long n, __global int* f) { if (i < 0) i += n; "
                "if (i < 0 || i >= n) { *f = 1; return 0; } return i; }")


# Complex numbers are vectors of two floats (x the real part, y the imaginary part); the
# operators with NumPy's formulas (as unpy_runtime.hpp), the functions by their definitions in
# real functions (the host's glibc takes more care near overflow and |z| = 1: a few ulps).
COMPLEX_HELPERS = """
inline T unpy_cx_mul_T(T a, T b) { return (T)(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x); }
inline T unpy_cx_div_T(T a, T b) {
    const S abr = fabs(b.x), abi = fabs(b.y);
    if (abr >= abi) {
        if (abr == 0 && abi == 0) return (T)(a.x / abr, a.y / abr);
        const S rat = b.y / b.x, scl = (S)1 / (b.x + b.y * rat);
        return (T)((a.x + a.y * rat) * scl, (a.y - a.x * rat) * scl);
    }
    const S rat = b.x / b.y, scl = (S)1 / (b.y + b.x * rat);
    return (T)((a.x * rat + a.y) * scl, (a.y * rat - a.x) * scl);
}
inline S unpy_cx_abs_T(T a) { return hypot(a.x, a.y); }
inline S unpy_cx_angle_T(T a) { return atan2(a.y, a.x); }
inline T unpy_cx_conjugate_T(T a) { return (T)(a.x, -a.y); }
inline T unpy_cx_exp_T(T a) { const S e = exp(a.x); return (T)(e * cos(a.y), e * sin(a.y)); }
inline T unpy_cx_log_T(T a) { return (T)(log(hypot(a.x, a.y)), atan2(a.y, a.x)); }
inline T unpy_cx_log10_T(T a) {
    return (T)(log10(hypot(a.x, a.y)), atan2(a.y, a.x) * (S)0.43429448190325182765); }
inline T unpy_cx_sqrt_T(T a) {
    if (a.x == 0 && a.y == 0) return (T)(0, a.y);
    const S t = sqrt((fabs(a.x) + hypot(a.x, a.y)) / 2);
    if (a.x >= 0) return (T)(t, a.y / (2 * t));
    return (T)(fabs(a.y) / (2 * t), copysign(t, a.y));
}
inline T unpy_cx_sin_T(T a) { return (T)(sin(a.x) * cosh(a.y), cos(a.x) * sinh(a.y)); }
inline T unpy_cx_cos_T(T a) { return (T)(cos(a.x) * cosh(a.y), -(sin(a.x) * sinh(a.y))); }
inline T unpy_cx_sinh_T(T a) { return (T)(sinh(a.x) * cos(a.y), cosh(a.x) * sin(a.y)); }
inline T unpy_cx_cosh_T(T a) { return (T)(cosh(a.x) * cos(a.y), sinh(a.x) * sin(a.y)); }
inline T unpy_cx_tan_T(T a) { return unpy_cx_div_T(unpy_cx_sin_T(a), unpy_cx_cos_T(a)); }
inline T unpy_cx_tanh_T(T a) { return unpy_cx_div_T(unpy_cx_sinh_T(a), unpy_cx_cosh_T(a)); }
inline T unpy_cx_pow_T(T a, T b) {
    if (b.x == 0 && b.y == 0) return (T)(1, 0);
    if (a.x == 0 && a.y == 0) return b.x > 0 ? (T)(0, 0) : (T)(NAN, NAN);
    if (b.y == 0 && b.x == trunc(b.x) && fabs(b.x) < 100) {
        long n = (long)b.x, m = n < 0 ? -n : n;
        if (n == 1) return a;
        if (n == 2) return unpy_cx_mul_T(a, a);
        if (n == 3) return unpy_cx_mul_T(a, unpy_cx_mul_T(a, a));
        T r = (T)(1, 0), p = a;
        for (;;) { if (m & 1) r = unpy_cx_mul_T(r, p); m >>= 1; if (!m) break; p = unpy_cx_mul_T(p, p); }
        return n < 0 ? unpy_cx_div_T((T)(1, 0), r) : r;
    }
    return unpy_cx_exp_T(unpy_cx_mul_T(b, unpy_cx_log_T(a)));
}
"""
COMPLEX_OPERATORS = {"*": "mul", "/": "div", "**": "pow"}


def _complex_helpers(types) -> str:
    """COMPLEX_HELPERS for each complex OpenCL type in `types` (float2, double2)."""
    return "".join(COMPLEX_HELPERS.replace("_T(", f"_{t}(").replace("T", t).replace(
        "S", t[:-1]) for t in types)


def _preamble(fp64: bool, fastmath: bool = False, int64_atomics: bool = False) -> str:
    lines = []
    if not fastmath:
        # OpenCL C contracts `a * b + c` into an FMA by default: the CPU path (-ffp-contract=off)
        # and the interpreter round twice, and escape-time kernels amplify the difference.
        lines.append("#pragma OPENCL FP_CONTRACT OFF")
    if fp64:
        lines.append("#pragma OPENCL EXTENSION cl_khr_fp64 : enable")
    if int64_atomics:
        lines.append("#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable")
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
        # sqrt raises exactly for x < 0: one comparison, where the general check costs a
        # quarter of nbody f64's kernel on an H100 (9.5 against 6.7 ms, 2026-11-25).
        lines.append("inline double unpy_math_sqrt(double x, __global int* f) { "
                     "if (x < 0) *f = 1; return sqrt(x); }")
        lines.append("inline double unpy_math_pow(double x, double y, __global int* f) { "
                     "double r = pow(x, y); if (isfinite(x) && isfinite(y) && !isfinite(r)) "
                     "*f = 1; return r; }")
    return "\n".join(lines) + "\n"


def stores_read_later(body: list, accesses: dict) -> set:
    """The ids of the stores into a buffer that a statement the same work-item runs later may
    read (one after it, or in a later iteration of a loop around it): each is followed by a
    fence. NVIDIA's OpenCL compiler (H100, driver 580, 2026-11-27) read a buffer's element
    before the work-item's own store to it had been made, where the two indices were written
    with different arguments (`out[i, j] = dat[i, j]` then `out[i, j] = v if c else
    out[i, j]`: the unstored rows came back 0); a fence after the store keeps the order."""
    def read(stmts) -> set:
        found = set()
        for s in walk_stmts(stmts):     # (a loop's or branch's body comes on its own)
            if isinstance(s, ir.Assign):
                exprs = [s.value] + (s.target.indices if isinstance(s.target, ir.Subscript)
                                     else [])
            elif isinstance(s, ir.For):
                exprs = [s.start, s.stop, s.step]
            elif isinstance(s, (ir.If, ir.While)):
                exprs = [s.test]
            else:
                exprs = [s]
            found |= {accesses[e.aid].buffer for x in exprs for e in walk_exprs(x)
                      if getattr(e, "aid", None) in accesses}
        return found

    fenced = set()

    def visit(stmts, after: set):
        """`after`: the buffers read after `stmts`; walked backwards, each statement's own
        reads joining those after it."""
        later = set(after)
        for s in reversed(stmts):
            if isinstance(s, (ir.For, ir.While)):
                visit(s.body, later | read(s.body))
            elif isinstance(s, ir.If):
                visit(s.body, later)
                visit(s.orelse, later)
            elif isinstance(s, ir.Assign) and isinstance(s.target, ir.Subscript) and \
                    getattr(s.target, "aid", None) in accesses and \
                    accesses[s.target.aid].buffer in later:
                fenced.add(id(s))
            later |= read([s])
    visit(body, set())
    return fenced


class KernelEmitter(CExprPrinter):
    """Prints a bound `KernelNest` (jitgpu/bind.py) as OpenCL C; decides nothing."""

    def __init__(self, kernel: KernelNest):
        self.kernel = kernel
        self.nest = kernel            # `.free`, for expr_Name
        self.fp64 = kernel.fp64
        self.types = dict(kernel.types)
        self.accesses = dict(kernel.accesses)
        self.loops = {v.var: v for v in kernel.loops}
        self.copy_index = {var: f"unpy_t{k}_{u}" for k, level in enumerate(kernel.levels)
                           if isinstance(level, UnrolledLevel)
                           for u, var in enumerate(level.copies, 1)}
        self.tiles = {t.name: t for s in walk_stmts(list(kernel.body))
                      if isinstance(s, TileLoad) for t in s.tiles}
        self.fenced = stores_read_later(list(kernel.body), self.accesses)
        self.lane_combines = [s for s in walk_stmts(list(kernel.body))
                              if isinstance(s, LaneCombine)]
        self.lines = []
        self.depth = 1
        self.int64_atomics = False      # an atomic update of a 64-bit element was printed

    def out(self, text):
        self.lines.append("    " * self.depth + text)

    def emit(self) -> str:
        kn = self.kernel
        params = []
        for p in kn.params:
            if p.kind == "buffer":
                params.append(f"{_space(p)} {BUFFER_TYPES[p.dtype]}* restrict {p.name}")
            elif p.kind == "scalar":
                params.append(f"const {BUFFER_TYPES[p.dtype]} {cl_name(p.name)}")
            elif p.kind == "flag":
                params.append(f"__global int* {p.name}")
            elif p.kind == "partial":
                params.append(f"__global {BUFFER_TYPES[p.dtype]}* unpy_partial_{p.name}")
            elif p.kind == "local":
                params.append(f"__local {BUFFER_TYPES[p.dtype]}* unpy_scratch_{p.name}")
            else:
                params.append(f"const long {p.name}")
        ndim = len(kn.levels)
        unrolled = [(k, level) for k, level in enumerate(kn.levels)
                    if isinstance(level, UnrolledLevel)]
        for k, level in enumerate(kn.levels):
            if isinstance(level, UnrolledLevel):
                self.unrolled_level(k, level, ndim)
                continue
            self.out(f"const long unpy_t{k} = get_global_id({self.level_dim(k)});")
            self.out(f"const long {cl_name(level.var)} = unpy_lo{k} + unpy_t{k} * unpy_step{k};")
        active = self.active(kn.levels, {})
        if unrolled:
            active = self.copies_active(unrolled)
        for var, op, dtype in kn.reductions:
            if dtype in COMPLEX and op != "+":
                raise NotOffloadable(f"a complex reduction by {op} is not supported on the GPU")
            self.out(f"{CL_TYPES[dtype]} {cl_name(var)} = {self.identity(op, dtype)};")
        if self.tiles or self.lane_combines:
            self.tiled_body(active, unrolled)
        else:
            self.out(f"if ({active}) do {{")
            self.depth += 1
            if unrolled:
                self.clamp_copies(unrolled)
            for name, dtype in kn.privates:
                self.out(f"{_cl_type(dtype)} {cl_name(name)} = 0;")
            self.block(kn.body)
            self.depth -= 1
            self.out("} while (0);")
        if kn.reductions:
            self.reduction_epilogue(kn.reductions)
        body = "\n".join(self.lines)
        functions = "".join(HelperEmitter(fn).emit() for fn in kn.helpers)
        complex_types = [t for t in ("float2", "double2") if f"_{t}(" in functions + body]
        return (_preamble(kn.fp64, kn.fastmath, self.int64_atomics)
                + _complex_helpers(complex_types) + functions
                + f"\n__kernel void {kn.name}(" + ",\n        ".join(params)
                + ")\n{\n" + body + "\n}\n")

    def level_dim(self, k) -> int:
        """The OpenCL dimension of NDRange level k: the innermost level is dimension 0, or 1
        where lane_split put its lanes in dimension 0 (one more dimension than levels)."""
        return len(self.kernel.global_size) - 1 - k

    def active(self, levels, copy):
        """Whether the work-item's iteration is real; `copy`: {level var: its copy's name, the
        level index's name} for a copy of an unrolled level."""
        return " && ".join(
            [f"{copy.get(k, f'unpy_t{k}')} < unpy_n{k}" for k in range(len(levels))]
            + [self.guard(level, copy) for level in levels if level.guard])

    def unrolled_level(self, k, level, ndim):
        """Copy u of an unroll-and-jammed level runs normalised iteration w * U + u; of a
        strided one (register_tiles), g * L * U + u * L + l (group g, local size L, local
        index l)."""
        d = self.level_dim(k)
        if level.strided:
            local = self.kernel.local_size[d]
            self.out(f"const long unpy_w{k} = get_group_id({d}) * {local * level.factor}L "
                     f"+ get_local_id({d});")
        else:
            self.out(f"const long unpy_w{k} = get_global_id({d});")
        for u, var in enumerate((level.var,) + level.copies):
            t = f"unpy_t{k}" + (f"_{u}" if u else "")
            if level.strided:
                self.out(f"long {t} = unpy_w{k} + {u * local}L;")
            else:
                self.out(f"long {t} = unpy_w{k} * {level.factor}L + {u}L;")
            self.out(f"long {cl_name(var)} = unpy_lo{k} + {t} * unpy_step{k};")

    def copies_active(self, unrolled):
        """Declares whether each copy is a real iteration (`unpy_ok{u}`); returns whether any
        is. With several unrolled levels, whether each level's copy is inside its trip count
        (`unpy_in{k}_{u}`: R + C values, not R x C, kept to the stores); a combination's
        validity is printed where it guards (`combination_valid`)."""
        if len(unrolled) > 1:
            for k, level in unrolled:
                for u in range(level.factor):
                    t = f"unpy_t{k}" + (f"_{u}" if u else "")
                    self.out(f"const bool unpy_in{k}_{u} = {t} < unpy_n{k};")
            combos = itertools.product(*[range(level.factor) for _, level in unrolled])
            return " || ".join(f"({self.active(self.kernel.levels, self.combination(combo))})"
                               for combo in combos)
        k, level = unrolled[0]
        for u in range(level.factor):
            copy = self.combination((u,))
            self.out(f"const bool unpy_ok{u} = {self.active(self.kernel.levels, copy)};")
        return " || ".join(f"unpy_ok{u}" for u in range(level.factor))

    def combination(self, combo):
        """{level var: its copy's name, level index: its copy's index name} for one copy per
        unrolled level."""
        unrolled = [(k, level) for k, level in enumerate(self.kernel.levels)
                    if isinstance(level, UnrolledLevel)]
        copy = {}
        for (k, level), u in zip(unrolled, combo):
            copy[level.var] = ((level.var,) + level.copies)[u]
            copy[k] = f"unpy_t{k}" + (f"_{u}" if u else "")
        return copy

    def combination_valid(self, combo):
        """Whether a combination of copies is a real iteration, in an active work-item after
        the clamp: its copies inside their trip counts (the other levels are, in an active
        work-item) and the guards, which read only unclamped copies where those hold."""
        copy = self.combination(combo)
        unrolled = [k for k, level in enumerate(self.kernel.levels)
                    if isinstance(level, UnrolledLevel)]
        terms = [f"unpy_in{k}_{u}" for k, u in zip(unrolled, combo)]
        terms += [self.guard(level, copy) for level in self.kernel.levels if level.guard]
        return "(" + " && ".join(terms) + ")"

    def clamp_copies(self, unrolled):
        """A copy that is no real iteration recomputes the first real copy's iteration (its
        loads stay in range; its stores and reduction updates are guarded by unpy_ok). With
        several unrolled levels, a copy past its level's trip count recomputes the level's
        copy 0 (in range whenever any combination is real): a combination inside the box but
        outside a triangular guard loads in the box (register_tiles allows no operation there
        that could raise)."""
        if len(unrolled) > 1:
            for k, level in unrolled:
                for u, var in enumerate(level.copies, 1):
                    self.out(f"if (!unpy_in{k}_{u}) {{ unpy_t{k}_{u} = unpy_t{k}; "
                             f"{cl_name(var)} = {cl_name(level.var)}; }}")
            return
        k, level = unrolled[0]
        names = [f"unpy_t{k}" + (f"_{u}" if u else "") for u in range(level.factor)]
        first = " : ".join(f"unpy_ok{u} ? {t}" for u, t in enumerate(names[:-1]))
        self.out(f"const long unpy_tr = {first} : {names[-1]};")
        for u, (t, var) in enumerate(zip(names, (level.var,) + level.copies)):
            self.out(f"if (!unpy_ok{u}) {{ {t} = unpy_tr; "
                     f"{cl_name(var)} = unpy_lo{k} + unpy_tr * unpy_step{k}; }}")

    def guard(self, level, copy=None):
        """The real bounds of a triangular level, run over its bounding box."""
        g = level.guard
        names = {var: new for var, new in (copy or {}).items() if isinstance(var, str)}
        start, stop = self.expr(rename(g.start, names)), self.expr(rename(g.stop, names))
        v = cl_name(names.get(level.var, level.var))
        if g.step > 0:
            text = f"({v} >= {start} && {v} < {stop}"
            if g.step != g.box_step:
                text += f" && ({v} - {start}) % {g.step}L == 0"
        else:
            text = f"({v} <= {start} && {v} > {stop}"
            if g.step != g.box_step:
                text += f" && ({start} - {v}) % {-g.step}L == 0"
        return text + ")"

    def identity(self, op, dtype):
        t = CL_TYPES[dtype]
        if op in IDENTITY:
            return f"({t})({IDENTITY[op]})"
        floating = dtype.startswith("float")
        if op == "min":
            return "INFINITY" if floating else f"({t})({_int_limit(dtype, 'max')})"
        return "(-INFINITY)" if floating else f"({t})({_int_limit(dtype, 'min')})"

    def reduction_epilogue(self, reductions):
        self.out("const int unpy_lid = " + " + ".join(
            [f"get_local_id({d}) * {math.prod(self.kernel.local_size[:d])}"
             for d in range(len(self.kernel.local_size))]) + ";")
        self.out("const int unpy_group = " + " + ".join(
            [f"get_group_id({d}) * {_prod_groups(d)}"
             for d in range(len(self.kernel.local_size))]) + ";")
        size = math.prod(self.kernel.local_size)     # a power of two (bind.local_size)
        for var, _, _ in reductions:
            self.out(f"unpy_scratch_{var}[unpy_lid] = {cl_name(var)};")
        self.out("barrier(CLK_LOCAL_MEM_FENCE);")
        self.out(f"for (int unpy_s = {size // 2}; unpy_s > 0; unpy_s >>= 1) {{")
        self.out("    if (unpy_lid < unpy_s) {")
        for var, op, dtype in reductions:
            a, b = f"unpy_scratch_{var}[unpy_lid]", f"unpy_scratch_{var}[unpy_lid + unpy_s]"
            self.out(f"        {a} = {_combined(op, a, b, dtype)};")
        self.out("    }")
        self.out("    barrier(CLK_LOCAL_MEM_FENCE);")
        self.out("}")
        for var, _, _ in reductions:
            self.out(f"if (unpy_lid == 0) unpy_partial_{var}[unpy_group] = "
                     f"unpy_scratch_{var}[0];")

    # --- statements ---------------------------------------------------------------------

    def block(self, body):
        for s in body:
            self.stmt(s)

    def nested(self, body):
        self.depth += 1
        self.block(body)
        self.depth -= 1

    def stmt(self, s):
        if isinstance(s, ir.Assign) and s.atomic:
            self.atomic_update(s)
        elif isinstance(s, ir.Assign):
            if isinstance(s.target, ir.Subscript):
                self.out(f"{self.subscript(s.target)} = {self.expr(s.value)};")
                if id(s) in self.fenced:
                    self.out("mem_fence(CLK_GLOBAL_MEM_FENCE);")
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
        elif isinstance(s, ir.Raise):
            self.out("*unpy_flag = 1;      // the OpenMP code raises it")
        elif isinstance(s, TileLoad):
            self.tile_load(s)
        elif isinstance(s, Barrier):
            self.out("barrier(CLK_LOCAL_MEM_FENCE);")
        elif isinstance(s, LanePartials):
            for var, op, dtype in s.accumulators:
                self.out(f"if (unpy_lane != 0) {cl_name(var)} = {self.identity(op, dtype)};")
        elif isinstance(s, LaneCombine):
            self.lane_combine(s)
        else:
            raise NotOffloadable(f"statement {type(s).__name__} is not supported on the GPU")

    def atomic_update(self, s):
        """An update that other work-items may make to the same element
        (typeinfer/array_races.py): OpenCL's atomic functions for 32-bit integers and for the
        sums of 64-bit ones (cl_khr_int64_base_atomics), else a compare-and-swap loop on the
        element's bits (floats, `*`, 64-bit min/max/bitwise) computing the value as the CPU
        path does."""
        op, operand, first = update_parts(s)
        dtype = s.target.type.dtype
        t = CL_TYPES[dtype]
        bits = ATOMIC_BITS.get(t)
        if bits is None:
            raise NotOffloadable(f"an atomic update of {dtype} elements is not supported on "
                                 "the GPU")
        element, value = f"&{self.subscript(s.target)}", self.expr(operand)
        wide = bits in ("long", "ulong")
        self.int64_atomics |= wide
        native = ATOMIC_FUNCTIONS.get(op)
        if native and bits == t and (not wide or op in ("+", "-")):
            self.out(f"{'atom' if wide else 'atomic'}_{native}({element}, {value});")
            return
        args = ("unpy_x", "unpy_v") if first else ("unpy_v", "unpy_x")
        new = (self.min_max(op, *args, dtype) if op in ("min", "max")
               else self.arith(op, *args, dtype))
        as_t, as_bits = (f"as_{t}", f"as_{bits}") if bits != t else ("", "")
        self.out("{")
        self.out(f"    volatile __global {bits}* unpy_p = (volatile __global {bits}*){element};")
        self.out(f"    const {t} unpy_v = {value};")
        self.out(f"    {bits} unpy_seen, unpy_old = *unpy_p;")
        self.out("    do {")
        self.out("        unpy_seen = unpy_old;")
        self.out(f"        const {t} unpy_x = {as_t}(unpy_seen);")
        self.out(f"        unpy_old = {'atom' if wide else 'atomic'}_cmpxchg(unpy_p, unpy_seen, "
                 f"{as_bits}({new}));")
        self.out("    } while (unpy_old != unpy_seen);")
        self.out("}")

    def for_loop(self, s):
        # Same semantics as the CPU path: bounds evaluated once, the variable set per iteration.
        if s.var in self.loops and self.loops[s.var].extent == 0:
            self.out(f"/* loop {s.var}: no iteration at this call */")
            return
        k = f"unpy_k_{s.var}"
        self.out("{")
        self.depth += 1
        self.out(f"const long {k}_start = {self.expr(s.start)}, {k}_stop = {self.expr(s.stop)}, "
                 f"{k}_step = {self.expr(s.step)};")
        step = s.step.value if isinstance(s.step, ir.Const) else None
        if step is None:
            # A step known only at run time may be zero (a ValueError in Python).
            self.out(f"if ({k}_step == 0) *unpy_flag = 1;")
            test = f"{k}_step > 0 ? {k} < {k}_stop : ({k}_step < 0 && {k} > {k}_stop)"
        else:
            # A constant step (the common case) needs no check: a kernel that never sets
            # its flag is replayed without waiting for the flag before its copies back.
            test = f"{k} {'<' if step > 0 else '>'} {k}_stop"
        self.out(f"for (long {k} = {k}_start; {test}; {k} += {k}_step) {{")
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
        if dtype in COMPLEX:                # from the other complex type (vectors convert so)
            return f"convert_{CL_TYPES[dtype]}({text})"
        return f"(({CL_TYPES[dtype]}){text})"

    def complex_value(self, re, im, dtype):
        return f"(({CL_TYPES[dtype]})({re}, {im}))"

    def complex_operation(self, func, args, dtype):
        a = args[0]
        if func == "==":
            return f"(all(({a}) == ({args[1]})))"
        if func == "!=":
            return f"(any(({a}) != ({args[1]})))"
        if func in ("real", "imag"):
            return f"({a}).{'x' if func == 'real' else 'y'}"
        name = COMPLEX_OPERATORS.get(func, func)
        return f"unpy_cx_{name}_{CL_TYPES[dtype]}({', '.join(args)})"

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
        func = CL_MATH_NAMES.get(func, func)
        if func not in MATH:
            raise NotOffloadable(f"{func}() is not supported on the GPU")
        return f"{func}({', '.join(args)})"

    def checked_math(self, func, args):
        if func in ("pow", "sqrt"):
            return f"unpy_math_{func}({', '.join(args)}, unpy_flag)"
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

    expr_ArrayAccess = expr_Subscript

    def subscript(self, e):
        """The element of access `e.aid` at its device index (bound by jitgpu/bind.py)."""
        index = self.accesses[e.aid]
        buf = f"g{index.buffer}"
        if BUFFER_TYPES[index.element] != BUFFER_TYPES[self.kernel.buffer_dtype(index.buffer)]:
            # Views of one buffer with different dtypes of one item size (a.view(np.int32)).
            buf = f"((__global {BUFFER_TYPES[index.element]}*){buf})"
        terms = [self.coefficient(index.offset)]
        for t in index.terms:
            if t.loop is not None:
                x = self.normalised(t.loop)
            else:
                x = self.expr(t.index)
                if t.bound is not None:
                    # Not analysed: wrap negatives as Python does; anything else out of range
                    # is left to the CPU path (which raises).
                    x = f"unpy_index({x}, {t.bound}, unpy_flag)"
            terms.append(f"{self.coefficient(t.coeff)} * {x}")
        return f"{buf}[{' + '.join(terms)}]"

    @staticmethod
    def coefficient(c):
        return f"{c}L" if isinstance(c, int) else c

    def normalised(self, var):
        """A loop variable in the normalised space of the device maps: `(var - lo) / step`."""
        if var in self.copy_index:
            return self.copy_index[var]
        v = self.loops[var]
        if v.level is not None:
            return f"unpy_t{v.level}"
        lo = self.coefficient(v.lo)
        if v.step == 1:
            return f"({cl_name(var)} - {lo})"
        return f"(({cl_name(var)} - {lo}) / {v.step}L)"

    def expr_ArrayAttr(self, e):
        return array_attr_name(e)

    # --- the constructs of the loop optimisations (jitgpu/loopopt/nodes.py) ---------------

    def expr_CopyValid(self, e):
        if isinstance(e.copy, tuple):
            return self.combination_valid(e.copy)
        return f"unpy_ok{e.copy}"

    def expr_VectorLoad(self, e):
        element = self.subscript(self.access_node(e.aid))
        buf, _, index = element.partition("[")
        if e.aligned:
            param = next(p for p in self.kernel.params if p.name == buf)
            vector = BUFFER_TYPES[param.dtype] + str(e.width)
            return f"(*(({_space(param)} {vector}*)({buf} + {index[:-1]})))"
        return f"vload{e.width}(0, {buf} + {index[:-1]})"

    def expr_Lane(self, e):
        return f"{cl_name(e.vector)}.s{e.lane}"

    # --- local tiles (jitgpu/loopopt/local_tiles.py) ---------------------------------------

    def tiled_body(self, active, unrolled):
        """With local tiles every work-item runs the body (every one must reach the tile
        loads' barriers); the body guards what only real iterations do (`ActiveItem`)."""
        kn, ndim = self.kernel, len(self.kernel.levels)
        for t in self.tiles.values():
            # Aligned so that a column's rows (read by the copies of an unrolled level) can be
            # read as vectors.
            self.out(f"__local {BUFFER_TYPES[t.dtype]} {t.name}[{t.elements}] "
                     "__attribute__((aligned(16)));")
        self.out("const int unpy_tlid = " + " + ".join(
            [f"(int)get_local_id({d}) * {math.prod(kn.local_size[:d])}"
             for d in range(len(kn.local_size))]) + ";")
        for k in range(ndim):
            self.out(f"const int unpy_l{k} = (int)get_local_id({self.level_dim(k)});")
        self.lane_prologue()
        self.out(f"const bool unpy_active = {active};")
        if any(isinstance(s, ir.If) and isinstance(s.test, GroupActive)
               for s in walk_stmts(list(kn.body))):
            # Whether any work-item of the group has a real iteration (one value per group).
            self.out("__local volatile int unpy_any;")
            self.out("if (unpy_tlid == 0) unpy_any = 0;")
            self.out("barrier(CLK_LOCAL_MEM_FENCE);")
            self.out("if (unpy_active) atomic_or(&unpy_any, 1);")
            self.out("barrier(CLK_LOCAL_MEM_FENCE);")
        for name, dtype in kn.privates:
            self.out(f"{_cl_type(dtype)} {cl_name(name)} = 0;")
        if unrolled:
            self.out("if (unpy_active) {")
            self.depth += 1
            self.clamp_copies(unrolled)
            self.depth -= 1
            self.out("}")
        self.block(kn.body)

    def tile_load(self, s):
        """Every work-item loads its share of each tile (element e: row and iteration from
        e, so that neighbouring work-items read neighbouring global elements), 0 where the
        iteration is past the loop's stop or the row past its level's trip count; then a
        barrier. The loop variable and the row level's indices are redeclared in the load's
        scope, so the access prints its own device index."""
        kn = self.kernel
        group = math.prod(kn.local_size)
        start, stop = self.expr(s.start), self.expr(s.stop)
        for t in s.tiles:
            # e = outer * width + inner (no `%`: LLVM would pair it with the division and
            # freeze the operand, an instruction Oclgrind's checker cannot run).
            width = t.rows if t.rows_fastest else t.columns
            self.out(f"for (int unpy_e = unpy_tlid; unpy_e < {t.rows * t.columns}; "
                     f"unpy_e += {group}) {{")
            self.depth += 1
            self.out(f"const int unpy_outer = unpy_e / {width}, "
                     f"unpy_inner = unpy_e - unpy_outer * {width};")
            if t.rows_fastest:
                self.out("const int unpy_r = unpy_inner, unpy_q = unpy_outer;")
            else:
                self.out("const int unpy_r = unpy_outer, unpy_q = unpy_inner;")
            self.out(f"const long {cl_name(t.loop)} = {start} + unpy_q * {s.step}L;")
            inside = [f"{cl_name(t.loop)} {'<' if s.step > 0 else '>'} {stop}"]
            if t.level is not None:
                k = t.level
                level = kn.levels[k]
                self.out(f"const long unpy_t{k} = get_group_id({self.level_dim(k)}) * {t.rows}L "
                         f"+ unpy_r;")
                self.out(f"const long {cl_name(level.var)} = unpy_lo{k} + unpy_t{k} * "
                         f"unpy_step{k};")
                for u, var in enumerate(getattr(level, "copies", ()), 1):
                    self.out(f"const long unpy_t{k}_{u} = unpy_t{k}, {cl_name(var)} = "
                             f"{cl_name(level.var)};")
                inside.append(f"unpy_t{k} < unpy_n{k}")
            value = self.subscript(self.access_node(t.aid))
            self.out(f"{t.name}[unpy_q * {t.stride} + unpy_r] = ({' && '.join(inside)}) ? "
                     f"{value} : 0;")
            self.depth -= 1
            self.out("}")
        self.out("barrier(CLK_LOCAL_MEM_FENCE);")

    def expr_LocalLoad(self, e):
        t = self.tiles[e.tile]
        q = f"{self.expr(e.var)} - {self.expr(e.start)}"
        q = f"(int)({q})" if e.step == 1 else f"(int)(({q}) / {e.step}L)"
        if e.width > 1:
            # Rows copy .. copy + width - 1 of the column: `stride`, `factor` and `copy` are
            # multiples of the width (local_tiles), so the vector is aligned.
            vector = f"{BUFFER_TYPES[t.dtype]}{e.width}"
            return (f"((__local {vector}*){t.name})[{q} * {t.stride // e.width} + "
                    f"unpy_l{t.level} * {t.factor // e.width} + {e.copy // e.width}]")
        text = f"{t.name}[{q} * {t.stride}"
        if t.level is not None and t.strided:
            local = t.rows // t.factor
            text += f" + unpy_l{t.level}" + (f" + {e.copy * local}" if e.copy else "")
        elif t.level is not None:
            text += f" + unpy_l{t.level}" + (f" * {t.factor} + {e.copy}" if t.factor > 1 else "")
        text += "]"
        if e.type is not None and e.type.dtype == "bool":
            return f"({text} != 0)"
        return text

    # --- lane split (jitgpu/loopopt/lane_split.py) -----------------------------------------

    def lane_prologue(self):
        """The lane index and, at kernel scope (where OpenCL wants `__local` arrays), one
        slot per work-item of the group for each accumulator the lanes combine."""
        if not self.lane_combines:
            return
        group = math.prod(self.kernel.local_size)
        self.out("const int unpy_lane = (int)get_local_id(0);")
        for s in self.lane_combines:
            for var, _, dtype in s.accumulators:
                self.out(f"__local {CL_TYPES[dtype]} unpy_lanes_{cl_name(var)}[{group}];")

    def lane_combine(self, s):
        """The lanes of a parallel iteration are neighbours in dimension 0, so lane l + h's
        slot is `h` after lane l's (the work-item's linear local id `unpy_tlid`)."""
        if not s.accumulators:
            return                # the loop updates prange reductions only (their epilogue)
        for var, _, _ in s.accumulators:
            self.out(f"unpy_lanes_{cl_name(var)}[unpy_tlid] = {cl_name(var)};")
        self.out("barrier(CLK_LOCAL_MEM_FENCE);")
        self.out(f"for (int unpy_h = {s.lanes // 2}; unpy_h > 0; unpy_h >>= 1) {{")
        self.out("    if (unpy_lane < unpy_h) {")
        for var, op, dtype in s.accumulators:
            a = f"unpy_lanes_{cl_name(var)}[unpy_tlid]"
            b = f"unpy_lanes_{cl_name(var)}[unpy_tlid + unpy_h]"
            self.out(f"        {a} = {_combined(op, a, b, dtype)};")
        self.out("    }")
        self.out("    barrier(CLK_LOCAL_MEM_FENCE);")
        self.out("}")
        for var, _, _ in s.accumulators:
            name = cl_name(var)
            self.out(f"if (unpy_lane == 0) {name} = unpy_lanes_{name}[unpy_tlid];")

    def expr_LaneIndex(self, e):
        return "((long)unpy_lane)"

    def expr_FirstLane(self, e):
        return "(unpy_lane == 0)"

    def expr_CallCompiled(self, e):
        args = [self.expr(a) for a in e.args]
        return f"{helper_name(e.func)}({', '.join(args + ['unpy_flag'])})"

    def expr_ActiveItem(self, e):
        return "unpy_active"

    def expr_GroupActive(self, e):
        return "unpy_any"

    def access_node(self, aid):
        """A stand-in access `aid` for `subscript` (which reads only its id)."""
        return _AccessId(aid)


# Atomic updates (KernelEmitter.atomic_update): the integer type whose compare-and-swap serves
# each element type, and OpenCL's atomic function of each operator where it has one (for int
# and uint; for long and ulong only add and sub, which cl_khr_int64_base_atomics has).
ATOMIC_BITS = {"int": "int", "uint": "uint", "long": "long", "ulong": "ulong", "float": "uint",
               "double": "ulong"}
ATOMIC_FUNCTIONS = {"+": "add", "-": "sub", "&": "and", "|": "or", "^": "xor", "min": "min",
                    "max": "max"}
class HelperEmitter(KernelEmitter):
    """Prints a compiled function of scalars (ir.Nest.helpers) as the OpenCL function
    `unpy_fn_<name>(arguments..., unpy_flag)` that kernels call."""

    def __init__(self, fn: ir.Function):
        self.fn = fn
        self.nest = fn
        self.types = {p.name: p.type for p in fn.params} | dict(fn.locals)
        self.accesses, self.loops, self.copy_index = {}, {}, {}
        self.lines = []
        self.depth = 1

    def emit(self) -> str:
        for name, t in self.fn.locals.items():
            self.out(f"{CL_TYPES[t.dtype]} {cl_name(name)} = 0;")
        self.block(self.fn.body)
        self.out(f"return 0;      /* not reached: {self.fn.name} returns a value */")
        params = [f"{CL_TYPES[p.type.dtype]} {cl_name(p.name)}" for p in self.fn.params]
        return (f"\ninline {CL_TYPES[self.fn.return_type.dtype]} {helper_name(self.fn.name)}("
                + ", ".join(params + ["__global int* unpy_flag"]) + ")\n{\n"
                + "\n".join(self.lines) + "\n}\n")

    def stmt(self, s):
        if isinstance(s, ir.Return):
            self.out(f"return {self.expr(s.value)};")
        elif isinstance(s, ir.Raise):
            self.out("*unpy_flag = 1; return 0;      // the OpenMP code raises it")
        else:
            super().stmt(s)

    def expr_Name(self, e):
        return cl_name(e.id)


def helper_name(function: str) -> str:
    return f"unpy_fn_{function}"


CL_HELPERS = {"//": "floordiv", "%": "mod", "**": "pow", "<<": "shl", ">>": "shr",
              "/": "int_truediv"}     # the kernel's functions of _preamble


def _combined(op, a, b, dtype):
    """Two partial values of a reduction by `op` combined (a tree step): min/max keep `a` on
    ties and where `b` is a nan."""
    if op in ("min", "max"):
        cmp = "<" if op == "min" else ">"
        return f"({b} {cmp} {a}) ? {b} : {a}"
    return _arith(op, a, b, CL_TYPES[dtype])


def _arith(op, a, b, t):
    """`a op b` in OpenCL type `t`. Integers wrap on overflow (SPEC section 3), but signed
    overflow is undefined in OpenCL C (compilers assume it away), so int and long add,
    subtract and multiply in their unsigned types."""
    if t in WRAPPING and op in ("+", "-", "*"):
        u = WRAPPING[t]
        return f"(({t})(({u})({a}) {op} ({u})({b})))"
    return f"(({t})({a} {op} {b}))"


def _space(param) -> str:
    """The address space (and constness) of a buffer parameter."""
    if param.constant:
        return "__constant"
    return "__global const" if param.read_only else "__global"


class _AccessId:
    def __init__(self, aid):
        self.aid = aid


def _cl_type(dtype):
    """The OpenCL type of a private: a scalar dtype, or a vector dtype `float32x4`."""
    base, _, width = dtype.partition("x")
    return CL_TYPES[base] + width if width and base in CL_TYPES else CL_TYPES[dtype]


def _int_limit(dtype, which):
    info = np.iinfo(dtype)
    value = info.max if which == "max" else info.min
    if dtype == "int64" and which == "min":
        return "LONG_MIN"
    return f"{value}{'UL' if dtype.startswith('uint') else 'L'}"


def _prod_groups(d):
    return " * ".join(["1"] + [f"get_num_groups({k})" for k in range(d)])


def print_kernel(kernel: KernelNest) -> str:
    """The OpenCL C source of a bound (and optimised) kernel nest. Printing only: every value
    the source depends on was decided by `bind` and the loop optimisations."""
    return KernelEmitter(kernel).emit()
