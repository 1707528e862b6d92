"""The leading principal component by power iteration on the covariance of centred data, with
a helper that normalises a vector, the Rayleigh quotient as the explained variance, and a
sign convention (largest component positive) applied at the end."""
import numpy as np

import unpython


@unpython.type('ndarray[float64, 1]', 'ndarray[float64, 1]')
def unit(v):
    return v / np.linalg.norm(v)


@unpython.gpu
@unpython.type('ndarray[float64, 2]', 'int64', ('ndarray[float64, 1]', 'float64'))
def leading_component(data, iters=50):
    xc = data - data.mean(axis=0)
    cov = xc.T @ xc / (data.shape[0] - 1)
    v = unit(np.ones(cov.shape[0]))
    for _ in range(iters):
        v = unit(cov @ v)
    if v[np.argmax(np.abs(v))] < 0:
        v = -v
    return v, v @ cov @ v


def inputs(rng, scale=1):
    mix = np.array([[3.0, 0.5, 0.0], [0.5, 1.0, 0.2], [0.0, 0.2, 0.3]])
    return rng.standard_normal((200 * scale, 3)) @ mix, 60


LARGE = 25000
FUNCTION = "leading_component"
