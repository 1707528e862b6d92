"""Kernels of the split tests (tests/jitgpu/test_split_run.py) that tests/jitgpu/gpu_kernels.py
has no twin of: a write whose parts' regions interleave, and a function that names its own
participants."""
import unpython
from unpython import prange


@unpython.gpu
@unpython.type('ndarray[float64,2]', 'ndarray[float64,2]', None)
def transpose(a, out):
    # Split along i, each part writes a column block of `out`: their rows interleave in memory,
    # their bytes do not.
    for i in prange(a.shape[0]):
        for j in prange(a.shape[1]):
            out[j, i] = a[i, j] * 2.0


@unpython.gpu(devices="cpu,openmp")
@unpython.type('ndarray[float64,1]', 'ndarray[float64,1]', 'float64')
def scaled_sum(x, out):
    total = 0.0
    for i in prange(x.shape[0]):
        out[i] = x[i] * 3.0
        total += x[i]
    return total
