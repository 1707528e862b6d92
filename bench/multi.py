"""One nest on several devices at once (SPEC section 6, docs/gpu.md "Several devices"): the
example kernels split across two GPUs, and across a GPU and the OpenMP code, against the best
single participant, all measured in one run on one machine.

Two parts (`--parts`):
- gpus: mmult and nbody at the accelerator sizes. "1 device": UNPY_DEVICE=<the first of
  --devices>; "split": UNPY_DEVICE=<--devices> (default gpu0,gpu1); both UNPY_FORCE_GPU=1;
  "auto": UNPY_DEVICE=<--devices> without UNPY_FORCE_GPU, unpy's own decision (a split, one
  device alone or the OpenMP code), which should come within 5 % of the best of the others.
- host: the examples at the accelerator sizes. "OpenMP": UNPY_DEVICE=none (every core);
  "1 device": the first device, UNPY_FORCE_GPU=1; "split": UNPY_DEVICE=<first>,openmp without
  UNPY_FORCE_GPU: unpy's own decision (split, one participant alone, or the OpenMP code), which
  should come within 5 % of the best single one once its shares settle.
With --tiles-1d the gpus part adds the columns "1 device 1-D tiles" and "split 1-D tiles":
one device and the split with overlapped tiles of the outer loop only (jitgpu.overlap.
TWO_LEVELS off), against "1 device" and "split", whose large calls and parts may run in tiles
of two levels (mmult: rows and columns); layouts are forgotten at each switch so that each
column prepares its own tiles.
A split column's first three calls are timed one by one (the shares settle over them: the first
call of a kernel on a device is not learnt from); then, in the host part, SETTLE_CALLS more
untimed (unpy's decision may include calls of one participant alone, to compare), then the
median of --repeat calls. The other
columns: the first call, then the median of --repeat (bench/gpu.py's `measure`). Every first
call is checked against NumPy. The settled shares and where each part ran come from
`unpython.explain`.

    python bench/multi.py --machine h200x2 [--parts gpus,host] [--kernels mmult,nbody]
        [--n 4096] [--repeat 5] [--devices gpu0,gpu1] [--fastmath] [--tiles-1d]
    UNPY_CACHE_DIR=... python bench/multi.py --machine smoke --quick --devices cpu,cpu
                                                    # no GPU: two contexts of the CPU device

Results: <results>/multi-<machine>.json, .md and .png (rows of other kernels, sizes or parts
already in the .json are kept, so a long run can be split with --parts, --kernels and --n).
"""
from __future__ import annotations

import argparse
import datetime
import json
import os
import statistics
import sys
import time
from dataclasses import asdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "examples"), str(ROOT / "bench")]

import _harness  # noqa: E402
import unpython  # noqa: E402
from cpu import KERNELS, cpu_model, unpy_module  # noqa: E402
from gpu import (Result, Runner, finish, measure, ms, set_switches, sizes_of,  # noqa: E402
                 versions, why)

PARTS = {"gpus": ["mmult", "nbody"], "host": KERNELS}
COLUMNS = {"gpus": ["1 device", "split", "auto"], "host": ["OpenMP", "1 device", "split"]}
# (--tiles-1d) one device and the split with overlapped tiles of the outer loop only
ONE_DEVICE_1D, SPLIT_1D = "1 device 1-D tiles", "split 1-D tiles"
ONE_LEVEL = (ONE_DEVICE_1D, SPLIT_1D)
FIRST_CALLS = 3
SETTLE_CALLS = 6
LINK_BYTES = 256 << 20      # each device's copy when the links are measured
LINK_ROUNDS = 3


