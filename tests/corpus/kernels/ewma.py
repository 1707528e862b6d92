"""The exponentially weighted moving average of several price series (rows) in float32, with
the smoothing factor from a span given as a default argument; a prange over the series."""
import numpy as np

import unpython
from unpython import prange


@unpython.gpu
@unpython.type('ndarray[float32, 2]', 'int64', 'ndarray[float32, 2]')
def ewma(prices, span=10):
    alpha = 2.0 / (span + 1.0)
    out = np.empty_like(prices)
    for s in prange(prices.shape[0]):
        acc = prices[s, 0]
        out[s, 0] = acc
        for t in range(1, prices.shape[1]):
            acc = alpha * prices[s, t] + (1.0 - alpha) * acc
            out[s, t] = acc
    return out


def inputs(rng, scale=1):
    series, steps = 12 * scale, 200 * scale
    return (100.0 + np.cumsum(rng.standard_normal((series, steps)), axis=1)).astype(np.float32), 12


LARGE = 150
FUNCTION = "ewma"
