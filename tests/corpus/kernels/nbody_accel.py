"""N-body accelerations as npbench's nbody writes them: coordinate columns pos[:, 0:1], all
pairwise differences as x.T - x, softened inverse cubes, and a matrix-vector product with the
masses for each component."""
import numpy as np

import unpython


@unpython.gpu
@unpython.type('ndarray[float64, 2]', 'ndarray[float64, 1]', 'float64', 'float64',
               'ndarray[float64, 2]')
def nbody_accel(pos, mass, g, softening):
    x = pos[:, 0:1]
    y = pos[:, 1:2]
    z = pos[:, 2:3]
    dx = x.T - x
    dy = y.T - y
    dz = z.T - z
    inv_r3 = (dx ** 2 + dy ** 2 + dz ** 2 + softening ** 2) ** -1.5
    acc = np.empty_like(pos)
    acc[:, 0] = g * (dx * inv_r3) @ mass
    acc[:, 1] = g * (dy * inv_r3) @ mass
    acc[:, 2] = g * (dz * inv_r3) @ mass
    return acc


def inputs(rng, scale=1):
    n = 100 * scale
    return rng.standard_normal((n, 3)), rng.uniform(0.5, 2.0, n), 1.0, 0.1


LARGE = 28
FUNCTION = "nbody_accel"
