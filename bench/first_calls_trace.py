"""Fresh process (run it with a fresh UNPY_CACHE_DIR): each call's ms of an example forced onto
the first GPU while its kernel search runs, the slowest of calls 2..N over their median (issue
20's first-call target: 1.5), and which worker phase (making a candidate: Python; building
one) or garbage collection overlapped each slow call (QUIETSLOW=1: not listed). Run from the
repository root:

    UNPY_CACHE_DIR=$(mktemp -d) python bench/first_calls_trace.py nb65536|mm2048|mm2048d|mm4096 [calls]

bench/first_calls.py measures the default settings without tracing."""
import os, sys, time
from pathlib import Path
ROOT = Path.cwd()
sys.path[:0] = [str(ROOT), str(ROOT / "examples"), str(ROOT / "bench")]
os.environ["UNPY_FORCE_GPU"] = "1"
os.environ["UNPY_DEVICE"] = "gpu0"
import numpy as np
from cpu import unpy_module
import unpython
from jitgpu import search
phases = []
def wrap(name, fn):
    def inner(*a, **k):
        t = time.perf_counter()
        try:
            return fn(*a, **k)
        finally:
            phases.append((name, t, time.perf_counter()))
    return inner
import gc
_gc_start = {}
def _gc(phase, info):
    if phase == "start":
        _gc_start["t"] = time.perf_counter()
    else:
        phases.append((f"gc{info['generation']}c{info['collected']}", _gc_start.get("t", time.perf_counter()), time.perf_counter()))
gc.callbacks.append(_gc)
search.made = wrap("make", search.made)
search._built = wrap("build", search._built)
from jitgpu import offload
for name in ("prepared_call",):
    if hasattr(offload, name):
        setattr(offload, name, wrap("py-" + name, getattr(offload, name)))
which = sys.argv[1]
kernel, func, n, dtype = {"mm4096": ("mmult", "mmult_f32", 4096, np.float32),
                          "mm2048": ("mmult", "mmult_f32", 2048, np.float32),
                          "mm2048d": ("mmult", "mmult_f64", 2048, np.float64),
                          "nb65536": ("nbody", "nbody_f32", 65536, np.float32)}[which]
mod, note = unpy_module(kernel)
import _harness
case = next(c for c in _harness.interpreted(kernel).CASES if c.func == func)
args = case.args(n)
f = getattr(mod, func)
calls = []
FREEZE = os.environ.get("FREEZE") == "1"
for k in range(int(sys.argv[2]) if len(sys.argv) > 2 else 60):
    t = time.perf_counter(); f(*args); calls.append((t, time.perf_counter()))
    if k == 0:
        print("objects tracked after the first call:", len(gc.get_objects()), "counts", gc.get_count(), "frozen", gc.get_freeze_count(), flush=True)
        if FREEZE:
            gc.freeze()
ms = [(b - a) * 1e3 for a, b in calls]
print(which, "max of calls 2-%d / median: %.2f" % (len(ms), max(ms[1:]) / sorted(ms[1:])[len(ms[1:]) // 2]))
steady = sorted(ms[1:])[len(ms[1:]) // 2]
print(which, "median", f"{steady:.1f}", "calls", " ".join(f"{x:.1f}" for x in ms[:100]))
if len(ms) > 100:
    print(which, "calls over 1.5x the median:", [(k, round(x, 1)) for k, x in enumerate(ms) if k and x > 1.5 * steady][:40])
    print(which, "median of calls 2-50 / 51-100 / last 100:", *[round(sorted(c)[len(c)//2], 2) for c in (ms[1:50], ms[50:100], ms[-100:])])
    print(which, "explain:", str(unpython.explain(f)).split("search chose")[-1][:200] if "search chose" in str(unpython.explain(f)) else "")
for k, (a, b) in enumerate(calls[1:], 1):
    over = [f"{p}({(min(b, e) - max(a, s)) * 1e3:.0f}ms)" for p, s, e in phases if s < b and e > a]
    if ms[k] > 2 * steady and os.environ.get("QUIETSLOW") != "1":
        print(f"  slow call {k}: {ms[k]:.1f} ms overlapping {over or 'nothing'}")
busy = sum(e - s for _, s, e in phases)
print(f"  worker: {sum(p == 'make' for p, _, _ in phases)} makes "
      f"{sum(e - s for p, s, e in phases if p == 'make'):.2f} s, "
      f"{sum(p == 'build' for p, _, _ in phases)} builds "
      f"{sum(e - s for p, s, e in phases if p == 'build'):.2f} s; calls total {sum(ms[1:]) / 1e3:.2f} s",
      flush=True)
