"""A histogram in a prange (issue 19): the atomic update unpy compiles `hist[bins[i]] += w[i]`
into, against private copies written by hand (bench/histogram/hist_kernels.py: each of `parts`
iterations fills a row of its own, a second prange adds the rows up), a sequential loop, and
NumPy's `np.bincount`.

For each number of bins (few bins: every update of a thread meets the others'; many: they
rarely meet, but the private rows grow), float64 (OpenMP's atomic is a compare-and-swap loop on
x86) and int64 (a locked add): after a checked, untimed first call, --rounds rounds over every
variant, each 0.2 s of warm-up and --repeat timed calls; a cell is the median of the rounds'
medians, in ms of a whole call, with their range (a shared machine's other work moves the
atomic columns most: whether the threads really run at once decides how often updates meet). The private copies use `parts` = the OpenMP thread
count (and 4x that). OpenMP path (UNPY_DEVICE=none) unless --device names an OpenCL device
(then UNPY_FORCE_GPU=1: the GPU path's atomics against its private rows).

    python bench/histogram.py [--n 10000000] [--repeat 9] [--rounds 3] [--device gpu]
        [--out bench/results]

Writes <out>/histogram-<tag>.md, tag: <cores>core[-<device>].
"""
from __future__ import annotations

import argparse
import datetime
import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
KERNELS = ROOT / "bench" / "histogram" / "hist_kernels.py"
BUILD_DIR = ROOT / "bench" / "histogram" / "build"
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

BINS = [16, 1024, 65_536, 1_048_576]


def load():
    """The kernels compiled by unpy (built into BUILD_DIR, through the build cache)."""
    import importlib.util
    from unpy.cpp_emit.build import BuildOptions, build
    so = build(str(KERNELS), str(BUILD_DIR), BuildOptions()).output
    spec = importlib.util.spec_from_file_location("hist_kernels", so)
    module = importlib.util.module_from_spec(spec)
    sys.modules["hist_kernels"] = module
    spec.loader.exec_module(module)
    return module


def timed(call, repeat):
    """Median seconds of `repeat` calls after 0.2 s of warm-up (`call()` makes its own
    fresh output)."""
    started = time.perf_counter()
    while time.perf_counter() - started < 0.2:
        call()
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        call()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def run(args):
    if args.device:
        os.environ["UNPY_DEVICE"], os.environ["UNPY_FORCE_GPU"] = args.device, "1"
    else:
        os.environ["UNPY_DEVICE"] = "none"
    kernels = load()
    import unpython
    threads = int(os.environ.get("OMP_NUM_THREADS") or os.cpu_count())
    rng = np.random.default_rng(0)
    rows = []
    for k in BINS:
        bins = rng.integers(0, k, args.n)
        for dtype in (np.float64, np.int64):
            # Integer weights: float sums are exact in any order, so every variant must agree.
            w = rng.integers(-8, 9, args.n).astype(dtype)
            expected = np.bincount(bins, weights=w, minlength=k).astype(dtype)
            suffix = "f64" if dtype == np.float64 else "i64"
            variants = {
                "atomic": lambda h: getattr(kernels, f"atomic_{suffix}")(bins, w, h),
                f"private x{threads}": lambda h: getattr(kernels, f"private_{suffix}")(
                    bins, w, h, threads),
                f"private x{4 * threads}": lambda h: getattr(kernels, f"private_{suffix}")(
                    bins, w, h, 4 * threads),
                "serial": lambda h: getattr(kernels, f"serial_{suffix}")(bins, w, h),
                "np.bincount": lambda h: h.__iadd__(
                    np.bincount(bins, weights=w, minlength=k).astype(dtype)),
            }
            row = {"bins": k, "dtype": np.dtype(dtype).name}
            for name, variant in variants.items():
                h = np.zeros(k, dtype)
                variant(h)
                assert np.array_equal(h, expected), (name, k, dtype)
                if args.device and name.startswith(("atomic", "private")):
                    func = f"{name.split()[0]}_{suffix}"
                    where = [n.ran_on for n in unpython.explain(getattr(kernels, func)).nests]
                    row.setdefault("ran on", set()).update(where)
            for _ in range(args.rounds):
                for name, variant in variants.items():
                    seconds = timed(lambda: variant(np.zeros(k, dtype)), args.repeat)
                    row.setdefault(name, []).append(seconds * 1e3)
            rows.append(row)
            print(row, flush=True)
    return rows, threads


def write(rows, threads, args, load_before):
    from bench.numpy_expr import cpu_model
    cols = [c for c in rows[0] if c not in ("bins", "dtype", "ran on")]
    tag = f"{os.cpu_count()}core" + (f"-{args.device}" if args.device else "")
    lines = [f"# Histogram in a prange: atomic updates against private copies ({tag})", "",
             f"- machine: {cpu_model()}, "
             f"os.cpu_count() = {os.cpu_count()}, OpenMP threads: {threads}; "
             f"1-minute load average: {load_before:.2f} before the run, "
             f"{os.getloadavg()[0]:.2f} after",
             f"- date: {datetime.date.today()}; `python bench/histogram.py --n {args.n} "
             f"--repeat {args.repeat} --rounds {args.rounds}"
             + (f" --device {args.device}" if args.device else "") + "`",
             f"- path: {'GPU path on ' + args.device if args.device else 'OpenMP (UNPY_DEVICE=none)'}"
             f"; {args.n:,} updates with integer weights; ms of a whole call (a fresh "
             f"zeroed histogram each): the median of {args.rounds} rounds' medians of "
             f"{args.repeat} calls (the rounds' range)",
             "- atomic: `hist[bins[i]] += w[i]` in a prange as unpy compiles it (on OpenMP "
             "each thread adds into a private copy where the bins times the threads are at "
             "most an eighth of the updates, else atomic updates); private xP: "
             "P rows of private counts filled by a prange over P blocks, then added up by a "
             "prange over the bins (bench/histogram/hist_kernels.py); serial: the loop with "
             "range", "",
             "| bins | dtype | " + " | ".join(cols) + " | atomic / best private |",
             "|---:|---|" + "---:|" * len(cols) + "---:|"]
    for r in rows:
        median = {c: statistics.median(r[c]) for c in cols}
        best = min(v for c, v in median.items() if c.startswith("private"))
        lines.append(f"| {r['bins']:,} | {r['dtype']} | "
                     + " | ".join(f"{median[c]:.3g} ({min(r[c]):.3g}-{max(r[c]):.3g})"
                                  for c in cols)
                     + f" | {median['atomic'] / best:.2f} |")
    ran_on = set().union(*(r.get("ran on", set()) for r in rows))
    if ran_on:
        lines += ["", f"The atomic and private nests ran on: {', '.join(sorted(ran_on))}."]
    out = Path(args.out) / f"histogram-{tag}.md"
    out.write_text("\n".join(lines) + "\n")
    print(out)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=10_000_000)
    parser.add_argument("--repeat", type=int, default=9)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--device", default="", help="an UNPY_DEVICE spec: the GPU path")
    parser.add_argument("--out", default=str(ROOT / "bench" / "results"))
    args = parser.parse_args()
    load_before = os.getloadavg()[0]
    rows, threads = run(args)
    write(rows, threads, args, load_before)


if __name__ == "__main__":
    main()
