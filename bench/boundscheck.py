"""Index checks (issue 19 item 3): the default build (indices proved in range run unchecked,
the others checked: unpy/loopopt/index_proof.py) against `--unchecked` (no index checked: the
code of earlier builds) and `--boundscheck` (every index checked, every nest as written), on
the kernels of bench/boundscheck/index_kernels.py: a sequential 1-D stencil and a 2-D one in a
prange, the register-blocked matrix product, a lower-triangular product (all proved) and a
gather `a[idx[i]]` (checked by default); and the g++ time of a module in each mode.

Each mode builds its own copy of the kernels (through the build cache). After a checked first
call (all modes agree), --rounds rounds each time every kernel in every mode with each of the
--threads OpenMP thread counts, one mode after the other (so that a shared machine's load falls
on all three alike), --repeat calls each after 0.2 s of warm-up; a cell is the median of the
rounds' medians, in ms. Build times: g++ on the generated C++ (no
cache), --builds times per mode, the median. OpenMP path (UNPY_DEVICE=none).

    python bench/boundscheck.py [--n 4000000] [--rounds 9] [--repeat 7] [--builds 3]
        [--threads 2,1] [--out bench/results]

Writes <out>/boundscheck-<cores>core.md.
"""
from __future__ import annotations

import argparse
import ctypes
import datetime
import importlib.util
import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
KERNELS = ROOT / "bench" / "boundscheck" / "index_kernels.py"
BUILD_DIR = ROOT / "bench" / "boundscheck" / "build"
BUILT_MODULES = [KERNELS, ROOT / "examples" / "mmult.py", ROOT / "examples" / "jacobi2d.py"]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
from bench.histogram import timed      # noqa: E402  (median of calls after 0.2 s of warm-up)

MODES = {"default": {}, "unchecked": {"unchecked": True}, "boundscheck": {"boundscheck": True}}


def options(mode):
    from unpy.cpp_emit.build import BuildOptions
    return BuildOptions(**MODES[mode])


def load(mode):
    """The kernels built in `mode`, as a module of their own (a copy of the source named for
    the mode)."""
    from unpy.cpp_emit.build import build
    name = f"index_kernels_{mode}"
    source = BUILD_DIR / f"{name}.py"
    source.parent.mkdir(parents=True, exist_ok=True)
    source.write_text(KERNELS.read_text())
    so = build(str(source), str(BUILD_DIR), options(mode)).output
    spec = importlib.util.spec_from_file_location(name, so)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def cases(n):
    """name -> (function name, arguments, what a call computes)."""
    rng = np.random.default_rng(0)
    m = int(round(n ** 0.5))
    a1 = rng.random(n)
    a2, b2 = rng.random((m, m)), np.zeros((m, m))
    k = max(64, int(round(n ** (1 / 3) * 2)))        # a few ms: 318 for the default n
    mk, kn = rng.random((k, k)), rng.random((k, k))
    tri = rng.random((2 * m, 2 * m))
    return {
        "stencil (sequential, 1-D)": ("stencil", (a1, np.zeros(n), 4), f"4 x {n:,} points"),
        "jacobi (prange, 2-D)": ("jacobi", (a2, b2), f"{m} x {m}"),
        "matmul (register-blocked)": ("matmul", (mk, kn, np.zeros((k, k))), f"{k} x {k} x {k}"),
        "triangular (prange, j <= i)": ("triangular", (tri, rng.random(2 * m),
                                                       np.zeros(2 * m)), f"{2 * m} x {2 * m} / 2"),
        "gather a[idx[i]] (not provable)": ("gather", (a1, rng.integers(0, n, n), np.zeros(n)),
                                            f"{n:,}"),
    }


def set_threads(count: int):
    """The OpenMP threads of the compiled calls made from this thread (the modules share the
    process's libgomp)."""
    ctypes.CDLL("libgomp.so.1").omp_set_num_threads(count)


def build_seconds(path: Path, mode: str, builds: int) -> tuple:
    """(median seconds of g++ on `path`'s C++ in `mode`, the build cache bypassed; lines of
    that C++)."""
    from unpy.cpp_emit.build import compile_cpp, extension_suffix, generate
    _, cpp = generate(str(path), options(mode))
    times = []
    saved = os.environ.get("UNPY_CACHE_DIR")
    with tempfile.TemporaryDirectory(prefix="unpy-bench-") as tmp:
        source = Path(tmp) / f"{path.stem}.cpp"
        source.write_text(cpp)
        try:
            for k in range(builds):
                # A build cache of its own each time: compile_cpp keeps objects by their text.
                os.environ["UNPY_CACHE_DIR"] = str(Path(tmp) / f"cache{k}")
                t = time.perf_counter()
                compile_cpp([source], Path(tmp) / f"{path.stem}{extension_suffix()}",
                            options(mode))
                times.append(time.perf_counter() - t)
        finally:
            if saved is None:
                os.environ.pop("UNPY_CACHE_DIR", None)
            else:
                os.environ["UNPY_CACHE_DIR"] = saved
    return statistics.median(times), cpp.count("\n")


