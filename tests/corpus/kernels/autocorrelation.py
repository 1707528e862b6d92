"""The normalised autocorrelation of a signal up to max_lag: the mean removed, each lag the sum
of the products of two shifted slices, divided by the lag-0 energy."""
import numpy as np

import unpython


@unpython.gpu
@unpython.type('ndarray[float64, 1]', 'int64', 'ndarray[float64, 1]')
def autocorrelation(x, max_lag=20):
    n = x.shape[0]
    xc = x - x.mean()
    energy = np.sum(xc * xc)
    acf = np.empty(max_lag + 1)
    for lag in range(max_lag + 1):
        acf[lag] = np.sum(xc[:n - lag] * xc[lag:]) / energy
    return acf


def inputs(rng, scale=1):
    n = 600 * scale
    t = np.arange(n)
    return np.sin(0.1 * t) + 0.3 * rng.standard_normal(n), 25


LARGE = 7800
FUNCTION = "autocorrelation"
