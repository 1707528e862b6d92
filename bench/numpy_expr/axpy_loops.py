"""axpy-like fused expression as a prange loop (the same computation as axpy_expr.py)."""
import numpy as np

import unpython
from unpython import prange


@unpython.gpu
@unpython.type('float64', 'ndarray[float64, 1]', 'ndarray[float64, 1]', 'ndarray[float64, 1]',
               None)
def axpy(a, x, y, out):
    for i in prange(x.shape[0]):
        out[i] = a * x[i] + y[i] * np.sqrt(x[i])
