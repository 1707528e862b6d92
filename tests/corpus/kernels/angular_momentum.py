"""Angular momentum and torque of a particle cloud about its centre of mass, positions and
velocities as (N, 3) arrays: np.average with weights, np.cross of row vectors, sums along
axis 0, and the norm of the total by np.linalg.norm."""
import numpy as np

import unpython


@unpython.gpu
@unpython.type('ndarray[float64, 2]', 'ndarray[float64, 2]', 'ndarray[float64, 2]',
               'ndarray[float64, 1]', ('ndarray[float64, 1]', 'ndarray[float64, 1]', 'float64'))
def angular_momentum(pos, vel, force, mass):
    com = np.average(pos, axis=0, weights=mass)
    r = pos - com
    L = np.sum(mass[:, None] * np.cross(r, vel), axis=0)
    torque = np.cross(r, force).sum(axis=0)
    return L, torque, np.linalg.norm(L)


def inputs(rng, scale=1):
    n = 2000 * scale
    return (rng.standard_normal((n, 3)), rng.standard_normal((n, 3)),
            rng.standard_normal((n, 3)), rng.uniform(0.5, 2.0, n))


LARGE = 300
FUNCTION = "angular_momentum"
