"""Draws in compiled code (bench/draw_calls/draws.py): ns per call of a function that makes one
draw (beside one that makes none: the call's own cost), ns per draw in a loop of 10,000 and in an
array of 100,000 (size=). With
several --trees (e.g. `before=/tmp/rng-before,after=.`), each tree builds the module in a cache
of its own, then the trees are timed in turns, each turn a process of its own per tree: a cell
is the median over the turns of the best of 5 timeit repeats. Opt-in (not a test).

    python bench/draw_calls.py [--trees after=.] [--turns 5] [--out FILE.md]

Prints the table, and appends it to --out where given.
"""
from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from build_time import built_module     # (bench/, this script's folder, is on sys.path)

ROOT = Path(__file__).resolve().parents[1]
MODULE = ROOT / "bench" / "draw_calls" / "draws.py"
LOOP = 10_000
CALLS = {   # label: (statement, draws it makes)
    "no draw (the call)": ("m.no_draw(1)", 1),
    "np.random.random()": ("m.one_random(1)", 1),
    "np.random.randn()": ("m.one_randn(1)", 1),
    "np.random.randint(0, 10)": ("m.one_randint(1)", 1),
    "random.random()": ("m.one_python_random(1)", 1),
    "np.random.poisson(3.0)": ("m.one_poisson(1)", 1),
    "loop of np.random.random()": (f"m.loop_random({LOOP})", LOOP),
    "loop of np.random.randn()": (f"m.loop_randn({LOOP})", LOOP),
    "loop of random.random()": (f"m.loop_python_random({LOOP})", LOOP),
    "loop of np.random.poisson(3.0)": (f"m.loop_poisson({LOOP})", LOOP),
    "np.random.random(100_000)": ("m.array_random(100_000)", 100_000),
    "np.random.standard_normal(100_000)": ("m.array_randn(100_000)", 100_000),
}
TIMER = r"""
import json, sys, timeit
sys.path.insert(0, sys.argv[1])
import draws as m
out = {}
for label, (stmt, draws) in json.loads(sys.argv[2]).items():
    timer = timeit.Timer(stmt, globals=globals())
    n = max(3, 20000 // draws)
    out[label] = min(timer.repeat(5, n)) / n / draws * 1e9
print(json.dumps(out))
"""


def timed(folder: str, env: dict) -> dict:
    done = subprocess.run([sys.executable, "-c", TIMER, folder, json.dumps(CALLS)], env=env,
                          cwd=folder, check=True, capture_output=True, text=True)
    return json.loads(done.stdout)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--trees", default="after=.", help="label=path,... (unpy source trees)")
    p.add_argument("--turns", type=int, default=5)
    p.add_argument("--out", default=None)
    args = p.parse_args(argv)
    trees = [(label, Path(path).resolve()) for label, path in
             (item.split("=", 1) for item in args.trees.split(","))]
    with tempfile.TemporaryDirectory(prefix="unpy-draws-") as tmp:
        folders = {label: os.path.join(tmp, label) for label, _ in trees}
        modules = {label: (folders[label], built_module(tree, MODULE, folders[label]))
                   for label, tree in trees}
        turns = {label: [] for label, _ in trees}
        for _ in range(args.turns):
            for label, _ in trees:
                turns[label].append(timed(*modules[label]))
    results = {label: {call: statistics.median(t[call] for t in runs) for call in CALLS}
               for label, runs in turns.items()}
    lines = [f"\n## {datetime.datetime.now():%Y-%m-%d %H:%M}, {platform.node()}, "
             f"{os.cpu_count()} cores, Python {platform.python_version()}, load "
             f"{os.getloadavg()[0]:.2f}, median of {args.turns} turns\n",
             "| draws | " + " | ".join(f"{label}" for label, _ in trees) + " |",
             "|---|" + "---:|" * len(trees)]
    for call, (_, draws) in CALLS.items():
        unit = "ns a draw" if draws > 1 else "ns a call"
        lines.append(f"| {call} ({unit}) | " + " | ".join(
            f"{results[label][call]:.1f}" if draws > 1 else f"{results[label][call]:.0f}"
            for label, _ in trees) + " |")
    print("\n".join(lines))
    if args.out:
        with open(args.out, "a") as f:
            f.write("\n".join(lines) + "\n")
        print(f"appended to {args.out}")


if __name__ == "__main__":
    main()
