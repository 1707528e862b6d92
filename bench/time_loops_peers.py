"""The peers of bench/time_loops.py (issue 21, item 4): the six time-loop programs of
tests/kernels/time_loops.py under Numba and written as a CuPy user would write them, each with
the unpy kernel's arguments in the same order and updating the same arrays in place, so that the
harness calls every column alike and compares the arrays after the call.

- Numba (`NUMBA`): the same source under `@numba.njit(parallel=True)`, `unpython.prange` read as
  `numba.prange` (bench/numpy_expr.py's `numba_function`; Numba parallelises the outermost).
- CuPy (`CUPY`): from NumPy arrays, as the issue asks: the inputs copied to the GPU with
  `cupy.asarray`, the time loop in whole-array CuPy expressions (slices, broadcasting; no raw
  kernels), the results copied back into the NumPy arrays and the device synchronised before the
  function returns. Each takes the array module as `xp` (default: CuPy, imported when first
  needed), so tests/test_time_loop_peers.py runs them with a NumPy stand-in on a machine without
  a GPU. The arithmetic follows the unpy kernels' order of operations where a whole-array form
  allows it; the n-body accelerations are sums over j in NumPy's (pairwise) order.
"""
from __future__ import annotations

import importlib.util
from pathlib import Path

from numpy_expr import numba_function

try:
    import numba  # noqa: F401
    NUMBA_MISSING = None
except ImportError as error:        # the CuPy versions still import
    NUMBA_MISSING = f"Numba does not import ({error})"

KERNELS = Path(__file__).resolve().parents[1] / "tests" / "kernels" / "time_loops.py"


def numba_versions() -> dict:
    """The programs of tests/kernels/time_loops.py, run by the interpreter, under
    `@numba.njit(parallel=True)` with `numba.prange` for `unpython.prange`: Numba on the same
    source, as bench/numpy_expr.py runs it (where Numba is missing the plain functions: the
    column is skipped with NUMBA_MISSING as the reason)."""
    spec = importlib.util.spec_from_file_location("numba_time_loops", KERNELS)
    source = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(source)
    return {name: getattr(source, name) if NUMBA_MISSING else
            numba_function(getattr(source, name), loops=True) for name in PROGRAMS}


def cupy_module():
    import cupy
    return cupy


# --- CuPy, from NumPy arrays ----------------------------------------------------------------

def copy_back(xp, pairs):
    """Each device array's values into its NumPy array, then wait for the device."""
    for host, device in pairs:
        host[...] = xp.asnumpy(device)
    xp.cuda.Device().synchronize()


def cupy_jacobi2d(steps, a, b, xp=None):
    xp = xp or cupy_module()
    A, B = xp.asarray(a), xp.asarray(b)
    for t in range(steps):
        B[1:-1, 1:-1] = 0.2 * (A[1:-1, 1:-1] + A[1:-1, :-2] + A[1:-1, 2:] + A[2:, 1:-1]
                               + A[:-2, 1:-1])
        A[1:-1, 1:-1] = 0.2 * (B[1:-1, 1:-1] + B[1:-1, :-2] + B[1:-1, 2:] + B[2:, 1:-1]
                               + B[:-2, 1:-1])
    copy_back(xp, [(a, A), (b, B)])


def cupy_heat3d(steps, a, b, xp=None):
    xp = xp or cupy_module()
    A, B = xp.asarray(a), xp.asarray(b)
    for t in range(steps):
        for src, dst in ((A, B), (B, A)):
            mid = src[1:-1, 1:-1, 1:-1]
            dst[1:-1, 1:-1, 1:-1] = (
                0.125 * (src[2:, 1:-1, 1:-1] - 2.0 * mid + src[:-2, 1:-1, 1:-1])
                + 0.125 * (src[1:-1, 2:, 1:-1] - 2.0 * mid + src[1:-1, :-2, 1:-1])
                + 0.125 * (src[1:-1, 1:-1, 2:] - 2.0 * mid + src[1:-1, 1:-1, :-2])
                + mid)
    copy_back(xp, [(a, A), (b, B)])


def cupy_fdtd2d(tmax, ex, ey, hz, fict, xp=None):
    xp = xp or cupy_module()
    EX, EY, HZ, FICT = xp.asarray(ex), xp.asarray(ey), xp.asarray(hz), xp.asarray(fict)
    for t in range(tmax):
        EY[0, :] = FICT[t]
        EY[1:, :] = EY[1:, :] - 0.5 * (HZ[1:, :] - HZ[:-1, :])
        EX[:, 1:] = EX[:, 1:] - 0.5 * (HZ[:, 1:] - HZ[:, :-1])
        HZ[:-1, :-1] = HZ[:-1, :-1] - 0.7 * (EX[:-1, 1:] - EX[:-1, :-1] + EY[1:, :-1]
                                             - EY[:-1, :-1])
    copy_back(xp, [(ex, EX), (ey, EY), (hz, HZ)])


