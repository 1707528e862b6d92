"""The search of the kernel's tuning (jitgpu/search.py) on one OpenCL device: per example case,
the first call of a fresh search (its time: the default kernel's build and run, the
candidates' builds going on in the background), the calls it then took to settle (the
candidates' builds waited for, one timed a call, each call checked against NumPy) and in how
long, the first call of a second fresh preparation (the record: no search where it is
complete), and the median kernel time of repeated calls with the settled choice beside the
default's (UNPY_GPU_SEARCH=0). Every call is forced onto the device.

    python bench/search.py [--kernels mmult,syrk,syr2k,nbody] [--n 2048] [--repeat 5]
                           [--out DIR] [--search auto|1]

Writes <out>/search.json and prints one line per case. The records go to a fresh folder (the
OpenCL build cache stays UNPY_CACHE_DIR's: run once before to time warm builds, or point
UNPY_CACHE_DIR at an empty folder to time cold ones)."""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "examples"), str(ROOT / "bench")]

import _harness  # noqa: E402
import unpython  # noqa: E402
from gpu import Runner, settle_search  # noqa: E402
from gpu_variants import example_cases  # noqa: E402

# Seconds after the first call within which the search is to settle.
SETTLE_LIMIT_S = 60.0


def fresh_first_call(case, func, args):
    """(seconds, nest report, call, output) of a call that prepares anew (the prepared
    layouts forgotten; run_case turns the C++ replay off)."""
    from jitgpu import offload
    offload._PREPARED.clear()
    call, output = _harness.timed_caller(case, func, args)
    seconds = call()
    return seconds, unpython.explain(func).nests[0], call, output


class WrongResult(Exception):
    pass


def settled(func, call, output, want, rtol) -> dict | str:
    """Calls after the first until the search is over (`gpu.settle_search`), each checked.
    {calls, seconds (from the end of the first call to the end of the switch), nest report},
    or what went wrong."""
    from jitgpu import search

    def check(calls):
        if not _harness.matches(output, want, rtol):
            raise WrongResult(f"WRONG result at call {calls + 1} of the search")
    report = lambda: unpython.explain(func).nests[0]   # noqa: E731
    started = time.perf_counter()
    try:
        calls = settle_search(Runner(call, lambda: output, report), SETTLE_LIMIT_S, check)
    except WrongResult as e:
        return str(e)
    if search.PENDING in report().reason:
        return f"not settled after {calls} calls in {SETTLE_LIMIT_S:g} s"
    return {"calls": calls, "seconds": time.perf_counter() - started, "nest": report()}


def run_case(case, func, args, want, repeat, search_mode):
    from jitgpu import search
    os.environ.update(UNPY_FORCE_GPU="1", UNPY_REPLAY="0")
    row = {}
    with tempfile.TemporaryDirectory() as records:
        search.record_dir = lambda: records
        for label, mode in (("searched", search_mode), ("second", search_mode),
                            ("default", "0")):
            if mode == "auto":
                os.environ.pop("UNPY_GPU_SEARCH", None)
            else:
                os.environ["UNPY_GPU_SEARCH"] = mode
            first, nest, call, output = fresh_first_call(case, func, args)
            if not (nest.ran_on or "").startswith("opencl"):
                return {"error": f"ran on {nest.ran_on}: {nest.reason}"}
            if not _harness.matches(output, want, case.rtol):
                return {"error": f"WRONG result ({label})"}
            after = settled(func, call, output, want, case.rtol)
            if isinstance(after, str):
                return {"error": f"{after} ({label})"}
            kernels = []
            for _ in range(repeat):
                call()
                kernels.append(unpython.explain(func).nests[0].timings["kernel"])
            last = after["nest"]
            row[label] = {"first": first, "first_time": nest.details.get("time", ""),
                          "first_search": nest.details.get("search", ""),
                          "settle_calls": after["calls"], "settle_s": after["seconds"],
                          "kernel": statistics.median(kernels), "reason": last.reason,
                          "search": last.details.get("search", ""),
                          "ndrange": last.details.get("ndrange", "")}
    return row


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kernels", default="mmult,syrk,syr2k")
    parser.add_argument("--n", default="2048")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--search", default="auto", choices=("auto", "1"))
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results")
    options = parser.parse_args(argv)
    os.environ.setdefault("UNPY_DEVICE", "gpu")
    rows = []
    for case, func, n, args, want in example_cases(options.kernels, options.n):
        result = run_case(case, func, args, want, options.repeat, options.search)
        rows.append({"case": case.label, "n": n, **result})
        if "error" in result:
            print(f"{case.label} n={n}: {result['error']}", flush=True)
            continue
        s, r, d = result["searched"], result["second"], result["default"]
        print(f"{case.label} n={n}: first call {s['first'] * 1e3:.0f} ms searched "
              f"({s['first_time']}), settled after {s['settle_calls']} more calls in "
              f"{s['settle_s'] * 1e3:.0f} ms; first call {r['first'] * 1e3:.0f} ms at the "
              f"second preparation, {d['first'] * 1e3:.0f} ms default; kernel "
              f"{s['kernel'] * 1e3:.3f} ms settled vs {d['kernel'] * 1e3:.3f} ms default"
              f"\n    {s['search']}\n    second preparation: {r['search']}", flush=True)
    options.out.mkdir(parents=True, exist_ok=True)
    (options.out / "search.json").write_text(json.dumps(rows, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
