"""Binned means of y against x (a profile plot): bin edges by np.linspace from the data's
range, each point's bin by np.digitize, sums and counts accumulated in a loop, empty bins
guarded with np.maximum."""
import numpy as np

import unpython


@unpython.gpu
@unpython.type('ndarray[float64, 1]', 'ndarray[float64, 1]', 'int64', 'ndarray[float64, 1]')
def binned_means(x, y, n_bins):
    edges = np.linspace(x.min(), x.max(), n_bins + 1)
    idx = np.digitize(x, edges) - 1
    idx[idx == n_bins] = n_bins - 1     # the maximum goes in the last bin
    sums = np.zeros(n_bins)
    counts = np.zeros(n_bins, dtype=np.int64)
    for k in range(x.shape[0]):
        sums[idx[k]] += y[k]
        counts[idx[k]] += 1
    return sums / np.maximum(counts, 1)


def inputs(rng, scale=1):
    n = 3000 * scale
    x = rng.normal(0.0, 1.0, n)
    return x, np.sin(x) + 0.1 * rng.standard_normal(n), 25


LARGE = 3000
FUNCTION = "binned_means"
