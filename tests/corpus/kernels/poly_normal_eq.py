"""Weighted polynomial least squares through the normal equations: the design matrix as
x[:, None] ** np.arange(deg + 1), rows scaled by np.sqrt of the weights, np.linalg.solve of
A.T @ A against A.T @ b; the coefficients (lowest power first) and the weighted RMS residual."""
import numpy as np

import unpython


@unpython.gpu
@unpython.type('ndarray[float64, 1]', 'ndarray[float64, 1]', 'ndarray[float64, 1]', 'int64',
               ('ndarray[float64, 1]', 'float64'))
def weighted_polyfit(x, y, w, deg):
    A = x[:, None] ** np.arange(deg + 1)
    sw = np.sqrt(w)
    Aw = A * sw[:, None]
    bw = y * sw
    coef = np.linalg.solve(Aw.T @ Aw, Aw.T @ bw)
    resid = y - A @ coef
    rms = np.sqrt(np.sum(w * resid ** 2) / np.sum(w))
    return coef, rms


def inputs(rng, scale=1):
    n = 300 * scale
    x = np.linspace(-1.0, 1.0, n)
    y = 1.0 - 2.0 * x + 0.5 * x ** 3 + 0.05 * rng.standard_normal(n)
    return x, y, rng.uniform(0.5, 2.0, n), 4


LARGE = 300
FUNCTION = "weighted_polyfit"
