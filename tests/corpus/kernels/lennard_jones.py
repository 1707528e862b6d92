"""Lennard-Jones forces and potential energy of N atoms in a periodic box: a prange over atoms,
the displacement to every other atom as a whole-array expression with the minimum-image
convention by np.round, r^-6 terms, and a reduction of the energy."""
import numpy as np

import unpython
from unpython import prange


@unpython.type('ndarray[float64, 2]', 'float64', 'float64', 'float64',
               ('ndarray[float64, 2]', 'float64'))
@unpython.gpu
def lennard_jones(pos, box, eps=1.0, sigma=1.0):
    n = pos.shape[0]
    forces = np.zeros_like(pos)
    energy = 0.0
    for i in prange(n):
        d = pos[i] - pos
        d -= box * np.round(d / box)
        r2 = np.sum(d * d, axis=1)
        r2[i] = 1.0
        s6 = (sigma * sigma / r2) ** 3
        e = 4.0 * eps * (s6 * s6 - s6)
        e[i] = 0.0
        coef = 24.0 * eps * (2.0 * s6 * s6 - s6) / r2
        coef[i] = 0.0
        forces[i] = np.sum(coef[:, None] * d, axis=0)
        energy += 0.5 * np.sum(e)
    return forces, energy


def inputs(rng, scale=1):
    side = 5 * scale        # atoms on a side of the lattice: side ** 3 atoms
    g = np.arange(side) * 1.2
    lattice = np.array([[a, b, c] for a in g for b in g for c in g])
    pos = lattice + 0.05 * rng.standard_normal((side ** 3, 3))
    return pos, side * 1.2, 1.0, 1.0


LARGE = 3
FUNCTION = "lennard_jones"
