"""Time-stepping and sweep loops on the GPU (issue 21, items 1, 3 and 4): functions whose
sequential loop holds several prange nests, written as a user would (tests/kernels/time_loops.py:
2-D Jacobi, 3-D heat, 2-D FDTD, Floyd-Warshall, n-body leapfrog, cavity flow), each called from
NumPy arrays, beside the same programs in Numba and CuPy (bench/time_loops_peers.py).

Columns, each the median time of a whole call from NumPy arrays (transfers included):
- GPU forced: unpy with UNPY_FORCE_GPU=1 on UNPY_DEVICE (default: the first GPU); with it the
  nest launches of one call, and the host's work per relaunch as `unpython.explain` reports it
  (seconds in the hook per relaunch: setting the changed scalars and the enqueue);
- automatic: unpy's own decision (UNPY_DEVICE as above, no UNPY_FORCE_GPU); where each nest ran
  (`unpython.explain`) is shown beside it;
- OpenMP: unpy with UNPY_DEVICE=none, on all the machine's cores;
- Numba parallel=True: the same source under `@numba.njit(parallel=True)`, `numba.prange`
  for `unpython.prange`;
- CuPy from NumPy: `cupy.asarray` in, whole-array CuPy expressions, the results copied back and
  the device synchronised (skipped, with the reason, where CuPy or a CUDA GPU is missing).

Method: per column, fresh copies of the program's arguments; the first call (the OpenCL build,
Numba's compilation, CuPy's kernels) is checked against the OpenMP result, then one more untimed
call, then the median of `--repeat` calls on the same arrays, updated in place (the times do not
depend on the values). A column agrees where max |got - OpenMP| <= rtol * max |OpenMP| over every
array the program updates (RTOL: the GPU rounds without fused multiply-adds but may differ in
sums' order, and the n-body steps amplify any difference); one that does not is marked
"differs" in the table with its error. `--no-relaunch` switches the relaunch path of
jitgpu/relaunch.py off in this process (every launch prepares or looks up its plan by the call's
full inputs, as before issue 21), for a before/after table.

    UNPY_DEVICE=cpu python bench/time_loops.py --machine pocl         # PoCL here: small sizes
    UNPY_DEVICE=cpu python bench/time_loops.py --machine pocl-before --no-relaunch
    python bench/time_loops.py --size issue --machine h100             # an H100: issue 21's sizes

Results: <results>/time-loops-<machine>.json, .md and .png (--results, default bench/results);
rows of other programs or sizes already in the .json are kept, so a run can be split with
--programs.
"""
from __future__ import annotations

import argparse
import datetime
import json
import os
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]

import unpython  # noqa: E402
import time_loops_peers as peers  # noqa: E402

KERNELS = ROOT / "tests" / "kernels" / "time_loops.py"
BUILD = ROOT / "bench" / "build" / "time_loops"
PROGRAMS = peers.PROGRAMS

# size name -> program -> its size (see make_args); "tiny" is tests/test_time_loop_peers.py's
SIZES = {
    "tiny": {"jacobi2d": (9, 3), "heat3d": (7, 3), "fdtd2d": (7, 9, 4),
             "floyd_warshall": (10,), "nbody_leapfrog": (9, 4), "cavity_flow": (11, 3, 4)},
    "small": {"jacobi2d": (64, 50), "heat3d": (16, 20), "fdtd2d": (40, 50, 30),
              "floyd_warshall": (48,), "nbody_leapfrog": (32, 30), "cavity_flow": (41, 5, 5)},
    "issue": {"jacobi2d": (700, 200), "heat3d": (70, 100), "fdtd2d": (800, 900, 150),
              "floyd_warshall": (850,), "nbody_leapfrog": (100, 900),
              "cavity_flow": (201, 100, 20)},
}
# The largest error relative to the OpenMP result's largest value that still agrees.
RTOL = {"jacobi2d": 1e-12, "heat3d": 1e-12, "fdtd2d": 1e-10, "floyd_warshall": 0.0,
        "nbody_leapfrog": 1e-6, "cavity_flow": 1e-9}

