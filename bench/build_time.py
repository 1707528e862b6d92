"""Build time of `unpy build` (issue 23 item 2): modules of 1, 2, 3, ~30 and ~100 functions,
each built from a clean cache (a fresh UNPY_CACHE_DIR: nothing is shared with other builds),
in a subprocess as a user runs it. With several --trees (e.g. `before=/tmp/head` from
`git archive HEAD | tar -x -C /tmp/head`, and `after=.`), their builds of each module alternate,
so that a shared machine's load falls on all alike. A cell: the median wall time over --repeat
builds, and the median CPU time of the build (user + sys of `unpy build` and its compilers),
in s; the 1-minute load average is noted before each module. The cache of each build holds the
runtime's compiled objects and precompiled headers, as after the first build on a machine (which compiles them once per
set of flags: the row "first build" measures that). Opt-in (not a test).

    python bench/build_time.py [--repeat 3] [--trees after=.] [--out bench/results]
        [--modules examples/stencil.py,...]

Appends a table to <out>/build-time-<cores>core.md.
"""
from __future__ import annotations

import argparse
import datetime
import os
import platform
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MODULES = ["examples/stencil.py", "examples/mmult.py", "bench/build_time/three.py",
           "tests/kernels/loops.py", "tests/kernels/numpy_exprs.py"]


def functions_of(path: Path) -> int:
    """The module's Python functions with signatures (a function with several counts once)."""
    lines = path.read_text().splitlines()
    return sum(line.startswith("def ") and lines[k - 1].lstrip().startswith("@unpython.type(")
               for k, line in enumerate(lines) if k)


def python_path(tree: Path) -> str:
    """PYTHONPATH with `tree` first (the rest kept: a machine without a venv may have the
    dependencies there)."""
    return os.pathsep.join([str(tree)] + [p for p in [os.environ.get("PYTHONPATH")] if p])


def built_module(tree: Path, module: Path, folder: str) -> dict:
    """`module` built by the unpy of `tree` into `folder`, with a build cache of its own there;
    the environment that imports it (PYTHONPATH of `tree`, OMP_WAIT_POLICY=passive)."""
    env = dict(os.environ, UNPY_CACHE_DIR=os.path.join(folder, "cache"),
               PYTHONPATH=python_path(tree), OMP_WAIT_POLICY="passive")
    subprocess.run([sys.executable, "-m", "unpy.cli", "build", str(module), "-o", folder],
                   check=True, env=env, cwd=tree, stdout=subprocess.DEVNULL)
    return env


def build_seconds(tree: Path, path: Path, runtime: Path | None = None) -> tuple:
    """(wall s, compiler CPU s) of one `unpy build` of `path` with the unpy of `tree`, from a
    clean cache, into a temporary folder; `runtime`: a cache folder whose compiled objects (the
    runtime's, unpy_python.cpp) and precompiled headers are copied in first, as a user's cache
    holds them after the first build on the machine."""
    with tempfile.TemporaryDirectory(prefix="unpy-bt-") as tmp:
        cache = os.path.join(tmp, "cache")
        for kept in ("objects", "pch") if runtime is not None else ():
            if (runtime / "build" / kept).exists():
                shutil.copytree(runtime / "build" / kept, os.path.join(cache, "build", kept))
        env = dict(os.environ, UNPY_CACHE_DIR=cache, OMP_WAIT_POLICY="passive",
                   PYTHONPATH=python_path(tree))
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.perf_counter()
        subprocess.run([sys.executable, "-m", "unpy.cli", "build", str(path), "-o", tmp],
                       check=True, env=env, cwd=tree, stdout=subprocess.DEVNULL)
        wall = time.perf_counter() - started
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


WARM_UP = """import unpython


@unpython.type('float64', 'float64')
def warm_up(x):
    return x
"""


def warm_runtime(tree: Path, folder: Path) -> Path:
    """A cache folder holding what the first build on a machine leaves: `tree`'s runtime
    compiled (by building a module of one function that no measured module holds)."""
    env = dict(os.environ, UNPY_CACHE_DIR=str(folder), PYTHONPATH=python_path(tree))
    with tempfile.TemporaryDirectory(prefix="unpy-bt-") as out:
        source = Path(out) / "warm_up.py"
        source.write_text(WARM_UP)
        subprocess.run([sys.executable, "-m", "unpy.cli", "build", str(source), "-o", out],
                       check=True, env=env, cwd=tree, stdout=subprocess.DEVNULL)
    return folder


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--trees", default="after=.", help="label=path,... (unpy source trees)")
    p.add_argument("--out", default=str(ROOT / "bench" / "results"))
    p.add_argument("--modules", default=",".join(MODULES))
    args = p.parse_args(argv)
    trees = [(label, Path(path).resolve()) for label, path in
             (item.split("=", 1) for item in args.trees.split(","))]
    rows = []
    warm = tempfile.TemporaryDirectory(prefix="unpy-bt-warm-")
    runtimes = {label: warm_runtime(tree, Path(warm.name) / label) for label, tree in trees}
    for name in args.modules.split(","):
        path = ROOT / name
        load = os.getloadavg()[0]
        runs = {label: [] for label, _ in trees}
        for _ in range(args.repeat):
            for label, tree in trees:
                runs[label].append(build_seconds(tree, path, runtimes[label]))
        cells = []
        for label, _ in trees:
            wall = statistics.median(w for w, _ in runs[label])
            cpu = statistics.median(c for _, c in runs[label])
            cells.append(f"{wall:.1f} ({cpu:.1f})")
        rows.append(f"| {name} | {functions_of(path)} | {load:.2f} | " + " | ".join(cells) + " |")
        print(rows[-1], flush=True)
    first = [build_seconds(tree, ROOT / "bench" / "build_time" / "three.py") for _, tree in trees]
    rows.append(f"| first build (empty cache): bench/build_time/three.py | 3 | "
                f"{os.getloadavg()[0]:.2f} | " + " | ".join(f"{w:.1f} ({c:.1f})" for w, c in first)
                + " |")
    print(rows[-1], flush=True)
    cores = os.cpu_count()
    compiler = subprocess.run([os.environ.get("CXX", "g++"), "--version"], capture_output=True,
                              text=True).stdout.splitlines()[0]
    labels = " | ".join(f"{label}: wall (CPU) s" for label, _ in trees)
    lines = [f"\n## {datetime.datetime.now():%Y-%m-%d %H:%M}, {platform.node()}, {cores} cores, "
             f"{compiler}, {args.repeat} build(s) each\n",
             f"| module | functions | load (1 min) | {labels} |",
             "|---|---:|---:|" + "---:|" * len(trees)] + rows
    out = Path(args.out) / f"build-time-{cores}core.md"
    with open(out, "a") as f:
        f.write("\n".join(lines) + "\n")
    print(f"appended to {out}")


if __name__ == "__main__":
    main()
