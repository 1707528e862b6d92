"""PolyBench syrk (npbench's row-slice version) with the outer loop a prange: the lower triangle
of C = alpha * A @ A.T + beta * C, row i updated through the slice C[i, :i + 1]."""
import numpy as np

import unpython
from unpython import prange


@unpython.gpu
@unpython.type('float64', 'float64', 'ndarray[float64, 2]', 'ndarray[float64, 2]', None)
def syrk(alpha, beta, c, a):
    n = c.shape[0]
    for i in prange(n):
        c[i, :i + 1] *= beta
        for k in range(a.shape[1]):
            c[i, :i + 1] += alpha * a[i, k] * a[:i + 1, k]


def inputs(rng, scale=1):
    n, m = 50 * scale, 30 * scale
    return 1.5, 1.2, rng.random((n, n)), rng.random((n, m))


LARGE = 18
FUNCTION = "syrk"
