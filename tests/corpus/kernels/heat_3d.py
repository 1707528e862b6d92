"""PolyBench heat-3d in float32 (npbench's NumPy version): a 7-point stencil of 3-D slices, the
weak Python literals keeping every intermediate float32 (NEP 50)."""
import numpy as np

import unpython


@unpython.gpu
@unpython.type('int64', 'ndarray[float32, 3]', 'ndarray[float32, 3]', None)
def heat_3d(tsteps, a, b):
    for t in range(1, tsteps):
        b[1:-1, 1:-1, 1:-1] = (
            0.125 * (a[2:, 1:-1, 1:-1] - 2.0 * a[1:-1, 1:-1, 1:-1] + a[:-2, 1:-1, 1:-1])
            + 0.125 * (a[1:-1, 2:, 1:-1] - 2.0 * a[1:-1, 1:-1, 1:-1] + a[1:-1, :-2, 1:-1])
            + 0.125 * (a[1:-1, 1:-1, 2:] - 2.0 * a[1:-1, 1:-1, 1:-1] + a[1:-1, 1:-1, :-2])
            + a[1:-1, 1:-1, 1:-1])
        a[1:-1, 1:-1, 1:-1] = (
            0.125 * (b[2:, 1:-1, 1:-1] - 2.0 * b[1:-1, 1:-1, 1:-1] + b[:-2, 1:-1, 1:-1])
            + 0.125 * (b[1:-1, 2:, 1:-1] - 2.0 * b[1:-1, 1:-1, 1:-1] + b[1:-1, :-2, 1:-1])
            + 0.125 * (b[1:-1, 1:-1, 2:] - 2.0 * b[1:-1, 1:-1, 1:-1] + b[1:-1, 1:-1, :-2])
            + b[1:-1, 1:-1, 1:-1])


def inputs(rng, scale=1):
    n = 20 * scale
    i, j, k = np.indices((n, n, n), np.float32)
    a = (i + j + (n - k)) * np.float32(10.0 / n)
    return 10, a, a.copy()


LARGE = 13
FUNCTION = "heat_3d"
