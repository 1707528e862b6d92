"""Mandelbrot escape counts with whole-array operations on real and imaginary parts: the grid
built by broadcasting in augmented assignments, a boolean mask, np.where freezing escaped
points, counts[mask] += 1."""
import numpy as np

import unpython


@unpython.gpu
@unpython.type('ndarray[float64, 1]', 'ndarray[float64, 1]', 'int64', 'ndarray[int64, 2]')
def mandelbrot(xs, ys, maxiter):
    cr = np.zeros((ys.shape[0], xs.shape[0]))
    cr += xs
    ci = np.zeros_like(cr)
    ci += ys[:, None]
    zr = np.zeros_like(cr)
    zi = np.zeros_like(cr)
    counts = np.zeros(cr.shape, np.int64)
    for k in range(maxiter):
        inside = zr * zr + zi * zi <= 4.0
        counts[inside] += 1
        zr_next = np.where(inside, zr * zr - zi * zi + cr, zr)
        zi = np.where(inside, 2.0 * zr * zi + ci, zi)
        zr = zr_next
    return counts


def inputs(rng, scale=1):
    return np.linspace(-2.0, 0.6, 80 * scale), np.linspace(-1.2, 1.2, 60 * scale), 20


LARGE = 17
FUNCTION = "mandelbrot"
