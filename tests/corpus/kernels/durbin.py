"""PolyBench Durbin (npbench's NumPy version): the Levinson-Durbin recursion for a Toeplitz
system, a dot product with np.flip of a prefix and an in-place update of y[:k] from its own
reversed view."""
import numpy as np

import unpython


@unpython.gpu
@unpython.type('ndarray[float64, 1]', 'ndarray[float64, 1]')
def durbin(r):
    y = np.empty_like(r)
    alpha = -r[0]
    beta = 1.0
    y[0] = -r[0]

    for k in range(1, r.shape[0]):
        beta *= 1.0 - alpha * alpha
        alpha = -(r[k] + np.dot(np.flip(r[:k]), y[:k])) / beta
        y[:k] += alpha * np.flip(y[:k])
        y[k] = alpha

    return y


def inputs(rng, scale=1):
    n = 120 * scale
    # the autocorrelation of an AR(1) process: a well-conditioned Toeplitz system
    return (0.6 ** np.arange(1, n + 1) + 0.01 * rng.random(n),)


LARGE = 60
FUNCTION = "durbin"
