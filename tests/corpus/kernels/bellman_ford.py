"""Single-source shortest paths by Bellman-Ford over an edge list (three arrays), relaxing every
edge |V| - 1 times with an early exit when nothing changes, then a check for a negative
cycle; the distances start at np.inf."""
import numpy as np

import unpython


@unpython.type('int64', 'ndarray[int64, 1]', 'ndarray[int64, 1]', 'ndarray[float64, 1]',
               'int64', ('ndarray[float64, 1]', 'bool'))
@unpython.gpu
def bellman_ford(n, src, dst, w, source=0):
    dist = np.full(n, np.inf)
    dist[source] = 0.0
    for _ in range(n - 1):
        changed = False
        for e in range(src.shape[0]):
            u, v = src[e], dst[e]
            if dist[u] + w[e] < dist[v]:
                dist[v] = dist[u] + w[e]
                changed = True
        if not changed:
            break
    negative_cycle = False
    for e in range(src.shape[0]):
        if dist[src[e]] + w[e] < dist[dst[e]]:
            negative_cycle = True
    return dist, negative_cycle


def inputs(rng, scale=1):
    n, m = 40 * scale, 160 * scale
    return n, rng.integers(0, n, m), rng.integers(0, n, m), rng.uniform(0.5, 5.0, m), 0


LARGE = 5800
FUNCTION = "bellman_ford"
