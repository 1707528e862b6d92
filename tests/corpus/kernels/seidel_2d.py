"""PolyBench seidel-2d (npbench's NumPy version): a Gauss-Seidel 9-point stencil, each row's
sum of the three rows around it taken as slices, then a sequential sweep along the row that
adds the new left neighbour and divides by 9."""
import numpy as np

import unpython


@unpython.gpu
@unpython.type('int64', 'int64', 'ndarray[float64, 2]', None)
def seidel_2d(TSTEPS, N, A):
    for t in range(0, TSTEPS - 1):
        for i in range(1, N - 1):
            A[i, 1:-1] += (A[i - 1, :-2] + A[i - 1, 1:-1] + A[i - 1, 2:] + A[i, 2:] +
                           A[i + 1, :-2] + A[i + 1, 1:-1] + A[i + 1, 2:])
            for j in range(1, N - 1):
                A[i, j] += A[i, j - 1]
                A[i, j] /= 9.0


def inputs(rng, scale=1):
    n = 40 * scale
    i, j = np.indices((n, n), dtype=np.float64)
    return 5, n, (i * (j + 2) + 2) / n


LARGE = 12
FUNCTION = "seidel_2d"
