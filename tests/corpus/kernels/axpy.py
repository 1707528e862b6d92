"""BLAS saxpy in float32, in place: y += alpha * x."""
import numpy as np

import unpython


@unpython.gpu
@unpython.type('float32', 'ndarray[float32, 1]', 'ndarray[float32, 1]', None)
def axpy(alpha, x, y):
    y += alpha * x


def inputs(rng, scale=1):
    n = 5000 * scale
    return (np.float32(2.5), rng.random(n).astype(np.float32),
            rng.random(n).astype(np.float32))


LARGE = 30000
FUNCTION = "axpy"
