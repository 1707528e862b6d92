"""Tensor contractions without einsum, as np.tensordot's docs show them: a 3-D tensor times a
matrix over its last axis (axes=1), then over its middle axis with a vector (axes as a pair
of lists)."""
import numpy as np

import unpython


@unpython.gpu
@unpython.type('ndarray[float64, 3]', 'ndarray[float64, 2]', 'ndarray[float64, 1]',
               'ndarray[float64, 2]')
def tensor_contract(T, W, v):
    TW = np.tensordot(T, W, axes=1)                 # (I, J, L)
    return np.tensordot(TW, v, axes=([1], [0]))     # (I, L)


def inputs(rng, scale=1):
    i, j, k, l = 10 * scale, 12, 14, 9
    return rng.random((i, j, k)), rng.random((k, l)), rng.random(j)


LARGE = 400
FUNCTION = "tensor_contract"
