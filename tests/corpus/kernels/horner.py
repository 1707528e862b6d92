"""A polynomial evaluated at every point of an array by Horner's rule, iterating over the
coefficient array with `for c in coeffs`."""
import numpy as np

import unpython


@unpython.gpu
@unpython.type('ndarray[float64, 1]', 'ndarray[float64, 1]', 'ndarray[float64, 1]')
def horner(coeffs, x):
    y = np.zeros_like(x)
    for c in coeffs:
        y = y * x + c
    return y


def inputs(rng, scale=1):
    return rng.standard_normal(8), np.linspace(-1.5, 1.5, 2500 * scale)


LARGE = 5900
FUNCTION = "horner"
