"""@gpu functions whose nests share arrays, for the residency tests (tests/jitgpu/
test_residency.py): time stepping, host code between nests, a nest that stays on OpenMP, views,
local arrays, an exception after a nest."""
import numpy as np

import unpython
from unpython import prange

F1 = 'ndarray[float64, 1]'
F2 = 'ndarray[float64, 2]'


@unpython.gpu
@unpython.type('int64', F2, F2, None)
def jacobi(steps, a, b):
    n = a.shape[0]
    for t in range(steps):
        for i in prange(1, n - 1):
            for j in prange(1, n - 1):
                b[i, j] = 0.2 * (a[i, j] + a[i, j - 1] + a[i, j + 1] + a[i + 1, j] + a[i - 1, j])
        for i in prange(1, n - 1):
            for j in prange(1, n - 1):
                a[i, j] = 0.2 * (b[i, j] + b[i, j - 1] + b[i, j + 1] + b[i + 1, j] + b[i - 1, j])


@unpython.gpu
@unpython.type(F1, F1, F1, 'float64')
def host_between(a, b, out):
    n = a.shape[0]
    for i in prange(n):
        b[i] = a[i] * 2.0 + 1.0
    s = b[n // 2]                 # a host read of what the device wrote
    b[0] = -7.0                   # a host write the next nest must see
    a[1] = s
    for i in prange(n):
        out[i] = a[i] + b[i]
    return s + out[0]


@unpython.type(F1, 'int64', 'float64')
def previous(b, i):
    return b[i - 1]


@unpython.gpu
@unpython.type(F1, F1, F1, None)
def openmp_between(a, b, c):
    n = a.shape[0]
    for i in prange(n):
        b[i] = a[i] + 1.0
    for i in prange(n):
        c[i] = previous(b, i) * 3.0    # a function of an array: this nest stays on OpenMP
    for i in prange(n):
        a[i] = b[i] + c[i]


@unpython.gpu
@unpython.type(F1, F1, 'float64')
def through_view(a, v):
    n = a.shape[0]
    for i in prange(n):
        a[i] = a[i] * 2.0
    s = v[0]                      # v views a's memory
    for i in prange(n):
        a[i] = a[i] + s
    return s


@unpython.gpu
@unpython.type(F1, F1, None)
def local_temporary(a, out):
    n = a.shape[0]
    tmp = np.empty(n, np.float64)
    for i in prange(n):
        tmp[i] = a[i] * a[i]
    for i in prange(n):
        out[i] = tmp[n - 1 - i] + 1.0     # another iteration's element: no fusion


@unpython.gpu
@unpython.type(F1, 'int64', None)
def raise_after_nest(a, z):
    n = a.shape[0]
    for i in prange(n):
        a[i] = a[i] + 1.0
    a[0] = a[0] + 1 // z          # ZeroDivisionError when z == 0: a must hold the nest's data


@unpython.gpu
@unpython.type(F1, 'float64', None)
def scale(a, f):
    n = a.shape[0]
    for i in prange(n):
        a[i] = a[i] * f


@unpython.gpu
@unpython.type('ndarray[int64, 1]', 'ndarray[int64, 1]', 'ndarray[int64, 1]', 'int64', None)
def flag_between(a, b, c, z):
    n = a.shape[0]
    for i in prange(n):
        b[i] = a[i] + 1
    for i in prange(n):
        c[i] = b[i] // z          # z == 0: the kernel flags, OpenMP reruns it and raises
    for i in prange(n):
        a[i] = b[i] + c[i]


@unpython.gpu
@unpython.type(F1, 'float64', 'int64')
def while_reads(a, limit):
    n = a.shape[0]
    k = 0
    while a[0] < limit:          # read on the host before every test: a comes back each time
        for i in prange(n):
            a[i] = a[i] + 1.0
        k += 1
    return k


@unpython.type(F1, F1)
def shifted(a):
    out = np.empty(a.shape[0], np.float64)      # fresh memory, written by host code
    for i in range(a.shape[0]):
        out[i] = a[i] + 1.0
    return out


@unpython.gpu
@unpython.type(F1, 'int64', None)
def fresh_temporaries(a, steps):
    n = a.shape[0]
    for s in range(steps):
        g = shifted(a)        # from the third step: the memory of the g of two steps before
        for i in prange(n):
            a[i] = g[n - 1 - i] * 0.5
