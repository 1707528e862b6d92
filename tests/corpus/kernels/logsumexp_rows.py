"""logsumexp of each row, one row per prange iteration with NumPy inside: a private scalar
maximum, np.exp of a row slice, np.sum, np.log."""
import numpy as np

import unpython
from unpython import prange


@unpython.gpu
@unpython.type('ndarray[float64, 2]', 'ndarray[float64, 1]', None)
def logsumexp_rows(x, out):
    for i in prange(x.shape[0]):
        m = np.max(x[i, :])
        out[i] = m + np.log(np.sum(np.exp(x[i, :] - m)))


def inputs(rng, scale=1):
    rows = 50 * scale
    return rng.standard_normal((rows, 120 * scale)) * 10.0, np.zeros(rows)


LARGE = 87
FUNCTION = "logsumexp_rows"
