"""Particles under gravity in a box periodic in x with a floor, struct-of-arrays style: whole-
array updates of positions and velocities, the bounce by a boolean mask, the wrap by %=, and
the kinetic energy and the centre of mass returned as a tuple."""
import numpy as np

import unpython

GRAVITY = 9.81


@unpython.gpu
@unpython.type('ndarray[float64, 1]', 'ndarray[float64, 1]', 'ndarray[float64, 1]',
               'ndarray[float64, 1]', 'ndarray[float64, 1]', 'float64', 'int64', 'float64',
               'float64', ('float64', 'float64'))
def bouncing_particles(pos_x, pos_y, vel_x, vel_y, mass, dt, n_steps, box, restitution):
    for step in range(n_steps):
        vel_y -= GRAVITY * dt
        pos_x += vel_x * dt
        pos_y += vel_y * dt
        hit = pos_y < 0.0
        pos_y[hit] = -pos_y[hit]
        vel_y[hit] = -restitution * vel_y[hit]
        pos_x %= box
    kinetic = 0.5 * np.sum(mass * (vel_x**2 + vel_y**2))
    com_height = np.sum(mass * pos_y) / np.sum(mass)
    return kinetic, com_height


def inputs(rng, scale=1):
    n = 1000 * scale
    return (rng.uniform(0.0, 10.0, n), rng.uniform(0.0, 5.0, n), rng.normal(0.0, 2.0, n),
            rng.normal(0.0, 1.0, n), rng.uniform(0.5, 2.0, n), 0.01, 50, 10.0, 0.9)


LARGE = 1000
FUNCTION = "bouncing_particles"
