"""The GPU side of BENCHMARKS.md: the six example kernels through unpy's OpenCL path, beside unpy's
OpenMP path, Numba CUDA and CuPy, all measured in one run on one machine.

Columns, each the time of a whole call from NumPy arrays (transfers included) unless said:
- OpenMP: unpy's compiled function with UNPY_DEVICE=none, on all the machine's cores;
- unpy GPU none / load / unroll / all: UNPY_FORCE_GPU=1 and UNPY_GPU_OPT set to each value (the
  paper's GPU-NoOpt, Load Opt, Loop Unroll and GPU-AllOpt bars); `all` is the unpy of the ratios;
- unpy auto: unpy's own decision (no UNPY_FORCE_GPU, UNPY_GPU_OPT unset); where it ran is shown;
- Numba CUDA: bench/numba_cuda_kernels.py, naive `@cuda.jit` kernels of the same loops (one
  thread per parallel iteration), `cuda.to_device`, kernel and `copy_to_host` all timed;
- CuPy e2e and CuPy kernel (mmult only): cuBLAS `a @ b` from NumPy arrays (`cp.asarray`, `.get`),
  and on arrays already on the device (synchronised after the product).
A peer that is missing (no numba.cuda, no CuPy, no GPU) gets "—" and the reason in the notes.

Method: each column's first call is checked against NumPy and reported apart (it includes the
OpenCL build or Numba's compilation); for unpy, untimed calls while the first call's search of
the kernel's tuning goes on (`settle_search`); then the median of `--repeat` timed calls. Each
unpy GPU call's time is split (analysis / OpenCL build / host-to-device / kernel /
device-to-host) from `unpython.explain`: the median of each part over the timed calls, "other"
being the rest of the median call (host work in the call), and the first call's build.

    python bench/gpu.py --machine h100 [--sizes accel|dev|small|tiny] [--kernels mmult,nbody]
        [--n 4096] [--repeat 5] [--results DIR]
    python bench/gpu.py --machine h100 --chart-only             # redraw from the .json
    UNPY_DEVICE=cpu python bench/gpu.py --quick --machine smoke  # no GPU: PoCL, peers "—"

UNPY_DEVICE names the OpenCL device of the GPU columns (default: the first GPU). Results go to
<results>/gpu-<machine>.json, .md and .png (--results, default bench/results); rows of other
kernels or sizes already in the .json are kept, so a long run can be split with --kernels and --n.

On the accelerator machine (the device tool; 10 minutes a command) the wheels of
shared/tools/device-wheels.sh are carried and installed first (numba, llvmlite and numba-cuda
too if its image lacks them), and the run is split so that each part ends well inside the limit:
mmult's OpenMP calls take about half a minute each at n=4096. Each part writes into bench/results
and copies gpu-<machine>.* to $OUT; copied back into bench/results here, they travel with the
next part, which adds its rows:
    python3 bench/gpu.py --machine h100 --kernels nbody,cp,syrk,syr2k,stencil
    python3 bench/gpu.py --machine h100 --kernels mmult --n 2048
    python3 bench/gpu.py --machine h100 --kernels mmult --n 4096
"""
from __future__ import annotations

import argparse
import datetime
import importlib.metadata
import json
import os
import platform
import statistics
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Callable, Optional

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "examples"), str(ROOT / "bench")]

import _harness  # noqa: E402
import unpython  # noqa: E402
from cpu import KERNELS, cpu_model, unpy_module  # noqa: E402

OPTS = ("none", "load", "unroll", "all")
GPU_COLUMNS = [f"unpy GPU {opt}" for opt in OPTS]
AUTO = "unpy auto"
COLUMNS = ["OpenMP", *GPU_COLUMNS, AUTO, "Numba CUDA", "CuPy e2e", "CuPy kernel"]
UNPY = "unpy GPU all"           # the unpy of the ratios
RATIOS = [("Numba CUDA", "Numba/unpy"), ("CuPy e2e", "CuPy/unpy"), ("OpenMP", "OpenMP/unpy")]
SPLIT = ("analysis", "build", "h2d", "kernel", "d2h")
SWITCHES = ("UNPY_DEVICE", "UNPY_FORCE_GPU", "UNPY_GPU_OPT")


