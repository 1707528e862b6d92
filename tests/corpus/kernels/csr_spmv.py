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


def inputs(rng, scale=1):
    n_rows, n_cols = 200 * scale, 150 * scale
    if scale == 1:
        dense = rng.random((n_rows, n_cols)) * (rng.random((n_rows, n_cols)) < 0.05)
        rows, cols = np.nonzero(dense)
        values = dense[rows, cols]
    else:   # the same density, drawn sparse: the dense matrix would not fit
        flat = np.sort(rng.integers(0, n_rows * n_cols, rng.binomial(n_rows * n_cols, 0.05)))
        flat = flat[np.concatenate(([True], flat[1:] != flat[:-1]))]    # each entry once
        rows, cols = np.divmod(flat, n_cols)
        values = rng.random(flat.shape[0])
    indptr = np.zeros(n_rows + 1, np.int64)
    indptr[1:] = np.bincount(rows, minlength=n_rows)
    return np.cumsum(indptr), cols.astype(np.int64), values, rng.random(n_cols)


LARGE = 150
FUNCTION = "csr_spmv"
