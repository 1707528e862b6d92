"""d = (a @ b) @ c: two chained products in the dot-product order."""
import numpy as np
import unpython
from unpython import prange


@unpython.gpu
@unpython.type('ndarray[float64, 2]', 'ndarray[float64, 2]', 'ndarray[float64, 2]',
               'ndarray[float64, 2]', None)
def two_mm(a, b, c, d):
    tmp = np.empty((a.shape[0], b.shape[1]))
    for i in prange(a.shape[0]):
        for j in range(b.shape[1]):
            s = 0.0
            for k in range(a.shape[1]):
                s += a[i, k] * b[k, j]
            tmp[i, j] = s
    for i in prange(tmp.shape[0]):
        for j in range(c.shape[1]):
            s = 0.0
            for k in range(tmp.shape[1]):
                s += tmp[i, k] * c[k, j]
            d[i, j] = s
