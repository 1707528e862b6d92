"""Euclidean distances between two point sets by broadcasting to a 3-D difference array
(x[:, None, :] - y[None, :, :]) and summing over the last axis."""
import numpy as np

import unpython


@unpython.gpu
@unpython.type('ndarray[float64, 2]', 'ndarray[float64, 2]', 'ndarray[float64, 2]')
def pairwise_distances(x, y):
    diff = x[:, None, :] - y[None, :, :]
    return np.sqrt(np.sum(diff ** 2, axis=-1))


def inputs(rng, scale=1):
    return rng.random((60 * scale, 3)), rng.random((50 * scale, 3))


LARGE = 78
FUNCTION = "pairwise_distances"
