"""Gauss-Seidel iteration for A x = b until the residual norm drops below a tolerance (or a
sweep limit): each unknown updated from the newest values, with dot products of the row's
slices either side of the diagonal; returns the solution and the sweep count."""
import numpy as np

import unpython

TOL = 1e-10


@unpython.type('ndarray[float64, 2]', 'ndarray[float64, 1]', 'int64',
               ('ndarray[float64, 1]', 'int64'))
@unpython.gpu
def gauss_seidel(a, b, max_sweeps=200):
    n = b.shape[0]
    x = np.zeros(n)
    sweeps = 0
    while sweeps < max_sweeps:
        for i in range(n):
            sigma = a[i, :i] @ x[:i] + a[i, i + 1:] @ x[i + 1:]
            x[i] = (b[i] - sigma) / a[i, i]
        sweeps += 1
        if np.linalg.norm(a @ x - b) < TOL * np.linalg.norm(b):
            break
    return x, sweeps


def inputs(rng, scale=1):
    n = 25 * scale
    a = rng.random((n, n)) + 2 * n * np.eye(n)
    return a, rng.random(n), 200


LARGE = 100
FUNCTION = "gauss_seidel"
