"""A Verlet neighbour list in a periodic box: for each particle (a prange) the minimum-image
displacements to all particles with np.round, squared distances summed along axis 1, the
neighbours within the cutoff by np.nonzero of a mask that leaves the particle itself out, kept
up to a maximum count in a -1-padded table."""
import numpy as np

import unpython
from unpython import prange


@unpython.gpu
@unpython.type('ndarray[float64, 2]', 'float64', 'float64', 'int64',
               ('ndarray[int64, 1]', 'ndarray[int64, 2]'))
def verlet_list(pos, box, cutoff, max_neigh):
    n = pos.shape[0]
    counts = np.zeros(n, dtype=np.int64)
    nlist = np.full((n, max_neigh), -1, dtype=np.int64)
    for i in prange(n):
        d = pos - pos[i]
        d -= box * np.round(d / box)
        r2 = np.sum(d * d, axis=1)
        close = np.nonzero((r2 < cutoff * cutoff) & (np.arange(n) != i))[0]
        k = min(close.shape[0], max_neigh)
        counts[i] = close.shape[0]
        nlist[i, :k] = close[:k]
    return counts, nlist


def inputs(rng, scale=1):
    n = 400 * scale
    box = 10.0 * scale ** (1 / 3)
    return rng.uniform(0, box, (n, 3)), box, 1.5, 24


LARGE = 12
FUNCTION = "verlet_list"
