"""BLAS ger, the rank-1 update A += alpha * x y^T, with np.outer."""
import numpy as np

import unpython


@unpython.gpu
@unpython.type('float64', 'ndarray[float64, 1]', 'ndarray[float64, 1]', 'ndarray[float64, 2]',
               None)
def ger_update(alpha, x, y, a):
    a += alpha * np.outer(x, y)


def inputs(rng, scale=1):
    m, n = 60 * scale, 45 * scale
    return 0.75, rng.random(m), rng.random(n), rng.random((m, n))


LARGE = 220
FUNCTION = "ger_update"
