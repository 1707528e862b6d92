"""Dense matrix multiplication, c = a @ b, with two parallel loop levels (the paper's figure 3)."""
import sys

import numpy as np

import _harness
import unpython
from unpython import prange


@unpython.gpu
@unpython.type('ndarray[float32, 2]', 'ndarray[float32, 2]', 'ndarray[float32, 2]', None)
def mmult_f32(a, b, c):
    m = a.shape[0]
    n = b.shape[1]
    p = a.shape[1]
    for i in prange(m):
        for j in prange(n):
            s = np.float32(0.0)  # float32, as `s = 0.0` would become at `s += ...`
            for k in range(p):
                s += a[i, k] * b[k, j]
            c[i, j] = s


@unpython.gpu
@unpython.type('ndarray[float64, 2]', 'ndarray[float64, 2]', 'ndarray[float64, 2]', None)
def mmult_f64(a, b, c):
    m = a.shape[0]
    n = b.shape[1]
    p = a.shape[1]
    for i in prange(m):
        for j in prange(n):
            s = 0.0
            for k in range(p):
                s += a[i, k] * b[k, j]
            c[i, j] = s


def make_args(n, dtype, rng):
    a = rng.random((n, n)).astype(dtype)
    b = rng.random((n, n)).astype(dtype)
    return [a, b, np.zeros((n, n), dtype)]


def expected(args):
    a, b, _ = (np.asarray(x, np.float64) for x in args)
    return a @ b


CASES = [_harness.Case("mmult", "mmult_f32", np.float32, make_args, expected, out=2),
         _harness.Case("mmult", "mmult_f64", np.float64, make_args, expected, out=2)]
SIZES = {"tiny": 12, "small": 128, "dev": (256,), "accel": (2048, 4096)}


def main(argv=None):
    return _harness.main(argv, CASES, SIZES)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
