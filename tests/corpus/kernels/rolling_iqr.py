"""A rolling interquartile range (a robust spread for outlier detection): for each window start
(a prange) np.percentile of the window slice at 25 and 75."""
import numpy as np

import unpython
from unpython import prange


@unpython.gpu
@unpython.type('ndarray[float64, 1]', 'int64', 'ndarray[float64, 1]')
def rolling_iqr(x, window):
    n = x.shape[0] - window + 1
    q1 = np.empty(n)
    q3 = np.empty(n)
    for i in prange(n):
        w = x[i:i + window]
        q1[i] = np.percentile(w, 25)
        q3[i] = np.percentile(w, 75)
    return q3 - q1


def inputs(rng, scale=1):
    n = 500 * scale
    return np.cumsum(rng.standard_normal(n)), 21


LARGE = 200
FUNCTION = "rolling_iqr"
