"""Kuramoto coupled oscillators: the coupling as np.sin of all phase differences by broadcasting
theta[None, :] - theta[:, None], summed along axis 1, Euler steps of the phases, and the order
parameter r = |mean(exp(1j * theta))| recorded each step."""
import numpy as np

import unpython


@unpython.gpu
@unpython.type('ndarray[float64, 1]', 'ndarray[float64, 1]', 'float64', 'float64', 'int64',
               ('ndarray[float64, 1]', 'ndarray[float64, 1]'))
def kuramoto(theta0, omega, coupling, dt, steps):
    theta = theta0.copy()
    n = theta.shape[0]
    order = np.empty(steps)
    for t in range(steps):
        dtheta = omega + coupling / n * np.sin(theta[None, :] - theta[:, None]).sum(axis=1)
        theta = theta + dt * dtheta
        order[t] = np.abs(np.exp(1j * theta).mean())
    return theta % (2 * np.pi), order


def inputs(rng, scale=1):
    n = 120 * scale
    return rng.uniform(0, 2 * np.pi, n), rng.normal(0, 0.5, n), 1.5, 0.05, 40


LARGE = 20
FUNCTION = "kuramoto"
