"""Robust outlier flags per column: z-scores from the mean and standard deviation with
keepdims, the absolute z above a module-level cutoff as a bool mask, the count per column, and
the column means recomputed without the outliers through np.where."""
import numpy as np

import unpython

Z_CUTOFF = 3.0


@unpython.gpu
@unpython.type('ndarray[float64, 2]', ('ndarray[int64, 1]', 'ndarray[float64, 1]'))
def zscore_outliers(x):
    z = (x - x.mean(axis=0, keepdims=True)) / x.std(axis=0, ddof=1, keepdims=True)
    outlier = np.abs(z) > Z_CUTOFF
    counts = outlier.sum(axis=0)
    kept = np.where(outlier, 0.0, x)
    clean_mean = kept.sum(axis=0) / (x.shape[0] - counts)
    return counts, clean_mean


def inputs(rng, scale=1):
    n = 400 * scale
    x = rng.standard_normal((n, 5))
    x[rng.random((n, 5)) < 0.01] *= 20.0
    return (x,)


LARGE = 12000
FUNCTION = "zscore_outliers"
