"""A damped mass-spring network (a hanging cloth) under gravity: the spring vectors gathered
by the edge list's columns, Hooke forces scattered onto both ends with np.add.at and
np.subtract.at, the top row pinned by a boolean mask, semi-implicit Euler steps."""
import numpy as np

import unpython


@unpython.gpu
@unpython.type('ndarray[float64, 2]', 'ndarray[int64, 2]', 'ndarray[float64, 1]',
               'ndarray[bool, 1]', 'float64', 'float64', 'int64', 'ndarray[float64, 2]')
def spring_network(pos0, edges, rest, pinned, stiffness, dt, steps):
    pos = pos0.copy()
    vel = np.zeros_like(pos)
    for _ in range(steps):
        d = pos[edges[:, 1]] - pos[edges[:, 0]]
        length = np.sqrt((d ** 2).sum(axis=1))
        f = (stiffness * (length - rest) / length)[:, None] * d
        force = np.zeros_like(pos)
        np.add.at(force, edges[:, 0], f)
        np.subtract.at(force, edges[:, 1], f)
        force[:, 1] -= 9.81
        vel = 0.98 * vel + dt * force
        vel[pinned] = 0.0
        pos += dt * vel
    return pos


def inputs(rng, scale=1):
    m = 12 * scale
    yy, xx = np.mgrid[0:m, 0:m]
    pos = np.stack([xx.ravel(), -yy.ravel()], axis=1).astype(np.float64)
    pos += 0.01 * rng.standard_normal(pos.shape)
    idx = np.arange(m * m).reshape(m, m)
    edges = np.concatenate([np.stack([idx[:, :-1].ravel(), idx[:, 1:].ravel()], axis=1),
                            np.stack([idx[:-1, :].ravel(), idx[1:, :].ravel()], axis=1)])
    rest = np.full(edges.shape[0], 1.0)
    pinned = yy.ravel() == 0
    return pos, edges, rest, pinned, 50.0, 0.01, 40


LARGE = 15
FUNCTION = "spring_network"
