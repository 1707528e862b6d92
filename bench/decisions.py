"""Where the profitability estimate sends each example nest (no UNPY_FORCE_GPU), with both paths
timed, to check the estimate against measurements: python bench/decisions.py [--sizes accel]."""
import argparse
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "examples"), str(ROOT / "bench")]

import unpython  # noqa: E402
from cpu import KERNELS, unpy_module  # noqa: E402
from gpu import timed  # noqa: E402


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", choices=["dev", "accel"], default="accel")
    options = parser.parse_args(argv)
    os.environ.pop("UNPY_FORCE_GPU", None)
    for kernel in KERNELS:
        module, _ = unpy_module(kernel)
        for case in module.CASES:
            n = module.SIZES[options.sizes][0]
            func = getattr(module, case.func)
            args = case.args(n)
            os.environ["UNPY_DEVICE"] = "none"
            _, omp, _ = timed(case, func, args, 3)
            os.environ["UNPY_DEVICE"] = "gpu"
            _, chosen, _ = timed(case, func, args, 3)
            nest = unpython.explain(func).nests[0]
            print(f"{case.label} n={n}: chose {nest.ran_on} ({chosen * 1e3:.2f} ms; OpenMP "
                  f"{omp * 1e3:.2f} ms) — {nest.reason}", flush=True)


if __name__ == "__main__":
    main()
