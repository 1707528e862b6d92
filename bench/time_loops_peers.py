"""The peers of bench/time_loops.py (issue 21, item 4): the six time-loop programs of
tests/kernels/time_loops.py written as a Numba user and as a CuPy user would write them, each
with the unpy kernel's arguments in the same order and updating the same arrays in place, so that
the harness calls every column alike and compares the arrays after the call.

- Numba (`NUMBA`): `@numba.njit(parallel=True)`, the same loops with `numba.prange` on the
  outermost parallel loop of each nest (Numba parallelises that one only).
- CuPy (`CUPY`): from NumPy arrays, as the issue asks: the inputs copied to the GPU with
  `cupy.asarray`, the time loop in whole-array CuPy expressions (slices, broadcasting; no raw
  kernels), the results copied back into the NumPy arrays and the device synchronised before the
  function returns. Each takes the array module as `xp` (default: CuPy, imported when first
  needed), so tests/test_time_loop_peers.py runs them with a NumPy stand-in on a machine without
  a GPU. The arithmetic follows the unpy kernels' order of operations where a whole-array form
  allows it; the n-body accelerations are sums over j in NumPy's (pairwise) order.
"""
from __future__ import annotations

import numpy as np

try:
    import numba
    from numba import prange
    NUMBA_MISSING = None
except ImportError as error:        # the CuPy versions still import
    numba, prange = None, range
    NUMBA_MISSING = f"Numba does not import ({error})"


def parallel_njit(func):
    """`@numba.njit(parallel=True)`; where Numba is missing the plain function (its column is
    skipped with NUMBA_MISSING as the reason)."""
    return numba.njit(parallel=True)(func) if numba is not None else func


def cupy_module():
    import cupy
    return cupy


# --- Numba ---------------------------------------------------------------------------------

@parallel_njit
def numba_jacobi2d(steps, a, b):
    n = a.shape[0]
    for t in range(steps):
        for i in prange(1, n - 1):
            for j in range(1, n - 1):
                b[i, j] = 0.2 * (a[i, j] + a[i, j - 1] + a[i, j + 1] + a[i + 1, j] + a[i - 1, j])
        for i in prange(1, n - 1):
            for j in range(1, n - 1):
                a[i, j] = 0.2 * (b[i, j] + b[i, j - 1] + b[i, j + 1] + b[i + 1, j] + b[i - 1, j])


@parallel_njit
def numba_heat3d(steps, a, b):
    n = a.shape[0]
    for t in range(steps):
        for i in prange(1, n - 1):
            for j in range(1, n - 1):
                for k in range(1, n - 1):
                    b[i, j, k] = (0.125 * (a[i + 1, j, k] - 2.0 * a[i, j, k] + a[i - 1, j, k])
                                  + 0.125 * (a[i, j + 1, k] - 2.0 * a[i, j, k] + a[i, j - 1, k])
                                  + 0.125 * (a[i, j, k + 1] - 2.0 * a[i, j, k] + a[i, j, k - 1])
                                  + a[i, j, k])
        for i in prange(1, n - 1):
            for j in range(1, n - 1):
                for k in range(1, n - 1):
                    a[i, j, k] = (0.125 * (b[i + 1, j, k] - 2.0 * b[i, j, k] + b[i - 1, j, k])
                                  + 0.125 * (b[i, j + 1, k] - 2.0 * b[i, j, k] + b[i, j - 1, k])
                                  + 0.125 * (b[i, j, k + 1] - 2.0 * b[i, j, k] + b[i, j, k - 1])
                                  + b[i, j, k])


@parallel_njit
def numba_fdtd2d(tmax, ex, ey, hz, fict):
    nx = ex.shape[0]
    ny = ex.shape[1]
    for t in range(tmax):
        for j in prange(ny):
            ey[0, j] = fict[t]
        for i in prange(1, nx):
            for j in range(ny):
                ey[i, j] = ey[i, j] - 0.5 * (hz[i, j] - hz[i - 1, j])
        for i in prange(nx):
            for j in range(1, ny):
                ex[i, j] = ex[i, j] - 0.5 * (hz[i, j] - hz[i, j - 1])
        for i in prange(nx - 1):
            for j in range(ny - 1):
                hz[i, j] = hz[i, j] - 0.7 * (ex[i, j + 1] - ex[i, j] + ey[i + 1, j] - ey[i, j])


@parallel_njit
def numba_floyd_warshall(path):
    n = path.shape[0]
    for k in range(n):
        for i in prange(n):
            for j in range(n):
                path[i, j] = min(path[i, j], path[i, k] + path[k, j])


