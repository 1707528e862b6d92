"""Kernels for Lime's memory spaces (jitgpu/loopopt: constant_space, structure_loads)."""
import numpy as np

import unpython
from unpython import prange


@unpython.gpu
@unpython.type('ndarray[float32,2]', 'ndarray[float32,1]', 'ndarray[float32,1]', None)
def structs4(atoms, x, out):
    # cp's array of structures: every lane read in one block, at an index no work-item changes.
    for i in prange(x.shape[0]):
        s = np.float32(0.0)
        for k in range(atoms.shape[0]):
            dx = x[i] - atoms[k, 0]
            dy = x[i] * np.float32(0.5) - atoms[k, 1]
            dz = atoms[k, 2]
            s += atoms[k, 3] / (dx * dx + dy * dy + dz * dz + np.float32(1.0))
        out[i] = s


@unpython.gpu
@unpython.type('ndarray[float64,2]', 'ndarray[float64,2]', None)
def structs2_rows(pts, out):
    # Structures of two float64 read at the work-item's own row: global, double2 lanes.
    for i in prange(pts.shape[0]):
        for j in prange(out.shape[1]):
            out[i, j] = pts[i, 0] * j + pts[i, 1]


@unpython.gpu
@unpython.type('ndarray[float64,1]', 'ndarray[float64,1]', 'ndarray[float64,1]', None)
def poly(coeffs, x, out):
    # Coefficients read at literal indices (no loop at all) and by an inner loop.
    for i in prange(x.shape[0]):
        v = coeffs[0] + coeffs[1] * x[i]
        for k in range(2, coeffs.shape[0]):
            v = v * x[i] + coeffs[k]
        out[i] = v


@unpython.gpu
@unpython.type('ndarray[float64,1]', 'ndarray[float64,1]', None)
def double_once(table, x):
    # table is read at invariant indices but written (by one iteration): never constant.
    for i in prange(x.shape[0]):
        x[i] = x[i] * 2.0
        if i == 0:
            for k in range(table.shape[0]):
                table[k] = table[k] * 2.0



@unpython.gpu
@unpython.type('ndarray[float32,2]', 'ndarray[float32,1]', 'ndarray[float32,1]', 'int64', None)
def structs4_steps(atoms, x, out, count):
    # A nest in a time loop: data kept on the device, groups mirror whole views (index
    # expressions instead of loop terms in the device indices).
    for t in range(count):
        for i in prange(x.shape[0]):
            s = out[i]
            for k in range(atoms.shape[0]):
                dx = x[i] - atoms[k, 0]
                s += atoms[k, 3] * dx + atoms[k, 1] * atoms[k, 2]
            out[i] = s * np.float32(0.5)
