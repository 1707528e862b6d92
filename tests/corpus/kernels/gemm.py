"""PolyBench gemm (npbench): C = alpha * A @ B + beta * C, in place."""
import numpy as np

import unpython


@unpython.gpu
@unpython.type('float64', 'float64', 'ndarray[float64, 2]', 'ndarray[float64, 2]',
               'ndarray[float64, 2]', None)
def gemm(alpha, beta, c, a, b):
    c *= beta
    c += alpha * a @ b


def inputs(rng, scale=1):
    ni, nj, nk = 40 * scale, 50 * scale, 60 * scale
    return 1.5, 1.2, rng.random((ni, nj)), rng.random((ni, nk)), rng.random((nk, nj))


LARGE = 34
FUNCTION = "gemm"
