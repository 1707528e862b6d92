"""Squared distances the scikit-learn way: |x|^2 + |y|^2 - 2 x.y with a matrix product,
clamped at zero with np.maximum."""
import numpy as np

import unpython


@unpython.gpu
@unpython.type('ndarray[float64, 2]', 'ndarray[float64, 2]', 'ndarray[float64, 2]')
def sq_distances_gemm(x, y):
    x2 = np.sum(x * x, axis=1)
    y2 = np.sum(y * y, axis=1)
    d = x2[:, None] + y2[None, :] - 2.0 * (x @ y.T)
    return np.maximum(d, 0.0)


def inputs(rng, scale=1):
    return rng.random((70 * scale, 8)), rng.random((40 * scale, 8))


LARGE = 74
FUNCTION = "sq_distances_gemm"
