"""A nest launched again within one call with only scalars changed (issue 21, items 1 and 2).

A sequential loop of a @gpu function (`for t in range(T)`, `for k in range(n)`) calls the hook
of each of its nests once per iteration, with the same arrays and other scalars: the step `t`,
the pivot `k`, a coefficient computed on the host. What the plan of such a call depends on is
decided once per nest from its IR (`scalar_roles`):

- a **value** scalar is read by the nest's arithmetic only (not by a loop bound, not by an
  `if`/`while`/conditional test, not by an index but through locals the nest computes, whose
  indices the kernel checks whatever their value): it is a kernel argument and nothing else;
- an **index** scalar is also read directly by index expressions (`path[i, k]`, `fict[t]`),
  never by bounds or tests: one plan serves every value whose indices stay inside the arrays,
  where the groups it reaches mirror whole views of their arrays (the layout a call that keeps
  data on the device gives them; `offload.prepare` chooses it for such a nest whatever it
  costs, since the whole array is what the loop's launches reach together). The kernel then
  indexes with the scalar's value, so only the proof of those indices depends on it:
  `IndexChecks` re-proves them by interval arithmetic for each new value;
- every other scalar (loop bounds, tests, reductions' initial values) is part of the key.

So `family_key` is the compiled caller's key of the call's inputs (`unpy::HookKey`) without the
value and index scalars' bytes: `offload.prepared_call` finds the `Prepared` of an earlier value
under it, and only the scalar arguments are set anew (`gpurts.executor.set_scalars`).

The fast path (`try_relaunch`, first thing in the hook): a nest whose last launch in this call
(the same call scope) reused every group from the residency table, copied nothing and cannot
set its error flag, launched again with the same family key while the table is at the version
that launch left it (`gpurts.residency.Table.version`: the same entries, equally stale, so the
same buffers the kernel is bound to) and the same settings, is enqueued right away: its changed
scalar arguments set, one `enqueue_nd_range_kernel`, nothing waited for but the partial results
of its reductions (combined in order with the variables' values). That is legal because
everything the plan, its residency decisions and the bound kernel depend on is the same; a host
access between launches (a flush point) or another nest's other layout changes the table's
version and the next launch takes the full path. Decide, then do: the `Launch` is made from the
decided plan of a full launch (`offer`), and only carries it out again.

From C++: the first relaunch makes a `Record` (int64 words: a kernel of its own bound to the
same buffers, which key bytes must be equal, where the changing scalars are, the index proofs as
linear constraints, `IndexChecks.constraints`) that the hook's answer (`Answer.relaunch`) hands
to the compiled caller (`unpy::Relaunch`), which makes the later launches of the call itself,
without Python; `harvest` counts them in Python.
"""
from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass, field

import numpy as np

from jitgpu import calls
from jitgpu.answer import ran_on_device
from unpy import ir
from unpy.ir import Scalar
from unpy.settings import current as current_settings
from unpy.typeinfer.reductions import reads_of, walk_exprs, walk_stmts


# The key of the call scope in the values a compiled caller passes (unpy::CallScope): not one of
# the inputs of `unpy::HookKey`.
SCOPE_KEY = "__unpy_scope__"

log = logging.getLogger("unpy")


@dataclass(frozen=True)
class ScalarRoles:
    """The free scalars of a nest that may change between launches of one plan."""
    values: frozenset        # kernel arguments only
    indices: frozenset       # kernel arguments also read by indices (see the module docstring)

    @property
    def changing(self) -> frozenset:
        return self.values | self.indices


def scalar_roles(nest: ir.Nest) -> ScalarRoles:
    """The roles of the nest's free scalars (cached per loaded nest)."""
    found = _ROLES.get(id(nest))
    if found is None or found[0] is not nest:
        found = _ROLES[id(nest)] = (nest, _roles(nest))
    return found[1]


_ROLES = {}   # id(nest) -> (nest, ScalarRoles): loaded nests live for the process


