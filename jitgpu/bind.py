"""bind(): one part of a plan as a `KernelNest`, the frozen value the OpenCL printer prints.

Binding decides everything about the kernel but its text: its parameters (a buffer per transfer
group, the scalars, the error flag, the reductions' partial results and local scratch, and the
`long` parameters with their values for this part), its NDRange, how each NDRange level and each
inner loop variable maps to the normalised space of the device maps, and per stable access id
(`ArrayAccess.aid`) the device index of that access. The body is the nest's IR (its innermost
parallel level's statements) whose Subscripts carry those ids.

Values that differ between parts or calls (tile origins, offsets, coefficients, shapes) are `long`
parameters, so that every part and every call on the same layout prints the same source (one
build); literals are only what the source may depend on.

Loop optimisations (`jitgpu.loopopt`) are functions KernelNest -> KernelNest: see that package.
"""
from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import Optional, Union

from jitgpu.nest import NestInstance, NotOffloadable, Unsupported, evaluate, live_exprs
from unpy import ir
from unpy.ir import Array, Scalar
from unpy.typeinfer.reductions import assigned_names, walk_exprs, walk_stmts

LOCAL_SIZES = {1: (256,), 2: (16, 16), 3: (16, 4, 4)}   # dimension 0 first, at most
KERNEL_NAME = "unpy_nest"

Coefficient = Union[int, str]     # a literal, or the name of a `long` parameter


@dataclass(frozen=True)
class Param:
    """One kernel parameter, in order. kind: 'buffer' (the device buffer of transfer group
    `group`, elements of `dtype`), 'scalar' (a free scalar of the nest, `value` for this call),
    'flag' (the error flag), 'partial' / 'local' (a reduction's per-work-group results and its
    local scratch), 'long' (an int64 bound at this part, `value`)."""
    kind: str
    name: str
    dtype: str = ""
    group: int = -1
    value: object = None
    read_only: bool = False          # a buffer the nest only reads (loopopt: `const restrict`)
    nbytes: int = 0                  # a buffer's size on the device
    constant: bool = False           # a buffer in the `__constant` space (loopopt.constant_space)


@dataclass(frozen=True)
class Guard:
    """The real bounds of a triangular NDRange level that runs over its bounding box."""
    start: object        # IR expression
    stop: object         # IR expression
    step: int            # the real step
    box_step: int        # the bounding box's step


@dataclass(frozen=True)
class Level:
    """NDRange level k (outermost first; OpenCL dimension ndim - 1 - k): its variable is
    `lo{k} + t{k} * step{k}` for work-item index t{k} < n{k} (all `long` parameters)."""
    var: str
    guard: Optional[Guard] = None


@dataclass(frozen=True)
class LoopVar:
    """A loop variable in the normalised space of the device maps: NDRange level `level`'s
    work-item index, or for an inner loop `(var - lo) / step`; `extent` 0: the loop runs no
    iteration at this call."""
    var: str
    level: Optional[int]
    lo: Coefficient
    step: int
    extent: int


@dataclass(frozen=True)
class IndexTerm:
    """`coeff * x` of a device index, where x is the normalised loop variable `loop`, or the
    IR expression `index` (an access whose buffer mirrors host memory); `bound` (a `long`
    parameter with the dimension's extent) marks an index the analysis could not prove inside
    the dimension (`NestInstance.checked`): it wraps negatives as Python does and sets the
    error flag when out of range."""
    coeff: Coefficient
    loop: Optional[str] = None
    index: object = None
    bound: Optional[str] = None


@dataclass(frozen=True)
class DeviceIndex:
    """Where an access reads or writes: element `offset + sum(terms)` of buffer `g{buffer}`,
    as an element of dtype `element` (the printer casts the buffer pointer where it differs
    from the buffer's dtype: views of one buffer with different dtypes of one item size)."""
    buffer: int
    element: str
    offset: Coefficient
    terms: tuple

    def __str__(self):
        terms = [str(self.offset)] + [
            f"{t.coeff}*{t.loop if t.loop is not None else _short(t.index)}"
            + (f" (checked < {t.bound})" if t.bound else "") for t in self.terms]
        return f"g{self.buffer}[{' + '.join(terms)}] as {self.element}"


