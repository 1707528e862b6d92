"""Conjugate gradients for a symmetric positive-definite system, the textbook loop: a while
loop on np.linalg.norm of the residual and an iteration cap, in-place vector updates, the
search direction rebound each step; returns the solution and the iteration count."""
import numpy as np

import unpython


@unpython.gpu
@unpython.type('ndarray[float64, 2]', 'ndarray[float64, 1]', 'float64', 'int64',
               ('ndarray[float64, 1]', 'int64'))
def conjugate_gradient(A, b, tol=1e-8, max_iter=500):
    x = np.zeros_like(b)
    r = b - A @ x
    p = r.copy()
    rs_old = r @ r
    k = 0
    while np.linalg.norm(r) > tol and k < max_iter:
        Ap = A @ p
        alpha = rs_old / (p @ Ap)
        x += alpha * p
        r -= alpha * Ap
        rs_new = r @ r
        p = r + (rs_new / rs_old) * p
        rs_old = rs_new
        k += 1
    return x, k


def inputs(rng, scale=1):
    n = 60 * scale
    m = rng.standard_normal((n, n))
    return m @ m.T + n * np.eye(n), rng.standard_normal(n), 1e-8, 500


LARGE = 30
FUNCTION = "conjugate_gradient"
