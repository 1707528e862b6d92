"""The index of the row with the largest sum: a.sum(axis=1) then np.argmax (an int64 result)."""
import numpy as np

import unpython


@unpython.gpu
@unpython.type('ndarray[float64, 2]', 'int64')
def top_row(a):
    return np.argmax(a.sum(axis=1))


def inputs(rng):
    return (rng.random((90, 40)),)


FUNCTION = "top_row"
