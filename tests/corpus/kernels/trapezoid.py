"""The trapezoidal rule for the integral of exp(-x^2) over [lo, hi] on np.linspace nodes."""
import numpy as np

import unpython


@unpython.gpu
@unpython.type('float64', 'float64', 'int64', 'float64')
def trapezoid(lo, hi, n):
    x = np.linspace(lo, hi, n)
    y = np.exp(-x ** 2)
    h = x[1] - x[0]
    return h * (np.sum(y) - 0.5 * (y[0] + y[-1]))


def inputs(rng, scale=1):
    return -2.0, 3.0, 1000 * scale + 1


LARGE = 31000
FUNCTION = "trapezoid"
