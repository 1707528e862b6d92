"""The dominant eigenvalue of a symmetric matrix by power iteration: a matrix-vector product and
a normalisation per step, the Rayleigh quotient x @ A @ x at the end."""
import numpy as np

import unpython


@unpython.gpu
@unpython.type('ndarray[float64, 2]', 'int64', 'float64')
def power_iteration(a, iters):
    n = a.shape[0]
    x = np.ones(n) / np.sqrt(n)
    for it in range(iters):
        y = a @ x
        x = y / np.linalg.norm(y)
    return x @ a @ x


def inputs(rng, scale=1):
    m = rng.random((50 * scale, 50 * scale))
    return m @ m.T, 15


LARGE = 65
FUNCTION = "power_iteration"
