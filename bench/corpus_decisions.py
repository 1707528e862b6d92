"""Whether unpy's automatic GPU-or-OpenMP decision comes within 1.2x of the faster of the GPU and
OpenMP, from the third call on, on every kernel of the NumPy corpus (tests/corpus/kernels) at two
sizes (issue 20, item 6): "test", the size the corpus tests (`inputs(rng)`), and "large",
`inputs(rng, LARGE)` (a call of 30-300 ms with OpenMP on 2 cores of the development machine).

Each row (a kernel at a size) measures three columns in this process, one after the other, each
on its own copy of the arguments:
- OpenMP: UNPY_DEVICE=none;
- GPU forced: UNPY_DEVICE=<--device> UNPY_FORCE_GPU=1; after its first call, untimed calls while
  its search of the kernel's tuning goes on (bench/gpu.py's settle_search), so that the timed
  calls run the kernel the search chose;
- auto: UNPY_DEVICE=<--device>, with every prepared layout and measured decision forgotten first
  (jitgpu.session.forget), as in a fresh process whose kernels are built already.
A column's first call is checked against the interpreter's result (tests/corpus/corpus.py's
comparison: rtol 1e-9 for float64, 1e-4 for float32). Its time is the median of calls 3 to
2 + --repeat, or, where that is under bench/decisions.py's SHORT_S, the median of STEADY_CALLS
further calls. The auto column also shows the median of its calls 2-6 (where a close call's
measuring falls) and where its nests ran on its last call, and why. The verdict: "ok" when
auto <= 1.2 x min(OpenMP, GPU forced), else "MISSED by x %".

Calls reuse their column's arrays: the kernels that write their inputs (gemm's c, heat_3d's grids,
prefix_rows...) do the same work again (values that grow, even to inf, change no timing: their
calls 26-30 took as long as calls on fresh copies, OpenMP at LARGE, 2026-11-26), and no kernel
has a loop whose count depends on data it overwrites (gauss_seidel and laplace_converge iterate
on arrays of their own), so no call needs fresh arguments.

Bounds, so that one slow kernel cannot stall the run: a column stops before a call that would
take it past --timeout-per-kernel seconds (noted; with no timed call, the column has no time), and
the GPU-forced column ends at call 3 when its second call took over SLOW_CALL_S (a kernel that
launches thousands of small kernels). The interpreter's reference result is given
--reference-timeout seconds (the kernels with Python loops take minutes at the large size); past
that, the other columns are checked against the OpenMP column's first result (itself checked
against the interpreter at the test size, here and by tests/corpus/test_corpus.py).

    python3 bench/corpus_decisions.py --device gpu --out bench/results/corpus-decisions-h100.md
    python3 bench/corpus_decisions.py --device gpu --sizes large --part 2/3 --out <the same>
    python3 bench/corpus_decisions.py --device gpu --kernels gemm,syrk --sizes large --out ...
    .venv/bin/python bench/corpus_decisions.py --device cpu --sizes test --kernels heat_3d,syrk

The Markdown table goes to --out (default: stdout), the raw numbers to the .json beside it,
both rewritten after each row. Rows already in that .json for other kernels or sizes are kept
(a run split with --kernels, --part or --sizes over several commands; the .json must be of the
same OpenCL device). The corpus is built as one module, as tests/corpus/corpus.py builds it (g++
takes minutes once; UNPY_CACHE_DIR keeps it).
"""
from __future__ import annotations

import argparse
import contextlib
import datetime
import gc
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import types
import warnings
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "tests" / "corpus"), str(ROOT / "tests"), str(ROOT),
                str(ROOT / "bench")]

import corpus  # noqa: E402
import diffcheck  # noqa: E402
import unpython  # noqa: E402
from cpu import cpu_model  # noqa: E402
from jitgpu import search, session  # noqa: E402
from decisions import SHORT_S, STEADY_CALLS  # noqa: E402
from gpu import SETTLE_SECONDS, Runner, ms, set_switches, settle_search, versions  # noqa: E402

WITHIN = 1.2
SIZES = ("test", "large")
OPENMP, GPU, AUTO = "OpenMP", "GPU forced", "auto"
# A GPU-forced column whose second call took longer ends at its third call.
SLOW_CALL_S = 2.0
AUTO_EARLY = slice(0, 5)        # calls 2-6 among the calls after the first
WHY_CHARS = 150


def column_settings(device: str) -> dict:
    return {OPENMP: {"UNPY_DEVICE": "none"},
            GPU: {"UNPY_DEVICE": device, "UNPY_FORCE_GPU": "1"},
            AUTO: {"UNPY_DEVICE": device}}