def link_rates(spec: str) -> dict:
    """{device label: (h2d, d2h) bytes per second} of the OpenCL devices of `spec`, measured
    with all of them copying LINK_BYTES at once from and to pinned host memory (a split's parts
    copy together: a shared bridge or the host's memory shows here), each the fastest of
    LINK_ROUNDS rounds (event times)."""
    from concurrent.futures import ThreadPoolExecutor
    from gpurts.device import devices_selection
    from gpurts.opencl import load_opencl
    from gpurts.timing import elapsed
    cl, _ = load_opencl()
    devices = devices_selection(spec).devices
    kits = [(d, cl.Buffer(d.context, cl.mem_flags.READ_WRITE, LINK_BYTES),
             d.transfers.staging(LINK_BYTES)) for d in devices]
    best = {d.label: [float("inf"), float("inf")] for d in devices}
    with ThreadPoolExecutor(len(kits)) as pool:
        for _ in range(LINK_ROUNDS + 1):        # (the first round warms the links)
            for way in (0, 1):
                def copy(kit, way=way):
                    device, buffer, pinned = kit
                    dest, src = (buffer, pinned) if way == 0 else (pinned, buffer)
                    return device.label, elapsed(cl.enqueue_copy(device.queue, dest, src,
                                                                 is_blocking=False))
                for label, seconds in pool.map(copy, kits):
                    best[label][way] = min(best[label][way], seconds)
    for _, buffer, _ in kits:
        buffer.release()
    return {label: (LINK_BYTES / h2d, LINK_BYTES / d2h) for label, (h2d, d2h) in best.items()}


def split_bound(row, links) -> float | None:
    """The least seconds a split of this row can take on this machine: per device, the bytes
    its part moved each way over its measured link (copies overlapping the kernels, each
    direction on its own engine), or its share of the one device's kernel time, whichever is
    longer; the slowest device's."""
    one, split = row["columns"]["1 device"], row["columns"]["split"]
    parts = split.get("devices") or {}
    if not (one["ok"] and split["ok"] and one.get("split", {}).get("kernel") and parts):
        return None
    kernel_s = one["split"]["kernel"]
    return max(max(h2d / links[label][0], d2h / links[label][1], kernel_s / len(parts))
               for label, (h2d, d2h, _) in parts.items() if label in links)


def columns_of(part, tiles_1d: bool) -> list:
    return COLUMNS[part] + (list(ONE_LEVEL) if tiles_1d and part == "gpus" else [])


def column_settings(part, column, devices):
    first = devices.split(",")[0]
    if column == "OpenMP":
        return {"UNPY_DEVICE": "none"}
    if column in ("1 device", ONE_DEVICE_1D):
        return {"UNPY_DEVICE": first, "UNPY_FORCE_GPU": "1"}
    if column == "auto":
        return {"UNPY_DEVICE": devices}
    if part == "gpus":           # (split, and split 1-D tiles)
        return {"UNPY_DEVICE": devices, "UNPY_FORCE_GPU": "1"}
    return {"UNPY_DEVICE": f"{first},openmp"}


def runner(module, case, args, settings, two_levels=True):
    """`two_levels`: overlapped tiles of two levels allowed (jitgpu.overlap.TWO_LEVELS); a
    change forgets the prepared layouts, so that the column prepares its own tiles."""
    from jitgpu import overlap, session
    func = getattr(module, case.func)
    call, output = _harness.timed_caller(case, func, args)

    def run():
        set_switches(settings)
        if overlap.TWO_LEVELS != two_levels:
            overlap.TWO_LEVELS = two_levels
            session.forget()
        return call()
    return Runner(run, lambda: output, lambda: unpython.explain(func).nests[0])


