"""The GPU side of BENCHMARKS.md for unpy itself: each example kernel through OpenCL on the
device (jitgpu, `UNPY_GPU_OPT` as set, `UNPY_FORCE_GPU=1`), beside the OpenMP path on the same
machine's cores. Per kernel: end-to-end time of the first call and the median of later calls, the
time split of the last call (analysis / OpenCL build / host-to-device / kernel / device-to-host,
from `unpython.explain`), and the bytes moved vs the distinct bytes touched.

    python bench/gpu.py [--machine h100] [--sizes accel|dev] [--kernels mmult,nbody]

Writes bench/results/gpu-<machine>.md.
"""
from __future__ import annotations

import argparse
import datetime
import os
import platform
import statistics
import sys
import time
from pathlib import Path


ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "examples")]

import _harness  # noqa: E402
import unpython  # noqa: E402
from cpu import KERNELS, unpy_module  # noqa: E402


def timed(case, func, args, repeat):
    """(first call seconds, median of `repeat` later calls, output of the last call)."""
    call, output = _harness.timed_caller(case, func, args)
    first = call()
    times = [call() for _ in range(repeat)]
    return first, statistics.median(times) if times else first, output


def run_case(case, module, n, repeat):
    func = getattr(module, case.func)
    args = case.args(n)
    want = case.expected(args)
    os.environ["UNPY_DEVICE"] = "none"
    omp_first, omp, omp_out = timed(case, func, args, repeat)
    os.environ["UNPY_DEVICE"] = os.environ.get("BENCH_DEVICE", "gpu")
    gpu_first, gpu, gpu_out = timed(case, func, args, repeat)
    report = unpython.explain(func).nests[0]
    split = getattr(report, "timings", {})
    return {
        "case": case.label, "n": n, "ran_on": report.ran_on, "reason": report.reason,
        "omp": omp, "gpu_first": gpu_first, "gpu": gpu, "split": split,
        "ok_omp": _harness.matches(omp_out, want, case.rtol),
        "ok_gpu": _harness.matches(gpu_out, want, case.rtol),
        "groups": report.details.get("groups", []),
    }


def ms(t):
    return f"{t * 1e3:.2f}"


def write_markdown(path, rows, machine, opt):
    lines = [f"# unpy on the GPU (OpenCL, UNPY_GPU_OPT={opt}) vs OpenMP — {machine}", "",
             f"Date: {datetime.date.today()}. Host: {platform.processor() or platform.machine()}"
             f", {os.cpu_count()} cores. Device: {rows[0]['ran_on'] if rows else '?'}. "
             "Times in ms; GPU = end-to-end call from NumPy arrays (analysis, build or cache "
             "hit, transfers, kernel); first = first call (includes the OpenCL build); split = "
             "last call.", "",
             "| kernel | n | OpenMP | GPU first | GPU | OpenMP/GPU | analysis | build | h2d | "
             "kernel | d2h | MB moved | MB touched | check |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        s = r["split"]
        check = "ok" if r["ok_gpu"] and r["ok_omp"] else \
            f"FAILED (gpu {r['ok_gpu']}, omp {r['ok_omp']})"
        if not r["ran_on"] or not r["ran_on"].startswith("opencl"):
            check += f"; ran on {r['ran_on']}: {r['reason']}"
        lines.append(
            f"| {r['case']} | {r['n']} | {ms(r['omp'])} | {ms(r['gpu_first'])} | {ms(r['gpu'])} |"
            f" {r['omp'] / r['gpu']:.2f} | {ms(s.get('analysis', float('nan')))} | "
            f"{ms(s.get('build', float('nan')))} | {ms(s.get('h2d', float('nan')))} | "
            f"{ms(s.get('kernel', float('nan')))} | {ms(s.get('d2h', float('nan')))} | "
            f"{s.get('bytes_moved', 0) / 1e6:.1f} | {s.get('bytes_touched', 0) / 1e6:.1f} | "
            f"{check} |")
    lines += ["", "Transfer groups (case of the paper's section 4.3 each array group was solved "
              "with):", ""]
    for r in rows:
        lines.append(f"- {r['case']}: " + "; ".join(r["groups"]))
    path.write_text("\n".join(lines) + "\n")


SPLIT = ("analysis", "build", "h2d", "kernel", "d2h")


def read_markdown(path):
    """The rows of a table written by `write_markdown` (to redraw its chart)."""
    rows = []
    for line in path.read_text().splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 14 and cells[1].isdigit():
            rows.append({"case": cells[0], "n": int(cells[1]), "omp": float(cells[2]) / 1e3,
                         "gpu": float(cells[4]) / 1e3,
                         "split": {k: float(v) / 1e3 for k, v in zip(SPLIT, cells[6:11])}})
    return rows


def write_chart(path, rows, machine):
    """The paper's figures 9 and 11 redrawn: speed-up of the GPU call over OpenMP, and the split
    of the GPU call's time."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    labels = [f"{r['case']}\nn={r['n']}" for r in rows]
    fig, (left, right) = plt.subplots(1, 2, figsize=(16, 5))
    left.bar(labels, [r["omp"] / r["gpu"] for r in rows], color="tab:green")
    left.axhline(1.0, color="black", linewidth=0.8)
    left.set_yscale("log")
    left.set_ylabel("OpenMP time / GPU time (higher: GPU faster)")
    left.set_title(f"unpy GPU (naive kernel) vs OpenMP: {machine}")
    bottom = [0.0] * len(rows)
    for part in SPLIT:
        share = [r["split"][part] / r["gpu"] * 100 for r in rows]
        right.bar(labels, share, bottom=bottom, label=part)
        bottom = [b + v for b, v in zip(bottom, share)]
    right.set_ylabel("% of the GPU call")
    right.set_title("time split of the GPU call (host work not listed is the rest)")
    right.legend()
    for axis in (left, right):
        axis.tick_params(axis="x", labelsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--machine", default="gpu")
    parser.add_argument("--sizes", choices=["dev", "accel"], default="accel")
    parser.add_argument("--kernels", default=",".join(KERNELS))
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--chart-only", action="store_true",
                        help="redraw the chart from bench/results/gpu-<machine>.md")
    options = parser.parse_args(argv)
    out = ROOT / "bench" / "results" / f"gpu-{options.machine}.md"
    if options.chart_only:
        write_chart(out.with_suffix(".png"), read_markdown(out), options.machine)
        return
    os.environ["UNPY_FORCE_GPU"] = "1"
    opt = os.environ.setdefault("UNPY_GPU_OPT", "none")
    rows = []
    for kernel in options.kernels.split(","):
        module, note = unpy_module(kernel)
        if module is None:
            print(f"{kernel}: {note}", flush=True)
            continue
        for case in module.CASES:
            for n in module.SIZES[options.sizes]:
                started = time.perf_counter()
                row = run_case(case, module, n, options.repeat)
                rows.append(row)
                print(f"{row['case']} n={n}: OpenMP {ms(row['omp'])} ms, GPU {ms(row['gpu'])} ms "
                      f"(first {ms(row['gpu_first'])}) on {row['ran_on']}, ok "
                      f"{row['ok_gpu']}/{row['ok_omp']} [{time.perf_counter() - started:.0f} s]",
                      flush=True)
    out.parent.mkdir(parents=True, exist_ok=True)
    write_markdown(out, rows, options.machine, opt)
    write_chart(out.with_suffix(".png"), rows, options.machine)
    print(f"wrote {out} and {out.with_suffix('.png').name}")


if __name__ == "__main__":
    main()
