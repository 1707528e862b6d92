"""The hard-tanh activation, np.clip of a scaled and shifted array."""
import numpy as np

import unpython


@unpython.gpu
@unpython.type('ndarray[float64, 2]', 'ndarray[float64, 2]')
def hard_tanh(x):
    return np.clip(2.0 * x - 1.0, -1.0, 1.0)


def inputs(rng, scale=1):
    return (rng.random((50 * scale, 40 * scale)),)


LARGE = 170
FUNCTION = "hard_tanh"
