"""A module of three typical functions for bench/build_time.py: a 2-D prange stencil, a
reduction, a scalar function."""
import numpy as np
import unpython
from unpython import prange


@unpython.type('ndarray[float64, 2]', 'ndarray[float64, 2]', None)
def smooth(a, out):
    for i in prange(1, a.shape[0] - 1):
        for j in range(1, a.shape[1] - 1):
            out[i, j] = 0.25 * (a[i - 1, j] + a[i + 1, j] + a[i, j - 1] + a[i, j + 1])


@unpython.type('ndarray[float32, 1]', 'float64')
def total(x):
    s = 0.0
    for i in prange(x.shape[0]):
        s += x[i]
    return s


@unpython.type('int64', 'int64')
def collatz_steps(n):
    steps = 0
    while n != 1:
        n = n // 2 if n % 2 == 0 else 3 * n + 1
        steps += 1
    return steps