def measure_split(run: Runner, want, rtol, repeat, settle=0) -> dict:
    """The first FIRST_CALLS calls one by one (the first checked), `settle` more untimed, then
    the median of `repeat`; with what explain says of the last call, and per timed call its
    slowest part's seconds (from the start of the parts to the end of the slowest, its own
    write-back included where it writes back on its own) and the rest of the call beyond it:
    the host's own cost of splitting (the medians are `slowest_part` and `beyond_parts`)."""
    calls, times, slowest = [], [], []
    try:
        for k in range(FIRST_CALLS):
            calls.append(run.call())
            if k == 0 and not _harness.matches(run.output(), want, rtol):
                return {**asdict(Result(first=calls[0], reason="WRONG result")), "calls": calls}
        for _ in range(settle):
            run.call()
        for _ in range(repeat):
            times.append(run.call())
            nest = run.nest()
            slowest.append(max(nest.timings["participants"].values())
                           if " + " in (nest.ran_on or "") else None)
    except Exception as error:  # a column's failure is reported, not fatal to the others
        return {**asdict(Result(reason=why(error))), "calls": calls}
    nest = run.nest()
    result = asdict(Result(first=calls[0], median=statistics.median(times), ok=True,
                           ran_on=nest.ran_on or "", note=nest.reason))
    split = [(t, s) for t, s in zip(times, slowest) if s is not None]
    result.update(calls=calls, shares=nest.timings.get("shares", {}),
                  ranges=nest.timings.get("ranges", {}),
                  seconds=nest.timings.get("participants", {}),
                  history=nest.details.get("shares", ""),
                  devices=nest.timings.get("devices", {}),
                  # each device's overlapped tiles (jitgpu.split.Grid), e.g. "4 x 4 tiles of
                  # (i, j), columns first"
                  tiles={label: str(grid).split(":")[0]
                         for label, grid in getattr(nest.plan, "grids", ())},
                  slowest_part=statistics.median(s for _, s in split) if split else None,
                  beyond_parts=statistics.median(t - s for t, s in split) if split else None)
    return result


def run_row(part, case, n, module, devices, repeat, links=None, tiles_1d=False):
    args = case.args(n)
    want = case.expected(args)
    row = {"part": part, "case": case.label, "n": n, "date": datetime.date.today().isoformat(),
           "columns": {}}
    for column in columns_of(part, tiles_1d):
        run = runner(module, case, args, column_settings(part, column, devices),
                     two_levels=column not in ONE_LEVEL)
        if column in ("split", "auto", SPLIT_1D):
            result = measure_split(run, want, case.rtol, repeat,
                                   SETTLE_CALLS if part == "host" or column == "auto" else 0)
        else:
            result = asdict(measure(run, want, case.rtol, repeat))
            grid = getattr(getattr(run.nest(), "plan", None), "grid", None) if result["ok"] \
                else None
            if grid is not None:      # (one device's overlapped tiles)
                result["tiles"] = {"device": str(grid).split(":")[0]}
        row["columns"][column] = result
        shown = ms(result["median"]) if result["ok"] else f"— ({result['reason']})"
        if result.get("slowest_part") is not None:
            shown += (f" (slowest part {ms(result['slowest_part'])}, beyond parts "
                      f"{ms(result['beyond_parts'])})")
        if result.get("tiles"):
            shown += f" [{'; '.join(sorted(set(result['tiles'].values())))}]"
        print(f"  [{part}] {case.label} n={n} {column}: {shown} "
              f"{result.get('ran_on', '')}", flush=True)
    if links:
        row["bound"] = split_bound(row, links)
        if row["bound"]:
            print(f"  [{part}] {case.label} n={n} bound of a split: {ms(row['bound'])}",
                  flush=True)
    return row


def best_single(row):
    """(column, seconds) of the fastest single participant of a row."""
    single = [(c, row["columns"][c]["median"]) for c in ("OpenMP", "1 device")
              if c in row["columns"] and row["columns"][c]["ok"]]
    return min(single, key=lambda cs: cs[1]) if single else (None, None)


def speedup(row):
    split = row["columns"]["split"]
    column, best = best_single(row)
    if not split["ok"] or best is None:
        return None
    return best / split["median"]


def auto_ratio(row) -> str:
    """The automatic column's time over the faster of one device and the forced split."""
    times = [row["columns"][c]["median"] for c in ("1 device", "split")
             if c in row["columns"] and row["columns"][c]["ok"]]
    auto = row["columns"].get("auto", {})
    return f"{auto['median'] / min(times):.2f}" if auto.get("ok") and times else "—"


