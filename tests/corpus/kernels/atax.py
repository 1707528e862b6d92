"""PolyBench atax (npbench): y = A^T (A x), written as (A @ x) @ A (a vector times a matrix)."""
import numpy as np

import unpython


@unpython.gpu
@unpython.type('ndarray[float64, 2]', 'ndarray[float64, 1]', 'ndarray[float64, 1]')
def atax(a, x):
    return (a @ x) @ a


def inputs(rng):
    m, n = 60, 80
    return rng.random((m, n)), rng.random(n)


FUNCTION = "atax"
