"""A sparse matrix in COO form (row, column, value triplets, as scipy.sparse.coo_matrix holds
it) times a vector: a prange over the nonzeros scattering into y with +=."""
import numpy as np

import unpython
from unpython import prange


@unpython.gpu
@unpython.type('ndarray[int64, 1]', 'ndarray[int64, 1]', 'ndarray[float64, 1]',
               'ndarray[float64, 1]', 'int64', 'ndarray[float64, 1]')
def coo_spmv(row, col, val, x, n_rows):
    y = np.zeros(n_rows)
    for k in prange(val.shape[0]):
        y[row[k]] += val[k] * x[col[k]]
    return y


def inputs(rng, scale=1):
    n_rows, n_cols = 300 * scale, 200 * scale
    nnz = 3000 * scale
    return (rng.integers(0, n_rows, nnz), rng.integers(0, n_cols, nnz), rng.random(nnz),
            rng.random(n_cols), n_rows)


LARGE = 3000
FUNCTION = "coo_spmv"
