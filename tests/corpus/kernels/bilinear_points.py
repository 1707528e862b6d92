"""Bilinear interpolation of a gridded field at scattered points: the cell corners by np.floor
and astype, clipped to the grid, the fractional offsets, and the four corner values gathered by
pairs of index arrays (grid[y0, x0 + 1])."""
import numpy as np

import unpython


@unpython.gpu
@unpython.type('ndarray[float64, 2]', 'ndarray[float64, 1]', 'ndarray[float64, 1]',
               'ndarray[float64, 1]')
def bilinear_at(grid, xs, ys):
    x0 = np.clip(np.floor(xs).astype(np.int64), 0, grid.shape[1] - 2)
    y0 = np.clip(np.floor(ys).astype(np.int64), 0, grid.shape[0] - 2)
    fx = xs - x0
    fy = ys - y0
    return (grid[y0, x0] * (1 - fx) * (1 - fy) + grid[y0, x0 + 1] * fx * (1 - fy)
            + grid[y0 + 1, x0] * (1 - fx) * fy + grid[y0 + 1, x0 + 1] * fx * fy)


def inputs(rng, scale=1):
    h, w, n = 50 * scale, 70 * scale, 3000 * scale
    return rng.random((h, w)), rng.uniform(0, w - 1, n), rng.uniform(0, h - 1, n)


LARGE = 30
FUNCTION = "bilinear_at"