@dataclass(frozen=True)
class KernelNest:
    """A nest bound to one part of a plan: everything the printer needs, nothing it decides.

    Immutable by convention all the way down: the IR statements of `body` are never changed
    in place; a transformation builds new statements (`dataclasses.replace`) and a new
    KernelNest (`KernelNest.replace`)."""
    name: str
    fp64: bool
    params: tuple                    # of Param, in kernel order
    global_size: tuple               # OpenCL dimension 0 first
    local_size: tuple
    levels: tuple                    # of Level, outermost first
    loops: tuple                     # of LoopVar, every loop variable of the nest
    body: tuple                      # IR statements of the innermost parallel level
    accesses: tuple                  # of (aid, DeviceIndex), every access of the body that runs
    privates: tuple                  # of (name, dtype): work-item variables, declared = 0
    reductions: tuple                # of (var, op, dtype)
    types: tuple                     # of (name, Type): variables of the nest
    free: tuple                      # the nest's free variables (ir.Param)
    transforms: tuple = ()           # names of the loop optimisations applied (jitgpu.loopopt)
    # The module was built with --fastmath: the printer lets the OpenCL compiler contract
    # `a * b + c` (else `FP_CONTRACT OFF`, rounding as the CPU path does).
    fastmath: bool = False
    # The compiled functions the body calls (ir.Function, callees first; ir.Nest.helpers).
    helpers: tuple = ()

    def replace(self, **changes) -> "KernelNest":
        return dataclasses.replace(self, **changes)

    def access(self, aid: int) -> DeviceIndex:
        for k, index in self.accesses:
            if k == aid:
                return index
        raise KeyError(f"no access {aid} in the kernel nest")

    def loop(self, var: str) -> LoopVar:
        return next(v for v in self.loops if v.var == var)

    def type_of(self, name: str):
        return dict(self.types).get(name)

    @property
    def longs(self) -> dict:
        """The `long` parameters' values at this part."""
        return {p.name: p.value for p in self.params if p.kind == "long"}

    def buffer_dtype(self, k: int) -> str:
        return next(p.dtype for p in self.params if p.kind == "buffer" and p.name == f"g{k}")

    def __str__(self):
        lines = [f"kernel {self.name}: global {self.global_size}, local {self.local_size}"
                 + (", fp64" if self.fp64 else "")]
        for p in self.params:
            extra = (f" group {p.group}" + (" constant" if p.constant else "")
                     if p.kind == "buffer" else
                     f" = {p.value}" if p.kind in ("long", "scalar") else "")
            lines.append(f"  param {p.kind} {p.name}" + (f" {p.dtype}" if p.dtype else "") + extra)
        for k, level in enumerate(self.levels):
            lines.append(f"  level {k}: {level.var}" + (" (guarded)" if level.guard else ""))
        for aid, index in self.accesses:
            lines.append(f"  access {aid}: {index}")
        for var, op, dtype in self.reductions:
            lines.append(f"  reduction {var} {op} {dtype}")
        if self.transforms:
            lines.append(f"  transforms: {', '.join(self.transforms)}")
        return "\n".join(lines)


def _short(e) -> str:
    if isinstance(e, ir.Name):
        return e.id
    if isinstance(e, ir.Const):
        return repr(e.value)
    return f"<{type(e).__name__}>"


BUFFER_DTYPE = {"bool": "uint8"}    # bool arrays are bytes on the device
DOUBLE = ("float64", "complex128")  # the dtypes that need cl_khr_fp64


