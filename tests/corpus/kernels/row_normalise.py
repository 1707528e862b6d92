"""Each row divided by its Euclidean norm, one row per prange iteration (a user's first loop
version): row slices on both sides, np.linalg.norm of a row."""
import numpy as np

import unpython
from unpython import prange


@unpython.gpu
@unpython.type('ndarray[float64, 2]', 'ndarray[float64, 2]', None)
def row_normalise(a, out):
    for i in prange(a.shape[0]):
        out[i, :] = a[i, :] / np.linalg.norm(a[i, :])


def inputs(rng, scale=1):
    shape = (80 * scale, 30 * scale)
    return rng.random(shape) + 0.1, np.zeros(shape)


LARGE = 160
FUNCTION = "row_normalise"
