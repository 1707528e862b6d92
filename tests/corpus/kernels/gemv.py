"""BLAS gemv: y = alpha * A @ x + beta * y, returned as a new vector."""
import numpy as np

import unpython


@unpython.gpu
@unpython.type('float64', 'ndarray[float64, 2]', 'ndarray[float64, 1]', 'float64',
               'ndarray[float64, 1]', 'ndarray[float64, 1]')
def gemv(alpha, a, x, beta, y):
    return alpha * a @ x + beta * y


def inputs(rng, scale=1):
    m, n = 70 * scale, 50 * scale
    return 0.5, rng.random((m, n)), rng.random(n), -2.0, rng.random(m)


LARGE = 190
FUNCTION = "gemv"
