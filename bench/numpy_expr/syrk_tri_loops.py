"""The lower triangle of c = beta * c + alpha * a @ a.T (BLAS syrk), in the dot-product order."""
import unpython
from unpython import prange


@unpython.gpu
@unpython.type('float64', 'ndarray[float64, 2]', 'float64', 'ndarray[float64, 2]', None)
def syrk_tri(alpha, a, beta, c):
    for i in prange(c.shape[0]):
        for j in range(i + 1):
            s = 0.0
            for k in range(a.shape[1]):
                s += a[i, k] * a[j, k]
            c[i, j] = beta * c[i, j] + alpha * s
