"""PolyBench jacobi-2d as prange loops (the same computation as jacobi_expr.py)."""
import unpython
from unpython import prange


@unpython.gpu
@unpython.type('int64', 'ndarray[float64, 2]', 'ndarray[float64, 2]', None)
def jacobi(steps, a, b):
    n = a.shape[0]
    m = a.shape[1]
    for t in range(steps):
        for i in prange(1, n - 1):
            for j in range(1, m - 1):
                b[i, j] = 0.2 * (a[i, j] + a[i, j - 1] + a[i, j + 1] + a[i + 1, j]
                                 + a[i - 1, j])
        for i in prange(1, n - 1):
            for j in range(1, m - 1):
                a[i, j] = 0.2 * (b[i, j] + b[i, j - 1] + b[i, j + 1] + b[i + 1, j]
                                 + b[i - 1, j])
