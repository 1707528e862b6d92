"""PolyBench trmm (npbench's NumPy version): B = alpha A^T B with A unit lower triangular, each
element of B increased by a dot product of a column slice of A with a column slice of B."""
import numpy as np

import unpython


@unpython.gpu
@unpython.type('float64', 'ndarray[float64, 2]', 'ndarray[float64, 2]', None)
def trmm(alpha, A, B):
    for i in range(B.shape[0]):
        for j in range(B.shape[1]):
            B[i, j] += np.dot(A[i + 1:, i], B[i + 1:, j])
    B *= alpha


def inputs(rng, scale=1):
    m, n = 32 * scale, 40 * scale
    return 1.5, rng.random((m, m)), rng.random((m, n))


LARGE = 10
FUNCTION = "trmm"
