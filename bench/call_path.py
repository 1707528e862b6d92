"""The call path's crossings (issue 20 items 1 and 6): how many package modules a repeated call
that goes through Python crosses, how often control comes back by a call into a module it had
left, and how many times a first split call runs the transfer analysis per range. Counts, not
times: the same on every machine for the same tree (tests/jitgpu/test_call_path.py pins them).

The call: `mmult_f64` of examples/mmult.py (n=64, the layout of every call the same), forced onto
the CPU OpenCL device (UNPY_FORCE_GPU=1, UNPY_DEVICE=cpu), with UNPY_REPLAY=0 so that repeated
calls come through Python instead of being replayed from C++. That is the path of every layout
the replay refuses (a nest with reductions, several parts, a search still timing, data kept on
the device, UNPY_LOG=info): the same steps, up to the replay's reason for refusing. The split:
UNPY_DEVICE=cpu,cpu, two contexts of the CPU device as two participants (as
tests/jitgpu/test_split_run.py gets two); and UNPY_DEVICE=cpu,openmp, the device beside the
OpenMP code (the compiled caller runs its range, then hands its results to
`jitgpu.multi.finish_split`: a second entry from C++ in the same call, counted with the first).

How the call is counted (`trace`), with `sys.setprofile` in the calling thread from the compiled
function's entry to its return (a device part's own thread, gpurts/concurrent.py, is not
followed):
- a Python function's start or a generator's resumption is a *call*; its *module* is its file's
  (jitgpu/*, gpurts/*, unpy/*, unpython.py: the package); a function of any other file (NumPy,
  pyopencl, the standard library) belongs to the package module that called it;
- a *crossing* is a call whose module is not that of the function that made it;
- `modules`: the distinct modules entered by crossings (the compiled caller's entry counts);
- `returns`: crossings into a module that control had entered before in this call and left
  since, by calling out or returning: a step calling back into an earlier one (a module called
  twice by one step counts once for the second call; one read of the settings from two steps
  counts once too);
- `cycles`: of those, crossings into a module whose function is still running lower down the
  stack (A calls B calls A);
- two levels: *all* follows every package function; *steps* follows only the call path itself,
  the crossings made by functions of jitgpu/ and unpython.py (the runtime, gpurts, and the
  libraries under unpy/ count where the call path enters them; what they call inside themselves
  is theirs, not a step of the call).
`analyses`: calls of `jitgpu.plan.plan_transfers` (the CSLMAD analysis of one nest or range,
tiles cut from it where it does not fit) during the first call of a layout, per range: the
values [lo, hi) of each parallel loop level (a split's part restricts the outer one, a tile of
two levels the next one too).

    UNPY_CACHE_DIR=... python bench/call_path.py [--calls 12] [--show]

Prints a table (and with --show each call's crossings at the steps' level).
"""
from __future__ import annotations

import argparse
import collections
import os
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ("jitgpu/", "gpurts/", "unpy/")
STEPS = ("jitgpu.", "unpython")     # the modules of the call path itself (the `steps` level)


def module_of(filename: str, root: str = str(ROOT)) -> str | None:
    """The package module of a source file ('jitgpu.offload'), or None outside the package."""
    if not filename.startswith(root + os.sep):
        return None
    rel = filename[len(root) + 1:]
    if rel == "unpython.py":
        return "unpython"
    if rel.startswith(PACKAGE) and rel.endswith(".py"):
        return rel[:-3].replace(os.sep, ".").removesuffix(".__init__")
    return None


@dataclass(frozen=True)
class PathCount:
    """The crossings of one call at one level (see the module docstring)."""
    modules: tuple          # in the order first entered
    returns: int
    cycles: int
    crossings: tuple        # ((from, to, function, is a return), ...)

    def __str__(self):
        return f"{len(self.modules)} modules, {self.returns} returns ({self.cycles} cycles)"