def _roles(nest: ir.Nest) -> ScalarRoles:
    loop = nest.loop
    reduced = {r.var for r in loop.reductions}
    scalars = {p.name for p in nest.free
               if isinstance(p.type, Scalar) and p.name not in reduced}
    # Locals the nest computes from each scalar (a fixpoint over its assignments).
    sources = {}
    for s in walk_stmts([loop]):
        if isinstance(s, (ir.Assign, ir.AugAssign)) and isinstance(s.target, ir.Name):
            sources.setdefault(s.target.id, set()).update(reads_of(s.value))
    for e in walk_exprs(loop):
        if isinstance(e, ir.NamedExpr):
            sources.setdefault(e.target.id, set()).update(reads_of(e.value))
    tainted = {name: {name} for name in scalars}
    changed = True
    while changed:
        changed = False
        for name, reach in tainted.items():
            more = {local for local, reads in sources.items()
                    if local not in reach and reads & reach}
            if more:
                reach |= more
                changed = True
    structural, in_index = set(), set()
    for s in walk_stmts([loop]):
        if isinstance(s, ir.For):
            structural |= set(reads_of([s.start, s.stop, s.step]))
        elif isinstance(s, (ir.If, ir.While)):
            structural |= set(reads_of(s.test))
    for e in walk_exprs(loop):
        if isinstance(e, ir.IfExp):
            structural |= set(reads_of(e.test))
        elif isinstance(e, ir.BoolOp):
            structural |= set(reads_of(e.values))
        elif isinstance(e, ir.Subscript):
            in_index |= set(reads_of(e.indices))
    values, indices = set(), set()
    for name in scalars:
        if tainted[name] & structural:
            continue
        (indices if name in in_index else values).add(name)
    return ScalarRoles(frozenset(values), frozenset(indices))


# --- the family key ----------------------------------------------------------------------

def _segment_bytes(value) -> int | None:
    """Bytes of one value in `unpy::HookKey`, or None for a value it does not encode."""
    if isinstance(value, np.ndarray):
        return 16 + 16 * value.ndim
    if isinstance(value, complex):
        return 40
    if isinstance(value, (bool, int, float, np.number)):
        return 16
    return None


def key_segments(nest: ir.Nest, values: dict, key: bytes):
    """((start, stop), ...) of the bytes of `key` (the compiled caller's bytes of the call's
    inputs, in the order of `values`, the call scope left out) that are not the nest's value
    and index scalars; () where every byte is kept; None where the bytes do not add up (a
    caller of another shape)."""
    changing = scalar_roles(nest).changing
    if not changing:
        return ()
    spans = key_spans(values)
    if spans is None or (list(spans.values())[-1][1] if spans else 0) != len(key):
        return None
    return tuple(span for name, span in spans.items() if name not in changing)


def key_spans(values: dict):
    """{name: (start, stop)} of each value's bytes in the compiled caller's key of `values`
    (the call scope left out), or None for a value the key does not encode."""
    spans, at = {}, 0
    for name, value in values.items():
        if name == SCOPE_KEY:
            continue
        size = _segment_bytes(value)
        if size is None:
            return None
        spans[name] = (at, at + size)
        at += size
    return spans


def _cut(key: bytes, segments: tuple) -> bytes:
    return b"".join(key[a:b] for a, b in segments) if segments else key


def family_key(nest: ir.Nest, values: dict, key: bytes):
    """`key` without the bytes of the nest's value and index scalars (`key_segments`), or
    None."""
    segments = key_segments(nest, values, key)
    return None if segments is None else _cut(key, segments)


# --- the proofs of indices that read an index scalar ------------------------------------

@dataclass(frozen=True)
class IndexChecks:
    """The indices that read index scalars and that the kernel uses unchecked, each proved
    inside its dimension at the preparation's values: a launch at other values uses the plan
    only where they are proved again (`hold`). Indices the kernel checks itself need no proof."""
    checks: tuple            # of (index expression, dimension extent)
    boxes: dict = field(compare=False, hash=False)

    def hold(self, values) -> bool:
        from jitgpu.nest import interval
        for e, n in self.checks:
            known = interval(e, values, self.boxes)
            if known is None or known.lo < 0 or known.hi >= n:
                return False
        return True

    def constraints(self, roles: ScalarRoles, values) -> tuple | None:
        """((lo, hi, {index scalar: coefficient}), ...), one per check: at other values of the
        index scalars (the rest as in `values`) the check holds exactly where lo <= the sum of
        coefficient * value <= hi (what the compiled caller compares, without Python); None
        where a check is not affine in them."""
        from jitgpu.nest import interval
        found = []
        for e, n in self.checks:
            coefficients = {name: _coefficient(e, name)
                            for name in sorted(set(reads_of(e)) & roles.indices)}
            now = interval(e, values, self.boxes)
            if now is None or None in coefficients.values():
                return None
            # e = sum + rest, the rest's interval independent of the index scalars
            at = sum(c * int(values[name]) for name, c in coefficients.items())
            found.append((at - now.lo, n - 1 - now.hi + at, coefficients))
        return tuple(found)


