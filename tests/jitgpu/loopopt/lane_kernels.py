"""@gpu kernels for the lane_split tests (tests/jitgpu/loopopt/test_lane_split.py): a parallel
iteration's sequential reduction loop, as nbody and cp write it, and the loops the pass must
refuse."""
import math

import numpy as np
import unpython
from unpython import prange


@unpython.gpu
@unpython.type('ndarray[float32,1]', 'ndarray[float32,1]', 'ndarray[float32,1]',
               'ndarray[float32,1]', None)
def nbody_f32(x, y, z, out):
    for i in prange(x.shape[0]):
        s = np.float32(0.0)
        for j in range(x.shape[0]):
            dx = x[i] - x[j]
            dy = y[i] - y[j]
            dz = z[i] - z[j]
            s += np.sqrt(dx * dx + dy * dy + dz * dz)
        out[i] = s


@unpython.gpu
@unpython.type('ndarray[float64,1]', 'ndarray[float64,1]', 'ndarray[float64,1]',
               'ndarray[float64,1]', None)
def nbody_f64(x, y, z, out):
    for i in prange(x.shape[0]):
        s = 0.0
        for j in range(x.shape[0]):
            dx = x[i] - x[j]
            dy = y[i] - y[j]
            dz = z[i] - z[j]
            s += math.sqrt(dx * dx + dy * dy + dz * dz)
        out[i] = s


@unpython.gpu
@unpython.type('ndarray[float64,2]', 'ndarray[float64,1]', None)
def row_range(a, out):
    # min and max from the row's first element, a nonzero start; a subtraction after the loop.
    for i in prange(a.shape[0]):
        lo = a[i, 0]
        hi = a[i, 0]
        for j in range(1, a.shape[1]):
            lo = min(lo, a[i, j])
            hi = max(hi, a[i, j])
        out[i] = hi - lo


@unpython.gpu
@unpython.type('ndarray[int64,2]', 'ndarray[int64,1]', None)
def int_row_sums(a, out):
    # Integer sums (exact whatever the order), one a difference, one a product that wraps.
    for i in prange(a.shape[0]):
        s = 7
        d = 0
        p = 1
        for j in range(a.shape[1]):
            v = a[i, j]
            s += v
            d -= v * (j + 1)
            p *= v | 1
        out[i] = s + 3 * d + p


@unpython.gpu
@unpython.type('ndarray[float32,2]', 'float32', 'ndarray[float32,2]', None)
def grid_potential(atoms, spacing, e):
    # cp: two pranges, a sum over the atoms.
    for j in prange(e.shape[0]):
        for i in prange(e.shape[1]):
            x = np.float32(i) * spacing
            y = np.float32(j) * spacing
            s = np.float32(0)
            for k in range(atoms.shape[0]):
                dx = x - atoms[k, 0]
                dy = y - atoms[k, 1]
                s += atoms[k, 2] / np.sqrt(dx * dx + dy * dy + np.float32(1))
            e[j, i] = s


@unpython.gpu
@unpython.type('ndarray[float64,1]', 'ndarray[float64,1]', 'ndarray[float64,1]', None)
def strided_dot(a, w, out):
    # start 3, step 2, an `if` in the loop; a temporary before the loop.
    for i in prange(out.shape[0]):
        wi = w[i] * 0.5
        s = 0.0
        for j in range(3, a.shape[0], 2):
            t = a[j] * wi
            if t > 0:
                s += t
            else:
                s -= 0.25 * t
        out[i] = s


@unpython.gpu
@unpython.type('ndarray[float64,1]', 'ndarray[float64,1]', 'ndarray[float64,1]', None)
def backwards_sum(a, w, out):
    # A negative step.
    for i in prange(out.shape[0]):
        s = w[i]
        for j in range(a.shape[0] - 1, 0, -3):
            s += a[j] * w[i]
        out[i] = s


@unpython.gpu
@unpython.type('ndarray[int64,1]', 'ndarray[int64,1]', 'ndarray[int64,1]', None)
def floor_quotients(a, b, out):
    # Raises ZeroDivisionError where b holds a zero (the kernel sets its error flag).
    for i in prange(out.shape[0]):
        s = 0
        for j in range(b.shape[0]):
            s += a[i] // b[j]
        out[i] = s


