"""The k-means assignment step: for each point (a prange) its squared distances to every
centroid by broadcasting a row against the centroid matrix, np.argmin, and the inertia as a
reduction."""
import numpy as np

import unpython
from unpython import prange


@unpython.gpu
@unpython.type('ndarray[float64, 2]', 'ndarray[float64, 2]', 'ndarray[int64, 1]', 'float64')
def kmeans_assign(x, centroids, labels):
    inertia = 0.0
    for i in prange(x.shape[0]):
        d = np.sum((centroids - x[i, :]) ** 2, axis=1)
        k = np.argmin(d)
        labels[i] = k
        inertia += d[k]
    return inertia


def inputs(rng, scale=1):
    n = 300 * scale
    x = rng.random((n, 4))
    return x, x[:7].copy() + 0.01, np.zeros(n, np.int64)


LARGE = 6700
FUNCTION = "kmeans_assign"
