"""PolyBench jacobi-2d as npbench writes it: 5-point stencils on interior slices, A -> B -> A."""
import numpy as np

import unpython


@unpython.gpu
@unpython.type('int64', 'ndarray[float64, 2]', 'ndarray[float64, 2]', None)
def jacobi_2d(tsteps, a, b):
    for t in range(1, tsteps):
        b[1:-1, 1:-1] = 0.2 * (a[1:-1, 1:-1] + a[1:-1, :-2] + a[1:-1, 2:] + a[2:, 1:-1]
                               + a[:-2, 1:-1])
        a[1:-1, 1:-1] = 0.2 * (b[1:-1, 1:-1] + b[1:-1, :-2] + b[1:-1, 2:] + b[2:, 1:-1]
                               + b[:-2, 1:-1])


def inputs(rng, scale=1):
    n = 60 * scale
    i, j = np.indices((n, n), np.float64)
    return 10, (i * (j + 2) + 2) / n, (i * (j + 3) + 3) / n


LARGE = 42
FUNCTION = "jacobi_2d"
