"""PolyBench covariance: centre the columns, then C = X^T X / (n - 1)."""
import numpy as np

import unpython


@unpython.gpu
@unpython.type('ndarray[float64, 2]', 'ndarray[float64, 2]')
def covariance(data):
    n = data.shape[0]
    mean = np.mean(data, axis=0)
    centred = data - mean
    return centred.T @ centred / (n - 1.0)


def inputs(rng, scale=1):
    return (rng.random((80 * scale, 30 * scale)),)


LARGE = 41
FUNCTION = "covariance"
