"""The covariance matrix of the columns of data, written out: column means, then one sum per
element of the (symmetric) result."""
import numpy as np
import unpython
from unpython import prange


@unpython.gpu
@unpython.type('ndarray[float64, 2]', 'ndarray[float64, 2]', None)
def covariance(data, cov):
    n, m = data.shape
    mean = np.zeros(m)
    for j in prange(m):
        s = 0.0
        for k in range(n):
            s += data[k, j]
        mean[j] = s / n
    for i in prange(m):
        for j in range(m):
            s = 0.0
            for k in range(n):
                s += (data[k, i] - mean[i]) * (data[k, j] - mean[j])
            cov[i, j] = s / (n - 1)
