"""@gpu kernels for the local_tiles tests (tests/jitgpu/loopopt/test_local_tiles.py): inner
products over an array a work-group shares, as the examples write them, and the cases the pass
must refuse or guard."""
import numpy as np
import unpython
from unpython import prange


@unpython.gpu
@unpython.type('ndarray[float32,2]', 'ndarray[float32,2]', 'ndarray[float32,2]', None)
def matmul_f32(a, b, c):
    for i in prange(a.shape[0]):
        for j in prange(b.shape[1]):
            s = np.float32(0)
            for k in range(a.shape[1]):
                s += a[i, k] * b[k, j]
            c[i, j] = s


@unpython.gpu
@unpython.type('float64', 'ndarray[float64,2]', 'float64', 'ndarray[float64,2]', None)
def syrk_tri(alpha, a, beta, c):
    # A triangular prange: groups beyond the diagonal have no real iteration.
    for i in prange(c.shape[0]):
        for j in prange(i + 1):
            s = 0.0
            for k in range(a.shape[1]):
                s += a[i, k] * a[j, k]
            c[i, j] = beta * c[i, j] + alpha * s


@unpython.gpu
@unpython.type('ndarray[float32,2]', 'ndarray[float32,2]', 'ndarray[float32,2]', None)
def syr2k_tri(a, b, c):
    for i in prange(c.shape[0]):
        for j in prange(i + 1):
            s = np.float32(0)
            for k in range(a.shape[1]):
                s += a[j, k] * b[i, k] + b[j, k] * a[i, k]
            c[i, j] += s


@unpython.gpu
@unpython.type('ndarray[float32,2]', 'float32', 'ndarray[float32,2]', None)
def grid_potential(atoms, spacing, e):
    # cp: every work-item of a group loops over the same atoms (tiles without rows).
    for j in prange(e.shape[0]):
        for i in prange(e.shape[1]):
            x = np.float32(i) * spacing
            y = np.float32(j) * spacing
            s = np.float32(0.0)
            for k in range(atoms.shape[0]):
                dx = x - atoms[k, 0]
                dy = y - atoms[k, 1]
                s += atoms[k, 2] / np.sqrt(dx * dx + dy * dy + np.float32(1))
            e[j, i] = s


@unpython.gpu
@unpython.type('ndarray[float64,2]', 'ndarray[float64,1]', 'ndarray[float64,1]', 'int64',
               'int64', None)
def pull(pos, mass, out, lo, hi):
    # nbody-like, one NDRange level; the loop's bounds are parameters (any range); a
    # `continue` inside the loop.
    for i in prange(out.shape[0]):
        s = 0.0
        last = -1
        for k in range(lo, hi):
            if mass[k] < 0.0:
                continue
            d = pos[k, 0] - pos[i, 0]
            s += mass[k] * d
            last = k
        out[i] = s + last


@unpython.gpu
@unpython.type('ndarray[int32,2]', 'ndarray[int32,2]', 'ndarray[int64,2]', None)
def backwards_int(a, b, c):
    # A negative literal step over an integer inner product.
    for i in prange(a.shape[0]):
        for j in prange(b.shape[1]):
            s = 0
            for k in range(a.shape[1] - 1, -1, -2):
                s = s * 3 + a[i, k] * b[k, j]
            c[i, j] = s


@unpython.gpu
@unpython.type('ndarray[float64,2]', 'ndarray[float64,2]', 'float64')
def tiled_reduction(a, b):
    # A prange reduction beside the tiles.
    t = 0.0
    for i in prange(a.shape[0]):
        for j in prange(b.shape[1]):
            s = 0.0
            for k in range(a.shape[1]):
                s += a[i, k] * b[k, j]
            t += s
    return t


@unpython.gpu
@unpython.type('ndarray[float64,2]', 'ndarray[float64,2]', None)
def break_early(a, out):
    # A `break` out of the loop: work-items would leave at different tiles (refused).
    for i in prange(out.shape[0]):
        for j in prange(out.shape[1]):
            s = 0.0
            for k in range(a.shape[1]):
                if a[i, k] > 1.5:
                    break
                s += a[i, k]
            out[i, j] = s


@unpython.gpu
@unpython.type('ndarray[float64,2]', 'ndarray[float64,2]', None)
def moving_bounds(a, out):
    # The loop's bounds depend on the work-item (refused).
    for i in prange(out.shape[0]):
        for j in prange(out.shape[1]):
            s = 0.0
            for k in range(i % a.shape[1], a.shape[1]):
                s += a[j, k]
            out[i, j] = s
