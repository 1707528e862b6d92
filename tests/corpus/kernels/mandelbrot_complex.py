"""Mandelbrot escape counts with a complex grid, as the textbooks write it: c from broadcasting
real and imaginary axes with 1j, np.abs of complex arrays, np.where freezing escaped points."""
import numpy as np

import unpython


@unpython.gpu
@unpython.type('ndarray[float64, 1]', 'ndarray[float64, 1]', 'int64', 'ndarray[int64, 2]')
def mandelbrot_complex(xs, ys, maxiter):
    c = xs[None, :] + 1j * ys[:, None]
    z = np.zeros_like(c)
    counts = np.zeros(c.shape, np.int64)
    for k in range(maxiter):
        inside = np.abs(z) <= 2.0
        counts[inside] += 1
        z = np.where(inside, z * z + c, z)
    return counts


def inputs(rng, scale=1):
    return np.linspace(-2.0, 0.6, 80 * scale), np.linspace(-1.2, 1.2, 60 * scale), 20


LARGE = 13
FUNCTION = "mandelbrot_complex"
