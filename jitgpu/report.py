"""What `unpython.explain(f)` shows: how each loop nest of a compiled function ran on its last
call, and why."""
from __future__ import annotations

import dataclasses
import sys
from dataclasses import dataclass, field

# (module, function) -> {nest_id: NestReport} of the last call of each nest
_last = {}
# (module, function) -> gpurts.residency.TransferLog of the last call that used the device
_transfers = {}


@dataclass
class NestReport:
    nest_id: int
    ran_on: str | None              # 'openmp', 'opencl:<device name>', or None (not run yet)
    reason: str
    details: dict = field(default_factory=dict)
    # Seconds (analysis, build, h2d, kernel, d2h, total), counts (cache_hits, tiles,
    # bytes_moved, bytes_touched) and rates (gb_per_s, link_peak_gb_per_s) of a nest that ran
    # on the device; empty otherwise.
    timings: dict = field(default_factory=dict)
    plan: object = None             # the GpuPlan (jitgpu/plan.py, printable) of a nest that ran
    sources: tuple = ()             # the OpenCL source of its kernel(s), one per distinct text
    fused: tuple = ()               # source lines of the nests fused into this one (one kernel)
    # Of a call that ran on the device: the gpurts.record.Record later calls with the same
    # inputs are replayed from (in C++), or why they are not (a str).
    replay: object = None
    # Of a call that ran on the device: the jitgpu.relaunch.Launch later launches of the nest
    # in the same call are relaunched from (only scalars set), or None.
    relaunch: object = None

    @property
    def replayed_calls(self) -> int:
        """Calls after this one that C++ replayed from its record, with no Python."""
        return getattr(self.replay, "calls", 0)

    @classmethod
    def lazy(cls, nest_id, ran_on, reason, fill, **fields) -> "NestReport":
        """A report whose `details` and `timings` come from `fill()` when first read."""
        shared = _Lazy(fill)
        return cls(nest_id, ran_on, reason, _LazyPart(shared, 0), _LazyPart(shared, 1),
                   **fields)

    @property
    def source(self) -> str:
        """The OpenCL source of the nest's kernel ("" when it did not run on the device)."""
        return "\n".join(self.sources)

    def __str__(self):
        return self.describe()

    def describe(self, source: bool = False) -> str:
        where = self.ran_on or "not run yet"
        fused = (f" (fused: the nests at lines {', '.join(map(str, self.fused))})"
                 if self.fused else "")
        text = f"nest {self.nest_id}{fused}: {where} — {self.reason}"
        for key, value in self.details.items():
            text += f"\n    {key}: {value}"
        if isinstance(self.replay, str):
            text += f"\n    replay: later calls take the Python path ({self.replay})"
        elif self.replay is not None:
            text += (f"\n    replay: {self.replayed_calls} later calls replayed from C++ "
                     f"(no Python)")
            if self.replayed_calls:
                fastest, mean = self.replay.seconds()
                text += f", fastest {fastest * 1e3:.3f} ms, mean {mean * 1e3:.3f} ms"
        if self.relaunch is not None:
            text += (f"\n    relaunch: {self.relaunch.relaunches} later launches in the call "
                     f"reused this plan, kernel and buffers (only scalars set)")
        if source and self.plan is not None:
            text += "\n    " + str(self.plan).replace("\n", "\n    ")
        if source and self.sources:
            text += "\n    OpenCL source:\n" + "\n".join(
                "        " + line for line in self.source.splitlines())
        return text


class _Lazy:
    """`fill()`'s value, worked out once, when first needed."""

    def __init__(self, fill):
        self.fill, self.value = fill, None

    def get(self):
        if self.fill is not None:
            self.value, self.fill = self.fill(), None
        return self.value


