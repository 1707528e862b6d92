"""d = (a @ b) @ c."""
import unpython


@unpython.gpu
@unpython.type('ndarray[float64, 2]', 'ndarray[float64, 2]', 'ndarray[float64, 2]',
               'ndarray[float64, 2]', None)
def two_mm(a, b, c, d):
    d[:] = (a @ b) @ c
