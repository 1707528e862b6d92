"""Modified Gram-Schmidt orthonormalisation of the columns (npbench's gramschmidt without R):
column slices, np.linalg.norm, np.dot of two columns, in-place column updates."""
import numpy as np

import unpython


@unpython.gpu
@unpython.type('ndarray[float64, 2]', 'ndarray[float64, 2]')
def gram_schmidt(a):
    n = a.shape[1]
    q = np.zeros_like(a)
    v = a.copy()
    for k in range(n):
        q[:, k] = v[:, k] / np.linalg.norm(v[:, k])
        for j in range(k + 1, n):
            v[:, j] -= np.dot(q[:, k], v[:, j]) * q[:, k]
    return q


def inputs(rng, scale=1):
    return (rng.random((30 * scale, 12 * scale)),)


LARGE = 23
FUNCTION = "gram_schmidt"