def index_checks(instance, roles: ScalarRoles, plan, values):
    """The IndexChecks of a prepared plan, or None where its plan cannot serve other values of
    the index scalars: an access that reads one reaches a group that does not mirror its
    arrays' whole views, or its proof needed more than intervals (a test around it)."""
    if not roles.indices:
        return IndexChecks((), {})
    if len(plan.parts) != 1:
        return None
    transfers = plan.parts[0].transfers
    checks = []
    for e, _ in instance.accesses:
        reading = [d for d, ix in enumerate(e.indices) if set(reads_of(ix)) & roles.indices]
        if not reading:
            continue
        if transfers.device_map(e.aid).dim_strides is None:
            return None                   # a packed group: its boxes follow the value
        n = values[e.array.id].shape
        for d in reading:
            if (e.aid, d) in instance.checked:
                continue
            checks.append((e.indices[d], n[d]))
    found = IndexChecks(tuple(checks), dict(instance.boxes))
    return found if found.hold(values) else None


def _coefficient(e, name: str):
    """c where `e` is c * name plus terms that do not read `name` (integer arithmetic), or
    None where it is not affine in `name`."""
    if isinstance(e, ir.Cast):
        return _coefficient(e.value, name)
    if isinstance(e, ir.Name):
        return 1 if e.id == name else 0
    if name not in set(reads_of(e)):
        return 0
    if isinstance(e, ir.UnaryOp) and e.op in ("-", "+"):
        c = _coefficient(e.operand, name)
        return None if c is None else (c if e.op == "+" else -c)
    if isinstance(e, ir.BinOp) and e.op in ("+", "-"):
        a, b = _coefficient(e.left, name), _coefficient(e.right, name)
        if a is None or b is None:
            return None
        return a + b if e.op == "+" else a - b
    if isinstance(e, ir.BinOp) and e.op == "*":
        for factor, other in ((e.left, e.right), (e.right, e.left)):
            if isinstance(factor, ir.Const) and type(factor.value) is int:
                c = _coefficient(other, name)
                return None if c is None else c * factor.value
    return None


# --- the fast path -------------------------------------------------------------------------

@dataclass(eq=False)
class Launch:
    """What a relaunch needs, from a full launch whose decided plan copies nothing, keeps every
    group on the device and cannot flag: the kernel bound to the table's buffers."""
    scope: int
    family: bytes
    segments: tuple               # of the key, that make the family (`key_segments`)
    settings: object
    version: int                  # the residency table's, after the full launch
    device: object
    kernel: object                # KernelNest
    cl_kernel: object
    recipe: dict
    positions: tuple              # scalar arguments that may change (`scalar_positions`)
    checks: IndexChecks
    table: object                 # gpurts.residency.TABLE
    set_scalars: object           # gpurts.executor.set_scalars
    relaunch: object              # gpurts.executor.relaunch
    count: object                 # jitgpu.residency.nest_calls_share (the estimate's share)
    relaunches: int = 0           # launches of this record so far
    clear: bool = False           # its estimate alone put it on the device (jitgpu/calls.py)
    estimate_s: float = 0.0       # its estimated seconds on the device
    openmp_s: float = 0.0         # ... and with OpenMP
    where: tuple = ()             # (module, function, nest id)
    roles: ScalarRoles = None
    record: object = None         # the Record C++ relaunches from, or None
    recorded: bool = False        # whether a record was made (or tried)


# --- the record the compiled caller relaunches from (unpy::Relaunch) ----------------------

