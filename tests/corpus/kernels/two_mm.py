"""PolyBench 2mm (npbench): D = alpha * A @ B @ C + beta * D, in place."""
import numpy as np

import unpython


@unpython.gpu
@unpython.type('float64', 'float64', 'ndarray[float64, 2]', 'ndarray[float64, 2]',
               'ndarray[float64, 2]', 'ndarray[float64, 2]', None)
def two_mm(alpha, beta, a, b, c, d):
    d *= beta
    d += alpha * a @ b @ c


def inputs(rng, scale=1):
    ni, nj, nk, nl = 30 * scale, 35 * scale, 40 * scale, 45 * scale
    return (1.5, 1.2, rng.random((ni, nk)), rng.random((nk, nj)), rng.random((nj, nl)),
            rng.random((ni, nl)))


LARGE = 38
FUNCTION = "two_mm"