class _LazyPart(dict):
    """Item `index` of a `_Lazy` pair of dicts, read as a dict."""

    def __init__(self, shared: _Lazy, index: int):
        super().__init__()
        self._shared, self._index = shared, index

    def _load(self):
        if self._shared is not None:
            shared, self._shared = self._shared, None
            dict.update(self, shared.get()[self._index])
        return self

    def __getitem__(self, key):
        return dict.__getitem__(self._load(), key)

    def __contains__(self, key):
        return dict.__contains__(self._load(), key)

    def __iter__(self):
        return dict.__iter__(self._load())

    def __len__(self):
        return dict.__len__(self._load())

    def __eq__(self, other):
        return dict.__eq__(self._load(), other)

    def __repr__(self):
        return dict.__repr__(self._load())

    def get(self, key, default=None):
        return dict.get(self._load(), key, default)

    def keys(self):
        return dict.keys(self._load())

    def items(self):
        return dict.items(self._load())

    def values(self):
        return dict.values(self._load())

    def copy(self):
        return dict(self._load())

    __hash__ = None


@dataclass
class FunctionReport:
    function: str
    compiled: bool
    gpu: bool
    nests: list
    source: bool = False            # explain(f, source=True): also each nest's plan and kernel
    # Copies per array of the last call that used the device: {name: (copy-ins, copy-outs)},
    # delayed copy-backs at the end of the call or at a host access included.
    transfers: dict = field(default_factory=dict)
    # Of a function with several signatures: the one reported (the one Python called last).
    signature: str = ""
    # Nest launches on the device during the last call that launched any, with the host's
    # work per launch (jitgpu.relaunch.CallLaunches), or None.
    launches: object = None

    @property
    def host_us_per_launch(self) -> float:
        """Microseconds of host work (in the hook) per nest launch of the last call."""
        calls = self.launches
        return calls.host_s / calls.launches * 1e6 if calls and calls.launches else 0.0

    def __str__(self):
        if not self.compiled:
            return f"{self.function}: not compiled (runs in the Python interpreter)"
        kind = "@gpu function" if self.gpu else "function"
        lines = [f"{self.function}: compiled {kind}, {len(self.nests)} prange nest(s)"]
        if self.signature:
            lines[0] += f", signature {self.signature} (the one Python called last)"
        lines += ["  " + n.describe(self.source).replace("\n", "\n  ") for n in self.nests]
        if self.transfers:
            copies = sorted(self.transfers.items())
            lines.append("  copies of the last call: " + "; ".join(
                f"{name} {ins} in, {outs} out" for name, (ins, outs) in copies))
        if self.launches is not None and self.launches.launches:
            lines.append(f"  {self.launches}")
        return "\n".join(lines)


def record(module: str, function: str, nest_id: int, nest: NestReport):
    _last.setdefault((module, function), {})[nest_id] = nest


def record_ran(module: str, function: str, nest_id: int, ran_on: str, reason: str, fill,
               **fields) -> NestReport:
    """The report of a nest that ran (`NestReport.lazy`: details and timings from `fill()` when
    first read), recorded as its last call's: the report step of the call path, taken once a
    call by the step that ran the nest (jitgpu/offload.py, jitgpu/multi.py); the hook records
    what it decided itself (the fallbacks)."""
    nest = NestReport.lazy(nest_id, ran_on, reason, fill, **fields)
    record(module, function, nest_id, nest)
    return nest


def record_transfers(module: str, function: str, log) -> None:
    """`log` (a gpurts.residency.TransferLog, filled as the call goes on) is the last call's."""
    _transfers[(module, function)] = log


