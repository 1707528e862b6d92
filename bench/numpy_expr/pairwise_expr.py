"""Euclidean distances between two point sets by broadcasting (x[:, None, :] - y[None, :, :])
and a sum over the coordinates, in one statement."""
import numpy as np

import unpython


@unpython.gpu
@unpython.type('ndarray[float64, 2]', 'ndarray[float64, 2]', 'ndarray[float64, 2]', None)
def pairwise(x, y, out):
    out[:] = np.sqrt(np.sum((x[:, None, :] - y[None, :, :]) ** 2, axis=2))
