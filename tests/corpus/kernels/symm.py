"""PolyBench symm (npbench's NumPy version): C = alpha A B + beta C with A symmetric and only
its lower triangle read, column slices of C updated inside a double loop and a temporary row
filled element by element with dot products of slices."""
import numpy as np

import unpython


@unpython.gpu
@unpython.type('float64', 'float64', 'ndarray[float64, 2]', 'ndarray[float64, 2]',
               'ndarray[float64, 2]', None)
def symm(alpha, beta, C, A, B):
    temp2 = np.empty((C.shape[1], ), dtype=C.dtype)
    C *= beta
    for i in range(C.shape[0]):
        for j in range(C.shape[1]):
            C[:i, j] += alpha * B[i, j] * A[i, :i]
            temp2[j] = B[:i, j] @ A[i, :i]
        C[i, :] += alpha * B[i, :] * A[i, i] + alpha * temp2


def inputs(rng, scale=1):
    m, n = 30 * scale, 36 * scale
    return 1.5, 1.2, rng.random((m, n)), rng.random((m, m)), rng.random((m, n))


LARGE = 10
FUNCTION = "symm"
