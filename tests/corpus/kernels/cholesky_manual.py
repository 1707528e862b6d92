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


def inputs(rng, scale=1):
    n = 20 * scale
    m = rng.standard_normal((n, n))
    return (m @ m.T + n * np.eye(n),)


LARGE = 27
FUNCTION = "cholesky_manual"
