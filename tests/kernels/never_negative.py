"""math.sqrt of values never negative, whose domain check compiled code drops
(unpy/typeinfer/never_negative.py), and of values that may be negative, whose check stays.
Reference: the same functions under the interpreter (tests/test_never_negative.py)."""
import math

import unpython
from unpython import prange


# --- checks dropped: the argument is never negative ---------------------------------------

@unpython.type('ndarray[float64,1]', 'ndarray[float64,1]', 'float64')
def distance_sum(x, y):
    s = 0.0
    for i in range(x.shape[0]):
        dx = x[i] - y[i]
        squares = dx * dx + y[i] * y[i]
        s += math.sqrt(squares)
    return math.sqrt(s)


@unpython.type('ndarray[float64,1]', 'float64')
def prange_root_sum(x):
    s = 0.0
    for i in prange(x.shape[0]):
        s += math.sqrt(x[i] * x[i])
    return math.sqrt(s)


@unpython.type('ndarray[float64,1]', 'ndarray[float64,1]', 'ndarray[float64,1]', None)
def pair_distances(x, y, out):
    n = x.shape[0]
    for i in prange(n):
        s = 0.0
        for j in range(n):
            dx = x[i] - x[j]
            dy = y[i] - y[j]
            s += math.sqrt(dx * dx + dy * dy)
        out[i] = s


@unpython.type('float64', 'float64')
def root_of_square(a):
    # math.sqrt(-0.0) is -0.0, unchecked too.
    t = -0.0 if a == 0.0 else a ** 2
    return math.sqrt(t)


@unpython.type('float64', 'float64', 'float64')
def root_of_calls(a, b):
    return math.sqrt(max(abs(b), a * a)) * math.sqrt(math.exp(b) * 2.0)


@unpython.type('float32', 'float64')
def root_of_f32_square(a):
    t = a * a
    return math.sqrt(t)


# --- checks kept: the argument may be negative -------------------------------------------

@unpython.type('float64', 'float64', 'float64')
def root_of_difference(a, b):
    return math.sqrt(a - b)


@unpython.type('float64', 'float64')
def root_after_reassignment(a):
    t = a * a
    t = t - 1.0
    return math.sqrt(t)


# --- the GPU path: an @gpu n-body nest, and one whose check stays -------------------------

@unpython.gpu
@unpython.type('ndarray[float64,1]', 'ndarray[float64,1]', 'ndarray[float64,1]',
               'ndarray[float64,1]', None)
def gpu_distances(x, y, z, out):
    n = x.shape[0]
    for i in prange(n):
        s = 0.0
        for j in range(n):
            dx = x[i] - x[j]
            dy = y[i] - y[j]
            dz = z[i] - z[j]
            s += math.sqrt(dx * dx + dy * dy + dz * dz)
        out[i] = s


@unpython.gpu
@unpython.type('ndarray[float64,1]', 'ndarray[float64,1]', 'ndarray[float64,1]', None)
def gpu_root_of_difference(x, y, out):
    for i in prange(x.shape[0]):
        out[i] = math.sqrt(x[i] - y[i])
