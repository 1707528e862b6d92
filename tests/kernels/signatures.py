"""Functions compiled for several signatures: `@unpython.type` given more than once, or with a
list of signatures. Each compiled module exposes one function per name, which takes the first
signature whose types are the arguments' own, else the first that takes them converted."""
import numpy as np

import unpython
from unpython import prange

F32 = 'ndarray[float32, 1]'


# Two decorators. The float64 signature comes first: a float32 array must still take the
# float32 one (arrays are never converted).
@unpython.gpu
@unpython.type('ndarray[float64, 1]', 'float64', 'ndarray[float64, 1]')
@unpython.type(F32, 'float32', F32)
def scaled(a, alpha):
    out = np.empty_like(a)
    for i in prange(a.shape[0]):
        out[i] = alpha * a[i] + 1.0
    return out


# A list of signatures; a NumPy statement (lowered to a nest, offered to the device).
@unpython.gpu
@unpython.type([('ndarray[float32, 2]', 'ndarray[float32, 2]', None),
                ('ndarray[float64, 2]', 'ndarray[float64, 2]', None)])
def add_into(a, b):
    b += 2.0 * a


# Scalars: the float64 signature is listed first, yet an int takes the int64 one.
@unpython.type('float64', 'float64')
@unpython.type('int64', 'int64')
def halve(x):
    return x // 2 + x % 3


# ndim 1 and 2 under one name: a NumPy reduction, and rows (or elements) updated in place.
@unpython.gpu
@unpython.type([('ndarray[float64, 1]', 'float64'),
                ('ndarray[float64, 2]', 'float64')])
def summed(a):
    return np.sum(a * 2.0 + 1.0)


@unpython.gpu
@unpython.type('ndarray[float64, 1]', None)
@unpython.type('ndarray[float64, 2]', None)
def doubled_in_place(a):
    for i in prange(a.shape[0]):
        a[i] *= 2.0


# A helper with two signatures, called from compiled functions with each.
@unpython.type('ndarray[float32, 1]', 'int64', 'float32')
@unpython.type('ndarray[int64, 1]', 'int64', 'int64')
def at_twice(a, i):
    return a[i] * 2


@unpython.type('ndarray[float32, 1]', 'ndarray[int64, 1]', 'float64')
def use_both(x, k):
    s = 0.0
    for i in range(x.shape[0]):
        s += at_twice(x, i) + at_twice(k, i)
    return s


@unpython.gpu
@unpython.type('ndarray[float32, 1]', 'ndarray[float32, 1]', None)
@unpython.type('ndarray[int64, 1]', 'ndarray[int64, 1]', None)
def doubled(a, out):
    for i in prange(a.shape[0]):
        out[i] = at_twice(a, i)


# A default chooses the signature as the value written would (1 is an int).
@unpython.type([('float64', 'float64', 'float64'), ('int64', 'int64', 'int64')])
def shifted(x, by=1):
    return x + by


# Python floats for float64 parameters are weak in the interpreter (NEP 50): where that
# changes the result, the module has a weak variant taken for Python values
# (unpy/typeinfer/weak_params.py).
@unpython.type('ndarray[float32, 1]', 'float64', 'float64')
def total_scaled(x, eps):
    s = 0.0
    for i in range(x.shape[0]):
        s += x[i] * eps         # float32 with a Python float, float64 with a NumPy one
    return s


@unpython.type('ndarray[float32, 1]', 'float64')
def total_of_tenths(x):
    return total_scaled(x, 0.1) + total_scaled(x, np.float64(0.1))


@unpython.type('ndarray[float32, 1]', 'float64', 'float64')
def total_by_default(x, eps=0.25):
    return total_scaled(x, eps)


# Only a Python float gives the declared float32 result: the weak signature alone.
@unpython.gpu
@unpython.type('ndarray[float32, 2]', 'float64', 'ndarray[float32, 2]')
def normalised(x, eps):
    return (x - np.mean(x, axis=1, keepdims=True)) / np.sqrt(np.var(x, axis=1, keepdims=True) + eps)


# A Python int for an int64 parameter is weak too (`x32[i] * n` and `2.0 / (n + 1)` stay
# float32 and a Python float), where it never meets a narrower integer.
@unpython.type('ndarray[float32, 1]', 'int64', 'float64')
def total_times(x, n):
    s = 0.0
    for i in range(x.shape[0]):
        s += x[i] * (2.0 / (n + 1))
    return s


# Here a Python int would meet an int8 (NumPy checks its range, compiled code would wrap): the
# declared int64 serves every call.
@unpython.type('ndarray[int8, 1]', 'int64', 'ndarray[int64, 1]')
def shifted_bytes(a, n):
    return a + n
