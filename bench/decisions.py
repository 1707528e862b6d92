"""Whether unpy's automatic decision (jitgpu/decide.py) picks the faster of the GPU and OpenMP, per
example kernel and size: the OpenMP time (UNPY_DEVICE=none), the forced GPU time (UNPY_FORCE_GPU=1,
default UNPY_GPU_OPT), the automatic time (neither), which side it chose, whether that is within
5 % of the faster side, and why (estimate or measured, with the times). Each column: the first
call (checked against NumPy), warm-up calls for 0.2 s when calls are short, then the median of
--repeat timed calls, as bench/gpu.py measures, and for a column of calls under 1 ms the median
of 41 further calls (SHORT_S); the automatic column starts with no decision remembered, so a
close call's measured calls fall among its first calls, whose median is shown too.

    python bench/decisions.py                       # dev and first accelerator sizes
    python bench/decisions.py --sizes dev --kernels cp,syrk --out bench/results/decisions-h100.md
    UNPY_DEVICE=cpu python bench/decisions.py --overhead   # the hook's cost per repeated call

--overhead: the host cost per call of a nest the decision keeps on OpenMP (stencil at the small
size: the estimate refuses it, so the compiled caller skips the hook) against UNPY_DEVICE=none,
and of a close call measured for OpenMP; best of rounds of many calls, interleaved.
"""
import argparse
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "examples"), str(ROOT / "bench")]

from cpu import KERNELS, example_sizes, unpy_module  # noqa: E402
from gpu import AUTO, measure, ms, set_switches, switched_runner  # noqa: E402

from jitgpu import decide, offload  # noqa: E402

WITHIN = 1.05
# Columns whose calls take less than SHORT_S are judged by the median of STEADY_CALLS further
# calls: on the H100's shared 16-core host, medians of 5 calls of 0.1-0.4 ms moved by 10-130 %
# between runs (2026-11-25), far more than the 5 % judged, and a close call's measured calls
# (the first few) weigh nothing in a program that repeats a sub-millisecond call. The median
# of the first 5 timed calls of the automatic column, measuring included, is shown beside it.
SHORT_S = 1e-3
STEADY_CALLS = 41


def steady(runner, result):
    """The median of STEADY_CALLS more timed calls of a short column (its own median else)."""
    if not (result.ok and result.median < SHORT_S):
        return result.median
    return statistics.median(runner.call() for _ in range(STEADY_CALLS))


def row(module, case, n, device, repeat) -> str:
    args = case.args(n)
    want = case.expected(args)
    results, medians = {}, {}
    for name, settings in (("OpenMP", {"UNPY_DEVICE": "none"}),
                           ("GPU", {"UNPY_DEVICE": device, "UNPY_FORCE_GPU": "1"}),
                           (AUTO, {"UNPY_DEVICE": device})):
        if name == AUTO:
            decide.forget()
            offload._PREPARED.clear()
        runner = switched_runner(module, case, args, settings,
                                 on_device="UNPY_FORCE_GPU" in settings)
        results[name] = measure(runner, want, case.rtol, repeat)
        medians[name] = steady(runner, results[name])
    omp, gpu, auto = (results[k] for k in ("OpenMP", "GPU", AUTO))
    last = runner.nest()        # where the last automatic call ran, and why
    chose = "GPU" if (last.ran_on or "").startswith("opencl") else last.ran_on or "?"
    omp_s, gpu_s, auto_s = (medians[k] if results[k].ok else None
                            for k in ("OpenMP", "GPU", AUTO))
    times = [t for t in (omp_s, gpu_s) if t is not None]
    if auto_s is not None and times:
        best = min(times)
        verdict = "ok" if auto_s <= WITHIN * best else \
            f"MISSED by {(auto_s / best - 1) * 100:.0f} %"
    else:
        verdict = "—"
    host = auto.split.get("other") if auto.split else None
    why = auto.reason or last.reason
    return (f"| {case.label} | {n} | {ms(omp_s)} | {ms(gpu_s)} | {ms(auto_s)} | "
            f"{ms(auto.median if auto.ok else None)} | {chose} | {verdict} | {ms(host)} | {why} |")


def overhead(device, calls=2000, rounds=7):
    """Per-call seconds of stencil (small) kept on OpenMP by the estimate, and of a close call
    measured for OpenMP, minus the same calls with UNPY_DEVICE=none."""
    module, _ = unpy_module("stencil")
    case = module.CASES[0]
    func = getattr(module, case.func)
    args = case.args(module.SIZES["small"])

    def per_call(settings):
        set_switches(settings)
        func(*args)
        started = time.perf_counter()
        for _ in range(calls):
            func(*args)
        return (time.perf_counter() - started) / calls

    def compare(label):
        best = {"none": [], "auto": []}
        for _ in range(rounds):
            best["none"].append(per_call({"UNPY_DEVICE": "none"}))
            best["auto"].append(per_call({"UNPY_DEVICE": device}))
        none, auto = min(best["none"]), min(best["auto"])
        print(f"{label}: {auto * 1e6:.1f} us per call with UNPY_DEVICE={device} vs "
              f"{none * 1e6:.1f} us with UNPY_DEVICE=none: {(auto - none) * 1e6:+.1f} us "
              f"(best of {rounds} x {calls} calls; medians {statistics.median(best['auto']) * 1e6:.1f}"
              f" / {statistics.median(best['none']) * 1e6:.1f} us)", flush=True)

    import unpython
    compare(f"stencil n={module.SIZES['small']} refused by the estimate")
    print(f"  reason: {unpython.explain(func).nests[0].reason}")
    # A close call measured for OpenMP (new arrays: the compiled caller asks the hook again):
    # the seam reports the device 100x slower.
    args = case.args(module.SIZES["small"])
    decide.forget()
    offload._PREPARED.clear()
    from jitgpu import plan as planning
    saved = planning.margin, decide.measured_seconds
    planning.margin = lambda estimate: 1e12
    decide.measured_seconds = lambda side, s, path: s * 100 if side == "device" else s
    try:
        set_switches({"UNPY_DEVICE": device})
        for _ in range(6):
            func(*args)
        print(f"  then: {unpython.explain(func).nests[0].reason}")
        compare(f"stencil n={module.SIZES['small']} measured for OpenMP")
    finally:
        planning.margin, decide.measured_seconds = saved


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="dev,accel",
                        help="comma-separated: tiny, small, dev, accel (its first size)")
    parser.add_argument("--kernels", default=",".join(KERNELS))
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--overhead", action="store_true")
    parser.add_argument("--out", help="also write the table to this file")
    options = parser.parse_args(argv)
    device = os.environ.get("UNPY_DEVICE") or "gpu"
    if options.overhead:
        return overhead(device)
    lines = [f"| kernel | n | OpenMP (ms) | GPU forced (ms) | auto (ms) | auto, first "
             f"{options.repeat} calls (ms) | auto chose | within {(WITHIN - 1) * 100:.0f} % | "
             "auto host 'other' (ms) | why |",
             "|---|---:|---:|---:|---:|---:|---|---|---:|---|"]
    print("\n".join(lines), flush=True)
    for module, case, n in example_sizes(options.kernels, options.sizes):
        lines.append(row(module, case, n, device, options.repeat))
        print(lines[-1], flush=True)
    if options.out:
        Path(options.out).write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
