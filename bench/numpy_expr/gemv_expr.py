"""BLAS gemv with @: out = alpha * a @ x + beta * y."""
import unpython


@unpython.gpu
@unpython.type('float64', 'ndarray[float64, 2]', 'ndarray[float64, 1]', 'float64',
               'ndarray[float64, 1]', 'ndarray[float64, 1]', None)
def gemv(alpha, a, x, beta, y, out):
    out[:] = alpha * a @ x + beta * y