def check_supported(instance: NestInstance, fp64: bool) -> None:
    """Raise Unsupported for what a kernel cannot do, whatever the inputs."""
    nest = instance.nest
    for e in walk_exprs(nest.loop):
        t = e.type
        if isinstance(t, (Scalar, Array)) and t.dtype in DOUBLE and not fp64:
            raise Unsupported("the device has no float64 support (cl_khr_fp64)")
        if isinstance(e, ir.CallCompiled) and not any(h.name == e.func for h in nest.helpers):
            raise Unsupported(f"the nest calls compiled function {e.func}(), which the "
                              "GPU kernel cannot call (a kernel calls functions of scalars "
                              "only: no array parameter, result or local, no call through "
                              "Python such as a draw of np.random)")
        if isinstance(e, ir.AllocArray):
            raise Unsupported("the nest allocates an array, which a GPU kernel cannot do")
        if isinstance(e, (ir.StridedView, ir.Reshape)):
            raise Unsupported("the nest binds a name to a view of an array, which a GPU "
                              "kernel cannot do (index the array itself)")
    for s in walk_stmts(nest.loop.body):
        if isinstance(s, ir.Return):
            raise Unsupported("the nest contains 'return'")
    for p in nest.free:
        if isinstance(p.type, (Scalar, Array)) and p.type.dtype in DOUBLE and not fp64:
            raise Unsupported("the device has no float64 support (cl_khr_fp64)")


