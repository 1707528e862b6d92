"""Row-wise softmax as a prange over rows (the same computation as softmax_expr.py)."""
import numpy as np

import unpython
from unpython import prange


@unpython.gpu
@unpython.type('ndarray[float64, 2]', 'ndarray[float64, 2]', None)
def softmax(a, out):
    n = a.shape[0]
    m = a.shape[1]
    for i in prange(n):
        mx = a[i, 0]
        for j in range(1, m):
            mx = max(mx, a[i, j])
        s = 0.0
        for j in range(m):
            v = np.exp(a[i, j] - mx)
            out[i, j] = v
            s += v
        for j in range(m):
            out[i, j] = out[i, j] / s
