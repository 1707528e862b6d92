"""Loop interchange and cache tiles on the CPU (issue 22 item 2): the kernels of
tests/kernels/loop_orders.py that users write in the order that walks row-major arrays down
their columns, built twice (before: the passes interchange and cache_tiles left out of
unpy.loopopt.REWRITES; after: the tree as it is), against NumPy's equivalent.

    .venv/bin/python bench/cpu_interchange.py [--sizes 768,1536] [--repeats 7] [--rounds 3]

Each cell: the median of `repeats` timed calls after one warm-up call; before, after and NumPy
are timed one after the other in each of `rounds` rounds, and the median of the rounds'
medians is printed with all of them. Every result is checked against NumPy's first (bit for
bit where the order of additions is the same: sums by columns, transposes). Threads at their
defaults (OMP_WAIT_POLICY=passive recommended on a shared machine)."""
import argparse
import datetime
import importlib.util
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
KERNELS = ROOT / "tests" / "kernels" / "loop_orders.py"


def build(variant: str, folder: Path):
    """The kernel module built with the passes (`after`) or without (`before`)."""
    import unpy.loopopt as loopopt
    from unpy.cpp_emit.build import build as build_module
    source = folder / f"loop_orders_{variant}.py"
    source.write_text(f"# bench/cpu_interchange.py: {variant}\n" + KERNELS.read_text())
    saved = loopopt.REWRITES
    if variant == "before":
        loopopt.REWRITES = tuple(p for p in saved if p not in (loopopt.interchange,
                                                               loopopt.cache_tiles))
    try:
        output = build_module(str(source), str(folder)).output
    finally:
        loopopt.REWRITES = saved
    spec = importlib.util.spec_from_file_location(f"loop_orders_{variant}", output)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def cases(n: int, rng):
    """(name, unpy function name, its arguments, NumPy's equivalent, output index, exact)."""
    a = rng.uniform(-1, 1, (n, n))
    out = np.zeros((n, n))
    col = np.zeros(n)
    kij_n = n // 2          # the k-outermost product at half size: the 2-core machine
    ka, kb = rng.uniform(-1, 1, (kij_n, kij_n)), rng.uniform(-1, 1, (kij_n, kij_n))
    kc = np.zeros((kij_n, kij_n))
    return [
        (f"transpose-add n={n}", "transpose_add", (a, out),
         lambda: np.add(a, a.T, out=out), 1, True),
        (f"transpose n={n}", "transpose", (a, out),
         lambda: np.copyto(out, a.T), 1, True),
        (f"column sums n={n}", "column_sums", (a, col),
         lambda: np.sum(a, axis=0, out=col), 1, False),
        (f"k-outermost matmul n={kij_n}", "kij_matmul", (ka, kb, kc),
         lambda: np.matmul(ka, kb, out=kc), 2, False),
    ]


def timed(call, repeats: int) -> float:
    call()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1e3


def main(argv=None):
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="768,1536")
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args(argv)
    folder = Path(tempfile.mkdtemp(prefix="bench-interchange-"))
    modules = {v: build(v, folder) for v in ("before", "after")}
    rng = np.random.default_rng(0)
    print(f"# {datetime.date.today()}, {os.cpu_count()} cores, "
          f"OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS', 'default')}")
    print("| kernel | NumPy (ms) | unpy before (ms) | unpy after (ms) | before / NumPy | "
          "after / NumPy | after / before |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for n in (int(x) for x in args.sizes.split(",")):
        for name, fn, call_args, numpy_call, out, exact in cases(n, rng):
            numpy_call()
            expected = call_args[out].copy()
            for module in modules.values():
                call_args[out][...] = 0
                getattr(module, fn)(*call_args)
                same = np.array_equal(call_args[out], expected) if exact else np.allclose(
                    call_args[out], expected, rtol=1e-9, atol=1e-9 * n)
                assert same, f"{name}: {module.__name__} differs from NumPy"
            rounds = {"numpy": [], "before": [], "after": []}
            for _ in range(args.rounds):
                rounds["numpy"].append(timed(numpy_call, args.repeats))
                for variant, module in modules.items():
                    f = getattr(module, fn)
                    rounds[variant].append(timed(lambda: f(*call_args), args.repeats))
            med = {k: statistics.median(v) for k, v in rounds.items()}
            cells = [f"{med[k]:.2f} [{', '.join(f'{x:.2f}' for x in rounds[k])}]"
                     for k in ("numpy", "before", "after")]
            print(f"| {name} | " + " | ".join(cells) + f" | {med['before'] / med['numpy']:.2f}"
                  f" | {med['after'] / med['numpy']:.2f} | {med['after'] / med['before']:.2f} |",
                  flush=True)


if __name__ == "__main__":
    main()
