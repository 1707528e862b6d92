"""Where the profitability estimate sends each example nest (no UNPY_FORCE_GPU), with both paths
timed, to check the estimate against measurements: python bench/decisions.py [--sizes accel]."""
import argparse
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "examples"), str(ROOT / "bench")]

from cpu import KERNELS, unpy_module  # noqa: E402
from gpu import AUTO, measure, ms, unpy_column  # noqa: E402


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", choices=["dev", "accel"], default="accel")
    options = parser.parse_args(argv)
    device = os.environ.get("UNPY_DEVICE") or "gpu"
    for kernel in KERNELS:
        module, _ = unpy_module(kernel)
        for case in module.CASES:
            n = module.SIZES[options.sizes][0]
            args = case.args(n)
            want = case.expected(args)
            omp = measure(unpy_column(module, "OpenMP", device)(case, args), want, case.rtol, 3)
            chosen = measure(unpy_column(module, AUTO, device)(case, args), want, case.rtol, 3)
            print(f"{case.label} n={n}: chose {chosen.ran_on} ({ms(chosen.median)} ms; OpenMP "
                  f"{ms(omp.median)} ms) — {chosen.note or chosen.reason}", flush=True)


if __name__ == "__main__":
    main()