# --- one column ----------------------------------------------------------------------------------

@dataclass
class Column:
    first: float | None = None      # seconds of the first (checked) call
    calls: list = field(default_factory=list)   # seconds of calls 2, 3, ...
    settle_calls: int = 0           # GPU forced: untimed calls while its search went on
    median: float | None = None     # median of calls 3 .. 2 + repeat
    steady: float | None = None     # median of STEADY_CALLS more, where `median` < SHORT_S
    early: float | None = None      # median of calls 2-6 (the table shows auto's)
    mismatch: str | None = None     # how the first call's results differ from the reference
    note: str = ""                  # why there is no time, or fewer calls than asked
    where: str = ""                 # where the nests ran on the last call (corpus.where_ran)
    on_device: int = 0              # nests that ran on the device on the last call / that ran
    ran: int = 0
    why: str = ""                   # the reasons given for it

    @property
    def time(self) -> float | None:
        return self.steady if self.steady is not None else self.median


def call_once(f, args) -> tuple:
    """(seconds, result) of one call."""
    started = time.perf_counter()
    value = f(*args)
    return time.perf_counter() - started, value


def report_where(column: Column, f):
    """Where the nests of `f` ran on its last call, and the reasons given."""
    report = unpython.explain(f)
    column.where = corpus.where_ran(report)
    ran = [n for n in report.nests if n.ran_on]
    column.ran = len(ran)
    column.on_device = sum(n.ran_on.startswith("opencl") for n in ran)
    reasons = []
    for n in ran:
        line = corpus.first_line(n.reason)
        if line not in reasons:
            reasons.append(line)
    column.why = "; ".join(reasons)


def measure_column(name: str, f, args: tuple, check, timeout_s: float, repeat: int) -> tuple:
    """(Column, the first call's corpus.Outcome or None) of `f` on a copy of `args` under the
    switches already set: the first call checked by `check(outcome)`, then the timed calls."""
    column = Column()
    own = diffcheck.copy_args(args)
    started = time.perf_counter()
    try:
        column.first, value = call_once(f, own)
    except Exception as error:  # one column's failure is reported, not fatal to the others
        column.note = (f"the first call raised {type(error).__name__}: "
                       f"{corpus.first_line(str(error))}")
        return column, None
    outcome = corpus.Outcome(value, None, diffcheck.copy_args(own))   # (later calls write own)
    column.mismatch = check(outcome)
    report_where(column, f)
    if column.first > timeout_s:
        column.note = f"skipped: the first call took {column.first:.1f} s (> {timeout_s:g} s)"
        return column, outcome
    if name == GPU:
        def reasons():
            return types.SimpleNamespace(
                reason=" ".join(n.reason for n in unpython.explain(f).nests))
        column.settle_calls = settle_search(
            Runner(lambda: call_once(f, own)[0], None, reasons),
            min(SETTLE_SECONDS, max(timeout_s - (time.perf_counter() - started), 0.0)))
    wanted = 1 + repeat     # calls after the first: 2 .. 2 + repeat
    while len(column.calls) < wanted:
        last = column.calls[-1] if column.calls else column.first
        if time.perf_counter() - started + last > timeout_s:
            column.note = (f"stopped after call {1 + len(column.calls)}: another would pass "
                           f"{timeout_s:g} s")
            break
        try:
            column.calls.append(call_once(f, own)[0])
        except Exception as error:
            column.note = (f"call {2 + len(column.calls)} raised {type(error).__name__}: "
                           f"{corpus.first_line(str(error))}")
            break
        if name == GPU and len(column.calls) == 1 and column.calls[0] > SLOW_CALL_S:
            wanted = 2
            column.note = (f"calls 2-3 only: call 2 took {column.calls[0]:.1f} s "
                           f"(> {SLOW_CALL_S:g} s)")
    timed = column.calls[1:]
    if timed:
        column.median = statistics.median(timed)
        if column.median < SHORT_S:
            column.steady = statistics.median(call_once(f, own)[0] for _ in range(STEADY_CALLS))
    elif not column.note:
        column.note = "no timed call"
    if column.calls[AUTO_EARLY]:
        column.early = statistics.median(column.calls[AUTO_EARLY])
    report_where(column, f)
    return column, outcome


# --- one row: a kernel at one size ---------------------------------------------------------------

class ReferenceTimeout(BaseException):
    """The interpreter's reference call ran past --reference-timeout (a BaseException: not
    caught as the kernel's own error by corpus.call)."""


