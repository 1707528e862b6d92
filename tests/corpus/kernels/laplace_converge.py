"""Laplace's equation by Jacobi sweeps until the largest change falls below a tolerance (the
scientific-Python-lectures way): np.full with a boundary value, a while loop, np.max(np.abs(...))."""
import numpy as np

import unpython


@unpython.gpu
@unpython.type('ndarray[float64, 2]', 'float64', 'float64', 'int64', 'ndarray[float64, 2]')
def laplace_converge(interior, boundary, tol, max_iter):
    n, m = interior.shape
    u = np.full((n + 2, m + 2), boundary)
    u[1:-1, 1:-1] = interior
    err = tol + 1.0
    it = 0
    while err > tol and it < max_iter:
        old = u.copy()
        u[1:-1, 1:-1] = 0.25 * (old[:-2, 1:-1] + old[2:, 1:-1] + old[1:-1, :-2] + old[1:-1, 2:])
        err = np.max(np.abs(u - old))
        it += 1
    return u


def inputs(rng, scale=1):
    interior = rng.random((16 * scale, 20 * scale))
    return interior, 1.0, 0.04, 100


LARGE = 29
FUNCTION = "laplace_converge"
