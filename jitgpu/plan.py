"""plan_call(): what one call of a nest will do on the device, as one frozen, printable value.

A `GpuPlan` is a list of parts (the iteration bounds of a tile x the device that runs it x its
transfer plan), the profitability verdict and the loop-optimisation level. It is computed from a
`NestInstance`, the call's values and the facts of a device (`DeviceFacts`), and makes no OpenCL
call: `bind` turns each part into a `KernelNest`, `gpurts.executor.execute` carries the plan out.
Several devices and residency across nests (later issues) are edits of this value.
"""
from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass
from typing import Optional

import numpy as np

from jitgpu import lmad
from jitgpu.nest import NestInstance, NotOffloadable, loop_dims
from unpy import ir
from unpy.host_memory import distinct_groups, memory_root, reused_groups
from unpy.settings import current as current_settings

# Profitability (docs/gpu.md, jitgpu/decide.py): the estimated device time (a launch per part,
# the copies over the link, the kernel) against the estimated OpenMP time; operations are
# counted from the IR, per statement times the trips of its loops (`work`), bytes are those of
# the arrays' regions the parts touch. A side's work takes the longer of its operations at its
# rate and its bytes at its memory's throughput. The launch, the link, the staging copy and both
# memories' throughputs are measured on the machine (gpurts/calibration.py, once per machine
# and device); the operations' rates are constants, and so is everything where no calibration
# could be made. jitgpu/decide.py trusts the estimate only where it is clear by a margin that
# follows from how much of it rests on each (`margin`), and measures the rest.
# The rates, fitted to the H100 with 16 cores (bench/results/gpu-h100.md, 2026-11-22): OpenMP
# ran the vectorised loops (nbody, cp, syrk, syr2k, stencil) at 0.5-3e10 counted operations
# per core and second, naive mmult at 1-3e9; the GPU ran the large nests at 0.5-1.5e13. With
# these rates the estimated ratio was within 3.9x of the measured one at every dev and
# accelerator size but the naive mmult (clearly the GPU's either way).
HOST_OPS_PER_CORE = 1e10
# A matrix product (For.blas) runs the BLAS on the CPU path: gemm f64 on the H200 host's 16
# cores, 2026-11-25, ran 3.5e10 (n=384, 0.40 ms) and 5.6e10 (n=2048, 38 ms) counted operations
# per core and second (bench/results/numpy_expr-*-16core-h200.md). At the naive rate the
# estimate sent small products to the GPU without measuring (7.6 ms there against 0.43).
BLAS_OPS_PER_CORE = 4e10
GPU_OPS = 1e13
CPU_DEVICE_OPS = HOST_OPS_PER_CORE      # an OpenCL CPU device (PoCL) is no faster than OpenMP
# Without a calibration: the host work of a repeated call that runs on the device beyond the
# copies and the kernel: a repeated call is replayed from C++ (jitgpu/replay.py), 0.1-0.15 ms
# in all for mmult f32 256 through NVIDIA's OpenCL on an H100 (GPU busy 0.07 ms;
# bench/results/gpu-h100.md, 2026-11-23).
LAUNCH_OVERHEAD = 2e-4
# Without a calibration: copies of small arrays go through pinned staging: measured on the
# H200, a staged copy of a NumPy array runs at 20-24 GB/s where the pinned DMA alone runs at
# 55 GB/s. Large arrays are pinned in place where the device pins (gpurts/pins.py): their
# copies run at the measured bandwidth (DeviceFacts.pins_from).
STAGING_SLOWDOWN = 2.5
# How far each side's estimated time may be off (a factor), per kind of figure it rests on;
# the estimate decides only beyond the product of the two sides' factors (`margin`).
# Constants: 2 per side, a 4x margin on the ratio, as the H100's worst estimate at the dev
# sizes (3.9x off). A term computed from a figure measured on the machine: 1.25, the model's
# own roughness (bytes touched once, one launch per part), times the calibration's spread
# (the noise of the machine it was measured on), never more than a constant's.
CONSTANT_ERROR = 2.0
CALIBRATED_ERROR = 1.25


@dataclass(frozen=True)
class DeviceFacts:
    """What planning needs to know of a device, read once from a `gpurts.Device`."""
    label: str
    is_gpu: bool
    mem_limit: int          # bytes all groups of one part may take (UNPY_GPU_MEM_LIMIT applied)
    max_alloc: int          # bytes of the largest buffer
    h2d: float              # measured bytes per second through pinned memory
    d2h: float
    pins_from: Optional[int] = None   # copies of this many bytes and more go straight from
                                      # pinned NumPy memory (gpurts.pins); None: all staged
    # The machine's figures (gpurts.calibration.Calibration); None: the constants above.
    calibration: Optional[object] = None

    @classmethod
    def of(cls, device) -> "DeviceFacts":
        h2d, d2h = device.measured_bandwidth()
        return cls(device.label, device.is_gpu, mem_limit(device), device.max_alloc, h2d, d2h,
                   device.pins_from(), device.calibration())


