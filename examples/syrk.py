"""Symmetric rank-k update of the lower triangle: c = beta * c + alpha * a @ a.T (BLAS syrk)."""
import sys

import numpy as np

import _harness
import unpython
from unpython import prange


@unpython.gpu
@unpython.type('float32', 'ndarray[float32, 2]', 'float32', 'ndarray[float32, 2]', None)
def syrk_f32(alpha, a, beta, c):
    n = c.shape[0]
    p = a.shape[1]
    for i in prange(n):
        for j in prange(i + 1):  # triangular: a guarded NDRange dimension on the GPU
            s = np.float32(0.0)
            for k in range(p):
                s += a[i, k] * a[j, k]
            c[i, j] = beta * c[i, j] + alpha * s


@unpython.gpu
@unpython.type('float64', 'ndarray[float64, 2]', 'float64', 'ndarray[float64, 2]', None)
def syrk_f64(alpha, a, beta, c):
    n = c.shape[0]
    p = a.shape[1]
    for i in prange(n):
        for j in prange(i + 1):  # triangular: a guarded NDRange dimension on the GPU
            s = 0.0
            for k in range(p):
                s += a[i, k] * a[j, k]
            c[i, j] = beta * c[i, j] + alpha * s


def make_args(n, dtype, rng):
    a = rng.random((n, n)).astype(dtype)
    c = rng.random((n, n)).astype(dtype)
    return [dtype(1.5), a, dtype(1.2), c]


def expected(args):
    alpha, a, beta, c = (np.asarray(x, np.float64) for x in args)
    return np.where(np.tri(len(c), dtype=bool), beta * c + alpha * (a @ a.T), c)


CASES = [_harness.Case("syrk", "syrk_f32", np.float32, make_args, expected, out=3, inout=True),
         _harness.Case("syrk", "syrk_f64", np.float64, make_args, expected, out=3, inout=True)]
SIZES = {"tiny": 13, "small": 128, "dev": (256,), "accel": (2048,)}


def main(argv=None):
    return _harness.main(argv, CASES, SIZES)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
