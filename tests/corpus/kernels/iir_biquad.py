"""A biquad IIR filter (direct form I) in float32, as audio code writes it: the coefficients
normalised by a0, the two previous inputs and outputs kept in scalars."""
import numpy as np

import unpython


@unpython.type('ndarray[float32, 1]', 'ndarray[float32, 1]', 'ndarray[float32, 1]',
               'ndarray[float32, 1]')
@unpython.gpu
def iir_biquad(x, b, a):
    b0, b1, b2 = b[0] / a[0], b[1] / a[0], b[2] / a[0]
    a1, a2 = a[1] / a[0], a[2] / a[0]
    y = np.zeros_like(x)
    x1 = x2 = y1 = y2 = np.float32(0.0)
    for n in range(x.shape[0]):
        xn = x[n]
        yn = b0 * xn + b1 * x1 + b2 * x2 - a1 * y1 - a2 * y2
        x2, x1 = x1, xn
        y2, y1 = y1, yn
        y[n] = yn
    return y


def inputs(rng, scale=1):
    x = rng.standard_normal(800 * scale).astype(np.float32)
    b = np.array([0.0675, 0.1349, 0.0675], np.float32)
    a = np.array([1.0, -1.1430, 0.4128], np.float32)
    return x, b, a


LARGE = 48000
FUNCTION = "iir_biquad"
