"""The intensity centroid (row, column) of an image: row and column sums dotted with np.arange
indices, returned as a tuple of two floats."""
import numpy as np

import unpython


@unpython.gpu
@unpython.type('ndarray[float64, 2]', 'tuple[float64, float64]')
def image_centroid(img):
    h, w = img.shape
    total = img.sum()
    cy = img.sum(axis=1) @ np.arange(h) / total
    cx = img.sum(axis=0) @ np.arange(w) / total
    return cy, cx


def inputs(rng, scale=1):
    h, w = 60 * scale, 80 * scale
    i, j = np.indices((h, w))
    blob = ((i - 20.0 * scale) ** 2 + (j - 50.0 * scale) ** 2) / (100.0 * scale ** 2)
    return (np.exp(-blob) + 0.01 * rng.random((h, w)),)


LARGE = 110
FUNCTION = "image_centroid"
