"""Replacing outliers (more than three standard deviations from the mean) by the mean: a copy,
np.mean and np.std of a whole array, a boolean mask from np.abs in the assignment."""
import numpy as np

import unpython


@unpython.gpu
@unpython.type('ndarray[float64, 1]', 'ndarray[float64, 1]')
def clip_outliers(x):
    mu = np.mean(x)
    sd = np.std(x)
    y = x.copy()
    y[np.abs(y - mu) > 3.0 * sd] = mu
    return y


def inputs(rng, scale=1):
    x = rng.standard_normal(3000 * scale)
    x[::250] += 25.0
    return (x,)


LARGE = 15000
FUNCTION = "clip_outliers"
