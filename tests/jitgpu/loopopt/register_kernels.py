"""@gpu kernels for the register_tiles tests (tests/jitgpu/loopopt/test_register_tiles.py)
beside tile_kernels.py's: an f64 product, a product whose operands the copies of only one level
share, and a triangular nest whose body can raise (refused)."""
import numpy as np
import unpython
from unpython import prange


@unpython.gpu
@unpython.type('ndarray[float64,2]', 'ndarray[float64,2]', 'ndarray[float64,2]', None)
def matmul_t_f64(a, b, c):
    # c = a.T @ b, both operands read along their rows' stride.
    for i in prange(c.shape[0]):
        for j in prange(c.shape[1]):
            s = 0.0
            for k in range(a.shape[0]):
                s += a[k, i] * b[k, j]
            c[i, j] = s


@unpython.gpu
@unpython.type('ndarray[float32,2]', 'ndarray[float32,1]', 'ndarray[float32,2]', None)
def row_scaled(a, w, c):
    # Only j's copies share loads (a[i, k], w[i]); i's copies share none: not a tile.
    for i in prange(c.shape[0]):
        for j in prange(c.shape[1]):
            s = np.float32(0)
            for k in range(a.shape[1]):
                s += a[i, k] * w[i] + np.float32(j)
            c[i, j] = s


@unpython.gpu
@unpython.type('ndarray[float64,2]', 'ndarray[float64,2]', None)
def tri_divide(a, c):
    # Triangular with a division: a combination of copies outside the guard could raise.
    for i in prange(c.shape[0]):
        for j in prange(i + 1):
            s = 0.0
            for k in range(a.shape[1]):
                s += a[i, k] / a[j, k]
            c[i, j] = s