@contextlib.contextmanager
def alarm(seconds: float):
    """ReferenceTimeout in the main thread after `seconds` (between Python bytecodes: a kernel's
    Python loop is stopped in time, one long NumPy call after it returns)."""
    def expire(signum, frame):
        raise ReferenceTimeout()
    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def reference_outcome(kernel: corpus.Kernel, args: tuple, timeout_s: float) -> tuple:
    """(corpus.Outcome of the interpreter's call, or None past `timeout_s`; its seconds)."""
    started = time.perf_counter()
    try:
        with alarm(timeout_s):
            outcome = corpus.call(getattr(kernel.interpreted, kernel.function), args)
    except ReferenceTimeout:
        outcome = None
    return outcome, time.perf_counter() - started


def measure_row(kernel: corpus.Kernel, compiled, size: str, options) -> dict:
    scale = 1 if size == "test" else kernel.interpreted.LARGE
    args = kernel.arguments(scale)
    reference, reference_s = reference_outcome(kernel, args, options.reference_timeout)
    checked_against = "interpreter" if reference is not None else \
        f"OpenMP (the interpreter ran past {options.reference_timeout:g} s)"
    # Let OpenBLAS's threads (the reference's `@`) stop spinning before the timed calls, and
    # an earlier row's search finish its builds (its auto column's: a build takes a core from
    # this row's OpenMP calls; on the H100 host a kernel whose code had not changed measured
    # 0.057 ms in one run, 0.66 ms in the next).
    search.settle(SETTLE_SECONDS)
    time.sleep(0.2)
    columns = measure_columns(getattr(compiled, kernel.function), args, reference,
                              f"{kernel.name} {size}", options.device,
                              options.timeout_per_kernel, options.repeat)
    row = {"kernel": kernel.name, "size": size, "scale": scale,
           "date": datetime.date.today().isoformat(), "checked_against": checked_against,
           "reference_s": reference_s, "columns": {k: asdict(c) for k, c in columns.items()}}
    row["verdict"], row["ratio"] = verdict(columns)
    return row


def measure_columns(f, args, reference, label: str, device: str, timeout_s: float,
                    repeat: int) -> dict:
    """{column name: Column} of `f` on `args`, the columns one after the other, each first call
    checked against `reference` (a corpus.Outcome; None: against the OpenMP column's)."""
    columns = {}
    for name, settings in column_settings(device).items():
        if name == AUTO:
            session.forget()    # no prepared layout, no measured decision: a fresh process
        set_switches(settings)

        def check(outcome, against=reference, name=name):
            if against is None:
                return None
            return corpus.mismatch(against, outcome, f"{label} ({name})")
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            columns[name], outcome = measure_column(name, f, args, check, timeout_s, repeat)
        if reference is None and name == OPENMP:
            reference = outcome     # the other columns are checked against OpenMP's result
        shown = ms(columns[name].time) if columns[name].time is not None else "—"
        progress(f"  {label} {name}: {shown} ms ({columns[name].where})"
                 + (f" [{columns[name].note}]" if columns[name].note else "")
                 + (" [MISMATCH]" if columns[name].mismatch else ""))
    set_switches({})
    return columns


def verdict(columns: dict) -> tuple:
    """('ok' | 'MISSED by x %' | '—', auto / the faster of OpenMP and GPU forced, or None)."""
    auto = columns[AUTO].time
    times = [c.time for k, c in columns.items() if k != AUTO and c.time is not None]
    if auto is None or not times:
        return "—", None
    ratio = auto / min(times)
    return ("ok" if ratio <= WITHIN else f"MISSED by {(ratio - 1) * 100:.0f} %"), ratio


@contextlib.contextmanager
def stdout_to_stderr():
    """What C code prints meanwhile (the HiGHS solver's banner) goes to stderr: stdout holds the
    table alone."""
    sys.stdout.flush()
    saved = os.dup(1)
    os.dup2(2, 1)
    try:
        yield
    finally:
        sys.stdout.flush()
        os.dup2(saved, 1)
        os.close(saved)


def progress(line: str):
    print(line, file=sys.stderr, flush=True)


# --- the report ----------------------------------------------------------------------------------

def header_of(device: str) -> dict:
    from gpurts import device_selection
    selection = device_selection(device)
    d = selection.device
    opencl = (f"{d.name} ({d.platform_name}, driver {d.driver_version})" if d is not None
              else f"none ({selection.reason})")
    found = versions()
    found["unpy"] = git_commit()
    return {"cpu": cpu_model(), "cores": os.cpu_count(), "device_spec": device,
            "opencl": opencl, "omp_threads": os.environ.get("OMP_NUM_THREADS", "all cores"),
            "versions": found}


