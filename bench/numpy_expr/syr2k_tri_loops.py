"""The lower triangle of c = beta * c + alpha * (a @ b.T + b @ a.T) (BLAS syr2k), in the
dot-product order."""
import unpython
from unpython import prange


@unpython.gpu
@unpython.type('float64', 'ndarray[float64, 2]', 'ndarray[float64, 2]', 'float64',
               'ndarray[float64, 2]', None)
def syr2k_tri(alpha, a, b, beta, c):
    for i in prange(c.shape[0]):
        for j in range(i + 1):
            s = 0.0
            for k in range(a.shape[1]):
                s += a[i, k] * b[j, k] + b[i, k] * a[j, k]
            c[i, j] = beta * c[i, j] + alpha * s
