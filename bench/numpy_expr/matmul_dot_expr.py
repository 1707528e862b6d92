"""c = a @ b."""
import unpython


@unpython.gpu
@unpython.type('ndarray[float64, 2]', 'ndarray[float64, 2]', 'ndarray[float64, 2]', None)
def matmul_dot(a, b, c):
    c[:] = a @ b
