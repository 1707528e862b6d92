"""A module whose compiled build must behave exactly as this .py (tests/test_dropin.py): module
constants, a class, an undecorated function calling a compiled one, top-level code calling a
compiled function after its definition, a __main__ guard."""
import numpy as np
import unpython
from unpython import prange

SCALE = 3
NAMES = ["total", "scale"]
LOG = []


class Accumulator:
    def __init__(self):
        self.sum = 0.0

    def add(self, a):
        self.sum += total(a)
        return self


@unpython.type('ndarray[float64, 1]', 'float64')
def total(a):
    s = 0.0
    for i in prange(a.shape[0]):
        s += a[i]
    return s


LOG.append(type(total).__name__)       # top-level code sees the compiled function from here on
AT_IMPORT = total(np.arange(5.0))


@unpython.gpu
@unpython.type('ndarray[float64, 1]', 'float64', None)
def scale(a, x):
    for i in prange(a.shape[0]):
        a[i] = a[i] * x


@unpython.gpu
@unpython.type('ndarray[float64, 1]', 'float64', 'int64', None)
def scale_steps(a, x, steps):
    """Two nests a step: a call that keeps data on the device (jitgpu/calls.py asks first)."""
    for t in range(steps):
        for i in prange(a.shape[0]):
            a[i] = a[i] * x
        for i in prange(a.shape[0]):
            a[i] = a[i] + 0.0


@unpython.type('int64', 'int64')
def no_loops(n):
    return n * 2


def undecorated(n):
    """Runs in the interpreter, calling compiled code."""
    a = np.ones(n)
    scale(a, float(SCALE))
    return total(a)


if __name__ == "__main__":
    LOG.append("main")
    raise SystemExit("the __main__ guard ran on import")
