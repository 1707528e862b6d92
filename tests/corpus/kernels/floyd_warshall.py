"""All-pairs shortest paths by Floyd-Warshall, vectorised per intermediate vertex as NumPy users
write it: dist = np.minimum(dist, dist[:, k, np.newaxis] + dist[np.newaxis, k, :])."""
import numpy as np

import unpython


@unpython.gpu
@unpython.type('ndarray[float64, 2]', 'ndarray[float64, 2]')
def floyd_warshall(weights):
    dist = weights.copy()
    n = dist.shape[0]
    for k in range(n):
        dist = np.minimum(dist, dist[:, k, np.newaxis] + dist[np.newaxis, k, :])
    return dist


def inputs(rng, scale=1):
    n = 30 * scale
    w = np.where(rng.random((n, n)) < 0.15, rng.uniform(1.0, 10.0, (n, n)), np.inf)
    np.fill_diagonal(w, 0.0)
    return (w,)


LARGE = 15
FUNCTION = "floyd_warshall"
