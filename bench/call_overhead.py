"""The cost of a compiled call from Python (the glue: arguments bound and converted, the GIL
released, the result converted), on functions that do almost nothing
(bench/call_overhead/calls.py). With several --trees (e.g. `before=/tmp/head`), each tree
builds the module in a fresh cache and is timed in a process of its own. A cell: the median
over 7 rounds of the best of 5 timeit repeats, ns per call. Opt-in (not a test).

    python bench/call_overhead.py [--trees after=.] [--out bench/results]

Appends a table to <out>/call-overhead-<cores>core.md.
"""
from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import subprocess
import sys
import tempfile
from pathlib import Path

from build_time import built_module     # (bench/, this script's folder, is on sys.path)

ROOT = Path(__file__).resolve().parents[1]
MODULE = ROOT / "bench" / "call_overhead" / "calls.py"
CALLS = {
    "scalar(1.5)": "m.scalar(1.5)",
    "first(a)": "m.first(a)",
    "axpy(x, y) (a default)": "m.axpy(x, y)",
    "axpy(x, y, alpha=3.0)": "m.axpy(x, y, alpha=3.0)",
    "doubled(a) (a new array)": "m.doubled(a)",
}
TIMER = r"""
import json, statistics, sys, timeit
import numpy as np
sys.path.insert(0, sys.argv[1])
import calls as m
a = np.ones(4); x = np.ones(4); y = np.zeros(4)
out = {}
for label, stmt in json.loads(sys.argv[2]).items():
    timer = timeit.Timer(stmt, globals=globals())
    n = 20000
    out[label] = statistics.median(min(timer.repeat(5, n)) / n * 1e9 for _ in range(7))
print(json.dumps(out))
"""


def timed(tree: Path) -> dict:
    """ns per call of each of CALLS, with the module built by the unpy of `tree`."""
    with tempfile.TemporaryDirectory(prefix="unpy-calls-") as tmp:
        env = built_module(tree, MODULE, tmp)
        done = subprocess.run([sys.executable, "-c", TIMER, tmp, json.dumps(CALLS)], env=env,
                              cwd=tmp, check=True, capture_output=True, text=True)
        return json.loads(done.stdout)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--trees", default="after=.", help="label=path,... (unpy source trees)")
    p.add_argument("--out", default=str(ROOT / "bench" / "results"))
    args = p.parse_args(argv)
    trees = [(label, Path(path).resolve()) for label, path in
             (item.split("=", 1) for item in args.trees.split(","))]
    results = {label: timed(tree) for label, tree in trees}
    cores = os.cpu_count()
    lines = [f"\n## {datetime.datetime.now():%Y-%m-%d %H:%M}, {platform.node()}, {cores} cores, "
             f"Python {platform.python_version()}, load {os.getloadavg()[0]:.2f}\n",
             "| call | " + " | ".join(f"{label} (ns)" for label, _ in trees) + " |",
             "|---|" + "---:|" * len(trees)]
    lines += [f"| `{label}` | " + " | ".join(f"{results[t][label]:.0f}" for t, _ in trees) + " |"
              for label in CALLS]
    print("\n".join(lines))
    out = Path(args.out) / f"call-overhead-{cores}core.md"
    new = not out.exists()
    with open(out, "a") as f:
        if new:
            f.write("# The cost of a compiled call from Python (bench/call_overhead.py)\n")
        f.write("\n".join(lines) + "\n")
    print(f"appended to {out}")


if __name__ == "__main__":
    main()
