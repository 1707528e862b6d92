"""The weighted mean and (unbiased, reliability weights) variance of each column of a data
matrix, returned as a tuple: weights normalised, sums along axis 0 with a column of weights
broadcast by [:, None]."""
import numpy as np

import unpython


@unpython.gpu
@unpython.type('ndarray[float64, 2]', 'ndarray[float64, 1]',
               ('ndarray[float64, 1]', 'ndarray[float64, 1]'))
def weighted_stats(x, w):
    wn = w / w.sum()
    mean = np.sum(x * wn[:, None], axis=0)
    dev = x - mean
    v2 = np.sum(wn ** 2)
    var = np.sum(wn[:, None] * dev ** 2, axis=0) / (1.0 - v2)
    return mean, var


def inputs(rng, scale=1):
    n = 300 * scale
    return rng.standard_normal((n, 6)) * 2.0 + 1.0, rng.random(n)


LARGE = 14000
FUNCTION = "weighted_stats"
