"""The Julia set of z^2 + c on a grid, vectorised with masks as NumPy tutorials write it: a
complex grid from two linspaces, the points still bounded updated through z[mask], their
iteration counts incremented through counts[mask]."""
import numpy as np

import unpython


@unpython.gpu
@unpython.type('complex128', 'int64', 'int64', 'int64', 'ndarray[int64, 2]')
def julia_set(c, width, height, max_iter=40):
    x = np.linspace(-1.6, 1.6, width)
    y = np.linspace(-1.0, 1.0, height)
    z = x[None, :] + 1j * y[:, None]
    counts = np.zeros((height, width), dtype=np.int64)
    for _ in range(max_iter):
        mask = np.abs(z) <= 2.0
        z[mask] = z[mask] ** 2 + c
        counts[mask] += 1
    return counts


def inputs(rng, scale=1):
    return complex(-0.8, 0.156), 60 * scale, 40 * scale, 40


LARGE = 11
FUNCTION = "julia_set"
