"""Clipping in place with boolean masks, as in a[a < 0] = 0."""
import numpy as np

import unpython


@unpython.gpu
@unpython.type('ndarray[float64, 2]', 'float64', 'float64', None)
def mask_clip(a, lo, hi):
    a[a < lo] = lo
    a[a > hi] = hi


def inputs(rng, scale=1):
    return rng.standard_normal((60 * scale, 70 * scale)), -0.5, 1.0


LARGE = 170
FUNCTION = "mask_clip"