def git_commit() -> str:
    try:
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, text=True,
                                capture_output=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"],
                               cwd=ROOT, text=True, capture_output=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown (no git checkout)"
    return commit + (" with local changes" if dirty else "")


def cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def ran_on(column: dict) -> str:
    if not column["ran"]:
        return "host (no prange nest)" if column["where"] == "no prange nest" else "—"
    if column["on_device"] == column["ran"]:
        return "GPU"
    if column["on_device"] == 0:
        return "OpenMP"
    return f"GPU {column['on_device']}/{column['ran']} nests"


def table_row(row: dict) -> str:
    c = row["columns"]
    time_of = {k: v["steady"] if v["steady"] is not None else v["median"] for k, v in c.items()}
    gpu = ms(time_of[GPU])
    if c[GPU]["ran"] and c[GPU]["on_device"] < c[GPU]["ran"]:
        gpu += f" ({c[GPU]['on_device']}/{c[GPU]['ran']} on GPU)"
    size = row.get("shown_size") or ("test" if row["size"] == "test"
                                      else f"large (x{row['scale']})")
    why = c[AUTO]["why"]
    why = why if len(why) <= WHY_CHARS else why[:WHY_CHARS - 1] + "…"
    return (f"| {row['kernel']} | {size} | {ms(time_of[OPENMP])} | {gpu} | {ms(time_of[AUTO])} | "
            f"{ms(c[AUTO]['early'])} | {ran_on(c[AUTO])} | {row['verdict']} | {cell(why)} |")


def summary(rows: list) -> str:
    judged = [r for r in rows if r["verdict"] != "—"]
    ok = [r for r in judged if r["verdict"] == "ok"]
    misses = [f"{r['kernel']} {r['size']} (+{(r['ratio'] - 1) * 100:.0f} %)"
              for r in judged if r["verdict"] != "ok"]
    text = (f"{len(ok)} of {len(judged)} rows within {WITHIN:g}x; misses: "
            + (", ".join(misses) or "none"))
    unjudged = [f"{r['kernel']} {r['size']}" for r in rows if r["verdict"] == "—"]
    if unjudged:
        text += f"; {len(unjudged)} rows without a verdict: " + ", ".join(unjudged)
    return text


def notes(rows: list) -> list:
    """One line per row that needs one: its reference, mismatches, columns cut short."""
    lines = []
    for r in rows:
        found = []
        if not r["checked_against"].startswith("interpreter"):
            found.append(f"checked against {r['checked_against']}")
        for name, c in r["columns"].items():
            if c["mismatch"]:
                found.append(f"{name}: RESULTS DIFFER: {corpus.first_line(c['mismatch'])}")
            if c["note"]:
                found.append(f"{name}: {c['note']}")
        if r["columns"][GPU]["ran"] and r["columns"][GPU]["on_device"] < r["columns"][GPU]["ran"]:
            found.append(f"{GPU}: {r['columns'][GPU]['where']}")
        if found:
            lines.append(f"- {r['kernel']} {r['size']}: " + "; ".join(found))
    return lines


def markdown(rows: list, header: dict, repeat: int) -> str:
    dates = ", ".join(sorted({r["date"] for r in rows}))
    lines = ["# unpy's automatic GPU-or-OpenMP decision on the NumPy corpus", "",
             f"- dates: {dates}; host: {header['cpu']}, {header['cores']} cores (OpenMP "
             f"threads: {header['omp_threads']})",
             f"- device: UNPY_DEVICE={header['device_spec']}: {header['opencl']}",
             "- versions: " + ", ".join(f"{k} {v}" for k, v in header["versions"].items()),
             f"- times in ms of a whole call from NumPy arrays: the median of calls 3-{2 + repeat} "
             f"(of {STEADY_CALLS} more calls where that is under {SHORT_S * 1e3:g} ms); auto "
             "calls 2-6: their median, from no remembered decision; GPU forced: after untimed "
             "calls while its tuning search went on; the first call of each column checked "
             "against the interpreter; bench/corpus_decisions.py says more", "",
             f"**{summary(rows)}**", "",
             "| kernel | size | OpenMP (ms) | GPU forced (ms) | auto (ms) | auto calls 2-6 (ms) | "
             "auto ran on | verdict | why (auto's nests, last call) |",
             "|---|---|---:|---:|---:|---:|---|---|---|"]
    lines += [table_row(r) for r in rows]
    found = notes(rows)
    if found:
        lines += ["", "## Notes", "", *found]
    return "\n".join(lines) + "\n"


