"""Whether unpy's automatic GPU-or-OpenMP decision comes within 1.2x of the faster of the GPU and
OpenMP, from the third call on, on every `@unpython.gpu` function of tests/kernels (and of
examples/, by --kernels) at two sizes (issue 20, item 6; bench/corpus_decisions.py does the same
for the NumPy corpus and measures the columns the same way).

The functions and their inputs are bench/numba_parity.py's: arguments made from the first
signature (every dimension of every array one length n; an example's own `_harness.Case`), the
int scalars taking the first of its candidates that the interpreter runs without raising at the
small size. The two sizes:
- "small": numba_parity's check size (1-D 256, 2-D 30x30, 3-D 12^3...), where a call is mostly
  its fixed costs;
- "large": n grown (x4 elements a step) from there until one OpenMP call takes --large-ms (20
  ms) or the largest array would pass --cap elements.
At "small" every column's first call is checked against the interpreter; at "large" against the
OpenMP column's first result (the interpreter takes minutes on the Python loops).

Columns (corpus_decisions.measure_columns): OpenMP (UNPY_DEVICE=none); GPU forced (its kernel
search settled for --settle seconds at most first); auto (UNPY_DEVICE=<--device>, every prepared
layout and measured decision forgotten first, as in a fresh process whose kernels are built). The
verdict: "ok" when auto <= 1.2 x min(OpenMP, GPU forced).

    python3 bench/kernel_decisions.py --device gpu --sizes large --out bench/results/x.md
    python3 bench/kernel_decisions.py --device gpu --part 1/2 --out ...   # rows kept across parts
    .venv/bin/python bench/kernel_decisions.py --device cpu --kernels 'numpy_exprs.*' --sizes small

The table goes to --out and its rows to the .json beside it, both rewritten after each row; rows
already in that .json for other functions or sizes are kept. The files are built by `unpy build`
into bench/build/numba_parity (UNPY_CACHE_DIR keeps the builds).
"""
from __future__ import annotations

import argparse
import datetime
import json
import sys
import time
from dataclasses import asdict
from pathlib import Path


ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "tests" / "corpus"), str(ROOT / "tests"), str(ROOT),
                str(ROOT / "bench")]

import corpus  # noqa: E402
from corpus_decisions import (OPENMP, WITHIN, column_settings, git_commit,  # noqa: E402
                              header_of, measure_columns, progress, stdout_to_stderr,
                              table_row, verdict)
from gpu import ms, set_switches  # noqa: E402
from jitgpu import search, session  # noqa: E402
from numba_parity import (Target, build_all, candidate_inputs, compiled,  # noqa: E402
                          find_targets, interpreted, unmakeable)

SIZES = ("small", "large")
LARGE_MS = 20.0
CAP = 16 << 20              # elements of the largest array at most
REFERENCE_LIMIT_S = 10.0    # the interpreter at the small size


def gpu_targets(patterns: list) -> list:
    """The `@unpython.gpu` functions matching `patterns` (numba_parity.find_targets'; none:
    every one of tests/kernels)."""
    return [t for t in find_targets(patterns) if t.gpu and (patterns or "/kernels/" in t.path)]


def chosen_inputs(target: Target):
    """(the first Inputs whose arguments the interpreter takes at the small size, its Outcome),
    or (None, why)."""
    function = getattr(interpreted(target.path), target.name)
    last = "no candidate"
    for inputs in candidate_inputs(target):
        args = inputs.make(inputs.small)
        started = time.perf_counter()
        outcome = corpus.call(function, args)
        if time.perf_counter() - started > REFERENCE_LIMIT_S:
            return None, "the interpreter is too slow at the small size"
        if outcome.error is None:
            return inputs, outcome
        last = f"the interpreter raised {type(outcome.error).__name__}: {outcome.error}"
    return None, corpus.first_line(last)


def large_size(f, inputs, large_s: float, cap: int) -> int:
    """n grown from the small size until an OpenMP call of `f` takes `large_s`, or the next
    step would pass `cap` elements."""
    set_switches(column_settings("none")[OPENMP])
    n = inputs.small
    while inputs.elements(inputs.grown(n)) <= cap:
        args = inputs.make(n)
        f(*args)                             # (warm: first touches, allocations)
        started = time.perf_counter()
        f(*args)
        if time.perf_counter() - started >= large_s:
            break
        n = inputs.grown(n)
    set_switches({})
    return n


def measure_row(target, f, inputs, size, n, reference, options) -> dict:
    search.settle(options.settle)
    time.sleep(0.2)
    columns = measure_columns(f, inputs.make(n), reference, f"{target.label} {size}",
                              options.device, options.timeout, options.repeat)
    row = {"kernel": target.label, "size": size, "scale": n, "described": inputs.describe(n),
           "date": datetime.date.today().isoformat(),
           "checked_against": "interpreter" if size == "small" else "OpenMP",
           "columns": {k: asdict(c) for k, c in columns.items()}}
    row["verdict"], row["ratio"] = verdict(columns)
    return row


