"""Min-max scaling of a vector to [0, 1] with the min and max methods."""
import numpy as np

import unpython


@unpython.gpu
@unpython.type('ndarray[float64, 1]', 'ndarray[float64, 1]')
def minmax_scale(x):
    lo = x.min()
    return (x - lo) / (x.max() - lo)


def inputs(rng, scale=1):
    return (rng.standard_normal(3000 * scale) * 4.0 + 2.0,)


LARGE = 9400
FUNCTION = "minmax_scale"
