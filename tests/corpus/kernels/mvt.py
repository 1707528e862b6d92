"""PolyBench mvt (npbench): x1 += A @ y1 and x2 += y2 @ A, in place."""
import numpy as np

import unpython


@unpython.gpu
@unpython.type('ndarray[float64, 1]', 'ndarray[float64, 1]', 'ndarray[float64, 1]',
               'ndarray[float64, 1]', 'ndarray[float64, 2]', None)
def mvt(x1, x2, y1, y2, a):
    x1 += a @ y1
    x2 += y2 @ a


def inputs(rng, scale=1):
    n = 70 * scale
    return rng.random(n), rng.random(n), rng.random(n), rng.random(n), rng.random((n, n))


LARGE = 76
FUNCTION = "mvt"
