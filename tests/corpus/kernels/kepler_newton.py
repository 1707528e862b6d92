"""Kepler's equation E - e sin E = M solved for arrays of mean anomalies and eccentricities by
vectorised Newton steps: the start chosen with np.where, every element stepped at once, the loop
left with break when the largest step is below the tolerance; the anomalies and the count."""
import numpy as np

import unpython


@unpython.gpu
@unpython.type('ndarray[float64, 1]', 'ndarray[float64, 1]', 'float64', 'int64',
               ('ndarray[float64, 1]', 'int64'))
def kepler_newton(M, e, tol, maxiter):
    E = np.where(e < 0.8, M, np.full_like(M, np.pi))
    iterations = 0
    for it in range(maxiter):
        f = E - e * np.sin(E) - M
        fp = 1 - e * np.cos(E)
        step = f / fp
        E = E - step
        iterations = it + 1
        if np.max(np.abs(step)) < tol:
            break
    return E, iterations


def inputs(rng, scale=1):
    n = 2000 * scale
    return rng.uniform(0, 2 * np.pi, n), rng.uniform(0, 0.95, n), 1e-12, 50


LARGE = 100
FUNCTION = "kepler_newton"
