"""g = (a @ b) @ (c @ d): three chained products in the dot-product order (PolyBench 3mm)."""
import numpy as np
import unpython
from unpython import prange


@unpython.gpu
@unpython.type('ndarray[float64, 2]', 'ndarray[float64, 2]', 'ndarray[float64, 2]',
               'ndarray[float64, 2]', 'ndarray[float64, 2]', None)
def three_mm(a, b, c, d, g):
    e = np.empty((a.shape[0], b.shape[1]))
    for i in prange(a.shape[0]):
        for j in range(b.shape[1]):
            s = 0.0
            for k in range(a.shape[1]):
                s += a[i, k] * b[k, j]
            e[i, j] = s
    f = np.empty((c.shape[0], d.shape[1]))
    for i in prange(c.shape[0]):
        for j in range(d.shape[1]):
            s = 0.0
            for k in range(c.shape[1]):
                s += c[i, k] * d[k, j]
            f[i, j] = s
    for i in prange(e.shape[0]):
        for j in range(f.shape[1]):
            s = 0.0
            for k in range(e.shape[1]):
                s += e[i, k] * f[k, j]
            g[i, j] = s
