"""Ridge regression by gradient descent on the normal equations: the regularised Gram matrix
with np.eye, tuple unpacking of the shape, w -= lr * (G @ w - c) in a loop."""
import numpy as np

import unpython


@unpython.gpu
@unpython.type('ndarray[float64, 2]', 'ndarray[float64, 1]', 'float64', 'float64', 'int64',
               'ndarray[float64, 1]')
def ridge_fit(x, y, lam, lr, iters):
    n, p = x.shape
    g = x.T @ x / n + lam * np.eye(p)
    c = x.T @ y / n
    w = np.zeros(p)
    for it in range(iters):
        w -= lr * (g @ w - c)
    return w


def inputs(rng, scale=1):
    n = 100 * scale
    x = rng.standard_normal((n, 6))
    return x, x @ np.arange(1.0, 7.0) + 0.1 * rng.standard_normal(n), 0.1, 0.2, 20


LARGE = 61000
FUNCTION = "ridge_fit"
