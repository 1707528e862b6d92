"""Column standardisation as prange loops (as standardise_expr.py): the column means and
standard deviations with a prange over columns, then a prange over rows."""
import numpy as np

import unpython
from unpython import prange


@unpython.gpu
@unpython.type('ndarray[float64, 2]', 'ndarray[float64, 2]', None)
def standardise(a, out):
    n = a.shape[0]
    m = a.shape[1]
    mu = np.zeros(m)
    sd = np.zeros(m)
    for j in prange(m):
        s = 0.0
        for i in range(n):
            s += a[i, j]
        mean = s / n
        v = 0.0
        for i in range(n):
            t = a[i, j] - mean
            v += t * t
        mu[j] = mean
        sd[j] = np.sqrt(v / n)
    for i in prange(n):
        for j in range(m):
            out[i, j] = (a[i, j] - mu[j]) / sd[j]
