"""Kernel times of loop-optimisation variants on one OpenCL device: each variant is a
UNPY_GPU_OPT level with some of the loop optimisations' parameters changed (register_tiles'
block shape, local_tiles' iterations per tile and budget, unroll_and_jam's factors), for
choosing their defaults. Every call is forced
onto the device and checked against NumPy; the kernel time is the median of the explain
report's `kernel` part over the timed calls.

    python bench/gpu_variants.py [--kernels mmult,syrk] [--n 2048] [--repeat 5] [--out DIR]
                                 [--variants all,all-reg4x4,... | register | small | lanes]

    python bench/gpu_variants.py --kernels mmult,syrk,syr2k --n 2048 --variants register
    python bench/gpu_variants.py --kernels mmult,cp,syrk,syr2k,nbody --n 256 --variants small
    python bench/gpu_variants.py --kernels nbody --n 4096,65536 --variants lanes
    python bench/gpu_variants.py --kernels nbody --n 32768,65536 --variants tiled-lanes --fastmath

Writes <out>/gpu-variants.json (gpu-variants-<group>.json for a group of variants) and prints
one line per (case, variant)."""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "examples"), str(ROOT / "bench")]

import _harness  # noqa: E402
import unpython  # noqa: E402
from cpu import built_examples  # noqa: E402

TILES = "jitgpu.loopopt.local_tiles"
REGS = "jitgpu.loopopt.cost"          # register_tiles' and unroll_and_jam's cost model
LANES = "jitgpu.loopopt.lane_split"
# Local tiles of 32 iterations beside an 8 x 4 register tile: 25 kB of f32, over the default
# 24 kB budget (which halves them to 16); an H100 gives a group 48 kB.
ROOMY = {"LOCAL_BUDGET": 44 * 1024, "LOCAL_FRACTION": 0.95}


def regs(rows, cols, budget=64, fill=None, **tiles):
    """register_tiles at rows x cols (within `budget` registers; `fill`: its FILL_DIVISOR),
    local_tiles' attributes `tiles`."""
    changes = {REGS: {"REGISTER_TILE": (rows, cols), "TILE_REGISTER_BUDGET": budget}}
    if fill is not None:
        changes[REGS]["FILL_DIVISOR"] = fill
    return dict(changes, **({TILES: tiles} if tiles else {}))


# (label, UNPY_GPU_OPT, {module: {attribute: value}})
VARIANTS = [
    ("unroll", "unroll", {}),
    ("all", "all", {}),
    ("all-noreg", "all", {REGS: {"REGISTER_TILE": (1, 1)}}),        # `all` before register_tiles
    ("all-roomy", "all", {TILES: ROOMY}),             # the default blocks, longer local tiles
    ("all-reg4x4", "all", regs(4, 4)),
    ("all-reg8x4", "all", regs(8, 4)),                # f64 too (the default budget gives 4 x 4)
    ("all-reg8x8", "all", regs(8, 8, budget=128)),
    ("all-reg4x8", "all", regs(4, 8)),
    ("all-reg8x4-tile32", "all", regs(8, 4, ROW_TILE_ITERATIONS=32, **ROOMY)),
    ("all-reg8x4-tile8", "all", regs(8, 4, ROW_TILE_ITERATIONS=8)),
    ("all-reg4x4-tile32", "all", regs(4, 4, ROW_TILE_ITERATIONS=32, **ROOMY)),
    ("all-reg8x8-tile8", "all", regs(8, 8, budget=128, ROW_TILE_ITERATIONS=8)),
    ("all-reg8x4-novector", "all", regs(8, 4, VECTOR_BYTES=0)),
    ("all-reg8x4-fill1", "all", regs(8, 4, fill=1)),      # the smaller sizes: when to tile
    ("all-tile8", "all", {TILES: {"ROW_TILE_ITERATIONS": 8}}),
    ("all-jam4", "all", {REGS: {"JAM_FACTORS": (4, 2)}}),
    ("all-novector", "all", {TILES: {"VECTOR_BYTES": 0}}),
    ("all-rowless64", "all", {TILES: {"ROWLESS_TILE_ITERATIONS": 64}}),
    ("all-norowless", "all", {TILES: {"ROWLESS_TILE_ITERATIONS": 0}}),
    ("all-notiles", "all", {TILES: {"ROWLESS_TILE_ITERATIONS": 0, "ROW_TILE_ITERATIONS": 0}}),
    ("all-tilemin64", "all", {TILES: {"MIN_TILED_ITERATIONS": 64}}),
    ("all-nolanes", "all", {LANES: {"MAX_LANES": 1}}),      # `all` before lane_split
    ("all-lanes4", "all", {LANES: {"MAX_LANES": 4}}),
    ("all-lanes8", "all", {LANES: {"MAX_LANES": 8}}),
    ("all-lanes16", "all", {LANES: {"MAX_LANES": 16}}),
    ("all-notiledlanes", "all", {LANES: {"TILED_UNDERFILL": 1 << 40}}),  # before lane_split_tiles
    ("all-tiledlanes2", "all", {LANES: {"MAX_LANES": 2, "TILED_UNDERFILL": 1}}),
    ("all-tiledlanes4", "all", {LANES: {"MAX_LANES": 4, "TILED_UNDERFILL": 1}}),
    ("all-tiledlanes8", "all", {LANES: {"MAX_LANES": 8, "TILED_UNDERFILL": 1}}),
    ("all-tiledlanes16", "all", {LANES: {"MAX_LANES": 16, "TILED_UNDERFILL": 1}}),
]
# --variants register: the register tile's choices (mmult/syrk/syr2k at n=2048, < 4 minutes);
# --variants small: the loop optimisations at n=256 (every example kernel).
GROUPS = {"register": ["unroll", "all", "all-noreg", "all-roomy", "all-reg4x4", "all-reg8x4",
                       "all-reg8x8", "all-reg4x8", "all-reg8x4-tile32", "all-reg8x4-tile8",
                       "all-reg4x4-tile32", "all-reg8x8-tile8", "all-reg8x4-novector"],
          # the small sizes, where `all` should not lose to `unroll`
          "small": ["unroll", "all", "all-noreg", "all-reg8x4-fill1", "all-notiles",
                    "all-norowless", "all-tilemin64", "all-nolanes"],
          # --variants lanes: lane_split's lane counts against none (nbody at 4096 and 65536)
          "lanes": ["all", "all-nolanes", "all-lanes4", "all-lanes8", "all-lanes16"],
          # --variants tiled-lanes (with --fastmath): lane_split_tiles' lanes against none
          "tiled-lanes": ["all", "all-notiledlanes", "all-tiledlanes2", "all-tiledlanes4",
                          "all-tiledlanes8", "all-tiledlanes16"]}