# The words of a record (unpy::relaunch_word in unpy_runtime.hpp reads them so): STATUS (0:
# live; 1: dropped by Python, 2: an OpenCL error in C++), the call scope, the residency
# table's version word (address, value), the replay epoch's (address, value), the entry
# points clSetKernelArg, clEnqueueNDRangeKernel and clEnqueueReadBuffer, the queue, the
# kernel, its dims and global and local sizes; LAUNCHES and HOST_NS: counted by C++
# (`harvest`); then the counts of segments, changing scalars, checks and reductions, the key's
# segments that must be equal, per changing scalar its argument position (-1: none), its
# offset in the key and the argument's type, per check of an index
# (`IndexChecks.constraints`) lo, hi and a coefficient per changing scalar, per reduction the
# words below.
(STATUS, SCOPE, VERSION_ADDRESS, VERSION, EPOCH_ADDRESS, EPOCH, SET_ARG, ENQUEUE, READ, QUEUE,
 KERNEL, DIMS, GLOBAL) = range(13)
LOCAL = GLOBAL + 3
LAUNCHES = LOCAL + 3
HOST_NS, SEGMENTS, SCALARS, CHECKS, REDUCTIONS, ITEMS = range(LAUNCHES + 1, LAUNCHES + 7)
# Per reduction, after the checks: its operation (the index in OPERATIONS), its type code, the
# number of partial results, their device buffer and host memory.
OPERATIONS = ("+", "*", "min", "max", "&", "|", "^")
# The reductions' types C++ combines (unpy::relaunch_reduce).
COMBINED = ("float64", "float32", "int64", "int32")
MOST_SCALARS = 16                 # (unpy::Relaunch converts at most this many)


class Record:
    """What C++ relaunches from: `words` (int64), and the kernel of its own and the buffers it
    is bound to, held so that nothing is freed while the compiled caller may launch it."""

    def __init__(self, words, keep):
        self.words = np.array(words, np.int64)
        self.address = self.words.ctypes.data
        self.keep = keep
        self.harvested = 0            # C++ launches counted in Python so far
        self.harvested_ns = 0

    def drop(self) -> None:
        if self.words[STATUS] == 0:
            self.words[STATUS] = 1


def type_code(dtype) -> int:
    """unpy::HookKey::type_code of a NumPy type."""
    d = np.dtype(dtype)
    return d.itemsize | (d.kind == "f") << 8 | (d.kind in "if") << 9 | (d.kind == "b") << 10


def _argument_type(dtype: str):
    """unpy::relaunch_argument's code of a kernel argument's type, or None."""
    d = np.dtype(np.uint8 if dtype == "bool" else dtype)
    if d.kind not in "biuf":
        return None
    return d.itemsize | (d.kind == "f") << 8


def record_of(launch: "Launch", values: dict, key: bytes, roles: ScalarRoles):
    """The Record of a Launch for the compiled caller, or None where C++ cannot relaunch it
    (UNPY_REPLAY=0, a complex or unsigned changing scalar, an index proof not affine in the
    index scalars, more than MOST_SCALARS changing scalars)."""
    from gpurts.epoch import REPLAY_EPOCH
    from gpurts.executor import bound_copy
    from gpurts.record import entry_points
    from unpy.residency_counters import COUNTERS
    changing = sorted(roles.changing)
    if not launch.settings.replay or len(changing) > MOST_SCALARS:
        return None
    constraints = launch.checks.constraints(roles, values)
    if constraints is None:
        return None
    spans = key_spans(values)
    arguments = {name: (position, dtype) for position, name, dtype in launch.positions}
    scalars = []
    for name in changing:
        value = values[name]
        position, dtype = arguments.get(name, (-1, np.asarray(value).dtype.name))
        kind = _argument_type(dtype)
        if kind is None or not isinstance(value, (bool, int, float)):
            return None
        scalars += [position, spans[name][0], kind]
    checks = [x for lo, hi, coefficients in constraints
              for x in (lo, hi, *(coefficients.get(name, 0) for name in changing))]
    kernel = launch.kernel
    if any(np.dtype(dtype).name not in COMBINED for _, _, dtype in kernel.reductions):
        return None
    dims = len(kernel.global_size)
    pad = [1] * (3 - dims)
    with launch.recipe["lock"]:
        own, buffers, partials = bound_copy(kernel, launch.recipe, launch.device)
    reductions = []
    for var, op, dtype in kernel.reductions:
        buffer, host = partials[var]
        reductions += [OPERATIONS.index(op), type_code(dtype), host.size, buffer.int_ptr,
                       host.ctypes.data]
    segments = [x for segment in launch.segments for x in segment] or [0, len(key)]
    words = [0, launch.scope, COUNTERS.ctypes.data + 2 * COUNTERS.itemsize, launch.version,
             REPLAY_EPOCH.ctypes.data, int(REPLAY_EPOCH[0]),
             *entry_points("clSetKernelArg", "clEnqueueNDRangeKernel", "clEnqueueReadBuffer"),
             launch.device.queue.int_ptr, own.int_ptr, dims, *kernel.global_size, *pad,
             *kernel.local_size, *pad, 0, 0, len(segments) // 2, len(changing),
             len(constraints), len(kernel.reductions), *segments, *scalars, *checks,
             *reductions]
    return Record(words, (own, buffers, partials, launch.device))