class _Binder:
    def __init__(self, instance: NestInstance, transfers, values, fp64, limits=None):
        self.limits = limits
        self.instance = instance
        self.transfers = transfers
        self.values = values
        self.fp64 = fp64
        self.longs = {}                  # name -> value, in order of binding
        nest = instance.nest
        self.types = {p.name: p.type for p in nest.free}
        for s in walk_stmts(nest.loop.body):
            if isinstance(s, ir.Assign) and isinstance(s.target, ir.Name):
                self.types.setdefault(s.target.id, s.target.type)
        for var in list(instance.boxes) + sorted(instance.on_device):
            self.types.setdefault(var, Scalar("int64"))

    def long(self, name, value) -> str:
        self.longs[name] = int(value)
        return name

    def coefficient(self, name, value, unit_literal) -> Coefficient:
        """A `long` parameter: coefficients change with the array sizes and layouts, and one
        build should serve them all. Only where `unit_literal` (the innermost NDRange dimension,
        the last index) a unit coefficient is a literal: neighbouring work-items then visibly
        touch neighbouring elements, which the OpenCL compiler can vectorise or coalesce."""
        if unit_literal and value == 1:
            return 1
        return self.long(name, value)

    def device_index(self, e: ArrayAccess, access, buffer_of, buffer_dtype) -> DeviceIndex:
        ref = e.aid
        m = self.transfers.device_map(ref)
        k = buffer_of[m.group]
        element = _buffer_dtype(self.types[e.array.id].dtype)
        offset = self.long(f"unpy_off{ref}", m.offset)
        terms = []
        if m.loop_coeffs is not None:
            innermost = self.instance.levels[-1].var
            # One term per variable of the index, even where the map's coefficient is 0 (a loop
            # of one iteration), so that the source does not depend on the sizes.
            coeffs = dict(m.loop_coeffs)
            names = dict.fromkeys([v for ix in access.indices if ix is not None
                                   for v, _ in ix.coeffs] + list(coeffs))
            for n, var in enumerate(names):
                terms.append(IndexTerm(self.coefficient(f"unpy_c{ref}_{n}", coeffs.get(var, 0),
                                                        var == innermost), loop=var))
        else:
            arr = self.values[e.array.id]
            for d, (index, stride) in enumerate(zip(e.indices, m.dim_strides)):
                bound = None
                if (ref, d) in self.instance.checked:
                    bound = self.long(f"unpy_dim{ref}_{d}", arr.shape[d])
                last = d == len(e.indices) - 1
                terms.append(IndexTerm(self.coefficient(f"unpy_s{ref}_{d}", stride, last),
                                       index=index, bound=bound))
        return DeviceIndex(k, element, offset, tuple(terms))

    def bind(self) -> KernelNest:
        inst, nest = self.instance, self.instance.nest
        check_supported(inst, self.fp64)
        params = []
        # Buffers are numbered by the first access to each group, not by the plan's group order
        # (which follows host addresses), so that the source does not depend on where NumPy put
        # the arrays.
        buffer_of, buffer_dtype = {}, []
        for e, a in inst.accesses:
            group = self.transfers.device_map(a.ref_id).group
            if group not in buffer_of:
                buffer_of[group] = len(buffer_dtype)
                buffer_dtype.append(_buffer_dtype(self.types[e.array.id].dtype))
        for group, k in buffer_of.items():
            params.append(Param("buffer", f"g{k}", buffer_dtype[k], group,
                                nbytes=self.transfers.groups[group].device_bytes))
        reductions = nest.loop.reductions
        reduced = {r.var for r in reductions}
        for p in nest.free:
            if isinstance(p.type, Scalar) and p.name not in reduced:
                params.append(Param("scalar", p.name, p.type.dtype, value=self.values[p.name]))
        params.append(Param("flag", "unpy_flag"))
        red_info = []
        for r in reductions:
            dtype = self.types[r.var].dtype
            params.append(Param("partial", r.var, dtype))
            params.append(Param("local", r.var, dtype))
            red_info.append((r.var, r.op, dtype))
        levels, loop_vars = [], []
        for k, level in enumerate(inst.levels):
            box = inst.boxes[level.var]
            self.long(f"unpy_lo{k}", box.lo)
            self.long(f"unpy_step{k}", box.step)
            loop_vars.append(LoopVar(level.var, k, f"unpy_lo{k}", box.step, box.extent))
        for k, n in enumerate(inst.trip_counts):
            self.long(f"unpy_n{k}", n)
        for level in inst.levels:
            guard = None
            if level.var in inst.guarded:
                real_step = evaluate(level.step, self.values)
                if real_step is None:
                    raise NotOffloadable(f"the step of prange '{level.var}' must be a constant")
                guard = Guard(level.start, level.stop, real_step, inst.boxes[level.var].step)
                self.bind_attrs([level.start, level.stop])
            levels.append(Level(level.var, guard))
        level_names = [level.var for level in inst.levels]
        for var, box in inst.boxes.items():
            if var not in level_names:
                lo = self.long(f"unpy_lo_{var}", box.lo) if box.lo else 0
                loop_vars.append(LoopVar(var, None, lo, box.step, box.extent))
        body = inst.levels[-1].body
        self.bind_attrs(list(live_exprs(body, inst.boxes)))
        accesses = []
        for e, a in sorted(inst.accesses, key=lambda ea: ea[0].aid):
            accesses.append((e.aid, self.device_index(e, a, buffer_of, buffer_dtype)))
        privates = tuple((name, self.types[name].dtype) for name in assigned_names(body)
                         if name not in reduced and name not in level_names)
        ndim = len(inst.levels)
        local = local_size(ndim, self.limits)
        global_size = tuple(max(1, -(-inst.trip_counts[ndim - 1 - k] // local[k])) * local[k]
                            for k in range(ndim))
        params += [Param("long", name, "int64", value=value) for name, value in self.longs.items()]
        return KernelNest(KERNEL_NAME, self.fp64, tuple(params), global_size, local,
                          tuple(levels), tuple(loop_vars), tuple(body), tuple(accesses),
                          privates, tuple(red_info), tuple(self.types.items()),
                          tuple(nest.free), fastmath=nest.fastmath, helpers=tuple(nest.helpers))

    def bind_attrs(self, exprs) -> None:
        """`a.shape[d]` and `a.size` are `long` parameters (named after the array and dim)."""
        for e in walk_exprs(exprs):
            if isinstance(e, ir.ArrayAttr):
                arr = self.values[e.array.id]
                if e.attr == "shape":
                    self.long(array_attr_name(e), arr.shape[e.dim])
                else:
                    self.long(array_attr_name(e), arr.size)


def array_attr_name(e: ir.ArrayAttr) -> str:
    if e.attr == "shape":
        return f"unpy_shape_{e.array.id}_{e.dim}"
    return f"unpy_size_{e.array.id}"


def _buffer_dtype(dtype: str) -> str:
    return BUFFER_DTYPE.get(dtype, dtype)


def local_size(ndim: int, limits=None) -> tuple:
    """The work-group shape of an `ndim`-level NDRange (dimension 0 first): LOCAL_SIZES, capped
    by the device's `limits` = (max_work_group_size, max_work_item_sizes) where given. Every
    size stays a power of two (the reductions' tree halves it); a dimension over its
    max_work_item_sizes entry is halved, then the outermost dimension above 1 (dimension 0
    stays widest: neighbouring work-items on neighbouring elements) until the product fits
    max_work_group_size."""
    local = list(LOCAL_SIZES[ndim])
    if limits is None:
        return tuple(local)
    max_group, max_items = limits[:2]
    max_items = tuple(max_items or ())
    for d in range(ndim):
        if d < len(max_items):
            while local[d] > 1 and local[d] > max_items[d]:
                local[d] //= 2
    while math.prod(local) > 1 and math.prod(local) > max_group:
        d = max(d for d in range(ndim) if local[d] > 1)
        local[d] //= 2
    return tuple(local)


def with_local_size(kernel: KernelNest, local: tuple) -> KernelNest:
    """The bound nest launched in work-groups of shape `local` (dimension 0 first), its global
    size rounded up to them as `bind` does; for loop optimisations to run on afterwards."""
    ndim = len(kernel.levels)
    trips = kernel.longs
    global_size = tuple(max(1, -(-trips[f"unpy_n{ndim - 1 - k}"] // local[k])) * local[k]
                        for k in range(ndim))
    return kernel.replace(local_size=tuple(local), global_size=global_size)


def device_limits(device) -> tuple:
    """(max_work_group_size, max_work_item_sizes, fill_items, max_constant_buffer_size,
    max_constant_args, local_mem_size) of a gpurts Device, for `bind` (the first two) and the
    loop optimisations' model (jitgpu/loopopt/cost.py's GpuModel.for_device), None where the
    device does not say.
    fill_items: the work-items a GPU needs in flight to be full (1024 per compute unit, as an
    H100 SM holds 2048 threads, half at least busy), 0 on other devices; unroll_and_jam keeps
    the NDRange at least that large. The constant limits bound loopopt.constant_space, the
    local memory loopopt.local_tiles."""
    max_group = getattr(device, "max_work_group_size", None)
    if not isinstance(max_group, int):
        return None
    cl = getattr(device, "cl_device", None)
    units = getattr(cl, "max_compute_units", 0) or 0
    fill = 1024 * units if getattr(device, "is_gpu", False) else 0
    return (max_group, tuple(getattr(cl, "max_work_item_sizes", ()) or ()), fill,
            int(getattr(cl, "max_constant_buffer_size", 0) or 0),
            int(getattr(cl, "max_constant_args", 0) or 0),
            int(getattr(device, "local_mem_size", 0) or 0))


def bind(instance: NestInstance, part, values: dict, fp64: bool, limits=None) -> KernelNest:
    """The kernel nest of one part of a plan (`part.bounds`, `part.transfers`) at this call;
    `limits`: the device's (max_work_group_size, max_work_item_sizes), which cap the local size
    (`local_size`)."""
    from jitgpu.plan import tile_instance
    return _Binder(tile_instance(instance, part.bounds), part.transfers, values, fp64,
                   limits).bind()


def work_groups(kernel: KernelNest) -> int:
    return math.prod(g // l for g, l in zip(kernel.global_size, kernel.local_size))