@dataclass
class Runner:
    """One column's way of computing a case: `call()` runs it once and returns its seconds;
    `output()` is the result to check; `nest()`, for unpy, the report of the last call's nest."""
    call: Callable[[], float]
    output: Callable
    nest: Optional[Callable] = None
    on_device: bool = False     # a forced GPU column: a call that ran elsewhere is not timed


@dataclass
class Result:
    first: Optional[float] = None   # seconds of the first (checked, untimed) call
    median: Optional[float] = None  # median seconds of the timed calls
    ok: bool = False
    reason: str = ""                # why there is no time: a missing peer, an error, a fallback
    ran_on: str = ""                # unpy: where the nest ran
    split: dict = field(default_factory=dict)   # unpy on the device: seconds per part
    build_first: Optional[float] = None         # unpy on the device: the first call's build
    moved: int = 0                  # bytes moved and distinct bytes touched (unpy, device)
    touched: int = 0
    groups: list = field(default_factory=list)  # unpy, device: the transfer groups
    note: str = ""                  # unpy: the reason given for where the nest ran


def why(error):
    return f"{type(error).__name__}: " + (str(error).strip().splitlines() or [""])[0]


# Seconds of untimed calls after the first that let its search of the kernel's tuning finish
# (an H100 builds mmult f64's five alternatives in 2-5 s).
SETTLE_SECONDS = 10.0


def settle_search(runner: Runner, limit_s: float = SETTLE_SECONDS, after_call=None) -> int:
    """Untimed calls after the first while the nest's report says its search (jitgpu/search.py)
    is not over, for `limit_s` at most: the candidates' builds waited for, each call timing
    one, the last switching to the fastest, so that the timed calls run the chosen kernel;
    `after_call(calls so far)` after each. Returns the calls made."""
    from jitgpu import search
    deadline = time.perf_counter() + limit_s
    calls = 0
    while search.PENDING in runner.nest().reason and time.perf_counter() < deadline:
        search.settle(max(deadline - time.perf_counter(), 0.0))
        runner.call()
        calls += 1
        if after_call is not None:
            after_call(calls)
    return calls


def measure(runner: Runner, want, rtol, repeat) -> Result:
    """The first call, checked against `want`, then (unpy) untimed calls until its search is
    over (`settle_search`), then the median of `repeat` timed calls."""
    try:
        first = runner.call()
    except Exception as error:  # one column's failure is reported, not fatal to the others
        return Result(reason=why(error))
    result = Result(first=first)
    if runner.nest:
        report = runner.nest()
        result.ran_on, result.note = report.ran_on or "", report.reason
        result.build_first = report.timings.get("build")
        if runner.on_device and not result.ran_on.startswith("opencl"):
            result.reason = f"ran on {result.ran_on}: {report.reason}"
            return result
    if not _harness.matches(runner.output(), want, rtol):
        result.reason = "WRONG result"
        return result
    if runner.nest and settle_search(runner):
        result.note = runner.nest().reason      # the search's choice
    # Calls shorter than this wait out other thread pools' spinning (OpenBLAS's, after the
    # reference result) untimed; in a longer call it does not matter.
    warm_until = time.perf_counter() + _harness.WARMUP_SECONDS
    while first < _harness.WARMUP_SECONDS and time.perf_counter() < warm_until:
        runner.call()
    times, splits = [], []
    for _ in range(repeat):
        times.append(runner.call())
        report = runner.nest() if runner.nest else None
        if runner.on_device and not (report.ran_on or "").startswith("opencl"):
            result.reason = f"a timed call ran on {report.ran_on}: {report.reason}"
            return result
        if report and report.timings:
            splits.append(report.timings)
    if runner.nest and report is not None:
        # Where the timed calls ran: the decision may settle on another side after the first.
        result.ran_on = report.ran_on or ""
    result.ok, result.median = True, statistics.median(times) if times else first
    if splits:
        result.split = {part: statistics.median(s[part] for s in splits) for part in SPLIT}
        result.split["other"] = max(result.median - sum(result.split.values()), 0.0)
        result.moved = report.timings["bytes_moved"]
        result.touched = report.timings["bytes_touched"]
        result.groups = report.details.get("groups", [])
    return result


# --- the columns: each a function (case, args) -> Runner, or a str saying why it has none -------