FORCED, AUTO, OPENMP, NUMBA, CUPY = ("GPU forced", "automatic", "OpenMP", "Numba parallel=True",
                                     "CuPy from NumPy")
COLUMNS = (FORCED, AUTO, OPENMP, NUMBA, CUPY)
# Calls after the automatic column's timed ones before it is timed again, settled: its first
# calls measure the call both ways (jitgpu/calls.py: one uncounted call a side, then up to two
# counted each).
SETTLE = 6
SWITCHES = ("UNPY_DEVICE", "UNPY_FORCE_GPU")


def make_args(program: str, size: tuple, rng) -> tuple:
    if program == "jacobi2d":
        n, steps = size
        return steps, rng.random((n, n)), np.zeros((n, n))
    if program == "heat3d":
        n, steps = size
        return steps, rng.random((n, n, n)), np.zeros((n, n, n))
    if program == "fdtd2d":
        nx, ny, tmax = size
        return (tmax, rng.random((nx, ny)), rng.random((nx, ny)), rng.random((nx, ny)),
                rng.random(tmax))
    if program == "floyd_warshall":
        n, = size
        path = rng.integers(1, 100, (n, n)).astype(np.float64)
        np.fill_diagonal(path, 0.0)
        return (path,)
    if program == "cavity_flow":
        # Barba's cavity on a 2 x 2 square with npbench's dt, started at rest.
        n, nt, nit = size
        dx = dy = 2.0 / (n - 1)
        return (nt, nit, np.zeros((n, n)), np.zeros((n, n)), 0.1 / ((n - 1) * (n - 1)), dx, dy,
                np.zeros((n, n)), 1.0, 0.1)
    n, steps = size
    return (steps, 0.001, rng.random((n, 3)), rng.random((n, 3)) - 0.5, np.zeros((n, 3)),
            rng.random(n) + 0.5)


def fresh(args: tuple) -> tuple:
    return tuple(a.copy() if isinstance(a, np.ndarray) else a for a in args)


def arrays(args: tuple) -> list:
    return [a for a in args if isinstance(a, np.ndarray)]


def relative_error(got: list, want: list) -> float:
    """max |got - want| over the largest |want|, over all the arrays (0 where both are all
    zeros; inf where the shapes differ or NaNs do not match)."""
    scale = max((float(np.abs(w).max(initial=0.0)) for w in want), default=0.0)
    worst = 0.0
    for g, w in zip(got, want, strict=True):
        if g.shape != w.shape or not np.array_equal(np.isnan(g), np.isnan(w)):
            return float("inf")
        if g.size:
            worst = max(worst, float(np.nanmax(np.abs(g - w))))
    return worst / scale if scale else worst


def compiled_module(so=None):
    """tests/kernels/time_loops.py built into bench/build (again only when it changed), or the
    extension module `so` built before."""
    import importlib.util
    if so is None:
        from unpy.cpp_emit.build import BuildOptions, build
        BUILD.mkdir(parents=True, exist_ok=True)
        so = build(str(KERNELS), str(BUILD), BuildOptions()).output
    spec = importlib.util.spec_from_file_location("time_loops", so)
    module = importlib.util.module_from_spec(spec)
    sys.modules["time_loops"] = module      # explain() finds a compiled module by its name
    spec.loader.exec_module(module)
    return module


def switch_relaunch_off() -> None:
    """The state before issue 21 item 1, in this process: no family keys, no relaunches."""
    from jitgpu import relaunch
    relaunch.try_relaunch = lambda *args: None
    relaunch.family_key = lambda *args: None


def why(error) -> str:
    return f"{type(error).__name__}: " + (str(error).strip().splitlines() or [""])[0]


def cupy_missing() -> str | None:
    """Why there is no CuPy column here, or None."""
    try:
        import cupy
        count = cupy.cuda.runtime.getDeviceCount()
    except Exception as error:      # not installed, or no driver: the column is skipped
        return f"CuPy unusable ({why(error)})"
    return None if count else "no CUDA GPU"


