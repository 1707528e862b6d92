"""Kernel times of loop-optimisation variants on one OpenCL device: each variant is a
UNPY_GPU_OPT level with some of the loop optimisations' parameters changed (fields of the
device's model, jitgpu/loopopt/cost.py: register_tiles' block shape, local_tiles' iterations
per tile and budget, unroll_and_jam's factors, lane_split's lanes), for
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

# Local tiles of 32 iterations beside an 8 x 4 register tile: 25 kB of f32, over the default
# 24 kB budget (which halves them to 16); an H100 gives a group 48 kB.
ROOMY = {"local_budget": 44 * 1024, "local_fraction": 0.95}


def regs(rows, cols, budget=64, fill=None, **tiles):
    """register_tiles at rows x cols (within `budget` registers; `fill`: its fill_divisor),
    and the other changes `tiles` (local_tiles' fields of the model)."""
    changes = {"tile_shape": (rows, cols), "tile_register_budget": budget}
    if fill is not None:
        changes["fill_divisor"] = fill
    return dict(changes, **tiles)


# (label, UNPY_GPU_OPT, changes to the fields of every device's model: jitgpu/loopopt/cost.py)
VARIANTS = [
    ("unroll", "unroll", {}),
    ("all", "all", {}),
    ("all-noreg", "all", {"tile_shape": (1, 1)}),            # `all` before register_tiles
    ("all-roomy", "all", ROOMY),                      # the default blocks, longer local tiles
    ("all-reg4x4", "all", regs(4, 4)),
    ("all-reg8x4", "all", regs(8, 4)),                # f64 too (the default budget gives 4 x 4)
    ("all-reg8x8", "all", regs(8, 8, budget=128)),
    ("all-reg4x8", "all", regs(4, 8)),
    ("all-reg8x4-tile32", "all", regs(8, 4, row_tile_iterations=32, **ROOMY)),
    ("all-reg8x4-tile8", "all", regs(8, 4, row_tile_iterations=8)),
    ("all-reg4x4-tile32", "all", regs(4, 4, row_tile_iterations=32, **ROOMY)),
    ("all-reg8x8-tile8", "all", regs(8, 8, budget=128, row_tile_iterations=8)),
    ("all-reg8x4-novector", "all", regs(8, 4, tile_vector_bytes=0)),
    ("all-reg8x4-fill1", "all", regs(8, 4, fill=1)),      # the smaller sizes: when to tile
    ("all-tile8", "all", {"row_tile_iterations": 8}),
    ("all-jam4", "all", {"jam_factors": (4, 2)}),
    ("all-novector", "all", {"tile_vector_bytes": 0}),
    ("all-rowless64", "all", {"rowless_tile_iterations": 64}),
    ("all-norowless", "all", {"rowless_tile_iterations": 0}),
    ("all-notiles", "all", {"rowless_tile_iterations": 0, "row_tile_iterations": 0}),
    ("all-tilemin64", "all", {"min_tiled_iterations": 64}),
    ("all-nolanes", "all", {"max_lanes": 1}),      # `all` before lane_split
    ("all-lanes4", "all", {"max_lanes": 4}),
    ("all-lanes8", "all", {"max_lanes": 8}),
    ("all-lanes16", "all", {"max_lanes": 16}),
    ("all-notiledlanes", "all", {"tiled_underfill": 1 << 40}),  # before lane_split_tiles
    ("all-tiledlanes2", "all", {"max_lanes": 2, "tiled_underfill": 1}),
    ("all-tiledlanes4", "all", {"max_lanes": 4, "tiled_underfill": 1}),
    ("all-tiledlanes8", "all", {"max_lanes": 8, "tiled_underfill": 1}),
    ("all-tiledlanes16", "all", {"max_lanes": 16, "tiled_underfill": 1}),
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
    """Every device's model (jitgpu/loopopt/cost.py's DEFAULT, which GpuModel.for_device starts
    from) with the fields of `changes`; returns the model before (to restore)."""
    from jitgpu.loopopt import cost
    old = cost.DEFAULT
    cost.DEFAULT = old.replace(**changes)
    return old


def restored(model):
    from jitgpu.loopopt import cost
    cost.DEFAULT = model


def run_variant(case, func, args, want, level, changes, repeat):
    from jitgpu import loopopt, offload
    # No C++ replay: it would go on running the previous variant's kernel; no search: it would
    # replace the variant's kernel by its choice.
    os.environ.update(UNPY_FORCE_GPU="1", UNPY_GPU_OPT=level, UNPY_REPLAY="0",
                      UNPY_GPU_SEARCH="0")
    old = patched(changes)
    offload._PREPARED.clear()
    loopopt._OPTIMISED.clear()          # (the variants' kernels are not needed again)
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
        restored(old)


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
