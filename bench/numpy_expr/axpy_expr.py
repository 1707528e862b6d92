"""axpy-like fused expression: out = a * x + y * sqrt(x), one statement of array expressions."""
import numpy as np

import unpython


@unpython.gpu
@unpython.type('float64', 'ndarray[float64, 1]', 'ndarray[float64, 1]', 'ndarray[float64, 1]',
               None)
def axpy(a, x, y, out):
    out[:] = a * x + y * np.sqrt(x)