def column_callers(module, device: str) -> dict:
    """{column: (program -> function to call), or the reason the column is skipped}."""
    def unpy(settings):
        def caller(program):
            func = getattr(module, program)

            def call(*args):
                for name in SWITCHES:
                    os.environ.pop(name, None)
                os.environ.update(settings)
                func(*args)
            return call
        return caller
    missing_cupy = cupy_missing()
    return {FORCED: unpy({"UNPY_DEVICE": device, "UNPY_FORCE_GPU": "1"}),
            AUTO: unpy({"UNPY_DEVICE": device}),
            OPENMP: unpy({"UNPY_DEVICE": "none"}),
            NUMBA: peers.NUMBA_MISSING or peers.NUMBA.get,
            CUPY: missing_cupy or peers.CUPY.get}


def measure(call, args: tuple, want: list, rtol: float, repeat: int, settle: int = 0) -> dict:
    """The first call on fresh copies of `args`, checked against `want`, one more untimed,
    then the median of `repeat`; with `settle`, also the median of `repeat` calls after
    `settle` more (the automatic choice measures both ways in its first calls)."""
    work = fresh(args)

    def median_of(count):
        times = []
        for _ in range(count):
            started = time.perf_counter()
            call(*work)
            times.append(time.perf_counter() - started)
        return statistics.median(times)
    try:
        started = time.perf_counter()
        call(*work)
        first = time.perf_counter() - started
        error = relative_error(arrays(work), want)
        call(*work)
        result = {"ok": True, "first": first, "median": median_of(repeat),
                  "error": float(error), "agrees": bool(error <= rtol)}
        if settle:
            for _ in range(settle):
                call(*work)
            result["settled"] = median_of(repeat)
    except Exception as failure:    # one column's failure is reported, not fatal to the others
        return {"ok": False, "reason": why(failure)}
    return result


def where_nests_ran(report) -> dict:
    """{'summary': e.g. 'GPU 12' or 'GPU 3, OpenMP 1', 'nests': [[ran_on, reason], ...]}."""
    def place(ran_on):
        if ran_on is None:
            return "not run"
        return "GPU" if ran_on.startswith("opencl") else "OpenMP"
    counts = Counter(place(n.ran_on) for n in report.nests)
    return {"summary": ", ".join(f"{where} {count}" for where, count in sorted(counts.items())),
            "nests": [[n.ran_on, n.reason] for n in report.nests]}


def run_row(program: str, size_name: str, module, callers: dict, reference, repeat: int,
            rng) -> dict:
    """Every column of one program; `reference(program)`: its OpenMP version, whose result
    the columns are checked against."""
    size = SIZES[size_name][program]
    args = make_args(program, size, rng)
    expected = fresh(args)
    reference(program)(*expected)
    want, rtol = arrays(expected), RTOL[program]
    row = {"program": program, "size": "x".join(map(str, size)), "size_name": size_name,
           "rtol": rtol, "date": datetime.date.today().isoformat(), "columns": {}}
    func = getattr(module, program)
    for column in COLUMNS:
        caller = callers[column]
        call = None if isinstance(caller, str) else caller(program)
        if call is None:
            result = {"ok": False, "reason": caller if isinstance(caller, str) else "no version"}
        else:
            result = measure(call, args, want, rtol, repeat, SETTLE if column == AUTO else 0)
        if result["ok"] and column == FORCED:
            launches = unpython.explain(func).launches
            result.update(launches=launches.launches, relaunched=launches.relaunched,
                          from_cpp=launches.compiled,
                          us_per_launch=launches.us_per_launch,
                          us_per_relaunch=launches.us_per_relaunch,
                          devices=sorted({n.ran_on for n in unpython.explain(func).nests
                                          if n.ran_on}))
        if result["ok"] and column == AUTO:
            result["ran_on"] = where_nests_ran(unpython.explain(func))
        row["columns"][column] = result
        print(f"  {program} {row['size']} {column}: {cell(result)}", flush=True)
    return row


def ms(seconds) -> str:
    value = seconds * 1e3
    return f"{value:.0f}" if value >= 100 else f"{value:.3g}"


def cell(result: dict) -> str:
    if not result["ok"]:
        return "—"
    text = ms(result["median"])
    if not result["agrees"]:
        text += f" (differs: {result['error']:.1e})"
    if "ran_on" in result:
        text += f" ({result['ran_on']['summary']})"
    if "settled" in result:
        text += f"; settled {ms(result['settled'])}"
    return text


