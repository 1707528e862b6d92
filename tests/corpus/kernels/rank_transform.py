"""Ranks of each column (a Spearman correlation's first step) by a double np.argsort, then the
Spearman correlation of the first column with each other one by the d^2 formula; integer
ranks converted with astype(np.float64)."""
import numpy as np

import unpython


@unpython.gpu
@unpython.type('ndarray[float64, 2]', 'ndarray[float64, 1]')
def spearman_first_column(data):
    n, m = data.shape
    ranks = np.empty((n, m), dtype=np.int64)
    for j in range(m):
        order = np.argsort(data[:, j])
        ranks[order, j] = np.arange(n)
    r = ranks.astype(np.float64)
    rho = np.empty(m - 1)
    for j in range(1, m):
        d = r[:, 0] - r[:, j]
        rho[j - 1] = 1.0 - 6.0 * np.sum(d * d) / (n * (n * n - 1.0))
    return rho


def inputs(rng, scale=1):
    x = rng.standard_normal((120 * scale, 5))
    x[:, 2] = x[:, 0] ** 3 + 0.1 * x[:, 2]
    return (x,)


LARGE = 850
FUNCTION = "spearman_first_column"
