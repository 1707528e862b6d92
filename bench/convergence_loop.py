"""A convergence loop on the GPU (issue 21, item 2): Jacobi sweeps until the largest change, a
reduction computed by a nest, is at most `tol` (`jacobi_until_converged` of
tests/kernels/time_loops.py: three nests a sweep, the reduction's result read by the loop's
test every sweep).

Columns, each the median time of a whole call from NumPy arrays (transfers included), on fresh
copies of the same start grid (so every call makes the same sweeps):
- GPU, from C++: UNPY_FORCE_GPU=1; after the first sweep every launch is relaunched by the
  compiled caller (the reduction's partial results read back and combined there);
- GPU, through Python: the same with UNPY_REPLAY=0 (the relaunches go through the hook);
- OpenMP: UNPY_DEVICE=none, on all the machine's cores.
With the sweeps a call makes and the host's work per relaunch of the GPU columns
(`unpython.explain`: for the reduction's nest it includes the wait for its kernel).

    python bench/convergence_loop.py --sizes 512,1024 --machine h100
    UNPY_DEVICE=cpu python bench/convergence_loop.py --sizes 64 --machine pocl

Results: <results>/convergence-loop-<machine>.md (--results, default bench/results).
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
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]

import unpython  # noqa: E402
from time_loops import compiled_module  # noqa: E402

COLUMNS = {"GPU, from C++": {"UNPY_FORCE_GPU": "1"},
           "GPU, through Python": {"UNPY_FORCE_GPU": "1", "UNPY_REPLAY": "0"},
           "OpenMP": {"UNPY_DEVICE": "none"}}
SWITCHES = ("UNPY_FORCE_GPU", "UNPY_REPLAY", "UNPY_DEVICE")


def start_grid(n: int) -> np.ndarray:
    a = np.zeros((n, n))
    a[0, :], a[:, 0] = 1.0, 0.5
    return a


def measure(func, n, tol, most, settings, device, repeat):
    for name in SWITCHES:
        os.environ.pop(name, None)
    os.environ["UNPY_DEVICE"] = device
    os.environ.update(settings)
    a = start_grid(n)
    times, result = [], None
    for k in range(repeat + 2):             # (two untimed calls: builds, first decisions)
        x, y = a.copy(), a.copy()
        started = time.perf_counter()
        func(x, y, tol, most)
        if k >= 2:
            times.append(time.perf_counter() - started)
        result = x
    return statistics.median(times), result, unpython.explain(func).launches


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="512,1024")
    parser.add_argument("--tol", type=float, default=1e-4)
    parser.add_argument("--most", type=int, default=400)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--machine", default="local")
    parser.add_argument("--results", type=Path, default=ROOT / "bench" / "results")
    options = parser.parse_args(argv)
    device = os.environ.get("UNPY_DEVICE", "gpu")
    func = compiled_module().jacobi_until_converged
    lines = [f"# Convergence loop: {options.machine}", "",
             f"`bench/convergence_loop.py`, {datetime.datetime.now():%Y-%m-%d %H:%M}; "
             f"UNPY_DEVICE={device} for the GPU columns; tol {options.tol:g}, at most "
             f"{options.most} sweeps; ms of a whole call, median of {options.repeat} after 2 "
             "untimed calls.", "",
             "| n | sweeps | " + " | ".join(f"{c} ms" for c in COLUMNS)
             + " | host us per relaunch (from C++ / through Python) | same result |",
             "|---:|---:|" + "---:|" * len(COLUMNS) + "---:|---|"]
    for n in (int(x) for x in options.sizes.split(",")):
        row, results, launches = {}, [], {}
        for column, settings in COLUMNS.items():
            seconds, result, counts = measure(func, n, options.tol, options.most, settings,
                                              device, options.repeat)
            row[column] = seconds
            results.append(result)
            launches[column] = counts
            print(f"  n={n} {column}: {seconds * 1e3:.3f} ms", flush=True)
        sweeps = launches["GPU, from C++"].launches // 3
        same = all(np.array_equal(results[0], r) for r in results[1:])
        lines.append(f"| {n} | {sweeps} | "
                     + " | ".join(f"{row[c] * 1e3:.3g}" for c in COLUMNS) + " | "
                     + f"{launches['GPU, from C++'].us_per_relaunch:.1f} / "
                     f"{launches['GPU, through Python'].us_per_relaunch:.1f} | "
                     + ("yes" if same else "no") + " |")
    options.results.mkdir(parents=True, exist_ok=True)
    path = options.results / f"convergence-loop-{options.machine}.md"
    path.write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
