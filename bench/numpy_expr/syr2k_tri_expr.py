"""The lower triangle of c = beta * c + alpha * (a @ b.T + b @ a.T) (BLAS syr2k); the upper
one kept."""
import numpy as np
import unpython


@unpython.gpu
@unpython.type('float64', 'ndarray[float64, 2]', 'ndarray[float64, 2]', 'float64',
               'ndarray[float64, 2]', None)
def syr2k_tri(alpha, a, b, beta, c):
    lower = np.tril(np.ones(c.shape)) > 0
    c[:] = np.where(lower, beta * c + alpha * (a @ b.T + b @ a.T), c)
