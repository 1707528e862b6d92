"""PolyBench gemm (npbench): C = alpha * A @ B + beta * C, in place."""
import numpy as np

import unpython


@unpython.gpu
@unpython.type('float64', 'float64', 'ndarray[float64, 2]', 'ndarray[float64, 2]',
               'ndarray[float64, 2]', None)
def gemm(alpha, beta, c, a, b):
    c *= beta
    c += alpha * a @ b


def inputs(rng):
    ni, nj, nk = 40, 50, 60
    return 1.5, 1.2, rng.random((ni, nj)), rng.random((ni, nk)), rng.random((nk, nj))


FUNCTION = "gemm"