def write_markdown(path, rows, machine, header):
    lines = [f"# One nest on several devices: {machine}", "",
             f"- dates: {', '.join(sorted({r['date'] for r in rows}))}; host: {header['cpu']}, "
             f"{header['cores']} cores; split columns: UNPY_DEVICE={header['devices']} (two "
             f"GPUs, forced) or its first device followed by ',openmp' (a GPU and OpenMP)",
             "- versions: " + ", ".join(f"{k} {v}" for k, v in header["versions"].items()),
             f"- median of {header['repeat']} timed calls, ms of a whole call from NumPy arrays "
             f"(transfers included); split: its first {FIRST_CALLS} calls shown one by one, the "
             "median taken after them; slowest part / beyond parts: medians over the timed "
             "calls of the slowest part's seconds (parts started to its end) and of the rest "
             "of the call (the host's cost of splitting); speed-up: the best single column "
             "over split; bound (two GPUs): the least a split can take here, per device the "
             "longest of its bytes each way over its link (measured with every device copying "
             "at once"
             + (f": {header['links']} GB/s h2d, d2h" if header.get("links") else "")
             + ") and its share of the one device's kernel time, copies overlapping kernels",
             ""]
    for part, title in (("gpus", "Two GPUs vs one (UNPY_FORCE_GPU=1)"),
                        ("host", "A GPU and the OpenMP code (unpy's own decision) vs the best "
                                 "single one")):
        mine = [r for r in rows if r["part"] == part]
        if not mine:
            continue
        columns = [c for c in columns_of(part, True) if any(c in r["columns"] for r in mine)]
        lines += [f"## {title}", "",
                  "| kernel | n | " + " | ".join(columns) + " | split calls 1-3 | split: slowest "
                  "part / beyond parts | speed-up | bound | split / bound | "
                  + ("auto / best | " if part == "gpus" else "") + "settled shares | ran on |",
                  "|---|---:|" + "---:|" * (len(columns) + 5 + (part == "gpus")) + "---|---|"]
        for r in mine:
            split = r["columns"]["split"]
            cells = [ms(r["columns"][c]["median"]) if r["columns"].get(c, {}).get("ok") else "—"
                     for c in columns]
            up = speedup(r)
            shares = ", ".join(f"{k.split(':')[-1]} {v:.2f}"
                               for k, v in split.get("shares", {}).items())
            lines.append(f"| {r['case']} | {r['n']} | " + " | ".join(cells) + " | "
                         + " / ".join(ms(t) for t in split.get("calls", [])) + " | "
                         + f"{ms(split.get('slowest_part'))} / {ms(split.get('beyond_parts'))} | "
                         + (f"{up:.2f}x" if up else "—") + " | "
                         + (f"{ms(r['bound'])} | {split['median'] / r['bound']:.2f}"
                            if r.get("bound") and split["ok"] else "— | —")
                         + (f" | {auto_ratio(r)}" if part == "gpus" else "")
                         + f" | {shares} | "
                         f"{split.get('ran_on', '')} |")
        lines.append("")
    lines += ["## Notes", ""]
    for r in rows:
        for column, result in r["columns"].items():
            if not result["ok"]:
                lines.append(f"- [{r['part']}] {r['case']} n={r['n']} {column}: — "
                             f"{result['reason']}")
        for column in ("split", SPLIT_1D):
            split = r["columns"].get(column, {})
            if split.get("ok"):
                tiles = "; ".join(sorted(set(split.get("tiles", {}).values())))
                lines.append(f"- [{r['part']}] {r['case']} n={r['n']} {column}: {split['note']}"
                             + (f" (overlapped tiles per device: {tiles})" if tiles else ""))
    path.write_text("\n".join(lines) + "\n")


