"""What `unpython.explain(f)` shows: how each loop nest of a compiled function ran on its last
call, and why."""
from __future__ import annotations

import sys
from dataclasses import dataclass, field

# (module, function) -> {nest_id: NestReport} of the last call of each nest
_last = {}


@dataclass
class NestReport:
    nest_id: int
    ran_on: str | None              # 'openmp', 'opencl:<device name>', or None (not run yet)
    reason: str
    details: dict = field(default_factory=dict)
    # Seconds (analysis, build, h2d, kernel, d2h, total) and counts (cache_hits, tiles,
    # bytes_moved, bytes_touched) of a nest that ran on the device; empty otherwise.
    timings: dict = field(default_factory=dict)

    def __str__(self):
        where = self.ran_on or "not run yet"
        text = f"nest {self.nest_id}: {where} — {self.reason}"
        for key, value in self.details.items():
            text += f"\n    {key}: {value}"
        return text


@dataclass
class FunctionReport:
    function: str
    compiled: bool
    gpu: bool
    nests: list

    def __str__(self):
        if not self.compiled:
            return f"{self.function}: not compiled (runs in the Python interpreter)"
        kind = "@gpu function" if self.gpu else "function"
        lines = [f"{self.function}: compiled {kind}, {len(self.nests)} prange nest(s)"]
        lines += ["  " + str(n).replace("\n", "\n  ") for n in self.nests]
        return "\n".join(lines)


def record(module: str, function: str, nest_id: int, nest: NestReport):
    _last.setdefault((module, function), {})[nest_id] = nest


def explain(f) -> FunctionReport:
    name = getattr(f, "__name__", repr(f))
    module = sys.modules.get(getattr(f, "__module__", None) or "")
    info = getattr(module, "__unpy_functions__", {}).get(name)
    # The module's own code may have rebound the name to the Python function (UNPY_DISABLE=1).
    if info is None or getattr(module, "__unpy_compiled__", {}).get(name) is not f:
        return FunctionReport(name, False, False, [])
    if not info["gpu"]:
        nests = [NestReport(k, "openmp", "the function is not marked @unpython.gpu")
                 for k in range(info["nests"])]
        return FunctionReport(name, True, False, nests)
    last = _last.get((module.__name__, name), {})
    nests = [last.get(k, NestReport(k, None, "not called yet")) for k in range(info["nests"])]
    return FunctionReport(name, True, True, nests)
