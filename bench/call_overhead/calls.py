"""Small compiled functions whose calls cost mostly their glue (bench/call_overhead.py)."""
import numpy as np
import unpython


@unpython.type('float64', 'float64')
def scalar(x):
    return x * 2.0


@unpython.type('ndarray[float64, 1]', 'float64')
def first(a):
    return a[0]


@unpython.type('ndarray[float64, 1]', 'ndarray[float64, 1]', 'float64', None)
def axpy(x, y, alpha=2.0):
    for i in range(x.shape[0]):
        y[i] += alpha * x[i]


@unpython.type('ndarray[float64, 1]', 'ndarray[float64, 1]')
def doubled(a):
    return a * 2.0
