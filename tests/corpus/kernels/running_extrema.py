"""Running minimum and maximum of a series (np.minimum.accumulate and np.maximum.accumulate
written as the loop users write when Numba is the target), returned as a tuple."""
import numpy as np

import unpython


@unpython.gpu
@unpython.type('ndarray[float64, 1]', ('ndarray[float64, 1]', 'ndarray[float64, 1]'))
def running_extrema(x):
    lo = np.empty_like(x)
    hi = np.empty_like(x)
    lo[0] = hi[0] = x[0]
    for i in range(1, len(x)):
        lo[i] = min(lo[i - 1], x[i])
        hi[i] = max(hi[i - 1], x[i])
    return lo, hi


def inputs(rng, scale=1):
    return (np.cumsum(rng.standard_normal(700 * scale)),)


LARGE = 19000
FUNCTION = "running_extrema"
