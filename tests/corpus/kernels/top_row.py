"""The index of the row with the largest sum: a.sum(axis=1) then np.argmax (an int64 result)."""
import numpy as np

import unpython


@unpython.gpu
@unpython.type('ndarray[float64, 2]', 'int64')
def top_row(a):
    return np.argmax(a.sum(axis=1))


def inputs(rng, scale=1):
    return (rng.random((90 * scale, 40 * scale)),)


LARGE = 190
FUNCTION = "top_row"
