"""Azimuthal integration, the naive way (npbench's azimint_naive, from pyFAI's tutorial): for each
radial bin a boolean mask by np.logical_and of two comparisons, the masked values' mean."""
import numpy as np

import unpython


@unpython.gpu
@unpython.type('ndarray[float64, 1]', 'ndarray[float64, 1]', 'int64', 'ndarray[float64, 1]')
def azimint_naive(data, radius, npt):
    rmax = radius.max()
    res = np.zeros(npt, dtype=np.float64)
    for i in range(npt):
        r1 = rmax * i / npt
        r2 = rmax * (i + 1) / npt
        mask_r12 = np.logical_and((r1 <= radius), (radius < r2))
        values_r12 = data[mask_r12]
        res[i] = values_r12.mean()
    return res


def inputs(rng, scale=1):
    n = 4000 * scale
    return rng.random(n), rng.random(n), 24


LARGE = 250
FUNCTION = "azimint_naive"
