"""Nearest-centroid classification in float32 with the labels as an argmin over a distance
matrix built by broadcasting a 3-D difference: x[:, None, :] - centroids[None, :, :]."""
import numpy as np

import unpython


@unpython.gpu
@unpython.type('ndarray[float32, 2]', 'ndarray[float32, 2]', 'ndarray[int64, 1]')
def nearest_centroid(x, centroids):
    diff = x[:, None, :] - centroids[None, :, :]
    dist = np.sqrt((diff ** 2).sum(axis=2))
    return np.argmin(dist, axis=1)


def inputs(rng, scale=1):
    return rng.random((200 * scale, 3)).astype(np.float32), rng.random((5, 3)).astype(np.float32)


LARGE = 17000
FUNCTION = "nearest_centroid"
