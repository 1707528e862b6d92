"""A 'valid' 1-D convolution (np.convolve(x, w, 'valid')) as a loop over the taps, each adding a
shifted slice of the signal."""
import numpy as np

import unpython


@unpython.gpu
@unpython.type('ndarray[float64, 1]', 'ndarray[float64, 1]', 'ndarray[float64, 1]')
def conv1d(x, w):
    n = x.shape[0]
    k = w.shape[0]
    out = np.zeros(n - k + 1)
    for j in range(k):
        out += w[k - 1 - j] * x[j:j + n - k + 1]
    return out


def inputs(rng, scale=1):
    return rng.standard_normal(3000 * scale), rng.standard_normal(9)


LARGE = 6200
FUNCTION = "conv1d"
