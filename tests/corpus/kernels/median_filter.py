"""A running median filter of odd width (for spike removal): each output the middle element of
the np.sort of its window, the ends padded by repeating the edge samples with np.concatenate
and np.full."""
import numpy as np

import unpython


@unpython.gpu
@unpython.type('ndarray[float64, 1]', 'int64', 'ndarray[float64, 1]')
def median_filter(x, width=5):
    half = width // 2
    padded = np.concatenate((np.full(half, x[0]), x, np.full(half, x[-1])))
    out = np.empty_like(x)
    for i in range(x.shape[0]):
        window = np.sort(padded[i:i + width])
        out[i] = window[half]
    return out


def inputs(rng, scale=1):
    n = 300 * scale
    x = np.sin(np.linspace(0.0, 6.0, n))
    spikes = rng.random(n) < 0.05
    x[spikes] += 5.0
    return x, 7


LARGE = 2600
FUNCTION = "median_filter"
