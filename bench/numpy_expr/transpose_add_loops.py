"""b = a + a.T, element by element."""
import unpython
from unpython import prange


@unpython.gpu
@unpython.type('ndarray[float64, 2]', 'ndarray[float64, 2]', None)
def transpose_add(a, b):
    for i in prange(a.shape[0]):
        for j in range(a.shape[1]):
            b[i, j] = a[i, j] + a[j, i]
