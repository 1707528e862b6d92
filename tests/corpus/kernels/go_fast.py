"""Numba's five-minute-guide example: a loop summing np.tanh of the diagonal, then a whole array
plus that scalar."""
import numpy as np

import unpython


@unpython.gpu
@unpython.type('ndarray[float64, 2]', 'ndarray[float64, 2]')
def go_fast(a):
    trace = 0.0
    for i in range(a.shape[0]):
        trace += np.tanh(a[i, i])
    return a + trace


def inputs(rng, scale=1):
    return (rng.random((60 * scale, 60 * scale)),)


LARGE = 150
FUNCTION = "go_fast"