def launch_seconds(facts: DeviceFacts) -> float:
    """The fixed cost of one launch on the device: calibrated, else LAUNCH_OVERHEAD."""
    return facts.calibration.launch_s if facts.calibration is not None else LAUNCH_OVERHEAD


def staging_slowdown(facts: DeviceFacts) -> float:
    """A staged copy's time over the pinned DMA's: calibrated, else STAGING_SLOWDOWN."""
    return (facts.calibration.staging_slowdown if facts.calibration is not None
            else STAGING_SLOWDOWN)


def copy_seconds(nbytes: int, facts: DeviceFacts, staged: bool = True) -> float:
    """Seconds to move `nbytes` over the device's link, staged or straight from pinned memory."""
    return nbytes * (staging_slowdown(facts) if staged else 1.0) / min(facts.h2d, facts.d2h)


def mem_limit(device) -> int:
    """Device memory a call may use: 80 % of the device's, or `UNPY_GPU_MEM_LIMIT` when less."""
    limit = current_settings().gpu_mem_limit
    device_limit = int(device.global_mem_size * 0.8)
    return device_limit if limit is None else min(limit, device_limit)


@dataclass(frozen=True)
class Part:
    """One kernel launch: the normalised iteration bounds it covers (`((var, lo, hi), ...)` of
    the parallel loops; None: the whole space), the device that runs it, and its transfers
    (never mutated once planned)."""
    bounds: Optional[tuple]
    device: str
    transfers: lmad.TransferPlan

    def describe(self) -> str:
        where = ("whole iteration space" if self.bounds is None else "tile " + ", ".join(
            f"{var} in [{lo}, {hi})" for var, lo, hi in self.bounds))
        return f"{where} on {self.device}"


@dataclass(frozen=True)
class Estimate:
    device_s: float
    host_s: float
    bytes_moved: int
    copies_s: float = 0.0               # of device_s: the copies (residency shares them)
    # Of each side's seconds, those computed from the machine's calibration (the rest from
    # constants): jitgpu/decide.py's margin follows from them.
    device_calibrated_s: float = 0.0
    host_calibrated_s: float = 0.0
    calibration: Optional[object] = None   # gpurts.calibration.Calibration, or None
    basis: str = ""                     # which figures the estimate used, for explain
    # Why the work counted is only a floor of the real work ('' when it is not,
    # `work_floor_only`): a `while` loop's trips are known only at run time (mandelbrot's escape loop: OpenMP estimated at
    # 0.049 ms took 31 ms on an H200's host). More work favours the device, so such an
    # estimate may pick the device, never OpenMP (jitgpu/decide.py measures instead).
    floor_only: str = ""

    def __str__(self):
        basis = f"{self.basis}; " if self.basis else ""
        floor = f"; work at least: {self.floor_only}" if self.floor_only else ""
        return (f"estimated {self.device_s * 1e3:.3f} ms on the device ({self.bytes_moved} bytes "
                f"to move) vs {self.host_s * 1e3:.3f} ms with OpenMP [{basis}decides beyond "
                f"{margin(self):.2f}x{floor}]")


def margin(e: Estimate) -> float:
    """The ratio (either way) of the device's to the OpenMP code's estimated time beyond which
    the estimate decides (jitgpu/decide.py): the product of the sides' error factors, each the
    mean of its terms' factors (CALIBRATED_ERROR times the calibration's spread for the seconds
    computed from measured figures, CONSTANT_ERROR for the rest) weighted by their seconds."""
    spread = e.calibration.spread if e.calibration is not None else 1.0
    measured = min(CALIBRATED_ERROR * max(spread, 1.0), CONSTANT_ERROR)

    def side(total, calibrated):
        if total <= 0:
            return CONSTANT_ERROR
        calibrated = min(max(calibrated, 0.0), total)
        return (calibrated * measured + (total - calibrated) * CONSTANT_ERROR) / total
    return side(e.device_s, e.device_calibrated_s) * side(e.host_s, e.host_calibrated_s)


