"""A periodic chain of masses and springs integrated by leapfrog (kick-drift-kick): the forces
from np.roll of the positions, the velocities and positions updated in place."""
import numpy as np

import unpython

SPRING_K = 1.5


@unpython.gpu
@unpython.type('ndarray[float64, 1]', 'ndarray[float64, 1]', 'float64', 'int64', 'float64')
def leapfrog_chain(x, v, dt, steps):
    force = SPRING_K * (np.roll(x, 1) - 2.0 * x + np.roll(x, -1))
    v += 0.5 * dt * force
    for step in range(steps):
        x += dt * v
        force = SPRING_K * (np.roll(x, 1) - 2.0 * x + np.roll(x, -1))
        v += dt * force
    v -= 0.5 * dt * force
    return 0.5 * np.sum(v ** 2) + 0.5 * SPRING_K * np.sum((np.roll(x, -1) - x) ** 2)


def inputs(rng, scale=1):
    n = 128 * scale
    x = np.sin(2 * np.pi * np.arange(n) / n) + 0.01 * rng.standard_normal(n)
    return x, np.zeros(n), 0.05, 40


LARGE = 8800
FUNCTION = "leapfrog_chain"