def patched(changes):
    """Set the attributes of `changes`; returns the old values (to restore)."""
    import jitgpu.loopopt  # noqa: F401  (loads the modules named)
    old = {}
    for module, attrs in changes.items():
        for name, value in attrs.items():
            old.setdefault(module, {})[name] = getattr(sys.modules[module], name)
            setattr(sys.modules[module], name, value)
    return old


def run_variant(case, func, args, want, level, changes, repeat):
    from jitgpu import loopopt, offload
    # No C++ replay: it would go on running the previous variant's kernel; no search: it would
    # replace the variant's kernel by its choice.
    os.environ.update(UNPY_FORCE_GPU="1", UNPY_GPU_OPT=level, UNPY_REPLAY="0",
                      UNPY_GPU_SEARCH="0")
    old = patched(changes)
    offload._PREPARED.clear()
    loopopt._OPTIMISED.clear()          # (optimised kernels are remembered by their text)
    try:
        call, output = _harness.timed_caller(case, func, args)
        first = call()
        nest = unpython.explain(func).nests[0]
        if not (nest.ran_on or "").startswith("opencl"):
            return {"error": f"ran on {nest.ran_on}: {nest.reason}"}
        if not _harness.matches(output, want, case.rtol):
            return {"error": "WRONG result"}
        calls, kernels = [], []
        for _ in range(repeat):
            calls.append(call())
            kernels.append(unpython.explain(func).nests[0].timings["kernel"])
        return {"first": first, "call": statistics.median(calls),
                "kernel": statistics.median(kernels), "reason": nest.reason,
                "global": nest.details.get("ndrange", "")}
    finally:
        patched(old)


def example_cases(kernels: str, sizes: str, fastmath: bool = False):
    """(case, compiled function, n, args, expected) of each built example of `kernels` at each
    of `sizes` (comma-separated); an example that is not built is said and skipped."""
    for module in built_examples(kernels, fastmath):
        for case in module.CASES:
            for n in [int(x) for x in sizes.split(",")]:
                args = case.args(n)
                yield case, getattr(module, case.func), n, args, case.expected(args)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kernels", default="mmult,syrk")
    parser.add_argument("--n", default="2048")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--variants", help="comma-separated labels (default: all)")
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results")
    parser.add_argument("--fastmath", action="store_true",
                        help="build the examples with `unpy build --fastmath`")
    options = parser.parse_args(argv)
    os.environ.setdefault("UNPY_DEVICE", "gpu")
    wanted = GROUPS.get(options.variants, (options.variants or "").split(","))
    chosen = [v for v in VARIANTS if not options.variants or v[0] in wanted]
    unknown = set(wanted) - {v[0] for v in VARIANTS} if options.variants else set()
    if unknown:
        parser.error(f"unknown variants: {', '.join(sorted(unknown))}")
    rows = []
    for case, func, n, args, want in example_cases(options.kernels, options.n,
                                                   options.fastmath):
        for label, level, changes in chosen:
            started = time.perf_counter()
            result = run_variant(case, func, args, want, level, changes, options.repeat)
            rows.append({"case": case.label, "n": n, "variant": label, **result})
            shown = (f"kernel {result['kernel'] * 1e3:.3f} ms, call "
                     f"{result['call'] * 1e3:.3f} ms" if "kernel" in result
                     else result["error"])
            print(f"{case.label} n={n} {label}: {shown} "
                  f"({time.perf_counter() - started:.1f} s) "
                  f"{result.get('reason', '').split('UNPY_GPU_OPT=')[-1]}", flush=True)
    options.out.mkdir(parents=True, exist_ok=True)
    name = f"gpu-variants-{options.variants}" if options.variants in GROUPS else "gpu-variants"
    (options.out / f"{name}.json").write_text(json.dumps(rows, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
