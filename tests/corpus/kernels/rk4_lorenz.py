"""The Lorenz system integrated by classical fourth-order Runge-Kutta: a right-hand-side helper
that unpacks the state (x, y, z = s) and returns np.array of the three derivatives, the four
stages, the trajectory stored row by row."""
import numpy as np

import unpython


@unpython.type('ndarray[float64, 1]', 'float64', 'float64', 'float64', 'ndarray[float64, 1]')
def lorenz_rhs(s, sigma, rho, beta):
    x, y, z = s
    return np.array([sigma * (y - x), x * (rho - z) - y, x * y - beta * z])


@unpython.gpu
@unpython.type('ndarray[float64, 1]', 'float64', 'int64', 'ndarray[float64, 2]')
def rk4_lorenz(s0, dt, steps):
    sigma, rho, beta = 10.0, 28.0, 8.0 / 3.0
    traj = np.empty((steps + 1, 3))
    traj[0] = s0
    s = s0.copy()
    for n in range(steps):
        k1 = lorenz_rhs(s, sigma, rho, beta)
        k2 = lorenz_rhs(s + 0.5 * dt * k1, sigma, rho, beta)
        k3 = lorenz_rhs(s + 0.5 * dt * k2, sigma, rho, beta)
        k4 = lorenz_rhs(s + dt * k3, sigma, rho, beta)
        s = s + dt / 6.0 * (k1 + 2 * k2 + 2 * k3 + k4)
        traj[n + 1] = s
    return traj


def inputs(rng, scale=1):
    return np.array([1.0, 1.0, 1.0]) + 0.1 * rng.standard_normal(3), 0.005, 300 * scale


LARGE = 30
FUNCTION = "rk4_lorenz"
