"""A cumulative sum down the rows (np.cumsum(a, axis=0)) in place, as a sequential loop of
row-slice updates."""
import numpy as np

import unpython


@unpython.gpu
@unpython.type('ndarray[float64, 2]', None)
def prefix_rows(a):
    for i in range(1, a.shape[0]):
        a[i, :] += a[i - 1, :]


def inputs(rng, scale=1):
    return (rng.random((80 * scale, 50 * scale)),)


LARGE = 180
FUNCTION = "prefix_rows"