def set_switches(settings, switches=SWITCHES):
    """Exactly `settings` of the UNPY_* `switches` in the environment."""
    for name in switches:
        os.environ.pop(name, None)
    os.environ.update(settings)


def unpy_column(module, column, device):
    """A unpy column: the compiled example function under that column's UNPY_* switches."""
    if column == "OpenMP":
        settings = {"UNPY_DEVICE": "none"}
    elif column == AUTO:
        settings = {"UNPY_DEVICE": device}
    else:
        settings = {"UNPY_DEVICE": device, "UNPY_FORCE_GPU": "1",
                    "UNPY_GPU_OPT": column.rsplit(" ", 1)[1]}

    return lambda case, args: switched_runner(module, case, args, settings,
                                              on_device=column in GPU_COLUMNS)


def switched_runner(module, case, args, settings, on_device: bool) -> "Runner":
    """A Runner of the compiled example function under exactly `settings` of the switches."""
    func = getattr(module, case.func)
    call, output = _harness.timed_caller(case, func, args)

    def run():
        set_switches(settings)
        return call()
    return Runner(run, lambda: output, lambda: unpython.explain(func).nests[0],
                  on_device=on_device)


def numba_cuda_column(kernel_of=lambda kernels, case: kernels.kernel(case)):
    """The Numba CUDA column, or why there is none. `kernel_of(numba_cuda_kernels, case)`: the
    kernel a case runs."""
    try:
        import numba_cuda_kernels
    except Exception as error:
        return f"numba.cuda does not import ({why(error)})"
    if not numba_cuda_kernels.cuda.is_available():
        return "no CUDA GPU (numba.cuda.is_available() is False)"

    def make(case, args):
        call, output = _harness.timed_caller(case, kernel_of(numba_cuda_kernels, case), args)
        return Runner(call, lambda: output)
    return make


def cupy_columns():
    """{column: make or why there is none} for the two CuPy columns."""
    try:
        import cupy
        cupy.cuda.runtime.getDeviceCount()
    except Exception as error:
        reason = f"CuPy unusable ({why(error)})"
        return {"CuPy e2e": reason, "CuPy kernel": reason}

    def end_to_end(case, args):
        if case.kernel != "mmult":
            return "no library call"

        def product(a, b, c):
            (cupy.asarray(a) @ cupy.asarray(b)).get(out=c)
        call, output = _harness.timed_caller(case, product, args)
        return Runner(call, lambda: output)

    def kernel_only(case, args):
        if case.kernel != "mmult":
            return "no library call"
        a, b = cupy.asarray(args[0]), cupy.asarray(args[1])
        c = cupy.empty_like(a)
        stream = cupy.cuda.get_current_stream()

        def call():
            start = time.perf_counter()
            cupy.matmul(a, b, out=c)
            stream.synchronize()
            return time.perf_counter() - start
        return Runner(call, c.get)
    return {"CuPy e2e": end_to_end, "CuPy kernel": kernel_only}


def free_cupy_memory():
    if "cupy" in sys.modules:
        sys.modules["cupy"].get_default_memory_pool().free_all_blocks()


def cuda_device_name():
    """The CUDA device of the Numba CUDA and CuPy columns, for the header."""
    cupy, numba_cuda = sys.modules.get("cupy"), sys.modules.get("numba_cuda_kernels")
    try:
        if cupy:
            return cupy.cuda.runtime.getDeviceProperties(0)["name"].decode()
        if numba_cuda and numba_cuda.cuda.is_available():
            import numba
            if numba.config.ENABLE_CUDASIM:
                return "Numba's CUDA simulator"
            name = numba_cuda.cuda.get_current_device().name
            return name.decode() if isinstance(name, bytes) else str(name)
    except Exception as error:  # only a name for the header
        return f"unknown ({why(error)})"
    return "none"


