"""PolyBench gemver (npbench's NumPy version): a rank-2 update of A by np.outer, then a
transposed matrix-vector product written as y @ A and a plain one, all in place."""
import numpy as np

import unpython


@unpython.gpu
@unpython.type('float64', 'float64', 'ndarray[float64, 2]', 'ndarray[float64, 1]',
               'ndarray[float64, 1]', 'ndarray[float64, 1]', 'ndarray[float64, 1]',
               'ndarray[float64, 1]', 'ndarray[float64, 1]', 'ndarray[float64, 1]',
               'ndarray[float64, 1]', None)
def gemver(alpha, beta, A, u1, v1, u2, v2, w, x, y, z):
    A += np.outer(u1, v1) + np.outer(u2, v2)
    x += beta * y @ A + z
    w += alpha * A @ x


def inputs(rng, scale=1):
    n = 120 * scale
    fn = float(n)
    i = np.arange(n, dtype=np.float64)
    A = np.fromfunction(lambda r, c: (r * c % n) / n, (n, n), dtype=np.float64)
    return (1.5, 1.2, A, i, ((i + 1) / fn) / 2.0, ((i + 1) / fn) / 4.0,
            ((i + 1) / fn) / 6.0, np.zeros(n), np.zeros(n), ((i + 1) / fn) / 8.0,
            ((i + 1) / fn) / 9.0)


LARGE = 40
FUNCTION = "gemver"
