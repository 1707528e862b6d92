"""Row sums as a prange over rows (the same computation as row_sums_expr.py)."""
import unpython
from unpython import prange


@unpython.gpu
@unpython.type('ndarray[float64, 2]', 'ndarray[float64, 1]', None)
def row_sums(a, out):
    n = a.shape[0]
    m = a.shape[1]
    for i in prange(n):
        s = 0.0
        for j in range(m):
            s += a[i, j]
        out[i] = s
