"""Edge strength of an image the quick NumPy way: np.gradient's central differences (one-sided
at the borders) along both axes, given as a tuple and unpacked, with a grid spacing; the
magnitude by np.hypot and the direction by np.arctan2."""
import numpy as np

import unpython


@unpython.gpu
@unpython.type('ndarray[float64, 2]', 'float64',
               ('ndarray[float64, 2]', 'ndarray[float64, 2]'))
def gradient_magnitude(img, spacing):
    gy, gx = np.gradient(img, spacing)
    return np.hypot(gx, gy), np.arctan2(gy, gx)


def inputs(rng, scale=1):
    y, x = np.mgrid[0:60 * scale, 0:80 * scale]
    return np.sin(x / 7.0) * np.cos(y / 5.0) + 0.05 * rng.random(x.shape), 0.5


LARGE = 30
FUNCTION = "gradient_magnitude"
