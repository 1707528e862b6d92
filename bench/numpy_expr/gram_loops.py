"""g = x.T @ x, the Gram matrix of the columns of x, written as one sum per element (columns
read down the rows)."""
import unpython
from unpython import prange


@unpython.gpu
@unpython.type('ndarray[float64, 2]', 'ndarray[float64, 2]', None)
def gram(x, g):
    for i in prange(x.shape[1]):
        for j in range(x.shape[1]):
            s = 0.0
            for k in range(x.shape[0]):
                s += x[k, i] * x[k, j]
            g[i, j] = s
