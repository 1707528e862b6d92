"""Each column scaled to sum to one: a / a.sum(axis=0), the column sums broadcast over rows."""
import numpy as np

import unpython


@unpython.gpu
@unpython.type('ndarray[float64, 2]', 'ndarray[float64, 2]')
def col_normalise(a):
    return a / a.sum(axis=0)


def inputs(rng, scale=1):
    return (rng.random((50 * scale, 30 * scale)) + 0.01,)


LARGE = 150
FUNCTION = "col_normalise"