@dataclass
class CallLaunches:
    """Launches of one call of a function (what `unpython.explain` reports)."""
    scope: int
    launches: int = 0             # nests launched on the device
    relaunched: int = 0           # of them, by the fast path
    compiled: int = 0             # of those, by the compiled caller (no Python)
    prepared: int = 0             # preparations (transfer analysis, plan, kernel)
    host_s: float = 0.0           # seconds in the hook for the launches
    relaunch_s: float = 0.0       # of them, for the relaunches

    @property
    def us_per_launch(self) -> float:
        return self.host_s / self.launches * 1e6 if self.launches else 0.0

    @property
    def us_per_relaunch(self) -> float:
        return self.relaunch_s / self.relaunched * 1e6 if self.relaunched else 0.0

    def __str__(self):
        return (f"launches of the last call: {self.launches} on the device ({self.relaunched} "
                f"relaunched with only scalars set, {self.compiled} of them from C++ without "
                f"Python, {self.prepared} prepared), "
                f"{self.us_per_launch:.1f} us of host work per launch "
                f"({self.us_per_relaunch:.1f} per relaunch)")


class Relaunches:
    """The launches kept for relaunching, one per nest, and the counts per call (the session's
    state of this step: `forget` empties it)."""

    def __init__(self):
        self.lock = threading.Lock()
        self.launches = {}        # (module, function, nest id) -> Launch
        self.recorded = {}        # the same, of the launches with a record (`harvest` reads)
        self.calls = {}           # (module, function) -> CallLaunches

    def forget(self) -> None:
        with self.lock:
            for launch in self.recorded.values():
                launch.record.drop()
            self.launches.clear()
            self.recorded.clear()
            self.calls.clear()

    def call(self, module, function, scope) -> CallLaunches:
        found = self.calls.get((module, function))
        if found is None or found.scope != scope or scope <= 0:
            found = self.calls[(module, function)] = CallLaunches(scope)
        return found


RELAUNCHES = Relaunches()


def forget() -> None:
    RELAUNCHES.forget()


def harvest() -> None:
    """Count the launches C++ made from records since the last harvest, as `try_relaunch`
    counts its own (the launches of each call for explain, the nest calls a call shares its
    copies among, the call's choice): before the hook decides, and before anything reads the
    counts."""
    for launch in list(RELAUNCHES.recorded.values()):
        record = launch.record
        launches, ns = int(record.words[LAUNCHES]), int(record.words[HOST_NS])
        n = launches - record.harvested
        if n <= 0:
            continue
        spent = (ns - record.harvested_ns) * 1e-9
        record.harvested, record.harvested_ns = launches, ns
        launch.relaunches += n
        module, function, _ = launch.where
        counts = RELAUNCHES.calls.get((module, function))
        if counts is None or counts.scope != launch.scope:
            continue        # (a call that ended before a later one began: nothing to tell)
        launch.count(module, function, launch.scope, n)
        calls.nest_ran(launch.scope, launch.clear, launch.estimate_s * n,
                       openmp_s=launch.openmp_s * n)
        counts.launches += n
        counts.relaunched += n
        counts.compiled += n
        counts.host_s += spent
        counts.relaunch_s += spent


def first_thing(module, function, nest_id, values, key):
    """The hook's first step, once a call: count what C++ relaunched since (`harvest`: before
    anything decides by it), then the answer of a relaunch (`try_relaunch`) where `key` is
    given, else None."""
    harvest()
    return None if key is None else try_relaunch(module, function, nest_id, values, key)


