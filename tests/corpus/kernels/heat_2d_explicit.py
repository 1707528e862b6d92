"""The 2-D heat equation by the explicit (FTCS) scheme on a float32 plate with fixed edges:
the five-point Laplacian of slices, the stability factor from module constants, and the
temperature's mean returned with the plate."""
import numpy as np

import unpython

ALPHA = 0.01
DX = 0.1


@unpython.gpu
@unpython.type('ndarray[float32, 2]', 'int64', ('ndarray[float32, 2]', 'float32'))
def heat_2d_explicit(u0, steps):
    dt = 0.2 * DX * DX / ALPHA
    r = ALPHA * dt / (DX * DX)
    u = u0.copy()
    for _ in range(steps):
        lap = u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:] - 4 * u[1:-1, 1:-1]
        u[1:-1, 1:-1] += np.float32(r) * lap
    return u, u.mean()


def inputs(rng, scale=1):
    n = 40 * scale
    u = np.zeros((n, n), np.float32)
    u[15 * scale:25 * scale, 15 * scale:25 * scale] = 100.0
    u[0, :] = 20.0
    return u + rng.random((n, n)).astype(np.float32), 30


LARGE = 62
FUNCTION = "heat_2d_explicit"
