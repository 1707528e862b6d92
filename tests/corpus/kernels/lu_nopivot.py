"""LU decomposition without pivoting (Doolittle), in place, with row and column slices and an
outer-product update of the trailing block; returns L (unit lower) and U by np.tril/np.triu."""
import numpy as np

import unpython


@unpython.gpu
@unpython.type('ndarray[float64, 2]', ('ndarray[float64, 2]', 'ndarray[float64, 2]'))
def lu_nopivot(a):
    n = a.shape[0]
    lu = a.copy()
    for k in range(n - 1):
        lu[k + 1:, k] /= lu[k, k]
        lu[k + 1:, k + 1:] -= np.outer(lu[k + 1:, k], lu[k, k + 1:])
    lower = np.tril(lu, -1) + np.eye(n)
    upper = np.triu(lu)
    return lower, upper


def inputs(rng, scale=1):
    n = 24 * scale
    return (rng.random((n, n)) + n * np.eye(n),)


LARGE = 28
FUNCTION = "lu_nopivot"
