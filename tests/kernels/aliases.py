"""Type aliases (issue 6 item 5): type strings named once at module level, as a module of many
kernels writes its signatures. Reference: the interpreter (tests/differential/test_aliases.py)."""
import numpy as np
import unpython
from unpython import prange

T = 'float32'
F2 = 'ndarray[float64, 2]'
F1 = 'ndarray[float64, 1]'
S2 = 'ndarray[' + T + ', 2]'
ACC = T


@unpython.type(F2, F2, F2, None)
def matmul(a, b, c):
    for i in prange(a.shape[0]):
        for j in prange(b.shape[1]):
            s = 0.0
            for k in range(a.shape[1]):
                s += a[i, k] * b[k, j]
            c[i, j] = s


@unpython.locals(s=ACC)
@unpython.type(S2, 'ndarray[' + T + ', 1]', None)
def row_sums(a, out):
    for i in prange(a.shape[0]):
        s = np.float32(0)
        for j in range(a.shape[1]):
            s += a[i, j]
        out[i] = s
