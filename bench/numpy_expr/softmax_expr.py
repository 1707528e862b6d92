"""Row-wise softmax, stabilised by the row maximum (keepdims=True broadcasts it back)."""
import numpy as np

import unpython


@unpython.gpu
@unpython.type('ndarray[float64, 2]', 'ndarray[float64, 2]', None)
def softmax(a, out):
    e = np.exp(a - a.max(axis=1, keepdims=True))
    out[:] = e / e.sum(axis=1, keepdims=True)
