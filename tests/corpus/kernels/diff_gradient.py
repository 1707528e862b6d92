"""Numerical derivatives of a sampled function: central differences inside by np.diff and
slices, one-sided at the ends, then the trapezoid integral of the derivative by np.cumsum back
to the function, for a round trip."""
import numpy as np

import unpython


@unpython.gpu
@unpython.type('ndarray[float64, 1]', 'float64', ('ndarray[float64, 1]', 'ndarray[float64, 1]'))
def gradient_roundtrip(f, h):
    g = np.empty_like(f)
    g[1:-1] = (f[2:] - f[:-2]) / (2 * h)
    g[0] = (f[1] - f[0]) / h
    g[-1] = (f[-1] - f[-2]) / h
    steps = np.diff(f) / h
    back = np.empty_like(f)
    back[0] = f[0]
    back[1:] = f[0] + np.cumsum(0.5 * (g[1:] + g[:-1]) * h)
    return g, back - f + 0.0 * steps.mean()


def inputs(rng, scale=1):
    x = np.linspace(0.0, 3.0, 400 * scale)
    return np.sin(x) * np.exp(-0.3 * x), x[1] - x[0]


LARGE = 34000
FUNCTION = "gradient_roundtrip"