@unpython.gpu
@unpython.type('ndarray[float64,2]', 'ndarray[float64,1]', 'float64')
def total_and_rows(a, out):
    # A prange reduction updated in the split loop beside the row's own accumulator.
    total = 0.0
    for i in prange(a.shape[0]):
        s = 0.0
        for j in range(a.shape[1]):
            s += a[i, j]
            total += a[i, j] * a[i, j]
        out[i] = s
    return total


@unpython.gpu
@unpython.type('ndarray[float64,2]', 'ndarray[float64,2]', None)
def tri_products(a, c):
    # A triangular prange: the work-items of a row past the diagonal reach the barriers too.
    for i in prange(c.shape[0]):
        for j in prange(i + 1):
            s = 0.0
            for k in range(a.shape[1]):
                s += a[i, k] * a[j, k]
            c[i, j] = s


@unpython.gpu
@unpython.type('ndarray[float64,2]', 'int64', 'ndarray[float64,1]', 'ndarray[int64,1]', None)
def windowed_sums(a, start, out, count):
    # Bounds from a scalar: loops of any length, none included; an integer count beside.
    for i in prange(a.shape[0]):
        s = 0.0
        c = 0
        for j in range(start, a.shape[1], 2):
            s += a[i, j]
            if a[i, j] > 0:
                c += 1
        out[i] = s
        count[i] = c


# --- refused ------------------------------------------------------------------------------

@unpython.gpu
@unpython.type('ndarray[float64,2]', 'ndarray[float64,1]', None)
def stores_in_loop(a, out):
    for i in prange(a.shape[0]):
        for j in range(a.shape[1]):
            out[i] += a[i, j]


@unpython.gpu
@unpython.type('ndarray[float64,2]', 'ndarray[float64,1]', 'ndarray[float64,1]', None)
def stores_before_loop(a, first, out):
    # Every lane runs the statements before the loop: a store there is made L times.
    for i in prange(a.shape[0]):
        first[i] = a[i, 0]
        s = 0.0
        for j in range(a.shape[1]):
            s += a[i, j]
        out[i] = s


@unpython.gpu
@unpython.type('ndarray[float64,2]', 'ndarray[float64,1]', None)
def recurrence(a, out):
    # s is read in a way that is no reduction: the order of the iterations matters.
    for i in prange(a.shape[0]):
        s = 0.0
        for j in range(a.shape[1]):
            s = 0.5 * s + a[i, j]
        out[i] = s


@unpython.gpu
@unpython.type('ndarray[float64,2]', 'ndarray[float64,1]', None)
def reads_running_sum(a, out):
    for i in prange(a.shape[0]):
        s = 0.0
        m = 0.0
        for j in range(a.shape[1]):
            s += a[i, j]
            m = max(m, s)
        out[i] = m


@unpython.gpu
@unpython.type('ndarray[float64,2]', 'ndarray[float64,1]', None)
def last_temporary(a, out):
    # t after the loop is the last iteration's value, which lane 0 may not have computed.
    for i in prange(a.shape[0]):
        s = 0.0
        t = 0.0
        for j in range(a.shape[1]):
            t = a[i, j] * 2.0
            s += t
        out[i] = s + t


@unpython.gpu
@unpython.type('ndarray[float64,2]', 'ndarray[float64,1]', None)
def nan_second_min(a, out):
    # min(e, s) keeps e where s is a nan: the order of the iterations matters.
    for i in prange(a.shape[0]):
        s = 1e300
        for j in range(a.shape[1]):
            s = min(a[i, j], s)
        out[i] = s


@unpython.gpu
@unpython.type('ndarray[float64,3]', 'ndarray[float64,2]', 'ndarray[float64,3]', None)
def three_levels(a, w, out):
    for i in prange(out.shape[0]):
        for j in prange(out.shape[1]):
            for k in prange(out.shape[2]):
                s = 0.0
                for m in range(w.shape[1]):
                    s += a[i, j, k] * w[k, m]
                out[i, j, k] = s
