"""PolyBench gesummv (npbench): alpha * A @ x + beta * B @ x."""
import numpy as np

import unpython


@unpython.gpu
@unpython.type('float64', 'float64', 'ndarray[float64, 2]', 'ndarray[float64, 2]',
               'ndarray[float64, 1]', 'ndarray[float64, 1]')
def gesummv(alpha, beta, a, b, x):
    return alpha * a @ x + beta * b @ x


def inputs(rng, scale=1):
    n = 64 * scale
    return 1.5, 1.2, rng.random((n, n)), rng.random((n, n)), rng.random(n)


LARGE = 120
FUNCTION = "gesummv"
