"""A 2-D histogram of points on a regular grid, by cell indices computed with integer
division and clipping, flattened into one index, and counted with np.bincount(minlength=)."""
import numpy as np

import unpython


@unpython.gpu
@unpython.type('ndarray[float64, 1]', 'ndarray[float64, 1]', 'int64', 'ndarray[int64, 2]')
def hist2d_bincount(x, y, bins=16):
    ix = np.clip((x * bins).astype(np.int64), 0, bins - 1)
    iy = np.clip((y * bins).astype(np.int64), 0, bins - 1)
    flat = iy * bins + ix
    return np.bincount(flat, minlength=bins * bins).reshape(bins, bins)


def inputs(rng, scale=1):
    n = 1000 * scale
    return rng.beta(2.0, 3.0, n), rng.random(n), 16


LARGE = 30000
FUNCTION = "hist2d_bincount"
