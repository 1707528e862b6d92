"""Metropolis sweeps of the 2-D Ising model on a periodic lattice, the random numbers given as
an array of uniforms (one per site and sweep, so runs repeat): the neighbour sum with (i + 1) % n
and index -1, the energy change, the acceptance test with math.exp; the final lattice and its
magnetisation."""
import math

import numpy as np

import unpython


@unpython.type('ndarray[int64, 2]', 'float64', 'ndarray[float64, 3]',
               ('ndarray[int64, 2]', 'float64'))
def ising_sweeps(spins0, beta, uniforms):
    s = spins0.copy()
    n = s.shape[0]
    for t in range(uniforms.shape[0]):
        for i in range(n):
            for j in range(n):
                nb = s[(i + 1) % n, j] + s[i - 1, j] + s[i, (j + 1) % n] + s[i, j - 1]
                dE = 2 * s[i, j] * nb
                if dE <= 0 or uniforms[t, i, j] < math.exp(-beta * dE):
                    s[i, j] = -s[i, j]
    return s, s.mean()


def inputs(rng, scale=1):
    n = 32 * scale
    return rng.choice([-1, 1], (n, n)), 0.44, rng.random((10, n, n))


LARGE = 12
FUNCTION = "ising_sweeps"
