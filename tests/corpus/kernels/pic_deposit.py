"""Particle-in-cell charge deposition (cloud-in-cell) on a periodic 1-D grid: each particle's
cell index by astype(np.int64), its weight split between two cells, scattered with np.add.at."""
import numpy as np

import unpython


@unpython.type('ndarray[float64, 1]', 'ndarray[float64, 1]', 'int64', 'float64',
               'ndarray[float64, 1]')
@unpython.gpu
def pic_deposit(x, q, n_cells, length):
    dx = length / n_cells
    s = x / dx
    cell = np.floor(s).astype(np.int64)
    frac = s - cell
    left = cell % n_cells
    right = (cell + 1) % n_cells
    rho = np.zeros(n_cells)
    np.add.at(rho, left, q * (1.0 - frac))
    np.add.at(rho, right, q * frac)
    return rho / dx


def inputs(rng, scale=1):
    n = 900 * scale
    return rng.uniform(0.0, 10.0, n), rng.choice([-1.0, 1.0], n), 32 * scale, 10.0


LARGE = 10000
FUNCTION = "pic_deposit"
