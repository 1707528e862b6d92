"""What the GPU path's rounding rules cost in kernel time (issue 19, item 1): the six example
kernels built as usual (`#pragma OPENCL FP_CONTRACT OFF` in every kernel, correctly rounded
float32 division and sqrt where the device offers them, the float sums in the interpreter's
order) and with `--fastmath` (contraction into FMAs, the device's own division and sqrt, float
sums split into lanes), each forced onto the device with every loop optimisation.

Each build runs in a process of its own (the two extension modules have one name); the kernel
time is the median over the timed calls of the `kernel` part that `unpython.explain` reports
(OpenCL events), so transfers and host work are left out.

    python bench/rounding_cost.py [--n 2048] [--kernels mmult,nbody] [--out DIR]

UNPY_DEVICE names the device (default: the first GPU). Writes <out>/rounding-cost-<tag>.md.
"""
from __future__ import annotations

import argparse
import datetime
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
KERNELS = ["mmult", "nbody", "cp", "syrk", "syr2k", "stencil"]
CALLS = 7


def measure(kernel: str, n: int | None, fastmath: bool) -> dict:
    """In this process: build `kernel` (the example) into a folder of its own, call each of
    its functions forced onto the device, and return {function: median kernel ms}."""
    sys.path[:0] = [str(ROOT), str(ROOT / "examples")]
    import importlib.util

    import unpython
    from unpy.cpp_emit.build import BuildOptions, build
    out = Path(tempfile.mkdtemp(prefix=f"rounding-{kernel}-"))
    so = build(str(ROOT / "examples" / f"{kernel}.py"), str(out),
               BuildOptions(fastmath=fastmath)).output
    # The example's .py for its CASES and SIZES, under another name: `kernel` is the build's.
    spec = importlib.util.spec_from_file_location(f"{kernel}_py", ROOT / "examples" / f"{kernel}.py")
    source = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(source)
    spec = importlib.util.spec_from_file_location(kernel, so)
    module = sys.modules[kernel] = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    os.environ["UNPY_FORCE_GPU"] = "1"
    found = {}
    for case in source.CASES:
        size = n or source.SIZES["accel"][0]
        args = case.args(size)
        func = getattr(module, case.func)
        times = []
        for call in range(CALLS + 3):
            work = [a.copy() if k == case.out else a for k, a in enumerate(args)]
            func(*work)
            nest = unpython.explain(func).nests[0]
            if call >= 3 and nest.ran_on and nest.ran_on.startswith("opencl"):
                times.append(nest.timings.get("kernel", float("nan")) * 1e3)
        found[f"{case.func} n={size}"] = statistics.median(times) if times else None
    return found


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, help="one size for every kernel (default: accel's first)")
    parser.add_argument("--kernels", default=",".join(KERNELS))
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results")
    parser.add_argument("--tag", default="gpu")
    parser.add_argument("--one", nargs=2, metavar=("KERNEL", "FASTMATH"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.one:
        print(json.dumps(measure(args.one[0], args.n, args.one[1] == "1")))
        return 0
    rows = []
    for kernel in args.kernels.split(","):
        got = []
        for fastmath in ("0", "1"):
            command = [sys.executable, __file__, "--one", kernel, fastmath]
            command += ["--n", str(args.n)] if args.n else []
            done = subprocess.run(command, capture_output=True, text=True)
            if done.returncode:
                print(done.stderr[-2000:], file=sys.stderr)
                got.append({})
                continue
            got.append(json.loads(done.stdout.strip().splitlines()[-1]))
        for name in got[0] or got[1]:
            exact, fast = got[0].get(name), got[1].get(name)
            ratio = f"{exact / fast:.2f}" if exact and fast else "—"
            rows.append(f"| {name} | {exact or '—':.4g} | {fast or '—':.4g} | {ratio} |"
                        if exact and fast else f"| {name} | {exact} | {fast} | — |")
            print(rows[-1], flush=True)
    device = os.environ.get("UNPY_DEVICE", "gpu")
    lines = [f"# Kernel time of the GPU path's rounding rules ({args.tag})", "",
             f"- date: {datetime.date.today()}; UNPY_DEVICE={device}; median of {CALLS} calls "
             "after 3, kernel time from the OpenCL events (`unpython.explain`), forced onto the "
             "device, every loop optimisation (bench/rounding_cost.py)",
             "- exact: the default build (no contraction, correctly rounded float32 / and sqrt, "
             "sums in order); --fastmath: contraction, the device's / and sqrt, lanes", "",
             "| kernel | exact (ms) | --fastmath (ms) | exact / fastmath |", "|---|---:|---:|---:|",
             *rows, ""]
    args.out.mkdir(parents=True, exist_ok=True)
    path = args.out / f"rounding-cost-{args.tag}.md"
    path.write_text("\n".join(lines))
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
