"""A direct-form FIR filter: each output sample the dot product of the taps with the window of
input samples ending at it, read backwards with a [::-1] slice; the first len(taps) - 1 samples
use the zero-padded start."""
import numpy as np

import unpython


@unpython.gpu
@unpython.type('ndarray[float64, 1]', 'ndarray[float64, 1]', 'ndarray[float64, 1]')
def fir_filter(x, taps):
    n = len(x)
    m = len(taps)
    padded = np.concatenate((np.zeros(m - 1), x))
    y = np.empty(n)
    for i in range(n):
        y[i] = np.dot(taps, padded[i:i + m][::-1])
    return y


def inputs(rng, scale=1):
    return rng.standard_normal(500 * scale), np.hanning(15) / np.hanning(15).sum()


LARGE = 380
FUNCTION = "fir_filter"
