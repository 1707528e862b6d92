"""One explicit step of the free Schrodinger equation for a wave packet on a 1-D grid, as a
quantum-mechanics exercise writes it: a complex Gaussian packet, the Laplacian from slices,
psi += dt * 1j/2 * laplacian, and the norm kept as a check."""
import numpy as np

import unpython


@unpython.gpu
@unpython.type('ndarray[float64, 1]', 'float64', 'float64', 'int64',
               'tuple[ndarray[complex128, 1], float64]')
def schrodinger_step(x, k0, dt, steps):
    dx = x[1] - x[0]
    psi = np.exp(-x ** 2 / 2.0) * np.exp(1j * k0 * x)
    psi = psi / np.sqrt(np.sum(np.abs(psi) ** 2) * dx)
    for s in range(steps):
        lap = np.zeros_like(psi)
        lap[1:-1] = (psi[2:] - 2.0 * psi[1:-1] + psi[:-2]) / dx ** 2
        psi = psi + dt * 0.5j * lap
    norm = np.sum(psi.real ** 2 + psi.imag ** 2) * dx
    return psi, norm


def inputs(rng, scale=1):
    # dt shrinks with dx squared: the explicit step stays as (un)stable as at scale 1
    return np.linspace(-10.0, 10.0, 200 * scale), 2.0, 1e-3 / scale ** 2, 20


LARGE = 4100
FUNCTION = "schrodinger_step"
