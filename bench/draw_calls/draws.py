"""Calls of compiled functions that draw (bench/draw_calls.py): one draw a call, and loops of
draws, of np.random (native since the legacy generator is drawn without Python) and of
Python's random module and np.random.poisson (through Python)."""
import random

import numpy as np
import unpython


@unpython.type('int64', 'float64')
def no_draw(i):
    return 0.5


@unpython.type('int64', 'float64')
def one_random(i):
    return np.random.random()


@unpython.type('int64', 'float64')
def one_randn(i):
    return np.random.randn()


@unpython.type('int64', 'int64')
def one_randint(i):
    return np.random.randint(0, 10)


@unpython.type('int64', 'float64')
def one_python_random(i):
    return random.random()


@unpython.type('int64', 'int64')
def one_poisson(i):
    return np.random.poisson(3.0)


@unpython.type('int64', 'float64')
def loop_random(n):
    s = 0.0
    for i in range(n):
        s += np.random.random()
    return s


@unpython.type('int64', 'float64')
def loop_randn(n):
    s = 0.0
    for i in range(n):
        s += np.random.randn()
    return s


@unpython.type('int64', 'float64')
def loop_python_random(n):
    s = 0.0
    for i in range(n):
        s += random.random()
    return s


@unpython.type('int64', 'float64')
def loop_poisson(n):
    s = 0.0
    for i in range(n):
        s += np.random.poisson(3.0)
    return s


@unpython.type('int64', 'ndarray[float64, 1]')
def array_random(n):
    return np.random.random(n)


@unpython.type('int64', 'ndarray[float64, 1]')
def array_randn(n):
    return np.random.standard_normal(n)
