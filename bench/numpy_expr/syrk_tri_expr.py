"""The lower triangle of c = beta * c + alpha * a @ a.T (BLAS syrk); the upper one kept."""
import numpy as np
import unpython


@unpython.gpu
@unpython.type('float64', 'ndarray[float64, 2]', 'float64', 'ndarray[float64, 2]', None)
def syrk_tri(alpha, a, beta, c):
    lower = np.tril(np.ones(c.shape)) > 0
    c[:] = np.where(lower, beta * c + alpha * (a @ a.T), c)