def cupy_floyd_warshall(path, xp=None):
    xp = xp or cupy_module()
    P = xp.asarray(path)
    for k in range(P.shape[0]):
        xp.minimum(P, P[:, k, None] + P[k, None, :], out=P)
    copy_back(xp, [(path, P)])


def cupy_nbody_leapfrog(steps, dt, pos, vel, acc, mass, xp=None):
    xp = xp or cupy_module()
    X, V, A, M = xp.asarray(pos), xp.asarray(vel), xp.asarray(acc), xp.asarray(mass)
    for s in range(steps):
        V += 0.5 * dt * A
        X += dt * V
        d = X[None, :, :] - X[:, None, :]           # d[i, j] = pos[j] - pos[i]
        r2 = (d * d).sum(axis=2) + 0.01
        inv = M[None, :] / (r2 * xp.sqrt(r2))
        A = (d * inv[:, :, None]).sum(axis=1)
        V += 0.5 * dt * A
    copy_back(xp, [(pos, X), (vel, V), (acc, A)])


def cupy_cavity_flow(nt, nit, u, v, dt, dx, dy, p, rho, nu, xp=None):
    xp = xp or cupy_module()
    U, V, P = xp.asarray(u), xp.asarray(v), xp.asarray(p)
    B = xp.zeros_like(P)
    for n in range(nt):
        UN, VN = U.copy(), V.copy()
        dudx = (U[1:-1, 2:] - U[1:-1, :-2]) / (2.0 * dx)
        dudy = (U[2:, 1:-1] - U[:-2, 1:-1]) / (2.0 * dy)
        dvdx = (V[1:-1, 2:] - V[1:-1, :-2]) / (2.0 * dx)
        dvdy = (V[2:, 1:-1] - V[:-2, 1:-1]) / (2.0 * dy)
        B[1:-1, 1:-1] = rho * (1.0 / dt * (dudx + dvdy)
                               - dudx * dudx - 2.0 * dudy * dvdx - dvdy * dvdy)
        for q in range(nit):
            PN = P.copy()
            P[1:-1, 1:-1] = (((PN[1:-1, 2:] + PN[1:-1, :-2]) * (dy * dy)
                              + (PN[2:, 1:-1] + PN[:-2, 1:-1]) * (dx * dx))
                             / (2.0 * (dx * dx + dy * dy))
                             - (dx * dx) * (dy * dy) / (2.0 * (dx * dx + dy * dy))
                             * B[1:-1, 1:-1])
            P[:, -1] = P[:, -2]
            P[0, :] = P[1, :]
            P[:, 0] = P[:, 1]
            P[-1, :] = 0.0
        un, vn = UN[1:-1, 1:-1], VN[1:-1, 1:-1]
        U[1:-1, 1:-1] = (un
                         - un * dt / dx * (un - UN[1:-1, :-2])
                         - vn * dt / dy * (un - UN[:-2, 1:-1])
                         - dt / (2.0 * rho * dx) * (P[1:-1, 2:] - P[1:-1, :-2])
                         + nu * (dt / (dx * dx) * (UN[1:-1, 2:] - 2.0 * un + UN[1:-1, :-2])
                                 + dt / (dy * dy) * (UN[2:, 1:-1] - 2.0 * un + UN[:-2, 1:-1])))
        V[1:-1, 1:-1] = (vn
                         - un * dt / dx * (vn - VN[1:-1, :-2])
                         - vn * dt / dy * (vn - VN[:-2, 1:-1])
                         - dt / (2.0 * rho * dy) * (P[2:, 1:-1] - P[:-2, 1:-1])
                         + nu * (dt / (dx * dx) * (VN[1:-1, 2:] - 2.0 * vn + VN[1:-1, :-2])
                                 + dt / (dy * dy) * (VN[2:, 1:-1] - 2.0 * vn + VN[:-2, 1:-1])))
        U[0, :] = 0.0
        U[:, 0] = 0.0
        U[:, -1] = 0.0
        U[-1, :] = 1.0
        V[0, :] = 0.0
        V[-1, :] = 0.0
        V[:, 0] = 0.0
        V[:, -1] = 0.0
    copy_back(xp, [(u, U), (v, V), (p, P)])


PROGRAMS = ("jacobi2d", "heat3d", "fdtd2d", "floyd_warshall", "nbody_leapfrog", "cavity_flow")
NUMBA = numba_versions()
CUPY = {name: globals()[f"cupy_{name}"] for name in PROGRAMS}