def markdown(rows: list, header: dict, repeat: int) -> str:
    judged = [r for r in rows if r["verdict"] != "—"]
    ok = [r for r in judged if r["verdict"] == "ok"]
    misses = [f"{r['kernel']} {r['size']} (+{(r['ratio'] - 1) * 100:.0f} %)"
              for r in judged if r["verdict"] != "ok"]
    lines = ["# unpy's automatic GPU-or-OpenMP decision on the @gpu functions of tests/kernels",
             "",
             f"- dates: {', '.join(sorted({r['date'] for r in rows}))}; host: {header['cpu']}, "
             f"{header['cores']} cores; unpy {header['versions'].get('unpy')}",
             f"- device: UNPY_DEVICE={header['device_spec']}: {header['opencl']}",
             f"- times in ms of a whole call from NumPy arrays: the median of calls 3-{2 + repeat} "
             "(as bench/corpus_decisions.py); sizes: small = the check size, large = grown until "
             "an OpenMP call takes 20 ms (the size column says n)",
             "", f"**{len(ok)} of {len(judged)} rows within {WITHIN:g}x; misses: "
             + (", ".join(misses) or "none") + "**", "",
             "| kernel | size | OpenMP (ms) | GPU forced (ms) | auto (ms) | auto calls 2-6 (ms) | "
             "auto ran on | verdict | why (auto's nests, last call) |",
             "|---|---|---:|---:|---:|---:|---|---|---|"]
    lines += [table_row(dict(r, shown_size=f"{r['size']} ({r['described']})")) for r in rows]
    notes = []
    for r in rows:
        for name, c in r["columns"].items():
            if c["mismatch"]:
                notes.append(f"- {r['kernel']} {r['size']} {name}: RESULTS DIFFER: "
                             f"{corpus.first_line(c['mismatch'])}")
            if c["note"]:
                notes.append(f"- {r['kernel']} {r['size']} {name}: {c['note']}")
    if notes:
        lines += ["", "## Notes", "", *notes]
    return "\n".join(lines) + "\n"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--device", default="gpu")
    parser.add_argument("--kernels", default="", help="comma-separated fnmatch patterns")
    parser.add_argument("--sizes", default=",".join(SIZES))
    parser.add_argument("--part", default="1/1", help="k/N: every N-th function from the k-th")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--settle", type=float, default=2.0,
                        help="seconds of the GPU column's search at most")
    parser.add_argument("--timeout", type=float, default=15.0, help="seconds per column")
    parser.add_argument("--large-ms", type=float, default=LARGE_MS)
    parser.add_argument("--cap", type=int, default=CAP)
    parser.add_argument("--out", type=Path, required=True)
    options = parser.parse_args(argv)
    k, parts = (int(x) for x in options.part.split("/"))
    sizes = [s for s in options.sizes.split(",") if s]
    targets = gpu_targets([p for p in options.kernels.split(",") if p])[k - 1::parts]
    started = time.perf_counter()
    with stdout_to_stderr():
        built = build_all(sorted({t.path for t in targets}))
    progress(f"{len(targets)} functions; built in {time.perf_counter() - started:.0f} s")
    kept = []
    if options.out.with_suffix(".json").exists():
        kept = json.loads(options.out.with_suffix(".json").read_text())["rows"]
    header = header_of(options.device)
    header["versions"]["unpy"] = git_commit()
    rows = []

    def write():
        done = {(r["kernel"], r["size"]) for r in rows}
        every = [r for r in kept if (r["kernel"], r["size"]) not in done] + rows
        options.out.parent.mkdir(parents=True, exist_ok=True)
        options.out.with_suffix(".json").write_text(json.dumps({"header": header,
                                                                "rows": every}, indent=1))
        options.out.write_text(markdown(every, header, options.repeat))

    for target in targets:
        why = unmakeable(target) or built[target.path].error
        if why:
            progress(f"{target.label}: skipped ({why})")
            continue
        inputs, reference = chosen_inputs(target)
        if inputs is None:
            progress(f"{target.label}: skipped ({reference})")
            continue
        f = getattr(compiled(target.path, built[target.path].output), target.name)
        for size in sizes:
            try:
                if size == "small":
                    n, against = inputs.small, reference
                else:
                    n, against = large_size(f, inputs, options.large_ms / 1e3, options.cap), None
                with stdout_to_stderr():
                    rows.append(measure_row(target, f, inputs, size, n, against, options))
            except Exception as error:  # this benchmark's own failure: the others go on
                progress(f"{target.label} {size}: the benchmark failed: "
                         f"{type(error).__name__}: {corpus.first_line(str(error))}")
                continue
            write()
    write()
    progress(f"done in {time.perf_counter() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
