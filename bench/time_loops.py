"""Time-stepping and sweep loops on the GPU (issue 21, items 1 and 3): functions whose sequential
loop holds several prange nests, written as a user would (tests/kernels/time_loops.py: 2-D
Jacobi, 3-D heat, 2-D FDTD, Floyd-Warshall, n-body leapfrog), each called from NumPy arrays.

Per program: the nest launches of one call, the whole call's time with the GPU forced
(UNPY_FORCE_GPU=1), the host's work per launch as `unpython.explain` reports it (seconds spent
in the hook per nest launch: for a relaunch, setting the changed scalars and the enqueue), and
the OpenMP time (UNPY_DEVICE=none, all the machine's cores). The host's work per launch is the
mean over the call's launches, the first full ones included; per relaunch, over the
relaunches alone. `--no-relaunch` switches the
relaunch path of jitgpu/relaunch.py off in this process (every launch prepares or looks up its
plan by the call's full inputs and runs through the executor, as before issue 21), for the
before/after table.

Method: two untimed calls (the first builds and prepares), then the median of `--repeat` calls
on the same arrays (updated in place: the times do not depend on the values).

    UNPY_DEVICE=cpu python bench/time_loops.py                  # PoCL here: small sizes
    UNPY_DEVICE=cpu python bench/time_loops.py --no-relaunch    # before
    python bench/time_loops.py --size issue                     # an H100: issue 21's sizes

UNPY_DEVICE names the OpenCL device of the GPU column (default: the first GPU).
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT)]

import unpython  # noqa: E402

KERNELS = ROOT / "tests" / "kernels" / "time_loops.py"
BUILD = ROOT / "bench" / "build" / "time_loops"

# program -> size name -> arguments maker
SIZES = {
    "small": {"jacobi2d": (64, 50), "heat3d": (16, 20), "fdtd2d": (40, 50, 30),
              "floyd_warshall": (48,), "nbody_leapfrog": (32, 30)},
    "issue": {"jacobi2d": (700, 200), "heat3d": (70, 100), "fdtd2d": (800, 900, 150),
              "floyd_warshall": (850,), "nbody_leapfrog": (100, 900)},
}


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
    n, steps = size
    return (steps, 0.001, rng.random((n, 3)), rng.random((n, 3)) - 0.5, np.zeros((n, 3)),
            rng.random(n) + 0.5)


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
    sys.modules["time_loops"] = module
    spec.loader.exec_module(module)
    return module


def switch_relaunch_off() -> None:
    """The state before issue 21 item 1, in this process: no family keys, no relaunches."""
    from jitgpu import hook, relaunch
    hook.try_relaunch = lambda *args: None
    relaunch.family_key = lambda *args: None


def timed(func, args, repeat: int) -> float:
    for _ in range(2):
        func(*args)
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        func(*args)
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", choices=sorted(SIZES), default="small")
    parser.add_argument("--programs", default=",".join(SIZES["small"]))
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--no-relaunch", action="store_true")
    parser.add_argument("--no-openmp", action="store_true")
    parser.add_argument("--module", help="a time_loops extension module built before "
                        "(skips the build)")
    args = parser.parse_args(argv)
    device = os.environ.get("UNPY_DEVICE", "gpu")
    if args.no_relaunch:
        switch_relaunch_off()
    module = compiled_module(args.module)
    rng = np.random.default_rng(0)
    print(f"# time loops, sizes '{args.size}', GPU column on UNPY_DEVICE={device}"
          + (", relaunch off (before)" if args.no_relaunch else ""))
    print("| program | size | launches per call | GPU forced ms | host us per launch "
          "| relaunched | host us per relaunch | OpenMP ms |")
    print("|---|---|---|---|---|---|---|---|")
    for program in args.programs.split(","):
        size = SIZES[args.size][program]
        func = getattr(module, program)
        call_args = make_args(program, size, rng)
        os.environ.update({"UNPY_DEVICE": device, "UNPY_FORCE_GPU": "1"})
        gpu_s = timed(func, call_args, args.repeat)
        launches = unpython.explain(func).launches
        openmp = "—"
        if not args.no_openmp:
            os.environ.pop("UNPY_FORCE_GPU")
            os.environ["UNPY_DEVICE"] = "none"
            openmp = f"{timed(func, call_args, args.repeat) * 1e3:.2f}"
            os.environ["UNPY_DEVICE"] = device
        print(f"| {program} | {'x'.join(map(str, size))} | {launches.launches} | "
              f"{gpu_s * 1e3:.2f} | {launches.us_per_launch:.1f} | {launches.relaunched} | "
              f"{launches.us_per_relaunch:.1f} | {openmp} |", flush=True)


if __name__ == "__main__":
    main()
