"""c = alpha * a @ b + beta * c, in place."""
import unpython


@unpython.gpu
@unpython.type('float64', 'ndarray[float64, 2]', 'ndarray[float64, 2]', 'float64',
               'ndarray[float64, 2]', None)
def textbook_gemm(alpha, a, b, beta, c):
    c[:] = alpha * a @ b + beta * c
