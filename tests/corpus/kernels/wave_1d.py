"""The 1-D wave equation by leapfrog: three time levels whose arrays rotate by tuple assignment
each step (no copies), fixed ends."""
import numpy as np

import unpython


@unpython.gpu
@unpython.type('int64', 'float64', 'ndarray[float64, 1]', 'ndarray[float64, 1]')
def wave_1d(steps, courant, u0):
    u_old = u0.copy()
    u = u0.copy()
    u_new = np.zeros_like(u0)
    c2 = courant * courant
    for t in range(steps):
        u_new[1:-1] = 2.0 * u[1:-1] - u_old[1:-1] + c2 * (u[2:] - 2.0 * u[1:-1] + u[:-2])
        u_old, u, u_new = u, u_new, u_old
    return u


def inputs(rng, scale=1):
    x = np.linspace(0.0, 1.0, 300 * scale)
    u0 = np.exp(-200.0 * (x - 0.3) ** 2)
    u0[0] = u0[-1] = 0.0
    return 150, 0.9, u0


LARGE = 2400
FUNCTION = "wave_1d"
