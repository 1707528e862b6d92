"""Residency on the device (issue 9 item 6): jacobi-2d time stepping (examples/jacobi2d.py, T
steps of two 5-point stencils, float64) as one call from NumPy arrays, before and after data
stays on the device between nests, beside OpenMP and a hand-written Numba CUDA version.

Columns, each the time of a whole call from NumPy arrays (transfers included):
- OpenMP: unpy's compiled function with UNPY_DEVICE=none, on all the machine's cores;
- unpy GPU, residency off: UNPY_FORCE_GPU=1 UNPY_RESIDENT=0: each nest copies in what it reads
  and copies out what it writes (the state before issue 9);
- unpy GPU: UNPY_FORCE_GPU=1: the arrays stay on the device for the call (one copy in and one
  copy out per array, checked from `unpython.explain`);
- unpy auto: unpy's own decision (no UNPY_FORCE_GPU), where it ran in brackets;
- Numba CUDA: bench/numba_cuda_kernels.py `jacobi2d`: `cuda.to_device` once, T steps of two
  naive `@cuda.jit` kernels, `copy_to_host` once per array (the best a user writes by hand).
A column that cannot run (no CUDA, say) gets "—" and the reason in the notes.

Method (bench/gpu.py's `measure`): the first call is checked against NumPy and reported apart,
then the median of `--repeat` timed calls.

    python bench/resident.py --machine h100              # T=100, n=4096 (about 3 minutes)
    UNPY_DEVICE=cpu python bench/resident.py --small --machine smoke   # PoCL, no CUDA

UNPY_DEVICE names the OpenCL device of the GPU columns (default: the first GPU). Results go to
<results>/resident-<machine>.json, .md and .png (--results, default bench/results).
"""
from __future__ import annotations

import argparse
import datetime
import json
import os
import sys
import time
from dataclasses import asdict
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "examples"), str(ROOT / "bench")]

import _harness  # noqa: E402
import unpython  # noqa: E402
from cpu import cpu_model, unpy_module  # noqa: E402
from gpu import (Result, Runner, cuda_device_name, machine_lines, measure, ms,  # noqa: E402
                 numba_cuda_column, set_switches, time_tables, versions, why)

BEFORE, AFTER, OPENMP, AUTO, NUMBA = ("unpy GPU, residency off", "unpy GPU", "OpenMP",
                                      "unpy auto", "Numba CUDA")
COLUMNS = [OPENMP, BEFORE, AFTER, AUTO, NUMBA]
SWITCHES = ("UNPY_DEVICE", "UNPY_FORCE_GPU", "UNPY_RESIDENT")
RATIOS = [(NUMBA, "Numba/unpy"), (OPENMP, "OpenMP/unpy"), (BEFORE, "before/after")]


def unpy_column(func, column, device):
    settings = {OPENMP: {"UNPY_DEVICE": "none"},
                BEFORE: {"UNPY_DEVICE": device, "UNPY_FORCE_GPU": "1", "UNPY_RESIDENT": "0"},
                AFTER: {"UNPY_DEVICE": device, "UNPY_FORCE_GPU": "1"},
                AUTO: {"UNPY_DEVICE": device}}[column]

    def make(case, args):
        call, output = _harness.timed_caller(case, func, args)

        def run():
            set_switches(settings, SWITCHES)
            return call()
        return Runner(run, lambda: output)
    return make


def numba_column():
    return numba_cuda_column(lambda kernels, case: kernels.jacobi2d)


def where_it_ran(func) -> tuple:
    """(where the nests ran, the copies of the last call per array) from `unpython.explain`."""
    report = unpython.explain(func)
    places = sorted({(n.ran_on or "not run").split(" ")[0] for n in report.nests})
    return ", ".join(places), dict(report.transfers)


def run(case, func, n, steps, repeat, device) -> dict:
    args = case.make_args(n, case.dtype, None, steps)
    want = case.expected(args)
    row = {"case": case.label, "n": n, "steps": steps,
           "date": datetime.date.today().isoformat(), "columns": {}}
    makers = {column: unpy_column(func, column, device) for column in (OPENMP, BEFORE, AFTER,
                                                                       AUTO)}
    makers[NUMBA] = numba_column()
    for column in COLUMNS:
        make = makers[column]
        runner = make if isinstance(make, str) else make(case, args)
        result = Result(reason=runner) if isinstance(runner, str) else measure(
            runner, want, case.rtol, repeat)
        entry = asdict(result)
        if column != NUMBA and not isinstance(runner, str):
            entry["ran_on"], entry["copies"] = where_it_ran(func)
            if column in (BEFORE, AFTER) and result.ok and not entry["ran_on"].startswith(
                    "opencl"):
                entry["ok"], entry["reason"] = False, f"ran on {entry['ran_on']}"
        row["columns"][column] = entry
        shown = ms(result.median) if entry["ok"] else f"— ({entry['reason']})"
        print(f"  {case.label} n={n} T={steps} {column}: {shown} ms", flush=True)
    set_switches({}, SWITCHES)
    return row