def explain(f, source: bool = False) -> FunctionReport:
    """The last call of each nest of `f`; with `source`, its printout also shows each nest's
    plan and OpenCL source (also in `report.nests[k].plan` / `.source` either way)."""
    name = getattr(f, "__name__", repr(f))
    module = sys.modules.get(getattr(f, "__module__", None) or "")
    functions = getattr(module, "__unpy_functions__", {})
    # Its compiled functions: one, or one per signature (their own names, its Python name).
    own = [k for k, info in functions.items() if info["name"] == name]
    # The module's own code may have rebound the name to the Python function (UNPY_DISABLE=1).
    if not own or getattr(module, "__unpy_compiled__", {}).get(name) is not f:
        return FunctionReport(name, False, False, [])
    # Of several, the one Python called last (the module's dispatcher notes it).
    function = module.__unpy_called_last__()[name] if len(own) > 1 else own[0]
    info = functions[function]
    signature = info["signature"] if len(own) > 1 else ""
    loopopt = _cpu_transforms(module, function)
    if not info["gpu"]:
        nests = [_with_cpu_transforms(NestReport(k, "openmp", "the function is not marked "
                                                 "@unpython.gpu"), loopopt)
                 for k in range(info["nests"])]
        return FunctionReport(name, True, False, nests, source, signature=signature)
    last = _last.get((module.__name__, function), {})
    loops = _nest_loops(module, function)
    lines = {k: loop["loc"][0] for k, loop in enumerate(loops)}
    ran = {}            # a statement's line -> its nest that ran (one version of it)
    for k in sorted(last):
        ran.setdefault(lines.get(k), k)

    def unrun(k):
        other = ran.get(lines.get(k))
        if other is None or lines.get(k) is None:
            return NestReport(k, None, "not called yet")
        return NestReport(k, None, f"not needed by these calls: nest {other}, of the same "
                                   f"statement (line {lines[k]}), ran instead (a statement "
                                   "has a second version for lengths of 1 found at run "
                                   "time, which broadcast)")
    nests = [_with_cpu_transforms(last.get(k) or unrun(k), loopopt)
             for k in range(info["nests"])]
    # (the source lines of the nests fused into each, unpy/typeinfer/fuse.py)
    fused = {k: tuple(loop["fused"]) for k, loop in enumerate(loops) if loop.get("fused")}
    nests = [dataclasses.replace(n, fused=fused[k]) if fused.get(k) else n
             for k, n in enumerate(nests)]
    log = _transfers.get((module.__name__, function))
    copies = {k: tuple(v) for k, v in log.copies.items()} if log is not None else {}
    launches = _launches_of(module.__name__, function)
    return FunctionReport(name, True, True, nests, source, copies, signature, launches)


# The key of a nest's details that names the C++ path's loop optimisations of a nest that ran
# on OpenMP (unpy/loopopt's optimise_for_cpu, For.transforms).
CPU_TRANSFORMS = "C++ loop optimisations"


def _cpu_transforms(module, function: str) -> list:
    """The C++ path's loop optimisations of each nest of the function, as the build recorded
    them in the module (`__unpy_loopopt__`; none in a module built before it was)."""
    import json
    text = getattr(module, "__unpy_loopopt__", None)
    return json.loads(text).get(function, []) if text else []


def _with_cpu_transforms(nest: NestReport, transforms: list) -> NestReport:
    """`nest` with the C++ path's loop optimisations of its nest among its details, where it
    ran on OpenMP and has some."""
    if nest.ran_on != "openmp" or nest.nest_id >= len(transforms) \
            or not transforms[nest.nest_id]:
        return nest
    return dataclasses.replace(nest, details={
        **nest.details, CPU_TRANSFORMS: ", ".join(transforms[nest.nest_id])})


def _launches_of(module: str, function: str):
    """A copy of the launch counts of the function's last call (jitgpu/relaunch.py)."""
    if "jitgpu.relaunch" not in sys.modules:
        return None
    relaunch = sys.modules["jitgpu.relaunch"]
    relaunch.harvest()
    found = relaunch.RELAUNCHES.calls.get((module, function))
    return dataclasses.replace(found) if found is not None else None


def _nest_loops(module, function: str) -> list:
    """Each nest's loop (its `loc`, `fused` lines, ...), from the nests' IR embedded in the
    module."""
    import json
    return [json.loads(text)["loop"]
            for text in getattr(module, "__unpy_nests__", {}).get(function, ())]


def nests_reported(module: str, function: str) -> tuple:
    """The nest ids of the function that have a report."""
    return tuple(_last.get((module, function), ()))
