"""A sparse matrix (CSR) times a vector: a prange over the rows, each row's extent unpacked from
indptr as a tuple, and the loop over its nonzeros."""
import numpy as np

import unpython
from unpython import prange


@unpython.gpu
@unpython.type('ndarray[int64, 1]', 'ndarray[int64, 1]', 'ndarray[float64, 1]',
               'ndarray[float64, 1]', 'ndarray[float64, 1]')
def csr_spmv(indptr, indices, data, x):
    n = indptr.shape[0] - 1
    y = np.zeros(n)
    for i in prange(n):
        start, end = indptr[i], indptr[i + 1]
        s = 0.0
        for k in range(start, end):
            s += data[k] * x[indices[k]]
        y[i] = s
    return y


def inputs(rng):
    n_rows, n_cols = 200, 150
    dense = rng.random((n_rows, n_cols)) * (rng.random((n_rows, n_cols)) < 0.05)
    rows, cols = np.nonzero(dense)
    indptr = np.zeros(n_rows + 1, np.int64)
    np.add.at(indptr, rows + 1, 1)
    return np.cumsum(indptr), cols.astype(np.int64), dense[rows, cols], rng.random(n_cols)


FUNCTION = "csr_spmv"
