"""Forward and back substitution with triangular matrices (solving L U x = b after a
factorisation): each unknown from a dot product of a row slice with the known part; two
helper functions called from a third."""
import numpy as np

import unpython


@unpython.type('ndarray[float64, 2]', 'ndarray[float64, 1]', 'ndarray[float64, 1]')
def forward_substitution(lower, b):
    n = b.shape[0]
    y = np.zeros(n)
    for i in range(n):
        y[i] = (b[i] - lower[i, :i] @ y[:i]) / lower[i, i]
    return y


@unpython.type('ndarray[float64, 2]', 'ndarray[float64, 1]', 'ndarray[float64, 1]')
def back_substitution(upper, y):
    n = y.shape[0]
    x = np.zeros(n)
    for i in range(n - 1, -1, -1):
        x[i] = (y[i] - np.dot(upper[i, i + 1:], x[i + 1:])) / upper[i, i]
    return x


@unpython.type('ndarray[float64, 2]', 'ndarray[float64, 2]', 'ndarray[float64, 1]',
               'ndarray[float64, 1]')
@unpython.gpu
def lu_solve_by_hand(lower, upper, b):
    return back_substitution(upper, forward_substitution(lower, b))


def inputs(rng, scale=1):
    n = 30 * scale
    lower = np.tril(rng.random((n, n))) + n * np.eye(n)
    upper = np.triu(rng.random((n, n))) + n * np.eye(n)
    return lower, upper, rng.random(n)


LARGE = 260
FUNCTION = "lu_solve_by_hand"
