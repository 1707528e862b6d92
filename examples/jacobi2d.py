"""PolyBench jacobi-2d: time steps of two 5-point stencils, A -> B then B -> A. Marked @gpu, its
arrays stay on the device for the whole call: one copy in and one copy out per array (SPEC
section 8; `unpython.explain(jacobi2d)` counts them)."""
import sys

import numpy as np

import _harness
import unpython
from unpython import prange

STEPS = 10


@unpython.gpu
@unpython.type('int64', 'ndarray[float64, 2]', 'ndarray[float64, 2]', None)
def jacobi2d(steps, a, b):
    n = a.shape[0]
    for t in range(steps):
        for i in prange(1, n - 1):
            for j in prange(1, n - 1):
                b[i, j] = 0.2 * (a[i, j] + a[i, j - 1] + a[i, j + 1] + a[i + 1, j] + a[i - 1, j])
        for i in prange(1, n - 1):
            for j in prange(1, n - 1):
                a[i, j] = 0.2 * (b[i, j] + b[i, j - 1] + b[i, j + 1] + b[i + 1, j] + b[i - 1, j])


def make_args(n, dtype, rng, steps=STEPS):
    """PolyBench's initialisation (the rng is not needed)."""
    i, j = np.indices((n, n), dtype)
    return [steps, (i * (j + 2) + 2) / n, (i * (j + 3) + 3) / n]


def expected(args):
    steps, a, b = args
    a, b = a.astype(np.float64), b.astype(np.float64)
    for _ in range(steps):
        b[1:-1, 1:-1] = 0.2 * (a[1:-1, 1:-1] + a[1:-1, :-2] + a[1:-1, 2:] + a[2:, 1:-1]
                               + a[:-2, 1:-1])
        a[1:-1, 1:-1] = 0.2 * (b[1:-1, 1:-1] + b[1:-1, :-2] + b[1:-1, 2:] + b[2:, 1:-1]
                               + b[:-2, 1:-1])
    return a


CASES = [_harness.Case("jacobi2d", "jacobi2d", np.float64, make_args, expected, out=1,
                       inout=True)]
SIZES = {"tiny": 17, "small": 96, "dev": (1024,), "accel": (4096,)}


def main(argv=None):
    return _harness.main(argv, CASES, SIZES)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
