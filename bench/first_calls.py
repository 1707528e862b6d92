"""The first calls of a fresh process with the default settings (issue 20, item 6: "in a fresh
process, every call after the first within 1.5x of the steady time, for every example at its
accelerator size; the first call within 1 s plus the one-time device probe").

Per example case and size, a fresh Python process builds nothing (the module is built before,
`unpy build`), times the device probe on its own (`gpurts.device_selection`), then --calls calls
of the compiled function with the default switches (UNPY_DEVICE as set, else the first GPU; no
UNPY_FORCE_GPU), each timed alone, the arguments restored outside the timing where the kernel
updates one. The steady time is the median of the last 5 calls; the table gives the first
call, the slowest of calls 2..N and its ratio to the steady time (target 1.5), and every call.

    python bench/first_calls.py [--kernels mmult,syrk] [--sizes accel] [--calls 16]
                                [--out bench/results/first-calls-h100.md]
"""
from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "examples"), str(ROOT / "bench")]

TARGET = 1.5
STEADY_CALLS = 5


def one(kernel: str, func: str, n: int, calls: int) -> dict:
    """In this (fresh) process: the probe's seconds and every call's."""
    import importlib

    import _harness
    import numpy as np
    import unpython
    module = importlib.import_module(kernel)
    case = next(c for c in module.CASES if c.func == func)
    function = getattr(module, func)
    args = case.args(n)
    saved = args[case.out].copy() if case.inout else None
    started = time.perf_counter()
    from gpurts import device_selection
    selection = device_selection(os.environ.get("UNPY_DEVICE", ""))
    probe_s = time.perf_counter() - started
    want = case.expected(args)
    seconds = []
    for k in range(calls):
        if saved is not None:
            np.copyto(args[case.out], saved)
        started = time.perf_counter()
        function(*args)
        seconds.append(time.perf_counter() - started)
        if k == 0:
            ok = bool(_harness.matches(args[case.out], want, case.rtol))
    nests = unpython.explain(function).nests
    return {"probe_s": probe_s, "device": getattr(selection.device, "label", None),
            "seconds": seconds, "ok": ok,
            "ran_on": sorted({n.ran_on or "?" for n in nests}),
            "reason": nests[0].reason if nests else ""}


def row(kernel, func, label, n, calls) -> dict:
    done = subprocess.run([sys.executable, __file__, "--one", f"{kernel},{func},{n},{calls}"],
                          capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        return {"label": label, "n": n, "error": (done.stderr or done.stdout).strip()[-300:]}
    result = json.loads(done.stdout.strip().splitlines()[-1])
    seconds = result["seconds"]
    steady = statistics.median(seconds[-STEADY_CALLS:])
    later = max(seconds[1:])
    return dict(result, label=label, n=n, steady_s=steady, slowest_later_s=later,
                ratio=later / steady)


def cpu_model() -> str:
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("model name"):
            return line.split(":", 1)[1].strip()
    return platform.machine()


def ms(s):
    return f"{s * 1e3:.3g}"


def table(rows, header) -> str:
    lines = header + ["", "| case | n | probe (ms) | first call (ms) | steady (ms) | slowest of calls "
                      f"2.. (ms) | slowest / steady (target {TARGET}) | ran on | checked | "
                      "calls (ms) |", "|---|---:|---:|---:|---:|---:|---:|---|---|---|"]
    met = 0
    for r in rows:
        if "error" in r:
            lines.append(f"| {r['label']} | {r['n']} | — | — | — | — | — | — | — | "
                         f"failed: {r['error']} |")
            continue
        met += r["ratio"] <= TARGET
        lines.append(
            f"| {r['label']} | {r['n']} | {ms(r['probe_s'])} | {ms(r['seconds'][0])} | "
            f"{ms(r['steady_s'])} | {ms(r['slowest_later_s'])} | {r['ratio']:.2f} "
            f"{'✓' if r['ratio'] <= TARGET else '✗'} | {', '.join(r['ran_on'])} | "
            f"{'ok' if r['ok'] else 'DIFFERS'} | {' '.join(ms(s) for s in r['seconds'])} |")
    timed = sum("error" not in r for r in rows)
    lines += ["", f"{met} of {timed} cases: every call after the first within {TARGET}x of the "
              "steady time."]
    return "\n".join(lines) + "\n"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--one", help=argparse.SUPPRESS)
    parser.add_argument("--kernels", default="mmult,nbody,cp,syrk,syr2k,stencil")
    parser.add_argument("--sizes", default="accel", help="comma-separated: dev, accel")
    parser.add_argument("--calls", type=int, default=16)
    parser.add_argument("--out")
    options = parser.parse_args(argv)
    if options.one:
        kernel, func, n, calls = options.one.split(",")
        print(json.dumps(one(kernel, func, int(n), int(calls))))
        return 0
    from cpu import example_sizes
    header = [f"# First calls of a fresh process, default switches: "
              f"{datetime.date.today().isoformat()}", "",
              f"- machine: {cpu_model()}, "
              f"{os.cpu_count()} CPUs; UNPY_DEVICE={os.environ.get('UNPY_DEVICE', '')!r}",
              f"- `python bench/first_calls.py --kernels {options.kernels} --sizes "
              f"{options.sizes} --calls {options.calls}`; steady: the median of the last "
              f"{STEADY_CALLS} calls"]
    rows = []
    for module, case, n in example_sizes(options.kernels, options.sizes):
        rows.append(row(module.__name__, case.func, case.label, n, options.calls))
        print(table(rows[-1:], []).splitlines()[3], flush=True)
    text = table(rows, header)
    print(text)
    if options.out:
        Path(options.out).write_text(text)
        Path(options.out).with_suffix(".json").write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
