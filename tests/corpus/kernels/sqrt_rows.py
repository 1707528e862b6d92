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


def inputs(rng, scale=1):
    shape = (100 * scale, 40 * scale)
    return rng.random(shape), np.zeros(shape)


LARGE = 130
FUNCTION = "sqrt_rows"
