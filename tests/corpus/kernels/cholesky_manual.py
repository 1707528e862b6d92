"""The Cholesky factor of a symmetric positive definite matrix, by hand (the Cholesky-Banachiewicz
order): the diagonal by math.sqrt of the matrix entry less a dot product of row slices."""
import math

import numpy as np

import unpython


@unpython.gpu
@unpython.type('ndarray[float64, 2]', 'ndarray[float64, 2]')
def cholesky_manual(a):
    n = a.shape[0]
    lower = np.zeros_like(a)
    for i in range(n):
        for j in range(i + 1):
            s = np.dot(lower[i, :j], lower[j, :j])
            if i == j:
                lower[i, j] = math.sqrt(a[i, i] - s)
            else:
                lower[i, j] = (a[i, j] - s) / lower[j, j]
    return lower


def inputs(rng):
    m = rng.standard_normal((20, 20))
    return (m @ m.T + 20 * np.eye(20),)


FUNCTION = "cholesky_manual"
