"""Euclidean distances between two point sets as prange loops (as pairwise_expr.py)."""
import numpy as np

import unpython
from unpython import prange


@unpython.gpu
@unpython.type('ndarray[float64, 2]', 'ndarray[float64, 2]', 'ndarray[float64, 2]', None)
def pairwise(x, y, out):
    n = x.shape[0]
    m = y.shape[0]
    d = x.shape[1]
    for i in prange(n):
        for j in range(m):
            s = 0.0
            for k in range(d):
                t = x[i, k] - y[j, k]
                s += t * t
            out[i, j] = np.sqrt(s)
