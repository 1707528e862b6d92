"""The shape of a first NumPy-in-prange program: out[i, :] = np.sqrt(a[i, :]) * 2 per row, the
row count unpacked from the shape tuple."""
import numpy as np

import unpython
from unpython import prange


@unpython.gpu
@unpython.type('ndarray[float64, 2]', 'ndarray[float64, 2]', None)
def sqrt_rows(a, out):
    n, m = a.shape
    for i in prange(n):
        out[i, :] = np.sqrt(a[i, :]) * 2


def inputs(rng):
    return rng.random((100, 40)), np.zeros((100, 40))


FUNCTION = "sqrt_rows"
