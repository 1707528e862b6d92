"""Row sums: out = a.sum(axis=1)."""
import unpython


@unpython.gpu
@unpython.type('ndarray[float64, 2]', 'ndarray[float64, 1]', None)
def row_sums(a, out):
    out[:] = a.sum(axis=1)