def load_rows(path: Path | None, header: dict) -> list:
    """The rows of an earlier run in the .json beside --out (same device), else none."""
    if path is None or not path.exists():
        return []
    saved = json.loads(path.read_text())
    if saved["header"]["opencl"] != header["opencl"]:
        raise SystemExit(f"{path} holds rows measured on {saved['header']['opencl']}, this run "
                         f"uses {header['opencl']}: name another --out")
    return saved["rows"]


def save(out: Path | None, rows: list, header: dict, repeat: int):
    order = {name: k for k, name in enumerate(sorted({r["kernel"] for r in rows}))}
    rows.sort(key=lambda r: (order[r["kernel"]], SIZES.index(r["size"])))
    text = markdown(rows, header, repeat)
    if out is None:
        return text
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text)
    out.with_suffix(".json").write_text(json.dumps({"header": header, "rows": rows}, indent=1)
                                        + "\n")
    return text


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--device", default="gpu",
                        help="the UNPY_DEVICE of the GPU columns (default gpu; cpu: PoCL)")
    parser.add_argument("--kernels", help="comma-separated kernel names (default: all)")
    parser.add_argument("--part", help="K/N: only the K-th of N consecutive shares of those "
                        "kernels (a run split over several commands)")
    parser.add_argument("--sizes", default=",".join(SIZES), help="test, large or both")
    parser.add_argument("--repeat", type=int, default=5, help="timed calls per column")
    parser.add_argument("--timeout-per-kernel", type=float, default=60.0,
                        help="seconds one column of one kernel may take (default 60)")
    parser.add_argument("--reference-timeout", type=float, default=10.0,
                        help="seconds for the interpreter's reference call (default 10)")
    parser.add_argument("--out", type=Path, help="the Markdown table (default: stdout); the "
                        "raw numbers go to the .json beside it")
    options = parser.parse_args(argv)
    sizes = options.sizes.split(",")
    if not set(sizes) <= set(SIZES):
        parser.error(f"--sizes: choose among {', '.join(SIZES)}")
    diffcheck.ensure_cache_dir()
    os.environ.setdefault("OMP_WAIT_POLICY", "passive")
    everything = corpus.load_kernels()
    chosen = corpus.load_kernels(options.kernels.split(",")) if options.kernels else everything
    if options.part:
        share, shares = (int(n) for n in options.part.split("/"))
        if not 1 <= share <= shares:
            parser.error("--part K/N: 1 <= K <= N")
        chosen = chosen[(share - 1) * len(chosen) // shares:share * len(chosen) // shares]
    header = header_of(options.device)
    json_path = options.out.with_suffix(".json") if options.out else None
    measured = {(r["kernel"], r["size"]): r for r in load_rows(json_path, header)}
    progress(f"{header['cpu']}, {header['cores']} cores; UNPY_DEVICE={options.device}: "
             f"{header['opencl']}")
    with tempfile.TemporaryDirectory(prefix="unpy-corpus-decisions-") as out_dir, \
            stdout_to_stderr():
        # All of the corpus as one module, as tests/corpus/corpus.py builds it: the build cache
        # has it whichever kernels are measured.
        statuses = corpus.build_all(everything, Path(out_dir), corpus.read_pending(), progress)
        for kernel in chosen:
            status = statuses[kernel.name]
            if status.compiled is None:
                progress(f"{kernel.name}: not measured: {corpus.first_line(status.failure)}")
                continue
            for size in sizes:
                started = time.perf_counter()
                row = measure_row(kernel, status.compiled, size, options)
                measured[(kernel.name, size)] = row
                save(options.out, list(measured.values()), header, options.repeat)
                progress(f"{kernel.name} {size}: {row['verdict']} "
                         f"({time.perf_counter() - started:.1f} s)")
                gc.collect()
    rows = list(measured.values())
    text = save(options.out, rows, header, options.repeat)
    if options.out is None:
        print(text, end="")
    else:
        progress(f"wrote {options.out} and {json_path}")
    progress(summary(rows))
    differ = [f"{r['kernel']} {r['size']}" for r in rows
              if any(c["mismatch"] for c in r["columns"].values())]
    if differ:
        progress("RESULTS DIFFER from the reference in: " + ", ".join(differ))
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
