"""N-body distance sums: out[i] = sum_j |p_i - p_j| over three coordinate arrays."""
import math
import sys

import numpy as np

import _harness
import unpython
from unpython import prange


@unpython.gpu
@unpython.type('ndarray[float32, 1]', 'ndarray[float32, 1]', 'ndarray[float32, 1]',
               'ndarray[float32, 1]', None)
def nbody_f32(x, y, z, out):
    n = x.shape[0]
    for i in prange(n):
        s = np.float32(0.0)
        for j in range(n):
            dx = x[i] - x[j]
            dy = y[i] - y[j]
            dz = z[i] - z[j]
            # np.sqrt of a float32 is a float32; math.sqrt would return a float64.
            s += np.sqrt(dx * dx + dy * dy + dz * dz)
        out[i] = s


@unpython.gpu
@unpython.type('ndarray[float64, 1]', 'ndarray[float64, 1]', 'ndarray[float64, 1]',
               'ndarray[float64, 1]', None)
def nbody_f64(x, y, z, out):
    n = x.shape[0]
    for i in prange(n):
        s = 0.0
        for j in range(n):
            dx = x[i] - x[j]
            dy = y[i] - y[j]
            dz = z[i] - z[j]
            s += math.sqrt(dx * dx + dy * dy + dz * dz)
        out[i] = s


def make_args(n, dtype, rng):
    x, y, z = rng.random((3, n)).astype(dtype)
    return [x, y, z, np.zeros(n, dtype)]


CHECKED_ROWS = 4096  # beyond this many bodies only a spread of rows is checked: n**2 is too slow


def expected(args):
    x, y, z, _ = (np.asarray(v, np.float64) for v in args)
    n = len(x)
    rows = np.arange(n) if n <= CHECKED_ROWS else np.linspace(0, n - 1, 512).astype(np.int64)
    want = np.full(n, np.nan)
    for start in range(0, len(rows), 256):
        r = rows[start:start + 256, None]
        want[r[:, 0]] = np.sqrt((x[r] - x) ** 2 + (y[r] - y) ** 2 + (z[r] - z) ** 2).sum(axis=1)
    return want


CASES = [_harness.Case("nbody", "nbody_f32", np.float32, make_args, expected, out=3),
         _harness.Case("nbody", "nbody_f64", np.float64, make_args, expected, out=3)]
SIZES = {"tiny": 50, "small": 1024, "dev": (4096,), "accel": (65536,)}


def main(argv=None):
    return _harness.main(argv, CASES, SIZES)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
