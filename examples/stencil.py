"""Out-of-place 5-point stencil over the interior points of a 2-D grid."""
import sys

import numpy as np

import _harness
import unpython
from unpython import prange


@unpython.gpu
@unpython.type('ndarray[float64, 2]', 'float64', 'float64', 'ndarray[float64, 2]', None)
def stencil(a, w0, w1, out):
    n = a.shape[0]
    m = a.shape[1]
    for i in prange(1, n - 1):
        for j in prange(1, m - 1):
            out[i, j] = w0 * a[i, j] + w1 * (a[i - 1, j] + a[i + 1, j] + a[i, j - 1] + a[i, j + 1])


def make_args(n, dtype, rng):
    return [rng.random((n, n)).astype(dtype), dtype(0.5), dtype(0.125), np.zeros((n, n), dtype)]


def expected(args):
    a, w0, w1, out = args
    want = np.zeros(out.shape)
    want[1:-1, 1:-1] = w0 * a[1:-1, 1:-1] + w1 * (a[:-2, 1:-1] + a[2:, 1:-1]
                                                  + a[1:-1, :-2] + a[1:-1, 2:])
    return want


CASES = [_harness.Case("stencil", "stencil", np.float64, make_args, expected, out=3)]
SIZES = {"tiny": 17, "small": 512, "dev": (1024,), "accel": (8192,)}


def main(argv=None):
    return _harness.main(argv, CASES, SIZES)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