@dataclass(frozen=True)
class GpuPlan:
    nest: str                       # "module.function nest k"
    parts: tuple                    # of Part, run in order
    estimate: Estimate
    forced: bool                    # UNPY_FORCE_GPU=1: the estimate is not consulted
    opt: str                        # UNPY_GPU_OPT level
    residency: Optional[object] = None   # jitgpu.residency.ResidencyPlan of this call, if any
    overlap: bool = False           # tiles whose copies overlap the others' kernels (overlap.py)
    grid: Optional[object] = None   # how the overlapped tiles were cut (jitgpu.split.Grid)
    # Its arrays are on the device, kept there by the call's earlier nests: on OpenMP it would
    # copy them back and the next nest in again (jitgpu/residency.py, `with_data`).
    with_data: bool = False

    @property
    def profitable(self) -> bool:
        return self.estimate.device_s < self.estimate.host_s

    @property
    def runs_on_device(self) -> bool:
        return self.forced or self.with_data or self.profitable

    @property
    def verdict(self) -> str:
        if self.forced:
            return "UNPY_FORCE_GPU=1 (profitability not checked)"
        if self.with_data and not self.profitable:
            return ("its arrays are on the device, kept there by this call's earlier nests: on "
                    f"OpenMP they would be copied back and in again ({self.estimate})")
        if self.profitable:
            return ("the transfer analysis succeeded and the estimate favours the device: "
                    f"{self.estimate}")
        return f"not profitable: {self.estimate}"

    @property
    def touched_bytes(self) -> int:
        """Bytes of the elements the parts touch, a group overlapped tiles share counted once."""
        groups = (distinct_groups(self.parts) if self.overlap
                  else [g for p in self.parts for g in p.transfers.groups])
        return sum(g.touched_elems * g.itemsize for g in groups)

    def __str__(self):
        lines = [f"plan of {self.nest}: {len(self.parts)} part(s), UNPY_GPU_OPT={self.opt}",
                 f"  verdict: {self.verdict}"]
        if self.overlap:
            lines.append("  tiles overlapped: each tile's copies run beside the others' kernels"
                         + (f"; {self.grid}" if self.grid is not None else ""))
        lines += describe_parts(self.parts, self.overlap)
        if self.residency is not None:
            lines += ["  " + line for line in str(self.residency).splitlines()]
        return "\n".join(lines)


def describe_parts(parts, overlapped: bool) -> list:
    """The lines of each part and its transfers; of overlapped tiles (run in this order on
    their device), the groups an earlier tile's copy serves (`reused_groups`)."""
    reused = {}
    if overlapped:
        for label in dict.fromkeys(p.device for p in parts):
            mine = [k for k, p in enumerate(parts) if p.device == label]
            for k, found in zip(mine, reused_groups([parts[k] for k in mine])):
                reused[k] = {g: (mine[t], h) for g, (t, h) in found.items()}
    lines = []
    for k, part in enumerate(parts):
        lines.append(f"  part {k}: {part.describe()}")
        lines += ["    " + line for line in part.transfers.describe().splitlines()]
        for g, (t, _) in sorted(reused.get(k, {}).items()):
            lines.append(f"    {', '.join(part.transfers.groups[g].arrays)}: not copied, "
                         f"part {t} copied it")
    return lines


def live_arrays(instance: NestInstance, values) -> list:
    arrays = []
    for name in dict.fromkeys(e.array.id for e, _ in instance.accesses):
        arr = values[name]
        lo, hi = np.lib.array_utils.byte_bounds(memory_root(arr))
        arrays.append(lmad.LiveArray(name, arr.__array_interface__["data"][0], arr.itemsize,
                                     tuple(arr.shape), tuple(arr.strides), lo, hi))
    return arrays


def work(instance: NestInstance) -> float:
    """A rough operation count of one call (arithmetic, calls, memory accesses, and the extra
    of the expensive ones: unpy/work.py): each statement's operations times the trips of the
    loops around it, so that loops one after the other add (a mean, then a variance) and only
    nested ones multiply. A `while` counts once, a branch as its longer side."""
    from unpy.typeinfer.reductions import walk_exprs
    from unpy.work import extra_work

    def count(node):
        return sum(1 + extra_work(e) for e in walk_exprs(node)
                   if isinstance(e, (ir.BinOp, ir.Call, ir.CallCompiled, ir.Subscript)))

    def ops(body):
        total = 0
        for s in body:
            if isinstance(s, ir.For):
                box = instance.boxes.get(s.var)
                total += (box.extent if box else 1) * max(ops(s.body), 1)
            elif isinstance(s, ir.While):
                total += count(s.test) + ops(s.body)
            elif isinstance(s, ir.If):
                total += count(s.test) + max(ops(s.body), ops(s.orelse))
            else:
                total += count(s)
        return total
    return max(ops([instance.nest.loop]), 1)


