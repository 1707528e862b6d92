"""A rolling z-score of a time series by the cumulative-sum trick (window sums as differences
of np.cumsum, a zero prepended with np.concatenate of a list), NaN for the warm-up part."""
import numpy as np

import unpython


@unpython.gpu
@unpython.type('ndarray[float64, 1]', 'int64', 'ndarray[float64, 1]')
def rolling_zscore(x, window):
    csum = np.concatenate(([0.0], np.cumsum(x)))
    csum2 = np.concatenate(([0.0], np.cumsum(x * x)))
    mean = (csum[window:] - csum[:-window]) / window
    var = (csum2[window:] - csum2[:-window]) / window - mean**2
    std = np.sqrt(np.maximum(var, 0.0))
    z = np.full(x.shape, np.nan)
    z[window - 1:] = (x[window - 1:] - mean) / std
    return z


def inputs(rng, scale=1):
    n = 2000 * scale
    return np.cumsum(rng.standard_normal(n)) * 0.1 + 5.0, 20


LARGE = 5000
FUNCTION = "rolling_zscore"
