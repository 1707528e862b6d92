"""PolyBench atax (npbench): y = A^T (A x), written as (A @ x) @ A (a vector times a matrix)."""
import numpy as np

import unpython


@unpython.gpu
@unpython.type('ndarray[float64, 2]', 'ndarray[float64, 1]', 'ndarray[float64, 1]')
def atax(a, x):
    return (a @ x) @ a


def inputs(rng, scale=1):
    m, n = 60 * scale, 80 * scale
    return rng.random((m, n)), rng.random(n)


LARGE = 69
FUNCTION = "atax"
