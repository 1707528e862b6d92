"""PolyBench fdtd-2d (npbench): Yee-grid electric and magnetic field updates, a row assigned a
scalar and in-place slice updates, in a time loop."""
import numpy as np

import unpython


@unpython.gpu
@unpython.type('int64', 'ndarray[float64, 2]', 'ndarray[float64, 2]', 'ndarray[float64, 2]',
               'ndarray[float64, 1]', None)
def fdtd_2d(tmax, ex, ey, hz, fict):
    for t in range(tmax):
        ey[0, :] = fict[t]
        ey[1:, :] -= 0.5 * (hz[1:, :] - hz[:-1, :])
        ex[:, 1:] -= 0.5 * (hz[:, 1:] - hz[:, :-1])
        hz[:-1, :-1] -= 0.7 * (ex[:-1, 1:] - ex[:-1, :-1] + ey[1:, :-1] - ey[:-1, :-1])


def inputs(rng, scale=1):
    tmax, nx, ny = 8, 40 * scale, 50 * scale
    i, j = np.indices((nx, ny), np.float64)
    return (tmax, i * (j + 1) / nx, i * (j + 2) / ny, i * (j + 3) / nx,
            np.arange(tmax, dtype=np.float64))


LARGE = 62
FUNCTION = "fdtd_2d"
