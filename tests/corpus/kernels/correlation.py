"""PolyBench correlation (npbench): column means and standard deviations, near-constant columns
guarded by a boolean mask, the correlation matrix as d.T @ d with a unit diagonal."""
import numpy as np

import unpython


@unpython.gpu
@unpython.type('ndarray[float64, 2]', 'ndarray[float64, 2]')
def correlation(data):
    n = data.shape[0]
    mean = np.mean(data, axis=0)
    stddev = np.std(data, axis=0)
    stddev[stddev <= 0.1] = 1.0
    d = (data - mean) / (np.sqrt(n) * stddev)
    corr = d.T @ d
    for i in range(corr.shape[0]):
        corr[i, i] = 1.0
    return corr


def inputs(rng, scale=1):
    data = rng.random((60 * scale, 25 * scale))
    data[:, 3] = 0.5 + 0.01 * data[:, 3]      # a near-constant column: std below the cut
    return (data,)


LARGE = 50
FUNCTION = "correlation"
