"""BLAS gemm as prange loops in i-k-j order (the same computation as gemm_expr.py)."""
import unpython
from unpython import prange


@unpython.gpu
@unpython.type('float64', 'ndarray[float64, 2]', 'ndarray[float64, 2]', 'float64',
               'ndarray[float64, 2]', None)
def gemm(alpha, a, b, beta, c):
    m = a.shape[0]
    p = a.shape[1]
    n = b.shape[1]
    for i in prange(m):
        for j in range(n):
            c[i, j] = beta * c[i, j]
        for k in range(p):
            aik = alpha * a[i, k]
            for j in range(n):
                c[i, j] += aik * b[k, j]