@parallel_njit
def numba_nbody_leapfrog(steps, dt, pos, vel, acc, mass):
    n = pos.shape[0]
    for s in range(steps):
        for i in prange(n):
            for d in range(3):
                vel[i, d] = vel[i, d] + 0.5 * dt * acc[i, d]
        for i in prange(n):
            for d in range(3):
                pos[i, d] = pos[i, d] + dt * vel[i, d]
        for i in prange(n):
            ax = 0.0
            ay = 0.0
            az = 0.0
            for j in range(n):
                dx = pos[j, 0] - pos[i, 0]
                dy = pos[j, 1] - pos[i, 1]
                dz = pos[j, 2] - pos[i, 2]
                r2 = dx * dx + dy * dy + dz * dz + 0.01
                inv = mass[j] / (r2 * np.sqrt(r2))
                ax += dx * inv
                ay += dy * inv
                az += dz * inv
            acc[i, 0] = ax
            acc[i, 1] = ay
            acc[i, 2] = az
        for i in prange(n):
            for d in range(3):
                vel[i, d] = vel[i, d] + 0.5 * dt * acc[i, d]


@parallel_njit
def numba_cavity_flow(nt, nit, u, v, dt, dx, dy, p, rho, nu):
    ny = u.shape[0]
    nx = u.shape[1]
    b = np.zeros((ny, nx))
    un = np.empty_like(u)
    vn = np.empty_like(v)
    pn = np.empty_like(p)
    for n in range(nt):
        for i in prange(ny):
            for j in range(nx):
                un[i, j] = u[i, j]
                vn[i, j] = v[i, j]
        for i in prange(1, ny - 1):
            for j in range(1, nx - 1):
                dudx = (u[i, j + 1] - u[i, j - 1]) / (2.0 * dx)
                dudy = (u[i + 1, j] - u[i - 1, j]) / (2.0 * dy)
                dvdx = (v[i, j + 1] - v[i, j - 1]) / (2.0 * dx)
                dvdy = (v[i + 1, j] - v[i - 1, j]) / (2.0 * dy)
                b[i, j] = rho * (1.0 / dt * (dudx + dvdy)
                                 - dudx * dudx - 2.0 * dudy * dvdx - dvdy * dvdy)
        for q in range(nit):
            for i in prange(ny):
                for j in range(nx):
                    pn[i, j] = p[i, j]
            for i in prange(1, ny - 1):
                for j in range(1, nx - 1):
                    p[i, j] = (((pn[i, j + 1] + pn[i, j - 1]) * (dy * dy)
                                + (pn[i + 1, j] + pn[i - 1, j]) * (dx * dx))
                               / (2.0 * (dx * dx + dy * dy))
                               - (dx * dx) * (dy * dy) / (2.0 * (dx * dx + dy * dy)) * b[i, j])
            for i in prange(ny):
                p[i, nx - 1] = p[i, nx - 2]
            for j in prange(nx):
                p[0, j] = p[1, j]
            for i in prange(ny):
                p[i, 0] = p[i, 1]
            for j in prange(nx):
                p[ny - 1, j] = 0.0
        for i in prange(1, ny - 1):
            for j in range(1, nx - 1):
                u[i, j] = (un[i, j]
                           - un[i, j] * dt / dx * (un[i, j] - un[i, j - 1])
                           - vn[i, j] * dt / dy * (un[i, j] - un[i - 1, j])
                           - dt / (2.0 * rho * dx) * (p[i, j + 1] - p[i, j - 1])
                           + nu * (dt / (dx * dx) * (un[i, j + 1] - 2.0 * un[i, j] + un[i, j - 1])
                                   + dt / (dy * dy) * (un[i + 1, j] - 2.0 * un[i, j]
                                                       + un[i - 1, j])))
                v[i, j] = (vn[i, j]
                           - un[i, j] * dt / dx * (vn[i, j] - vn[i, j - 1])
                           - vn[i, j] * dt / dy * (vn[i, j] - vn[i - 1, j])
                           - dt / (2.0 * rho * dy) * (p[i + 1, j] - p[i - 1, j])
                           + nu * (dt / (dx * dx) * (vn[i, j + 1] - 2.0 * vn[i, j] + vn[i, j - 1])
                                   + dt / (dy * dy) * (vn[i + 1, j] - 2.0 * vn[i, j]
                                                       + vn[i - 1, j])))
        for j in prange(nx):
            u[0, j] = 0.0
            v[0, j] = 0.0
            v[ny - 1, j] = 0.0
        for i in prange(ny):
            u[i, 0] = 0.0
            u[i, nx - 1] = 0.0
            v[i, 0] = 0.0
            v[i, nx - 1] = 0.0
        for j in prange(nx):
            u[ny - 1, j] = 1.0


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
NUMBA = {name: globals()[f"numba_{name}"] for name in PROGRAMS}
CUPY = {name: globals()[f"cupy_{name}"] for name in PROGRAMS}
