"""PolyBench doitgen, the multiresolution analysis kernel: each slab A[r] of a 3-D array
replaced by A[r] @ C4, the slabs in a prange."""
import numpy as np

import unpython
from unpython import prange


@unpython.gpu
@unpython.type('ndarray[float64, 3]', 'ndarray[float64, 2]', None)
def doitgen(a, c4):
    nr, nq, p = a.shape
    for r in prange(nr):
        a[r, :, :] = a[r, :, :] @ c4


def inputs(rng, scale=1):
    nr, nq, p = 10 * scale, 12 * scale, 14 * scale
    return rng.random((nr, nq, p)), rng.random((p, p))


LARGE = 11
FUNCTION = "doitgen"