def try_relaunch(module, function, nest_id, values, key):
    """The hook's answer (DONE, the reductions' results) when the nest could be relaunched as
    its last launch was; else None (the full path). See the module docstring. The answer
    carries the launch's record for the compiled caller, made at the first relaunch (a nest
    launched once a call never costs one), and again where the compiled caller's check failed
    while Python's held (a conversion C++ leaves to Python, another thread relaunching)."""
    started = time.perf_counter()
    launch = RELAUNCHES.launches.get((module, function, nest_id))
    if launch is None or key is None:
        return None
    scope = values.get(SCOPE_KEY)
    table = launch.table
    if scope != launch.scope or current_settings() is not launch.settings \
            or table.version != launch.version \
            or _cut(key, launch.segments) != launch.family:
        return None
    if launch.checks.checks and not launch.checks.hold(values):
        return None
    with table.lock:
        if table.version != launch.version:
            return None
        with launch.recipe["lock"]:
            bound = launch.recipe.get("bound")
            if bound is None or bound[1] is not launch.cl_kernel:
                return None
            if launch.positions:
                launch.set_scalars(launch.cl_kernel, launch.kernel, launch.recipe,
                                   launch.positions, values)
            results = launch.relaunch(launch.device, launch.cl_kernel, launch.kernel, values,
                                      bound[0].partials)
    launch.relaunches += 1
    launch.count(module, function, scope)
    calls.nest_ran(scope, launch.clear, launch.estimate_s, openmp_s=launch.openmp_s)
    counts = RELAUNCHES.call(module, function, scope)
    counts.launches += 1
    counts.relaunched += 1
    spent = time.perf_counter() - started
    counts.host_s += spent
    counts.relaunch_s += spent
    if not launch.recorded:
        launch.recorded = True
        try:
            launch.record = record_of(launch, values, key, launch.roles)
            if launch.record is not None:
                RELAUNCHES.recorded[launch.where] = launch
        except Exception as e:      # never a crash: the Python relaunch stays
            log.debug("no relaunch record for %s: %s: %s", launch.where, type(e).__name__, e)
    return ran_on_device(results, relaunch=launch.record)


def offer(module, function, nest_id, scope, key, values, settings, device, plan, prepared,
          checks, clear=False):
    """After a full launch on the device: keep it for relaunching where its decided plan
    allows, and return it (else forget the nest's earlier one, and return None). `clear`: its
    estimate alone put it on the device (each relaunch tells the call's choice)."""
    from gpurts.executor import relaunch, scalar_positions, set_scalars
    from gpurts.residency import TABLE
    from jitgpu.nest import load_nest
    from jitgpu.residency import nest_calls_share
    nest = load_nest(module, function, nest_id)
    segments = key_segments(nest, values, key) if key is not None else None
    where = (module, function, nest_id)
    residency = plan.residency
    kernel, _, built = prepared.kernels[0]
    usable = (segments is not None and checks is not None and scope is not None and scope > 0
              and len(plan.parts) == 1 and not plan.overlap and residency is not None
              and residency.flagless and not residency.flush and residency.groups
              and all(g.reuse and g.keep for g in residency.groups)
              and prepared.pending is None
              and prepared.trial is None and 0 in prepared.recipes
              and "lock" in prepared.recipes[0])
    recipe = prepared.recipes.get(0, {})
    bound = recipe.get("bound")
    harvest()          # (the launch it replaces may have been relaunched from C++)
    RELAUNCHES.launches.pop(where, None)
    old = RELAUNCHES.recorded.pop(where, None)
    if old is not None:
        old.record.drop()
    if not usable or bound is None or bound[1] is not built.kernel:
        return None
    roles = scalar_roles(nest)
    found = Launch(
        scope, _cut(key, segments), segments, settings, TABLE.version, device, kernel,
        built.kernel, recipe, scalar_positions(kernel, roles.changing), checks,
        TABLE, set_scalars, relaunch, nest_calls_share,
        clear=clear, estimate_s=prepared.plan.estimate.device_s,
        openmp_s=prepared.plan.estimate.host_s, where=where, roles=roles)
    RELAUNCHES.launches[where] = found
    return found