def run(args):
    os.environ["UNPY_DEVICE"] = "none"
    load_before = os.getloadavg()[0]
    modules = {mode: load(mode) for mode in MODES}
    table = cases(args.n)
    for name, (func, arguments, _) in table.items():     # checked: all modes agree
        results = []
        for mode, module in modules.items():
            out = [a.copy() if isinstance(a, np.ndarray) else a for a in arguments]
            getattr(module, func)(*out)
            results.append(out)
        for other in results[1:]:
            for x, y in zip(results[0], other):
                np.testing.assert_array_equal(x, y, err_msg=f"{name}")
    threads = [int(t) for t in args.threads.split(",")]
    rounds = {(name, t, mode): [] for name in table for t in threads for mode in MODES}
    for r in range(args.rounds):
        for t in threads:
            set_threads(t)
            for name, (func, arguments, _) in table.items():
                for mode, module in modules.items():
                    f = getattr(module, func)
                    rounds[(name, t, mode)].append(timed(lambda: f(*arguments), args.repeat))
        print(f"round {r + 1}/{args.rounds} done", flush=True)
    times = {key: (statistics.median(v), min(v), max(v)) for key, v in rounds.items()}
    builds = {}
    for path in BUILT_MODULES:
        for mode in MODES:
            builds[(path, mode)] = build_seconds(path, mode, args.builds)
            print(f"built {path.name} ({mode}) in {builds[(path, mode)][0]:.1f} s", flush=True)
    write_report(args, table, times, builds, load_before, os.getloadavg()[0])


def cell(t):
    median, low, high = (x * 1e3 for x in t)
    return f"{median:.3g} ({low:.3g}-{high:.3g})"


def write_report(args, table, times, builds, load_before, load_after):
    cores = os.cpu_count()
    cpu = platform.processor() or platform.machine()
    try:
        cpu = next(line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo")
                   if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    lines = [f"# Index checks: default (proved indices unchecked) against --unchecked and "
             f"--boundscheck ({cores}core)", "",
             f"- machine: {cpu}, os.cpu_count() = {cores}; 1-minute load average: "
             f"{load_before:.2f} before the run, {load_after:.2f} after (a shared machine)",
             f"- date: {datetime.date.today()}; `python bench/boundscheck.py --n {args.n} "
             f"--rounds {args.rounds} --repeat {args.repeat} --builds {args.builds} "
             f"--threads {args.threads}`",
             "- path: OpenMP (UNPY_DEVICE=none); ms of a whole call: the median of "
             f"{args.rounds} rounds' medians of {args.repeat} calls (the rounds' range); the "
             "modes alternate within each round; `threads`: OpenMP threads of the call (one "
             "thread is the steadier measure of the code on a shared machine)",
             "- kernels: bench/boundscheck/index_kernels.py; `default / unchecked` is the "
             "cost of the default's checks (the goal: within 1.02 where every index is proved)",
             "", "| kernel | size | threads | default | --unchecked | --boundscheck | "
             "default / unchecked | boundscheck / unchecked |",
             "|---|---|---:|---:|---:|---:|---:|---:|"]
    for name, (_, _, size) in table.items():
        for t in sorted({key[1] for key in times}, reverse=True):
            d, u, b = (times[(name, t, mode)] for mode in MODES)
            lines.append(f"| {name} | {size} | {t} | {cell(d)} | {cell(u)} | {cell(b)} | "
                         f"{d[0] / u[0]:.3f} | {b[0] / u[0]:.2f} |")
    lines += ["", "g++ time of a whole module (the generated C++ compiled as `unpy build` does, "
              f"the median of {args.builds}; `--unchecked` generates the C++ of earlier builds):",
              "", "| module | default | --unchecked | --boundscheck | default / unchecked | "
              "C++ lines (default / unchecked) |", "|---|---:|---:|---:|---:|---:|"]
    for path in BUILT_MODULES:
        d, u, b = (builds[(path, mode)] for mode in MODES)
        lines.append(f"| {path.relative_to(ROOT)} | {d[0]:.1f} s | {u[0]:.1f} s | {b[0]:.1f} s "
                     f"| {d[0] / u[0]:.2f} | {d[1]} / {u[1]} |")
    out = Path(args.out) / f"boundscheck-{cores}core.md"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("\n".join(lines) + "\n")
    print(out.read_text())


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=4_000_000, help="elements of the 1-D arrays")
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--builds", type=int, default=3)
    parser.add_argument("--threads", default=f"{os.cpu_count()},1",
                        help="OpenMP thread counts to time, comma-separated")
    parser.add_argument("--out", default=str(ROOT / "bench" / "results"))
    run(parser.parse_args(argv))


if __name__ == "__main__":
    main()
