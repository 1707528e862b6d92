"""A change's before and after against Numba: functions of bench/numba_parity.py timed with the
unpy of another tree (the before), with this tree's (the after) and with Numba parallel=True,
in one process, on the same inputs.

    git archive main | tar -x -C /tmp/before
    .venv/bin/python bench/numba_parity_ab.py --before /tmp/before --kernels 'iteration.*,...'
        [--rounds 3] [--quick] [--out bench/results/....md]

Each file is built by each tree's unpy (the before tree's own copy of the file: a function the
after added is timed by the after and Numba only); the functions are checked as numba_parity
checks them (this tree's build against the interpreter, Numba's too) and sized as it sizes them
(this tree's build); the before's result is compared with the after's at that size. Then
`--rounds` rounds of the three columns, each column timed as numba_parity times one (warm-up,
the median of its timed calls, written arrays restored untimed); a column's time is the median
of its rounds. Threads as numba_parity: OMP_NUM_THREADS / NUMBA_NUM_THREADS where set.
"""
from __future__ import annotations

import argparse
import datetime
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numba_parity as par
from numpy_expr import cpu_model, load_average, unpy_revision


def build_before(before: Path, paths: list, out_dir: Path) -> dict:
    """{path: the module built by the before tree's unpy from its own copy of the file, or
    None}; checked to be the before's (its unpy package imported from `before`)."""
    # The before tree in place of this one, the other entries (installed packages) kept.
    kept = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep)
            if p and Path(p).resolve() != par.ROOT]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(before)] + kept))
    where = subprocess.run([sys.executable, "-P", "-c", "import unpy; print(unpy.__file__)"],
                           env=env, cwd=str(before), capture_output=True, text=True).stdout
    if not where.startswith(str(before)):
        raise SystemExit(f"the before tree's unpy is not the one imported: {where!r}")
    shutil.rmtree(out_dir, ignore_errors=True)
    out_dir.mkdir(parents=True)
    built = {}
    for path in paths:
        source = before / Path(path).relative_to(par.ROOT)
        if not source.exists():
            built[path] = None
            continue
        # (-P, and run from the before tree: `-c` would put the current folder, this tree,
        # ahead of PYTHONPATH)
        done = subprocess.run([sys.executable, "-P", "-c", "import sys; from unpy.cli import "
                               "main; sys.exit(main())", "build", str(source), "-o",
                               str(out_dir)], env=env, cwd=str(before), capture_output=True,
                              text=True)
        found = sorted(out_dir.glob(f"{Path(path).stem}.*.so"))
        built[path] = str(found[0]) if done.returncode == 0 and found else None
        if built[path] is None:
            print(f"  {Path(path).name}: the before did not build: "
                  f"{(done.stderr.strip().splitlines() or [''])[-1]}", flush=True)
    return built


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", type=Path, required=True)
    parser.add_argument("--kernels", default="")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--out", type=Path)
    options = parser.parse_args(argv)
    repeat, min_seconds, warmup, cap = (3, 0.05, 0.05, 4 * 2**20) if options.quick else (
        7, 0.25, 0.2, 16 * 2**20)
    timer = par.Timer(repeat, min_seconds, warmup, 3.0 if options.quick else 8.0)
    os.environ["UNPY_DEVICE"] = "none"
    cache = tempfile.mkdtemp(prefix="numba-parity-ab-")
    os.environ["NUMBA_CACHE_DIR"] = cache
    started, load_before = time.perf_counter(), load_average()
    rows = []
    try:
        targets = par.find_targets([p for p in options.kernels.split(",") if p])
        paths = sorted({t.path for t in targets})
        built = par.build_all(paths)
        before_built = build_before(options.before.resolve(), paths,
                                    par.BUILD_DIR.parent / "numba_parity_before")
        print(f"{len(targets)} functions built in {time.perf_counter() - started:.0f} s; "
              "checking", flush=True)
        checked = par.check_in_processes(targets, built, options.workers, cache)
        before_modules = {}
        for target in targets:
            c = checked[target.label]
            if c.skipped or not par.agrees(c.unpy) or built[target.path].error:
                print(f"  {target.label}: skipped ({c.skipped or c.unpy})", flush=True)
                continue
            inputs = par.Inputs(target, tuple(c.ints))
            after = getattr(par.compiled(target.path, built[target.path].output), target.name)
            n, _, note = par.pick_size(after, inputs, cap, timer.limit)
            if n is None:
                print(f"  {target.label}: skipped ({note})", flush=True)
                continue
            args = inputs.make(n)
            columns = {"after": after}
            if before_built[target.path]:
                if target.path not in before_modules:
                    before_modules[target.path] = par.load_module(
                        Path(target.path).stem, before_built[target.path])
                before = getattr(before_modules[target.path], target.name, None)
                if before is not None:
                    ours, theirs = par.run_once(after, args), par.run_once(before, args)
                    differs = par.result_difference(ours, theirs, par.tolerance(args, ours.value))
                    if differs:
                        note = f"before and after differ: the after's {differs}"
                    columns["before"] = before
            if par.agrees(c.numba):
                columns["numba"] = getattr(par.numba_twins(target.path), target.name)
            times = {k: [] for k in columns}
            for _ in range(options.rounds):
                for k in ("before", "after", "numba"):
                    if k in columns:
                        times[k].append(timer.time(columns[k], args, c.written).median)
            row = {k: statistics.median(v) for k, v in times.items()}
            row.update(label=target.label, size=inputs.describe(n), note=note)
            rows.append(row)
            print(f"  {target.label}: {row['size']}: " + ", ".join(
                f"{k} {par.ms(row[k])} ms" for k in ("before", "after", "numba") if k in row)
                  + (f" ({note})" if note else ""), flush=True)
    finally:
        shutil.rmtree(cache, ignore_errors=True)
    out = options.out
    if out:
        lines = [f"CPU {cpu_model()}, {os.cpu_count()} cores, {datetime.date.today()}, "
                 f"{par.thread_counts()}; load {load_before} before, {load_average()} after; "
                 f"after: {unpy_revision()}; {options.rounds} rounds"
                 f"{', --quick' if options.quick else ''}; "
                 f"{time.perf_counter() - started:.0f} s", "",
                 "| function | size | before ms | after ms | Numba ms | before/after |",
                 "|---|---|---:|---:|---:|---:|"]
        for r in rows:
            cell = lambda k: par.ms(r[k]) if k in r else "—"
            gain = f"{r['before'] / r['after']:.2f}" if "before" in r else "—"
            lines.append(f"| {r['label']} | {r['size']} | {cell('before')} | {cell('after')} "
                         f"| {cell('numba')} | {gain} |" + (f" {r['note']}" if r["note"] else ""))
        out.write_text("\n".join(lines) + "\n")
        print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
