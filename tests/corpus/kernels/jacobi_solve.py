"""Jacobi's iteration for A x = b (diagonally dominant A): the diagonal gathered by a loop, then
x = (b - (A @ x - d * x)) / d repeated."""
import numpy as np

import unpython


@unpython.gpu
@unpython.type('ndarray[float64, 2]', 'ndarray[float64, 1]', 'int64', 'ndarray[float64, 1]')
def jacobi_solve(a, b, iters):
    n = a.shape[0]
    d = np.empty(n)
    for i in range(n):
        d[i] = a[i, i]
    x = np.zeros_like(b)
    for it in range(iters):
        x = (b - (a @ x - d * x)) / d
    return x


def inputs(rng, scale=1):
    n = 60 * scale
    a = rng.random((n, n)) + n * np.eye(n)
    return a, rng.random(n), 10


LARGE = 69
FUNCTION = "jacobi_solve"
