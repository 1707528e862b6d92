"""Standardising the features of a float32 data matrix: (x - mean) / std along axis 0, with the
reductions as methods."""
import numpy as np

import unpython


@unpython.gpu
@unpython.type('ndarray[float32, 2]', 'ndarray[float32, 2]')
def standardise(x):
    mu = x.mean(axis=0)
    sigma = x.std(axis=0)
    return (x - mu) / sigma


def inputs(rng, scale=1):
    return ((rng.standard_normal((200 * scale, 12 * scale)) * 3.0 + 1.0).astype(np.float32),)


LARGE = 96
FUNCTION = "standardise"