def short(reason: str) -> str:
    """A nest's reason without its bracketed calibration and figures (the .json has it all)."""
    return reason.split(" [", 1)[0].split(": estimated", 1)[0]


def write_markdown(path: Path, rows: list, machine: str, header: dict) -> None:
    lines = [f"# Time loops: {machine}" + (" (relaunch off: before)" if not header["relaunch"]
                                           else "")
             + (" (UNPY_REPLAY=0: relaunches through Python)"
                if not header.get("from_cpp", True) else ""), "",
             f"`bench/time_loops.py`, {', '.join(sorted({r['date'] for r in rows}))}; host: "
             f"{header['cpu']}, {header['cores']} cores; GPU columns: UNPY_DEVICE="
             f"{header['device_spec']} ({header['opencl']}); CUDA device: {header['cuda']}",
             "; ".join(f"{k} {v}" for k, v in header["versions"].items()), "",
             f"ms of a whole call from NumPy arrays, median of {header['repeat']} after 2 untimed "
             "calls (the first checked against OpenMP: 'differs' where max |error| exceeds rtol "
             "times the largest value); automatic: where its nests ran, and the median of "
             f"{header['repeat']} calls after {SETTLE} more (settled: the choice measures both "
             "ways in its first calls); launches and host us "
             "per relaunch: the GPU forced call's (`unpython.explain`; from C++: relaunched by the "
             "compiled caller without Python, off with UNPY_REPLAY=0).", "",
             "| program | size | " + " | ".join(f"{c} ms" for c in COLUMNS)
             + " | launches per call | relaunched (from C++) | host us per relaunch | rtol |",
             "|---|---|" + "---:|" * len(COLUMNS) + "---:|---:|---:|---:|"]
    for r in rows:
        forced = r["columns"][FORCED]
        lines.append(f"| {r['program']} | {r['size']} | "
                     + " | ".join(cell(r["columns"][c]) for c in COLUMNS) + " | "
                     + (f"{forced['launches']} | {forced['relaunched']} "
                        f"({forced.get('from_cpp', 0)}) | "
                        f"{forced['us_per_relaunch']:.1f}" if forced["ok"] else "— | — | —")
                     + f" | {r['rtol']:g} |")
    lines += ["", "## Notes", ""]
    for r in rows:
        for column, result in r["columns"].items():
            if not result["ok"]:
                lines.append(f"- {r['program']} {column}: — {result['reason']}")
            elif not result["agrees"]:
                lines.append(f"- {r['program']} {column}: differs from OpenMP by "
                             f"{result['error']:.2e} of the largest value (rtol {r['rtol']:g})")
        auto = r["columns"][AUTO]
        if auto["ok"]:
            reasons = Counter(f"{ran_on}: {short(reason)}"
                              for ran_on, reason in auto["ran_on"]["nests"])
            lines.append(f"- {r['program']} automatic: " + "; ".join(
                f"{count} nest(s) {text}" for text, count in reasons.items()))
    path.write_text("\n".join(lines) + "\n")


