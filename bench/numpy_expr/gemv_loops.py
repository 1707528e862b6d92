"""BLAS gemv as a prange over rows (the same computation as gemv_expr.py)."""
import unpython
from unpython import prange


@unpython.gpu
@unpython.type('float64', 'ndarray[float64, 2]', 'ndarray[float64, 1]', 'float64',
               'ndarray[float64, 1]', 'ndarray[float64, 1]', None)
def gemv(alpha, a, x, beta, y, out):
    m = a.shape[0]
    n = a.shape[1]
    for i in prange(m):
        s = 0.0
        for j in range(n):
            s += alpha * a[i, j] * x[j]
        out[i] = s + beta * y[i]
