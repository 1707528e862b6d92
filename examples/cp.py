"""Coulombic potential on one plane of a grid: e[j, i] = sum_k q_k / r_k, atoms stored as an
(natoms, 4) array of structures (x, y, z, q)."""
import sys

import numpy as np

import _harness
import unpython
from unpython import prange


@unpython.gpu
@unpython.type('ndarray[float32, 2]', 'float32', 'float32', 'ndarray[float32, 2]', None)
def cp(atoms, spacing, zplane, e):
    natoms = atoms.shape[0]
    ny = e.shape[0]
    nx = e.shape[1]
    for j in prange(ny):
        for i in prange(nx):
            # Cast the loop indices: int64 * float32 is float64 (NEP 50), we want float32.
            x = np.float32(i) * spacing
            y = np.float32(j) * spacing
            s = np.float32(0.0)
            for k in range(natoms):
                dx = x - atoms[k, 0]
                dy = y - atoms[k, 1]
                dz = zplane - atoms[k, 2]
                s += atoms[k, 3] / np.sqrt(dx * dx + dy * dy + dz * dz)
            e[j, i] = s


SPACING = 0.1


def make_args(n, dtype, rng):
    """An n x n grid with n // 16 atoms of charge in [-1, 1) scattered over its box."""
    side = n * SPACING
    atoms = np.empty((n // 16, 4), dtype)
    atoms[:, :3] = rng.random((n // 16, 3)) * side
    atoms[:, 3] = rng.uniform(-1.0, 1.0, n // 16)
    return [atoms, dtype(SPACING), dtype(side / 2), np.zeros((n, n), dtype)]


def expected(args):
    atoms, spacing, zplane, e = args
    atoms = atoms.astype(np.float64)
    ny, nx = e.shape
    x = np.arange(nx) * np.float64(spacing)
    y = np.arange(ny)[:, None] * np.float64(spacing)
    want = np.zeros(e.shape)
    for ax, ay, az, q in atoms:
        want += q / np.sqrt((x - ax) ** 2 + (y - ay) ** 2 + (np.float64(zplane) - az) ** 2)
    return want


CASES = [_harness.Case("cp", "cp", np.float32, make_args, expected, out=3)]
SIZES = {"tiny": 48, "small": 128, "dev": (256,), "accel": (1024,)}


def main(argv=None):
    return _harness.main(argv, CASES, SIZES)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