def work_floor_only(instance: NestInstance) -> str:
    """Why `work` is only a floor of the nest's operations ('' when it is not): a `while` loop,
    or a loop whose bounds the nest computes (no box: `convolve`'s `range(max(0, t - m + 1),
    min(t + 1, n))`), whose trips `work` counts once."""
    def why(body):
        for s in body:
            if isinstance(s, ir.While):
                return "a while loop runs as many times as its test says at run time"
            if isinstance(s, ir.For) and s.var not in instance.boxes:
                return (f"the trips of the loop over {s.var} are computed in the nest at run "
                        "time")
            for inner in (getattr(s, "body", None), getattr(s, "orelse", None)):
                found = why(inner) if inner else ""
                if found:
                    return found
        return ""
    return why([instance.nest.loop])


def estimate(instance: NestInstance, parts, facts: DeviceFacts) -> Estimate:
    """The device's and the OpenMP code's seconds for the call (see the constants above): each
    side's work is the longer of its operations at its rate and its bytes at its memory's
    calibrated throughput; the device adds its launches and copies."""
    calibration = facts.calibration
    operations = work(instance)
    per_core = BLAS_OPS_PER_CORE if instance.nest.loop.blas else HOST_OPS_PER_CORE
    cores = calibration.cores if calibration is not None else (os.cpu_count() or 1)
    rate = GPU_OPS if facts.is_gpu else CPU_DEVICE_OPS
    touched = sum(g.device_elems * g.itemsize for p in parts for g in p.transfers.groups)
    moved = sum(g.device_elems * g.itemsize * (g.copy_in + g.copy_back)
                for p in parts for g in p.transfers.groups)
    # Roughly: a call moving megabytes moves them mostly from large (pinned) arrays.
    pinned = facts.pins_from is not None and moved >= facts.pins_from
    copies = copy_seconds(moved, facts, staged=not pinned)
    launches = launch_seconds(facts) * len(parts)
    host_ops, kernel_ops = operations / (per_core * cores), operations / rate
    if calibration is None:
        return Estimate(copies + kernel_ops + launches, host_ops, moved, copies,
                        floor_only=work_floor_only(instance),
                        basis=f"constants: launch {LAUNCH_OVERHEAD * 1e3:.3f} ms, staging "
                              f"{STAGING_SLOWDOWN:g}x, {_rates(per_core, rate)}; link "
                              f"{min(facts.h2d, facts.d2h) / 1e9:.1f} GB/s measured")
    host_memory = touched / calibration.host_bytes_per_s
    kernel_memory = touched / calibration.device_bytes_per_s
    kernel = max(kernel_ops, kernel_memory)
    host = max(host_ops, host_memory)
    return Estimate(
        copies + kernel + launches, host, moved, copies,
        device_calibrated_s=copies + launches + (kernel if kernel_memory >= kernel_ops else 0.0),
        host_calibrated_s=host if host_memory >= host_ops else 0.0,
        calibration=calibration, floor_only=work_floor_only(instance),
        basis=f"calibrated on this machine: {calibration}; {_rates(per_core, rate)}; "
              f"{touched} bytes touched")


def _rates(per_core: float, rate: float) -> str:
    return f"operations at {rate:.0e}/s on the device, {per_core:.0e}/s per core (constants)"


def tile_instance(instance: NestInstance, bounds) -> NestInstance:
    """The nest restricted to one part's bounds (normalised space) of its parallel loops."""
    if bounds is None:
        return instance
    boxes = dict(instance.boxes)
    for var, lo, hi in bounds:
        box = boxes[var]
        boxes[var] = dataclasses.replace(box, lo=box.lo + box.step * lo, extent=hi - lo)
    trips = [boxes[level.var].extent for level in instance.levels]
    return dataclasses.replace(instance, boxes=boxes, trip_counts=trips)


def plan_transfers(instance: NestInstance, values, facts: DeviceFacts) -> list:
    """[(bounds or None, TransferPlan)]: one plan, or tiles when one does not fit the memory
    limit or a group does not fit one device buffer (4.4)."""
    loops = loop_dims(instance)
    arrays = live_arrays(instance, values)
    accesses = [a for _, a in instance.accesses]
    tiles = _plan_within(loops, arrays, accesses, facts.mem_limit)
    if any(g.device_bytes > facts.max_alloc for _, plan in tiles for g in plan.groups):
        # Each group is one buffer: tiles whose groups together fit the largest buffer do.
        tiles = _plan_within(loops, arrays, accesses, min(facts.mem_limit, facts.max_alloc))
    return [(bounds, without_needless_copies(plan, instance)) for bounds, plan in tiles]


