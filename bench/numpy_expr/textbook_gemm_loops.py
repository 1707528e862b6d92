"""c = alpha * a @ b + beta * c in the textbook order: the sum kept in the element itself."""
import unpython
from unpython import prange


@unpython.gpu
@unpython.type('float64', 'ndarray[float64, 2]', 'ndarray[float64, 2]', 'float64',
               'ndarray[float64, 2]', None)
def textbook_gemm(alpha, a, b, beta, c):
    for i in prange(a.shape[0]):
        for j in range(b.shape[1]):
            c[i, j] *= beta
            for k in range(a.shape[1]):
                c[i, j] += alpha * a[i, k] * b[k, j]
