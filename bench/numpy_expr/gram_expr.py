"""g = x.T @ x, the Gram matrix of the columns of x."""
import unpython


@unpython.gpu
@unpython.type('ndarray[float64, 2]', 'ndarray[float64, 2]', None)
def gram(x, g):
    g[:] = x.T @ x