def without_needless_copies(plan: lmad.TransferPlan, instance: NestInstance) -> lmad.TransferPlan:
    """`plan` without the copies the nest's code shows are needless
    (unpy/cpp_emit/nest_contents.py): none in for a group whose arrays all hold nothing defined
    yet (a fresh np.empty), none back for a group whose arrays nothing reads after the nest."""
    undefined, dead = set(instance.nest.undefined), set(instance.nest.dead_after)

    def edited(g):
        copy_in = g.copy_in and not set(g.arrays) <= undefined
        copy_back = g.copy_back and not set(g.arrays) <= dead
        if (copy_in, copy_back) == (g.copy_in, g.copy_back):
            return g
        why = "; ".join(text for moved, text in (
            (g.copy_in and not copy_in, "not copied in: a fresh np.empty holds nothing yet"),
            (g.copy_back and not copy_back, "not copied back: nothing reads it later"))
            if moved)
        return dataclasses.replace(g, copy_in=copy_in, copy_back=copy_back,
                                   note=f"{g.note}; {why}")

    groups = [edited(g) for g in plan.groups]
    if all(a is b for a, b in zip(groups, plan.groups)):
        return plan
    return dataclasses.replace(plan, groups=groups)


def _plan_within(loops, arrays, accesses, limit):
    plan = lmad.analyse(loops, arrays, accesses, mem_limit=limit)
    if isinstance(plan, lmad.Refusal) and plan.over_memory:
        plan = lmad.tile_plan(loops, arrays, accesses, limit)
    if isinstance(plan, lmad.Refusal):
        raise NotOffloadable(plan.reason)
    return plan if isinstance(plan, list) else [(None, plan)]


# Ranges a layout keeps the analyses of (`analysed_transfers`): a split's few share sets and
# the tiles of its devices (two levels of 4 x 4 on two devices: 32).
ANALYSES_KEPT = 64


def analysed_transfers(instance: NestInstance, values, facts: DeviceFacts,
                       analysed: Optional[dict] = None) -> list:
    """`plan_transfers`, kept in `analysed` (None: not kept) per range of the parallel loops
    (each level's box: a split's part restricts the outer one, a tile of two levels the next
    one too), which is all it depends on among the restrictions of one layout's nest
    (`jitgpu.split.restrict`) but for the memory limits: a split analyses each range once, for
    its costs and its part alike (issue 20 item 1). The analysis itself does not read the
    limits (they only refuse a plan that does not fit, which is then tiled): a range's untiled
    plan serves every device it fits, the OpenMP participant's (no limit) included; tiles are
    kept per limits."""
    if analysed is None:
        return plan_transfers(instance, values, facts)
    ranges = tuple((instance.boxes[level.var].lo, instance.boxes[level.var].extent)
                   for level in instance.levels)
    whole = analysed.get(ranges)
    if whole is not None and whole.device_bytes <= facts.mem_limit \
            and all(g.device_bytes <= facts.max_alloc for g in whole.groups):
        return [(None, whole)]
    key = (ranges, facts.mem_limit, facts.max_alloc)
    found = analysed.get(key)
    if found is None:
        found = plan_transfers(instance, values, facts)
        untiled = len(found) == 1 and found[0][0] is None
        analysed[ranges if untiled else key] = found[0][1] if untiled else found
        while len(analysed) > ANALYSES_KEPT:
            del analysed[next(iter(analysed))]
    return found


def plan_call(instance: NestInstance, values, facts: DeviceFacts, *, nest: str = "",
              forced: bool = False, opt: str = "none", analysed: Optional[dict] = None
              ) -> GpuPlan:
    """The plan of one call; raises NotOffloadable when the nest cannot run on the device.
    `analysed`: the transfer analyses of the layout's ranges so far (`analysed_transfers`)."""
    if any(n == 0 for n in instance.trip_counts):
        raise NotOffloadable("the parallel loop has no iterations")
    parallel = {b.var for b in instance.boxes.values() if b.parallel}
    parts = []
    for bounds, transfers in analysed_transfers(instance, values, facts, analysed):
        for g in transfers.groups:
            if any(values[name].itemsize != g.itemsize for name in g.arrays):
                raise NotOffloadable(f"group of {', '.join(g.arrays)} mixes element sizes")
        if bounds is not None:
            bounds = tuple((var, lo, hi) for var, (lo, hi) in bounds.items() if var in parallel)
        parts.append(Part(bounds, facts.label, transfers))
    return GpuPlan(nest, tuple(parts), estimate(instance, parts, facts), forced, opt)
