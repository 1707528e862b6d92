"""Per-group statistics of data with missing values: a NaN mask, each group's selection as a
boolean AND, np.count_nonzero, mean and std(ddof=1) of the masked values, the fraction of
positive values as the mean of a boolean array, and the count of missing ones."""
import numpy as np

import unpython


@unpython.gpu
@unpython.type('ndarray[float64, 1]', 'ndarray[int64, 1]', 'int64',
               ('ndarray[float64, 1]', 'ndarray[float64, 1]', 'ndarray[int64, 1]', 'float64',
                'int64'))
def masked_group_stats(values, labels, n_groups):
    valid = ~np.isnan(values)
    means = np.empty(n_groups)
    stds = np.empty(n_groups)
    counts = np.empty(n_groups, dtype=np.int64)
    for g in range(n_groups):
        sel = (labels == g) & valid
        counts[g] = np.count_nonzero(sel)
        v = values[sel]
        means[g] = v.mean()
        stds[g] = v.std(ddof=1)
    frac_positive = np.mean(values[valid] > 0)
    n_missing = np.sum(~valid)
    return means, stds, counts, frac_positive, n_missing


def inputs(rng, scale=1):
    n = 3000 * scale
    values = rng.normal(0.3, 1.0, n)
    values[rng.random(n) < 0.1] = np.nan
    return values, rng.integers(0, 6, n), 6


LARGE = 3000
FUNCTION = "masked_group_stats"
