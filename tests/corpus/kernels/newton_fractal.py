"""Newton's method for the roots of z^3 - 1 on a complex grid: a Horner helper for the
polynomial and its derivative (a scalar compiled function called in the prange), the root each
point converges to by the nearest of the three roots."""
import cmath

import numpy as np

import unpython
from unpython import prange


@unpython.type('complex128', 'complex128')
def newton_step(z):
    return z - (z * z * z - 1.0) / (3.0 * z * z)


@unpython.gpu
@unpython.type('ndarray[complex128, 1]', 'int64', 'ndarray[int64, 1]')
def newton_basins(z0, iters=25):
    roots = np.array([1.0 + 0j, cmath.exp(2j * cmath.pi / 3), cmath.exp(-2j * cmath.pi / 3)])
    basin = np.empty(z0.shape[0], dtype=np.int64)
    for p in prange(z0.shape[0]):
        z = z0[p]
        for _ in range(iters):
            if abs(z) < 1e-12:
                break
            z = newton_step(z)
        basin[p] = np.argmin(np.abs(roots - z))
    return basin


def inputs(rng, scale=1):
    n = 300 * scale
    return (rng.uniform(-1.5, 1.5, n) + 1j * rng.uniform(-1.5, 1.5, n),)


LARGE = 1200
FUNCTION = "newton_basins"
