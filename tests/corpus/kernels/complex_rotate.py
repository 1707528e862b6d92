"""Rotating complex samples by per-sample phases (a mixer, as in signal processing):
z * np.exp(1j * theta) on complex128 arrays."""
import numpy as np

import unpython


@unpython.gpu
@unpython.type('ndarray[complex128, 1]', 'ndarray[float64, 1]', 'ndarray[complex128, 1]')
def complex_rotate(z, theta):
    return z * np.exp(1j * theta)


def inputs(rng, scale=1):
    n = 2000 * scale
    return rng.standard_normal(n) + 1j * rng.standard_normal(n), rng.uniform(-np.pi, np.pi, n)


LARGE = 3700
FUNCTION = "complex_rotate"
