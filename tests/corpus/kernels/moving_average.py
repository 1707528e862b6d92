"""A moving average through a running sum: a sequential cumulative loop into a zero-padded
array, then the difference of two shifted slices."""
import numpy as np

import unpython


@unpython.gpu
@unpython.type('ndarray[float64, 1]', 'int64', 'ndarray[float64, 1]')
def moving_average(x, k):
    n = x.shape[0]
    c = np.zeros(n + 1)
    for i in range(n):
        c[i + 1] = c[i] + x[i]
    return (c[k:] - c[:-k]) / k


def inputs(rng, scale=1):
    return rng.standard_normal(2000 * scale), 7


LARGE = 12000
FUNCTION = "moving_average"
