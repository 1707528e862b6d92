"""The discrete Fourier transform as a matrix product, as a numerical-methods course writes it
before the FFT: the matrix of np.exp(-2j * pi * k * n / N) from an outer product of index
vectors, then `@` the signal."""
import numpy as np

import unpython


@unpython.gpu
@unpython.type('ndarray[float64, 1]', 'ndarray[complex128, 1]')
def dft_matrix(x):
    n = x.shape[0]
    k = np.arange(n)
    w = np.exp(-2j * np.pi * np.outer(k, k) / n)
    return w @ x


def inputs(rng, scale=1):
    return (rng.standard_normal(64 * scale),)


LARGE = 57
FUNCTION = "dft_matrix"
