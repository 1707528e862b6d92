"""g = (a @ b) @ (c @ d) (PolyBench 3mm)."""
import unpython


@unpython.gpu
@unpython.type('ndarray[float64, 2]', 'ndarray[float64, 2]', 'ndarray[float64, 2]',
               'ndarray[float64, 2]', 'ndarray[float64, 2]', None)
def three_mm(a, b, c, d, g):
    g[:] = (a @ b) @ (c @ d)