def versions():
    found = {"python": platform.python_version()}
    for name in ("numpy", "numba", "numba-cuda", "cupy-cuda12x", "cupy-cuda13x", "pyopencl"):
        try:
            found[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            pass
    return found


# --- one row: every column of one case at one size ----------------------------------------------

def run_row(case, n, makers, repeat):
    args = case.args(n)
    want = case.expected(args)
    row = {"case": case.label, "n": n, "date": datetime.date.today().isoformat(), "columns": {}}
    for column in COLUMNS:
        make = makers[column]
        try:
            runner = make if isinstance(make, str) else make(case, args)
        except Exception as error:  # CuPy's upload of the inputs, say
            runner = why(error)
        if isinstance(runner, str):
            result = Result(reason=runner)
        else:
            result = measure(runner, want, case.rtol, repeat)
        row["columns"][column] = asdict(result)
        shown = ms(result.median) if result.ok else f"— ({result.reason})"
        print(f"  {case.label} n={n} {column}: {shown}", flush=True)
    return row


def ms(seconds):
    if seconds is None:
        return "—"
    value = seconds * 1e3
    return f"{value:.0f}" if value >= 100 else f"{value:.3g}"


def cell(row, column, first=False):
    result = row["columns"][column]
    if not result["ok"]:
        return "WRONG" if result["reason"] == "WRONG result" else "—"
    text = ms(result["first"] if first else result["median"])
    if column == AUTO and not first:
        text += " (GPU)" if result["ran_on"].startswith("opencl") else f" ({result['ran_on']})"
    return text


def ratio(row, numerator, denominator=UNPY):
    top, bottom = row["columns"][numerator], row["columns"][denominator]
    if not (top["ok"] and bottom["ok"]):
        return "—"
    return f"{top['median'] / bottom['median']:.3g}"


def time_tables(rows, columns, ratios, lead, first_title, denominator=UNPY) -> list:
    """The lines of the median-times table (with `ratios`: [(numerator column, title)] over
    `denominator`) and of the first-call table titled `first_title`; `lead`: [(title, row
    key)] of the columns before the times."""
    titles = " | ".join(title for title, _ in lead)
    align = "|---|" + "---:|" * (len(lead) - 1)

    def start(r):
        return "| " + " | ".join(str(r[key]) for _, key in lead) + " | "
    lines = ["## Median times (ms)", "",
             f"| {titles} | " + " | ".join(columns) + " | "
             + " | ".join(name for _, name in ratios) + " |",
             align + "---:|" * (len(columns) + len(ratios))]
    lines += [start(r) + " | ".join(cell(r, c) for c in columns) + " | "
              + " | ".join(ratio(r, c, denominator) for c, _ in ratios) + " |" for r in rows]
    lines += ["", f"## {first_title}", "", f"| {titles} | " + " | ".join(columns) + " |",
              align + "---:|" * len(columns)]
    lines += [start(r) + " | ".join(cell(r, c, first=True) for c in columns) + " |"
              for r in rows]
    return lines


def machine_lines(rows, header) -> list:
    """The table's first lines: dates, host, OpenMP threads, devices and versions."""
    threads = os.environ.get("OMP_NUM_THREADS", "all of them")
    return [f"- dates: {', '.join(sorted({r['date'] for r in rows}))}; host: {header['cpu']}, "
            f"{header['cores']} cores (OpenMP: UNPY_DEVICE=none, threads: {threads})",
            f"- OpenCL device (UNPY_DEVICE={header['device_spec']}): {header['opencl']}; "
            f"CUDA device: {header['cuda']}",
            "- versions: " + ", ".join(f"{k} {v}" for k, v in header["versions"].items())]


def write_markdown(path, rows, machine, header):
    lines = [f"# unpy on the GPU vs OpenMP, Numba CUDA and CuPy: {machine}", "",
             *machine_lines(rows, header),
             f"- median of {header['repeat']} timed calls after the first call, which is checked "
             "against NumPy and shown in its own table, and, for unpy, after untimed calls "
             "while the first call's search of the kernel's tuning goes on (jitgpu/search.py: "
             f"its candidates' builds waited for, one timed a call; at most {SETTLE_SECONDS:g} "
             "s), so the timed calls run the chosen kernel; times in ms of a whole call from NumPy "
             "arrays, transfers included, except CuPy kernel (arrays on the device); "
             f"ratios: column / {UNPY} (> 1: unpy faster)",
             "- unpy GPU <opt>: UNPY_FORCE_GPU=1 UNPY_GPU_OPT=<opt>; unpy auto: no "
             "UNPY_FORCE_GPU, UNPY_GPU_OPT unset, where it ran in brackets; Numba CUDA: naive "
             "`@cuda.jit` kernels (bench/numba_cuda_kernels.py), to_device + kernel + "
             "copy_to_host", "",
             *time_tables(rows, COLUMNS, RATIOS, [("kernel", "case"), ("n", "n")],
                          "First calls (ms; OpenCL build or cache hit, Numba compilation)")]
    lines += ["", "## Time split of the unpy calls on the device (ms, median of each part over "
              "the timed calls; other = the rest of the median call, host work)", "",
              "| kernel | n | column | first-call build | " + " | ".join(SPLIT)
              + " | other | call | MB moved | MB touched |",
              "|---|---:|---|" + "---:|" * (len(SPLIT) + 5)]
    for r in rows:
        for column in [*GPU_COLUMNS, AUTO]:
            result = r["columns"][column]
            if not result["split"]:
                continue
            parts = [ms(result["split"][p]) for p in (*SPLIT, "other")]
            lines.append(f"| {r['case']} | {r['n']} | {column} | {ms(result['build_first'])} | "
                         + " | ".join(parts) + f" | {ms(result['median'])} | "
                         f"{result['moved'] / 1e6:.1f} | {result['touched'] / 1e6:.1f} |")
    lines += ["", "## Notes", ""] + [f"- {note}" for note in notes(rows)]
    lines += ["", f"## Transfer groups ({UNPY}; the case of the paper's section 4.3 each group "
              "was solved with)", ""]
    for r in rows:
        groups = r["columns"][UNPY]["groups"]
        if groups:
            lines.append(f"- {r['case']} n={r['n']}: " + "; ".join(groups))
    path.write_text("\n".join(lines) + "\n")


def notes(rows):
    """One line per (column, reason) for the cells without a time, and per reason a unpy column
    gave for where it ran, with the rows it applies to."""
    found = {}
    for r in rows:
        for column, result in r["columns"].items():
            what = f"{r['case']} n={r['n']}"
            if not result["ok"]:
                found.setdefault(f"{column}: — {result['reason']}", []).append(what)
            elif result["note"] and column != "OpenMP":
                found.setdefault(f"{column}: {result['note']}", []).append(what)
    by_column = sorted(found.items(), key=lambda item: COLUMNS.index(item[0].split(":")[0]))
    return [f"{text} ({'all rows' if len(where) == len(rows) else ', '.join(where)})"
            for text, where in by_column]


def write_chart(path, rows, machine):
    """The paper's figures 9-10 (speed-up of each column over OpenMP) and 11 (the split of the
    unpy GPU call) redrawn."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np
    labels = [f"{r['case']}\nn={r['n']}" for r in rows]
    x = np.arange(len(rows))
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(max(10, 1.6 * len(rows) + 3), 10))
    shown = [c for c in COLUMNS[1:] if any(r["columns"][c]["ok"] for r in rows)]
    width = 0.8 / max(len(shown), 1)
    for k, column in enumerate(shown):
        heights = [r["columns"]["OpenMP"]["median"] / r["columns"][column]["median"]
                   if r["columns"][column]["ok"] and r["columns"]["OpenMP"]["ok"] else np.nan
                   for r in rows]
        top.bar(x + (k - (len(shown) - 1) / 2) * width, heights, width, label=column)
    top.axhline(1.0, color="black", linewidth=0.8)
    top.set_yscale("log")
    top.set_xticks(x, labels, fontsize=8)
    top.set_ylabel("speed-up over unpy OpenMP (higher is faster)")
    top.set_title(f"whole calls from NumPy arrays, transfers included (CuPy kernel: arrays "
                  f"already on the device): {machine}")
    top.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    base = np.zeros(len(rows))
    for part in (*SPLIT, "other"):
        share = np.array([100 * r["columns"][UNPY]["split"][part] / r["columns"][UNPY]["median"]
                          if r["columns"][UNPY]["split"] else np.nan for r in rows])
        bottom.bar(x, share, 0.6, bottom=base, label=part)
        base = base + np.nan_to_num(share)
    bottom.set_xticks(x, labels, fontsize=8)
    bottom.set_ylabel(f"% of the {UNPY} call")
    bottom.set_title(f"time split of the {UNPY} call (median of each part)")
    bottom.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def load(path):
    return json.loads(path.read_text()) if path.exists() else {"rows": []}


def save(path, saved, rows, header):
    """Merge `rows` into the saved ones (a row replaces the one of the same case and size)."""
    merged = {(r["case"], r["n"]): r for r in saved["rows"]}
    merged.update({(r["case"], r["n"]): r for r in rows})
    order = {label: k for k, label in enumerate(
        c.label for kernel in KERNELS for c in _harness.interpreted(kernel).CASES)}
    saved = {"header": header, "rows": sorted(merged.values(),
                                              key=lambda r: (order.get(r["case"], 99), r["n"]))}
    path.write_text(json.dumps(saved, indent=1) + "\n")
    return saved


def sizes_of(module, name):
    """The sizes an example lists under `name` (tiny and small are one size, the others tuples)."""
    sizes = module.SIZES[name]
    return sizes if isinstance(sizes, tuple) else (sizes,)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--machine", default="gpu")
    parser.add_argument("--sizes", choices=["tiny", "small", "dev", "accel"],
                        help="the examples' sizes (tiny: for the CUDA simulator)")
    parser.add_argument("--kernels", default=",".join(KERNELS))
    parser.add_argument("--n", help="comma-separated sizes to run instead of the --sizes ones")
    parser.add_argument("--repeat", type=int)
    parser.add_argument("--quick", action="store_true",
                        help="smoke test: the examples' small sizes, 3 timed calls")
    parser.add_argument("--results", type=Path, default=ROOT / "bench" / "results")
    parser.add_argument("--chart-only", action="store_true",
                        help="redraw the table and chart from <results>/gpu-<machine>.json")
    options = parser.parse_args(argv)
    sizes = options.sizes or ("small" if options.quick else "accel")
    repeat = options.repeat or (3 if options.quick else 5)
    path = options.results / f"gpu-{options.machine}.json"
    saved = load(path)
    if options.chart_only:
        if not saved["rows"]:
            parser.error(f"no results in {path}")
        write_markdown(path.with_suffix(".md"), saved["rows"], options.machine, saved["header"])
        write_chart(path.with_suffix(".png"), saved["rows"], options.machine)
        return 0

    device = os.environ.get("UNPY_DEVICE") or "gpu"
    peers = {"Numba CUDA": numba_cuda_column(), **cupy_columns()}
    options.results.mkdir(parents=True, exist_ok=True)
    header = {"cpu": cpu_model(), "cores": os.cpu_count(), "device_spec": device,
              "opencl": "none", "cuda": cuda_device_name(), "versions": versions(),
              "repeat": repeat}
    if saved["rows"] and saved["header"].get("cuda") != header["cuda"]:
        parser.error(f"the rows in {path} are from {saved['header'].get('cuda')}, this machine "
                     f"has {header['cuda']}: name another --machine")
    rows = []
    for kernel in options.kernels.split(","):
        module, note = unpy_module(kernel)
        if module is None:
            print(f"{kernel}: {note}", flush=True)
            continue
        makers = {column: unpy_column(module, column, device)
                  for column in ["OpenMP", *GPU_COLUMNS, AUTO]} | peers
        for case in module.CASES:
            for n in ([int(n) for n in options.n.split(",")] if options.n
                      else sizes_of(module, sizes)):
                started = time.perf_counter()
                rows.append(run_row(case, n, makers, repeat))
                free_cupy_memory()
                ran_on = rows[-1]["columns"][UNPY]["ran_on"]
                if ran_on.startswith("opencl"):
                    header["opencl"] = ran_on.split(":", 1)[1]
                saved = save(path, saved, rows, header)
                print(f"{case.label} n={n}: {time.perf_counter() - started:.0f} s", flush=True)
    return finish(path, saved, rows, options.machine, header, write_markdown, write_chart)


def finish(path, saved, rows, machine, header, write_markdown, write_chart) -> int:
    """Write the table and the chart of every saved row; the exit status: 1 when a row of this
    run gave a wrong result."""
    write_markdown(path.with_suffix(".md"), saved["rows"], machine, header)
    write_chart(path.with_suffix(".png"), saved["rows"], machine)
    print(f"wrote {path.with_suffix('.md')}, .png and .json")
    wrong = [r["case"] for r in rows
             if any(c["reason"] == "WRONG result" for c in r["columns"].values())]
    if wrong:
        print("WRONG results in: " + ", ".join(wrong))
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