def write_markdown(path, rows, machine, header):
    lines = [f"# Residency: jacobi-2d time stepping on {machine}", "",
             *machine_lines(rows, header),
             f"- median of {header['repeat']} timed calls after the first (checked against "
             "NumPy); ms of a whole call from NumPy arrays, transfers included; ratios: "
             f"column / {AFTER} (> 1: unpy with residency faster)",
             f"- {BEFORE}: UNPY_FORCE_GPU=1 UNPY_RESIDENT=0; {AFTER}: UNPY_FORCE_GPU=1; "
             f"{AUTO}: no UNPY_FORCE_GPU; {NUMBA}: bench/numba_cuda_kernels.py jacobi2d "
             "(to_device once, T steps of two naive kernels, copy_to_host once per array)", "",
             *time_tables(rows, COLUMNS, RATIOS, [("kernel", "case"), ("n", "n"),
                                                  ("T", "steps")], "First calls (ms)", AFTER)]
    lines += ["", "## Copies per array of the last call (unpython.explain)", ""]
    for r in rows:
        for column in (BEFORE, AFTER, AUTO):
            copies = r["columns"][column].get("copies") or {}
            if copies:
                text = "; ".join(f"{name} {i} in, {o} out" for name, (i, o) in
                                 sorted(copies.items()))
                lines.append(f"- n={r['n']} T={r['steps']} {column}: {text}")
    lines += ["", "## Notes", ""]
    for r in rows:
        for column, result in r["columns"].items():
            if not result["ok"]:
                lines.append(f"- n={r['n']} {column}: — {result['reason']}")
    path.write_text("\n".join(lines) + "\n")


def write_chart(path, rows, machine):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(9, 5))
    x = np.arange(len(rows))
    width = 0.8 / len(COLUMNS)
    for k, column in enumerate(COLUMNS):
        heights = [r["columns"][column]["median"] * 1e3 if r["columns"][column]["ok"]
                   else np.nan for r in rows]
        ax.bar(x + (k - (len(COLUMNS) - 1) / 2) * width, heights, width, label=column)
    ax.set_yscale("log")
    ax.set_xticks(x, [f"jacobi-2d n={r['n']} T={r['steps']}" for r in rows])
    ax.set_ylabel("ms per call (lower is faster)")
    ax.set_title(f"jacobi-2d time stepping, whole calls from NumPy arrays: {machine}")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--machine", default="gpu")
    parser.add_argument("--n", type=int, default=4096)
    parser.add_argument("--steps", type=int, default=100)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--small", action="store_true",
                        help="n=192, T=10: a run on a CPU OpenCL device")
    parser.add_argument("--results", type=Path, default=ROOT / "bench" / "results")
    options = parser.parse_args(argv)
    if options.small:
        options.n, options.steps = 192, 10
    module, note = unpy_module("jacobi2d")
    if module is None:
        print(note)
        return 1
    from gpurts import device_selection
    device = os.environ.get("UNPY_DEVICE", "gpu")
    selection = device_selection(device)
    opencl = selection.device.label if selection.device else f"none ({selection.reason})"
    case = module.CASES[0]
    print(f"jacobi-2d n={options.n} T={options.steps} on {opencl}", flush=True)
    row = run(case, module.jacobi2d, options.n, options.steps, options.repeat, device)
    header = {"cpu": cpu_model(), "cores": os.cpu_count(), "device_spec": device,
              "opencl": opencl, "cuda": cuda_device_name(), "versions": versions(),
              "repeat": options.repeat}
    options.results.mkdir(parents=True, exist_ok=True)
    stem = options.results / f"resident-{options.machine}"
    json_path = stem.with_suffix(".json")
    saved = json.loads(json_path.read_text()) if json_path.exists() else {"rows": []}
    rows = {(r["n"], r["steps"]): r for r in saved["rows"]}
    rows[(row["n"], row["steps"])] = row
    rows = sorted(rows.values(), key=lambda r: (r["n"], r["steps"]))
    json_path.write_text(json.dumps({"header": header, "rows": rows}, indent=1) + "\n")
    write_markdown(stem.with_suffix(".md"), rows, options.machine, header)
    try:
        write_chart(stem.with_suffix(".png"), rows, options.machine)
    except ImportError as error:
        print(f"no chart: {why(error)}")
    print(f"wrote {stem}.md, .json, .png")
    return 0


if __name__ == "__main__":
    start = time.perf_counter()
    code = main(sys.argv[1:])
    print(f"{time.perf_counter() - start:.0f} s")
    sys.exit(code)