def trace(run, root: str = str(ROOT)) -> dict:
    """{'all': PathCount, 'steps': PathCount} of `run()` (see the module docstring)."""
    names = {}

    def name(code):
        found = names.get(code, 0)
        if found == 0:
            found = names[code] = module_of(code.co_filename, root)
        return found

    crossings = {"all": [], "steps": []}

    def profile(frame, event, arg):
        if event != "call":
            return
        callee = name(frame.f_code)
        if callee is None:
            return
        caller, stack = None, []
        back = frame.f_back
        while back is not None:
            module = name(back.f_code)
            if module is not None:
                if caller is None:
                    caller = module
                stack.append(module)
            back = back.f_back
        if caller == callee:
            return
        crossing = (caller, callee, frame.f_code.co_name, callee in stack)
        crossings["all"].append(crossing)
        if caller is None or caller.startswith(STEPS):
            crossings["steps"].append(crossing)

    sys.setprofile(profile)
    try:
        run()
    finally:
        sys.setprofile(None)
    return {level: count(found) for level, found in crossings.items()}


def count(crossings) -> PathCount:
    entered, marked, returns, cycles = [], [], 0, 0
    for caller, callee, function, on_stack in crossings:
        again = callee in entered
        returns += again
        cycles += again and on_stack
        if not again:
            entered.append(callee)
        marked.append((caller, callee, function, again))
    return PathCount(tuple(entered), returns, cycles, tuple(marked))


def analyses(run) -> dict:
    """{((first, last + step) of each parallel level's values, ...): transfer analyses} during
    `run()`."""
    found = collections.Counter()
    import jitgpu.plan
    code = jitgpu.plan.plan_transfers.__code__

    def profile(frame, event, arg):
        if event == "call" and frame.f_code is code:
            instance = frame.f_locals["instance"]
            boxes = (instance.boxes[level.var] for level in instance.levels)
            found[tuple((box.lo, box.lo + box.step * box.extent) for box in boxes)] += 1

    sys.setprofile(profile)
    try:
        run()
    finally:
        sys.setprofile(None)
    return dict(found)


def built_mmult(folder: str):
    """examples/mmult.py compiled into `folder`, imported."""
    import importlib.util
    from unpy.cpp_emit.build import build
    so = build(str(ROOT / "examples" / "mmult.py"), folder).output
    spec = importlib.util.spec_from_file_location("mmult", so)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def arrays(n: int = 64):
    import numpy as np
    rng = np.random.default_rng(0)
    return rng.random((n, n)), rng.random((n, n)), np.zeros((n, n))


def measure(module, device: str, calls: int) -> dict:
    """The first call's analyses, then each later call's crossings, for UNPY_DEVICE=`device`
    (in a fresh session: jitgpu.session.forget)."""
    import unpython
    from jitgpu import session
    os.environ.update(UNPY_DEVICE=device, UNPY_FORCE_GPU="1", UNPY_REPLAY="0")
    session.forget()
    a, b, c = arrays()
    f = module.mmult_f64
    first = analyses(lambda: f(a, b, c))
    repeated = [trace(lambda: f(a, b, c)) for _ in range(calls - 1)]
    expected = a @ b
    assert abs(c - expected).max() < 1e-9, "the device's result differs from NumPy's"
    return {"analyses": first, "calls": repeated, "ran_on": unpython.explain(f).nests[0].ran_on}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=12)
    parser.add_argument("--show", action="store_true")
    args = parser.parse_args(argv)
    sys.path[:0] = [str(ROOT), str(ROOT / "examples")]
    with tempfile.TemporaryDirectory(prefix="unpy-call-path-") as folder:
        module = built_mmult(folder)
        rows = {"one device": measure(module, "cpu", args.calls),
                "split over two contexts": measure(module, "cpu,cpu", args.calls),
                "split beside the OpenMP code": measure(module, "cpu,openmp", args.calls)}
    print("| call path | first call: analyses per range [lo, hi) | repeated call: modules, "
          "returns (cycles), all | the same, steps | ran on |")
    print("|---|---|---|---|---|")
    for label, row in rows.items():
        ranges = ", ".join(" x ".join(f"[{lo}, {hi})" for lo, hi in levels) + f": {k}"
                           for levels, k in sorted(row["analyses"].items()))
        last = row["calls"][-1]
        print(f"| {label} | {ranges} | {last['all']} | {last['steps']} | {row['ran_on']} |")
        if args.show:
            for k, call in enumerate(row["calls"], 2):
                print(f"  call {k}: all {call['all']}; steps {call['steps']}")
            for caller, callee, function, again in row["calls"][-1]["steps"].crossings:
                print(f"    {caller} -> {callee}.{function}{'  (return)' if again else ''}")
            print("    modules:", ", ".join(row["calls"][-1]["steps"].modules))
    return 0


if __name__ == "__main__":
    sys.exit(main())
