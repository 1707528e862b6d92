"""Updates that several iterations of a prange may make to one element: atomic on OpenMP and
OpenCL (unpy/typeinfer/array_races.py; tests/jitgpu/test_atomics.py). Each dtype takes its
own way on the device: int32 OpenCL's atomic functions, int64 sums atom_add, the rest a
compare-and-swap loop."""
import numpy as np

import unpython
from unpython import prange


@unpython.gpu
@unpython.type('ndarray[int64,1]', 'ndarray[int64,1]', 'ndarray[int64,1]', None)
def hist_int64(bins, w, hist):
    for i in prange(bins.shape[0]):
        hist[bins[i]] += w[i]


@unpython.gpu
@unpython.type('ndarray[int64,1]', 'ndarray[int32,1]', 'ndarray[int32,1]', None)
def hist_int32(bins, w, hist):
    for i in prange(bins.shape[0]):
        hist[bins[i]] += w[i]


@unpython.gpu
@unpython.type('ndarray[int64,1]', 'ndarray[float64,1]', 'ndarray[float64,1]', None)
def hist_float64(bins, w, hist):
    for i in prange(bins.shape[0]):
        hist[bins[i]] += w[i]


@unpython.gpu
@unpython.type('ndarray[int64,1]', 'ndarray[float32,1]', 'ndarray[float32,1]', None)
def hist_float32(bins, w, hist):
    for i in prange(bins.shape[0]):
        hist[bins[i]] = hist[bins[i]] - w[i]


@unpython.gpu
@unpython.type('ndarray[int64,1]', 'ndarray[float64,1]', 'ndarray[float64,1]', None)
def scatter_max_float64(idx, v, out):
    for i in prange(idx.shape[0]):
        out[idx[i]] = max(out[idx[i]], v[i])


@unpython.gpu
@unpython.type('ndarray[int64,1]', 'ndarray[float32,1]', 'ndarray[float32,1]', None)
def scatter_min_float32(idx, v, out):
    for i in prange(idx.shape[0]):
        out[idx[i]] = min(v[i], out[idx[i]])


@unpython.gpu
@unpython.type('ndarray[int64,1]', 'ndarray[int64,1]', 'ndarray[int64,1]', None)
def scatter_min_int64(idx, v, out):
    for i in prange(idx.shape[0]):
        out[idx[i]] = min(out[idx[i]], v[i])


@unpython.gpu
@unpython.type('ndarray[int64,1]', 'ndarray[int32,1]', 'ndarray[int32,1]', None)
def scatter_max_int32(idx, v, out):
    for i in prange(idx.shape[0]):
        out[idx[i]] = max(v[i], out[idx[i]])


@unpython.gpu
@unpython.type('ndarray[int64,2]', 'ndarray[int64,1]', None)
def column_sums(a, sums):
    # An inner loop's updates: the loop optimisations copy and unroll them.
    for i in prange(a.shape[0]):
        for j in range(a.shape[1]):
            sums[j] += a[i, j]


@unpython.gpu
@unpython.type('ndarray[int64,2]', 'ndarray[int32,1]', None)
def image_hist(img, hist):
    for i in prange(img.shape[0]):
        for j in prange(img.shape[1]):
            hist[img[i, j]] += 1


@unpython.gpu
@unpython.type('ndarray[int64,1]', 'ndarray[int64,1]', 'ndarray[int32,1]', None)
def bitsets(v, bits64, bits32):
    for i in prange(v.shape[0]):
        bits64[v[i] % 8] |= v[i]
        bits32[v[i] % 4] ^= np.int32(v[i] % 1000)


@unpython.gpu
@unpython.type('ndarray[int64,1]', 'ndarray[int64,1]', None)
def products(idx, p):
    for i in prange(idx.shape[0]):
        p[idx[i]] *= 3


@unpython.gpu
@unpython.type('ndarray[int64,1]', 'ndarray[uint8,1]', None)
def hist_uint8(bins, hist):
    # OpenCL has no atomics for bytes: the nest runs on OpenMP.
    for i in prange(bins.shape[0]):
        hist[bins[i]] += 1


@unpython.gpu
@unpython.type('ndarray[int64,1]', 'ndarray[complex128,1]', 'ndarray[complex128,2]', None)
def hist_complex128(bins, w, hist):
    # each part its own atomic sum (OpenMP); on the GPU the nest stays on OpenMP
    for i in prange(bins.shape[0]):
        hist[bins[i], 0] += w[i]
        hist[bins[i], 1] -= 2.0 * w[i]


@unpython.gpu
@unpython.type('ndarray[int64,1]', 'ndarray[complex64,1]', 'ndarray[complex64,1]', None)
def hist_complex64(bins, w, hist):
    for i in prange(bins.shape[0]):
        hist[bins[i]] += w[i]


# Whole arrays added up by the iterations (Numba's array reductions): each element's update
# atomic, a private copy per OpenMP thread where the nest only adds.

@unpython.gpu
@unpython.type('ndarray[float64,2]', 'ndarray[float64,1]')
def rows_added(x):
    y = np.zeros(x.shape[1])
    for i in prange(x.shape[0]):
        y += x[i]
    return y


@unpython.gpu
@unpython.type('ndarray[float64,2]', 'ndarray[float64,2]', 'ndarray[float64,2]', None)
def scaled_subtracted(x, w, out):
    # w broadcasts into out: (1, k), (k, 1) or out's own shape, known only at the call
    for i in prange(x.shape[0]):
        out -= w * x[i, 0]


@unpython.gpu
@unpython.type('ndarray[complex128,2]', 'ndarray[complex128,2]', None)
def local_arrays_added(x, out):
    # each iteration's own array added into out (npbench's contour_integral)
    for i in prange(x.shape[0]):
        t = np.ones((out.shape[0], out.shape[1]), dtype=np.complex128) * x[i, 0]
        out += t


@unpython.gpu
@unpython.type('int64', 'ndarray[int64,2]')
def arrays_multiplied(n):
    # Numba's parallel.rst: an array reduction by *= of an array made by an expression
    r = 2 * np.ones((2, 3), np.int64)
    t = 2 * np.ones_like(r)
    for i in prange(n):
        r *= t
    return r
