"""@gpu kernels whose CPU path must raise as the interpreter does: built with --boundscheck
(tests/jitgpu/test_gpu_fallbacks.py)."""
import unpython
from unpython import prange


@unpython.gpu
@unpython.type('ndarray[float64,1]', 'ndarray[float64,1]', None)
def shift_left(x, out):
    # With out as long as x, x[i + 1] leaves x at the last i: the analysis refuses, and the CPU
    # path raises IndexError.
    for i in prange(out.shape[0]):
        out[i] = x[i + 1]


@unpython.gpu
@unpython.type('ndarray[float64,1]', 'ndarray[int64,1]', 'ndarray[float64,1]', None)
def gather_checked(x, idx, out):
    for i in prange(idx.shape[0]):
        out[i] = x[idx[i]]
