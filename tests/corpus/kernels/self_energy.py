"""A scattering self-energy (the contraction at the heart of npbench's scattering_self_energies,
2-D slices of complex 3-D arrays): for each energy and phonon mode, the coupling matrix times
the Green's function at a shifted energy times the coupling's conjugate transpose."""
import numpy as np

import unpython


@unpython.gpu
@unpython.type('ndarray[complex128, 3]', 'ndarray[complex128, 3]', 'ndarray[complex128, 1]',
               'ndarray[complex128, 3]')
def self_energy(G, dH, D):
    NE = G.shape[0]
    Sigma = np.zeros_like(G)
    for e in range(NE):
        for m in range(dH.shape[0]):
            Sigma[e] += D[m] * dH[m] @ G[(e + m) % NE] @ dH[m].conj().T
    return Sigma


def inputs(rng, scale=1):
    ne, modes, norb = 12 * scale, 4, 8

    def cplx(*shape):
        return rng.standard_normal(shape) + 1j * rng.standard_normal(shape)
    return cplx(ne, norb, norb), cplx(modes, norb, norb), cplx(modes)


LARGE = 40
FUNCTION = "self_energy"
