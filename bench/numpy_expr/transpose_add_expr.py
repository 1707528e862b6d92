"""b = a + a.T."""
import unpython


@unpython.gpu
@unpython.type('ndarray[float64, 2]', 'ndarray[float64, 2]', None)
def transpose_add(a, b):
    b[:] = a + a.T
