"""Cosine similarity of two vectors: np.dot and np.linalg.norm."""
import numpy as np

import unpython


@unpython.gpu
@unpython.type('ndarray[float64, 1]', 'ndarray[float64, 1]', 'float64')
def cosine_similarity(x, y):
    return np.dot(x, y) / (np.linalg.norm(x) * np.linalg.norm(y))


def inputs(rng, scale=1):
    n = 1000 * scale
    return rng.standard_normal(n), rng.standard_normal(n)


LARGE = 63000
FUNCTION = "cosine_similarity"
