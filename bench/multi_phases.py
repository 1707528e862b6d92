"""Where a split call's time goes beyond its slowest part (docs/gpu.md "Several devices", issue
8): one example nest split across the devices of --devices with UNPY_FORCE_GPU=1, each call
timed on one timeline, and the median of each segment over --calls calls after --warm untimed
ones:
- call -> hook: the compiled caller up to jitgpu.hook.run_nest;
- hook -> parts start: device spec, layout and shares lookups, the prepared split, the hand-off
  of the parts to their threads;
- per device: parts start -> its first run_part (the hand-off), and its run_part seconds;
- the slowest part (parts start to the end of the slowest, its write-back included where the
  plan lets it write back on its own), then the rest of the call: the join, the write-back of
  the parts not written early, the reductions, the shares' update and the report, the return.

    python bench/multi_phases.py [--kernel mmult] [--case 0] [--n 2048] [--calls 30]
        [--devices gpu0,gpu1]
    UNPY_CACHE_DIR=... python bench/multi_phases.py --devices cpu,cpu --n 256   # no GPU

The segments come from wrappers of jitgpu/gpurts functions made here, so they cost a few
microseconds themselves; the call's own median is printed beside them.
"""
from __future__ import annotations

import argparse
import collections
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "examples"), str(ROOT / "bench")]

import _harness  # noqa: E402
from cpu import unpy_module  # noqa: E402
from gpurts import concurrent  # noqa: E402
from jitgpu import hook, multi  # noqa: E402

now = time.perf_counter
marks: dict = {}


def stamp(owner, name, before=None, after=None):
    """Wrap `owner.name` so that each call notes `before` and `after` in `marks`."""
    inner = getattr(owner, name)

    def wrapped(*args, **kwargs):
        if before:
            marks[before] = now()
        try:
            return inner(*args, **kwargs)
        finally:
            if after:
                marks[after] = now()
    setattr(owner, name, wrapped)


def instrument():
    stamp(hook, "run_nest", "hook in", "hook out")
    stamp(multi, "_learn", "learn in", "learn out")
    stamp(concurrent.ConcurrentRun, "finish", None, "finish out")
    stamp(concurrent.ConcurrentRun, "wait", None, "joined")
    stamp(concurrent, "write_back", "write in", "write out")
    run_part = concurrent.run_part

    def timed_part(device, *args, **kwargs):
        start = now()
        try:
            return run_part(device, *args, **kwargs)
        finally:
            marks.setdefault("parts", []).append((device.label, start, now()))
    concurrent.run_part = timed_part
    seconds = concurrent.ConcurrentRun.seconds

    def noted(self):
        found = seconds(self)
        marks["started"], marks["slowest"] = self.started, max(found.values())
        return found
    concurrent.ConcurrentRun.seconds = noted


def segments(total) -> dict:
    """{segment: seconds} of the call whose marks were just taken (`total`: its seconds)."""
    end = marks["started"] + marks["slowest"]
    found = {"call": total, "slowest part": marks["slowest"],
             "beyond the slowest part": total - marks["slowest"],
             "  call -> hook": marks["hook in"] - marks["t0"],
             "  hook -> parts start": marks["started"] - marks["hook in"]}
    firsts = {}
    for label, start, stop in marks["parts"]:
        first = firsts.setdefault(label, [start, 0.0])
        first[1] += stop - start
    for k, (label, (start, busy)) in enumerate(sorted(firsts.items())):
        found[f"  [device {k}] hand-off to its first run_part"] = start - marks["started"]
        found[f"  [device {k}] run_part"] = busy
    found["  slowest part's end -> join returns"] = marks["joined"] - end
    # The finish's own write-back (parts not written early); the marks of an early part's
    # write-back, from a feeding thread, come before the join.
    late = marks.get("write in", 0.0) >= marks["joined"]
    found["  write-back of the parts not written early"] = (
        marks["write out"] - marks["write in"] if late else 0.0)
    found["  the rest of finish (reductions, kits)"] = (
        marks["finish out"] - marks["joined"]
        - found["  write-back of the parts not written early"])
    found["  shares' update and report (_learn)"] = marks["learn out"] - marks["learn in"]
    found["  _learn -> hook returns"] = marks["hook out"] - marks["learn out"]
    found["  hook returns -> call returns"] = marks["t1"] - marks["hook out"]
    return found


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kernel", default="mmult")
    parser.add_argument("--case", type=int, default=0, help="index into the example's CASES")
    parser.add_argument("--n", type=int, default=2048)
    parser.add_argument("--calls", type=int, default=30)
    parser.add_argument("--warm", type=int, default=6)
    parser.add_argument("--devices", default=os.environ.get("UNPY_DEVICE") or "gpu0,gpu1")
    options = parser.parse_args(argv)
    os.environ.update(UNPY_DEVICE=options.devices, UNPY_FORCE_GPU="1")
    module, note = unpy_module(options.kernel)
    if module is None:
        print(f"{options.kernel}: {note}")
        return 1
    case = module.CASES[options.case]
    args = case.args(options.n)
    call, output = _harness.timed_caller(case, getattr(module, case.func), args)
    instrument()
    for _ in range(options.warm):
        call()
    if not _harness.matches(output, case.expected(args), case.rtol):
        print(f"{case.label} n={options.n}: WRONG result")
        return 1
    rows = collections.defaultdict(list)
    for _ in range(options.calls):
        marks.clear()
        total = call()
        marks["t1"] = now()
        marks["t0"] = marks["t1"] - total
        if "started" not in marks:      # not split (one participant alone, or refused)
            continue
        for name, seconds in segments(total).items():
            rows[name].append(seconds)
    import unpython
    nest = unpython.explain(getattr(module, case.func)).nests[0]
    print(f"{case.label} n={options.n} UNPY_DEVICE={options.devices}: ran on {nest.ran_on}; "
          f"shares {nest.timings.get('shares')}; median of {len(rows['call'])} split calls, ms")
    for name, values in rows.items():
        print(f"  {name:58s} {statistics.median(values) * 1e3:9.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