def write_chart(path, rows, machine):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np
    fig, axes = plt.subplots(1, 2, figsize=(14, 5))
    for ax, part, title in ((axes[0], "gpus", "split vs one device"),
                            (axes[1], "host", "device + OpenMP vs the best single one")):
        mine = [r for r in rows if r["part"] == part]
        ups = [speedup(r) or np.nan for r in mine]
        x = np.arange(len(mine))
        ax.bar(x, ups, 0.6)
        ax.axhline(1.0, color="black", linewidth=0.8)
        if part == "gpus":
            ax.axhline(1.8, color="gray", linestyle="--", linewidth=0.8, label="target 1.8x")
            ax.legend(fontsize=8)
        ax.set_xticks(x, [f"{r['case']}\nn={r['n']}" for r in mine], fontsize=8)
        ax.set_ylabel("speed-up (higher is faster)")
        ax.set_title(f"{title}: {machine}", fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def save(path, saved, rows, header):
    merged = {(r["part"], r["case"], r["n"]): r for r in saved["rows"]}
    merged.update({(r["part"], r["case"], r["n"]): r for r in rows})
    order = {label: k for k, label in enumerate(
        c.label for kernel in KERNELS for c in _harness.interpreted(kernel).CASES)}
    saved = {"header": header, "rows": sorted(
        merged.values(), key=lambda r: (list(PARTS).index(r["part"]),
                                        order.get(r["case"], 99), r["n"]))}
    path.write_text(json.dumps(saved, indent=1) + "\n")
    return saved


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--machine", default="multi")
    parser.add_argument("--parts", default="gpus,host")
    parser.add_argument("--kernels", help="comma-separated examples (default: each part's)")
    parser.add_argument("--sizes", choices=["tiny", "small", "dev", "accel"])
    parser.add_argument("--n", help="comma-separated sizes to run instead of the --sizes ones")
    parser.add_argument("--repeat", type=int)
    parser.add_argument("--devices", default=os.environ.get("UNPY_DEVICE") or "gpu0,gpu1",
                        help="the devices of the split (the first alone is '1 device')")
    parser.add_argument("--quick", action="store_true",
                        help="smoke test: the examples' small sizes, 3 timed calls")
    parser.add_argument("--results", type=Path, default=ROOT / "bench" / "results")
    parser.add_argument("--chart-only", action="store_true")
    parser.add_argument("--tiles-1d", action="store_true",
                        help="gpus part: add a split column with overlapped tiles of the outer "
                             "loop only (no tiles of two levels), to compare")
    parser.add_argument("--fastmath", action="store_true",
                        help="build the examples with `unpy build --fastmath` (the lanes of a "
                             "reduction loop add in another order)")
    options = parser.parse_args(argv)
    sizes = options.sizes or ("small" if options.quick else "accel")
    repeat = options.repeat or (3 if options.quick else 5)
    path = options.results / f"multi-{options.machine}.json"
    saved = json.loads(path.read_text()) if path.exists() else {"rows": []}
    if options.chart_only:
        write_markdown(path.with_suffix(".md"), saved["rows"], options.machine, saved["header"])
        write_chart(path.with_suffix(".png"), saved["rows"], options.machine)
        return 0
    options.results.mkdir(parents=True, exist_ok=True)
    header = {"cpu": cpu_model(), "cores": os.cpu_count(), "devices": options.devices,
              "fastmath": options.fastmath,
              "versions": versions(), "repeat": repeat}
    links = link_rates(options.devices) if "gpus" in options.parts.split(",") else None
    if links:
        header["links"] = {label: [round(h2d / 1e9, 2), round(d2h / 1e9, 2)]
                           for label, (h2d, d2h) in links.items()}
        print(f"links (GB/s h2d, d2h, all copying at once): {header['links']}", flush=True)
    rows = []
    for part in options.parts.split(","):
        kernels = options.kernels.split(",") if options.kernels else PARTS[part]
        for kernel in kernels:
            module, note = unpy_module(kernel, options.fastmath)
            if module is None:
                print(f"{kernel}: {note}", flush=True)
                continue
            for case in module.CASES:
                for n in ([int(n) for n in options.n.split(",")] if options.n
                          else sizes_of(module, sizes)):
                    started = time.perf_counter()
                    rows.append(run_row(part, case, n, module, options.devices, repeat,
                                        links if part == "gpus" else None, options.tiles_1d))
                    saved = save(path, saved, rows, header)
                    print(f"[{part}] {case.label} n={n}: {time.perf_counter() - started:.0f} s",
                          flush=True)
    return finish(path, saved, rows, options.machine, header, write_markdown, write_chart)


if __name__ == "__main__":
    sys.exit(main())