def write_chart(path: Path, rows: list, machine: str) -> None:
    """Speed-up of each column over OpenMP per program (bench/gpu.py's style)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    labels = [f"{r['program']}\n{r['size']}" for r in rows]
    x = np.arange(len(rows))
    shown = [c for c in COLUMNS if c != OPENMP and any(r["columns"][c]["ok"] for r in rows)]
    width = 0.8 / max(len(shown), 1)
    fig, ax = plt.subplots(figsize=(max(10, 1.6 * len(rows) + 3), 5))
    for k, column in enumerate(shown):
        heights = [r["columns"][OPENMP]["median"] / r["columns"][column]["median"]
                   if r["columns"][column]["ok"] and r["columns"][OPENMP]["ok"] else np.nan
                   for r in rows]
        ax.bar(x + (k - (len(shown) - 1) / 2) * width, heights, width, label=column)
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.set_yscale("log")
    ax.set_xticks(x, labels, fontsize=8)
    ax.set_ylabel("speed-up over unpy OpenMP (higher is faster)")
    ax.set_title(f"time loops, whole calls from NumPy arrays: {machine}")
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def save(path: Path, saved: dict, rows: list, header: dict) -> dict:
    """Merge `rows` into the saved ones (a row replaces the one of the same program and
    size)."""
    merged = {(r["program"], r["size"]): r for r in saved["rows"]}
    merged.update({(r["program"], r["size"]): r for r in rows})
    saved = {"header": header, "rows": sorted(
        merged.values(), key=lambda r: (PROGRAMS.index(r["program"]), r["size"]))}
    path.write_text(json.dumps(saved, indent=1) + "\n")
    return saved


def header_of(device: str, repeat: int, relaunch: bool) -> dict:
    import platform
    from cpu import cpu_model
    from gpu import cuda_device_name, versions
    return {"cpu": cpu_model(), "cores": os.cpu_count(), "device_spec": device, "opencl": "none",
            "cuda": cuda_device_name(), "versions": versions(), "repeat": repeat,
            "relaunch": relaunch, "platform": platform.platform(),
            "from_cpp": os.environ.get("UNPY_REPLAY", "1") != "0"}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", choices=sorted(SIZES), default="small")
    parser.add_argument("--programs", default=",".join(PROGRAMS))
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--no-relaunch", action="store_true")
    parser.add_argument("--no-openmp", action="store_true",
                        help="skip the OpenMP column (its result is still the reference)")
    parser.add_argument("--columns", default=",".join(COLUMNS),
                        help="comma-separated columns to time (the others get '—')")
    parser.add_argument("--module", help="a time_loops extension module built before "
                        "(skips the build)")
    parser.add_argument("--machine", default="local",
                        help="names the results: <results>/time-loops-<machine>.*")
    parser.add_argument("--results", type=Path, default=ROOT / "bench" / "results")
    parser.add_argument("--chart-only", action="store_true",
                        help="redraw the table and chart from <results>/time-loops-<machine>.json")
    options = parser.parse_args(argv)
    path = options.results / f"time-loops-{options.machine}.json"
    saved = json.loads(path.read_text()) if path.exists() else {"rows": []}
    if options.chart_only:
        write_markdown(path.with_suffix(".md"), saved["rows"], options.machine, saved["header"])
        write_chart(path.with_suffix(".png"), saved["rows"], options.machine)
        return 0
    device = os.environ.get("UNPY_DEVICE", "gpu")
    if options.no_relaunch:
        switch_relaunch_off()
    module = compiled_module(options.module)
    callers = column_callers(module, device)
    reference = callers[OPENMP]
    skipped = set(COLUMNS) - set(options.columns.split(","))
    callers.update({column: "not timed (--columns)" for column in skipped})
    if options.no_openmp:
        callers[OPENMP] = "not timed (--no-openmp)"
    options.results.mkdir(parents=True, exist_ok=True)
    header = header_of(device, options.repeat, not options.no_relaunch)
    print(f"# time loops, sizes '{options.size}', GPU columns on UNPY_DEVICE={device}"
          + (", relaunch off (before)" if options.no_relaunch else ""), flush=True)
    rng = np.random.default_rng(0)
    rows = []
    for program in options.programs.split(","):
        started = time.perf_counter()
        rows.append(run_row(program, options.size, module, callers, reference, options.repeat,
                            rng))
        for ran_on in rows[-1]["columns"][FORCED].get("devices", []):
            if ran_on.startswith("opencl:"):
                header["opencl"] = ran_on.split(":", 1)[1]
        saved = save(path, saved, rows, header)
        print(f"{program}: {time.perf_counter() - started:.0f} s", flush=True)
    write_markdown(path.with_suffix(".md"), saved["rows"], options.machine, header)
    write_chart(path.with_suffix(".png"), saved["rows"], options.machine)
    print(path.with_suffix(".md").read_text())
    print(f"wrote {path.with_suffix('.md')}, .png and .json")
    wrong = [r["program"] for r in rows
             if any(c["ok"] and not c["agrees"] for c in r["columns"].values())]
    if wrong:
        print("results that differ from OpenMP in: " + ", ".join(wrong))
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
