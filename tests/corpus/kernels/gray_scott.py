"""Gray-Scott reaction-diffusion on a periodic grid: the five-point Laplacian from np.roll along
each axis in a helper function, the reaction term u*v*v, explicit Euler steps updating u and v
in place; both fields returned as a tuple."""
import numpy as np

import unpython


@unpython.type('ndarray[float64, 2]', 'ndarray[float64, 2]')
def gs_laplacian(z):
    return (np.roll(z, 1, axis=0) + np.roll(z, -1, axis=0)
            + np.roll(z, 1, axis=1) + np.roll(z, -1, axis=1) - 4.0 * z)


@unpython.gpu
@unpython.type('ndarray[float64, 2]', 'ndarray[float64, 2]', 'float64', 'float64', 'int64',
               ('ndarray[float64, 2]', 'ndarray[float64, 2]'))
def gray_scott(u0, v0, feed, kill, steps):
    u = u0.copy()
    v = v0.copy()
    du, dv, dt = 0.16, 0.08, 1.0
    for _ in range(steps):
        uvv = u * v * v
        u += dt * (du * gs_laplacian(u) - uvv + feed * (1 - u))
        v += dt * (dv * gs_laplacian(v) + uvv - (feed + kill) * v)
    return u, v


def inputs(rng, scale=1):
    n = 48 * scale
    u = np.ones((n, n))
    v = np.zeros((n, n))
    c = n // 2
    u[c - 4:c + 4, c - 4:c + 4] = 0.5
    v[c - 4:c + 4, c - 4:c + 4] = 0.25
    v += 0.01 * rng.random((n, n))
    return u, v, 0.035, 0.065, 20


LARGE = 40
FUNCTION = "gray_scott"
