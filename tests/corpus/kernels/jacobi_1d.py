"""PolyBench jacobi-1d as npbench writes it: two 3-point stencils per time step, slices on both
sides of the assignment."""
import numpy as np

import unpython


@unpython.gpu
@unpython.type('int64', 'ndarray[float64, 1]', 'ndarray[float64, 1]', None)
def jacobi_1d(tsteps, a, b):
    for t in range(1, tsteps):
        b[1:-1] = 0.33333 * (a[:-2] + a[1:-1] + a[2:])
        a[1:-1] = 0.33333 * (b[:-2] + b[1:-1] + b[2:])


def inputs(rng, scale=1):
    n = 400 * scale
    return 20, rng.random(n), rng.random(n)


LARGE = 11000
FUNCTION = "jacobi_1d"
