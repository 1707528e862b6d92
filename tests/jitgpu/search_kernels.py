"""@gpu kernels for the first call's search (tests/jitgpu/test_search.py): an f64 product, a
triangular syrk-like nest, an in-place accumulation (what a search run wrote back would show
twice), a one-level nest with no loop inside (no alternative applies) and one with a reduction
loop (an unroll factor applies)."""
import unpython
from unpython import prange


@unpython.gpu
@unpython.type('ndarray[float64,2]', 'ndarray[float64,2]', 'ndarray[float64,2]', None)
def matmul_f64(a, b, c):
    for i in prange(a.shape[0]):
        for j in prange(b.shape[1]):
            s = 0.0
            for k in range(a.shape[1]):
                s += a[i, k] * b[k, j]
            c[i, j] = s


@unpython.gpu
@unpython.type('float64', 'ndarray[float64,2]', 'float64', 'ndarray[float64,2]', None)
def syrk_tri(alpha, a, beta, c):
    for i in prange(c.shape[0]):
        for j in prange(i + 1):
            s = 0.0
            for k in range(a.shape[1]):
                s += a[i, k] * a[j, k]
            c[i, j] = beta * c[i, j] + alpha * s


@unpython.gpu
@unpython.type('ndarray[float64,2]', 'ndarray[float64,2]', 'ndarray[float64,2]', None)
def accumulate(a, b, c):
    for i in prange(c.shape[0]):
        for j in prange(c.shape[1]):
            s = 0.0
            for k in range(a.shape[1]):
                s += a[i, k] * b[k, j]
            c[i, j] += s


@unpython.gpu
@unpython.type('ndarray[float64,1]', 'ndarray[float64,1]', None)
def scale(a, out):
    for i in prange(out.shape[0]):
        out[i] = 2.0 * a[i] + 1.0


@unpython.gpu
@unpython.type('ndarray[float64,2]', 'ndarray[float64,2]', 'ndarray[int64,1]',
               'ndarray[float64,2]', None)
def gathered(a, b, idx, c):
    # An index the analysis cannot bound: one out of range sets the kernel's error flag (the
    # CPU path raises IndexError).
    for i in prange(c.shape[0]):
        for j in prange(c.shape[1]):
            s = 0.0
            for k in range(a.shape[1]):
                s += a[i, k] * b[k, idx[j]]
            c[i, j] = s


@unpython.gpu
@unpython.type('ndarray[float64,1]', 'ndarray[float64,1]', 'ndarray[float64,1]', None)
def pull(x, m, out):
    # nbody's shape: one parallel level, a long reduction loop (the unroll factor's candidate).
    for i in prange(out.shape[0]):
        s = 0.0
        for j in range(x.shape[0]):
            d = x[j] - x[i]
            s += m[j] * d / (d * d + 0.25)
        out[i] = s
