"""Sequential loops around GPU nests (issue 21): time steps and sweeps whose nests are launched
again and again within one call with only scalars changed (the step `t`, the pivot `k`, a
coefficient computed on the host), host code between nests that reads what the device wrote, a
nest under an `if`, a nest whose bounds depend on the step. Written as a user would, with
prange nests in a time loop (cavity flow: a loop of sweeps inside each step);
tests/jitgpu/test_time_loops.py runs them on the OpenCL device against the interpreter,
bench/time_loops.py times them."""
import numpy as np

import unpython
from unpython import prange

F1 = 'ndarray[float64, 1]'
F2 = 'ndarray[float64, 2]'
F3 = 'ndarray[float64, 3]'


@unpython.gpu
@unpython.type('int64', F2, F2, None)
def jacobi2d(steps, a, b):
    n = a.shape[0]
    for t in range(steps):
        for i in prange(1, n - 1):
            for j in prange(1, n - 1):
                b[i, j] = 0.2 * (a[i, j] + a[i, j - 1] + a[i, j + 1] + a[i + 1, j] + a[i - 1, j])
        for i in prange(1, n - 1):
            for j in prange(1, n - 1):
                a[i, j] = 0.2 * (b[i, j] + b[i, j - 1] + b[i, j + 1] + b[i + 1, j] + b[i - 1, j])


@unpython.gpu
@unpython.type('int64', F2, None)
def jacobi_slices(steps, a):
    """Written with slices: the right side reads what the left writes, so every step makes a
    temporary (np.empty) for it, whose block the next step takes again."""
    for t in range(steps):
        a[1:-1, 1:-1] = 0.25 * (a[:-2, 1:-1] + a[2:, 1:-1] + a[1:-1, :-2] + a[1:-1, 2:])


@unpython.gpu
@unpython.type('int64', F3, F3, None)
def heat3d(steps, a, b):
    n = a.shape[0]
    for t in range(steps):
        for i in prange(1, n - 1):
            for j in prange(1, n - 1):
                for k in prange(1, n - 1):
                    b[i, j, k] = (0.125 * (a[i + 1, j, k] - 2.0 * a[i, j, k] + a[i - 1, j, k])
                                  + 0.125 * (a[i, j + 1, k] - 2.0 * a[i, j, k] + a[i, j - 1, k])
                                  + 0.125 * (a[i, j, k + 1] - 2.0 * a[i, j, k] + a[i, j, k - 1])
                                  + a[i, j, k])
        for i in prange(1, n - 1):
            for j in prange(1, n - 1):
                for k in prange(1, n - 1):
                    a[i, j, k] = (0.125 * (b[i + 1, j, k] - 2.0 * b[i, j, k] + b[i - 1, j, k])
                                  + 0.125 * (b[i, j + 1, k] - 2.0 * b[i, j, k] + b[i, j - 1, k])
                                  + 0.125 * (b[i, j, k + 1] - 2.0 * b[i, j, k] + b[i, j, k - 1])
                                  + b[i, j, k])


@unpython.gpu
@unpython.type('int64', F2, F2, F2, F1, None)
def fdtd2d(tmax, ex, ey, hz, fict):
    nx = ex.shape[0]
    ny = ex.shape[1]
    for t in range(tmax):
        for j in prange(ny):
            ey[0, j] = fict[t]
        for i in prange(1, nx):
            for j in prange(ny):
                ey[i, j] = ey[i, j] - 0.5 * (hz[i, j] - hz[i - 1, j])
        for i in prange(nx):
            for j in prange(1, ny):
                ex[i, j] = ex[i, j] - 0.5 * (hz[i, j] - hz[i, j - 1])
        for i in prange(nx - 1):
            for j in prange(ny - 1):
                hz[i, j] = hz[i, j] - 0.7 * (ex[i, j + 1] - ex[i, j] + ey[i + 1, j] - ey[i, j])


@unpython.gpu
@unpython.type(F2, None)
def floyd_warshall(path):
    n = path.shape[0]
    for k in range(n):
        for i in prange(n):
            for j in prange(n):
                path[i, j] = min(path[i, j], path[i, k] + path[k, j])


@unpython.gpu
@unpython.type('int64', 'float64', F2, F2, F2, F1, None)
def nbody_leapfrog(steps, dt, pos, vel, acc, mass):
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



@unpython.gpu
@unpython.type('int64', 'int64', F2, F2, 'float64', 'float64', 'float64', F2, 'float64',
               'float64', None)
def cavity_flow(nt, nit, u, v, dt, dx, dy, p, rho, nu):
    """Lid-driven cavity (Barba's "12 steps to Navier-Stokes", step 11): per time step the
    source term b, `nit` Jacobi sweeps of the pressure's Poisson equation each followed by its
    boundary conditions (in the textbook's order: the corners take the last one), then the
    velocities and theirs (the lid, row -1 of u, moves at 1)."""
    ny = u.shape[0]
    nx = u.shape[1]
    b = np.zeros((ny, nx))
    un = np.empty_like(u)
    vn = np.empty_like(v)
    pn = np.empty_like(p)
    for n in range(nt):
        for i in prange(ny):
            for j in prange(nx):
                un[i, j] = u[i, j]
                vn[i, j] = v[i, j]
        for i in prange(1, ny - 1):
            for j in prange(1, nx - 1):
                dudx = (u[i, j + 1] - u[i, j - 1]) / (2.0 * dx)
                dudy = (u[i + 1, j] - u[i - 1, j]) / (2.0 * dy)
                dvdx = (v[i, j + 1] - v[i, j - 1]) / (2.0 * dx)
                dvdy = (v[i + 1, j] - v[i - 1, j]) / (2.0 * dy)
                b[i, j] = rho * (1.0 / dt * (dudx + dvdy)
                                 - dudx * dudx - 2.0 * dudy * dvdx - dvdy * dvdy)
        for q in range(nit):
            for i in prange(ny):
                for j in prange(nx):
                    pn[i, j] = p[i, j]
            for i in prange(1, ny - 1):
                for j in prange(1, nx - 1):
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
            for j in prange(1, nx - 1):
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

@unpython.gpu
@unpython.type('int64', F1, F1, None)
def host_coefficient(steps, a, b):
    """A coefficient computed on the host each step, read by the nests as a value only."""
    n = a.shape[0]
    for t in range(steps):
        c = 1.0 / (t + 1.0)
        for i in prange(n):
            a[i] = a[i] + c * b[i]
        for i in prange(n):
            b[i] = b[i] * 0.5 + c


@unpython.gpu
@unpython.type('int64', F1, F1, F1, None)
def host_reads_between(steps, a, b, trace):
    """Host code between the nests reads (and writes) what the device just wrote."""
    n = a.shape[0]
    for t in range(steps):
        for i in prange(n):
            b[i] = a[i] * 0.5 + 1.0
        trace[t] = b[n // 2] + b[0]
        a[t % n] = trace[t]
        for i in prange(n):
            a[i] = a[i] + b[i] * 0.25


@unpython.gpu
@unpython.type('int64', F1, F1, None)
def nest_under_if(steps, a, b):
    """The set of nests launched changes per step."""
    n = a.shape[0]
    for t in range(steps):
        if t % 3 == 0:
            for i in prange(n):
                b[i] = b[i] + a[i]
        for i in prange(n):
            a[i] = a[i] * 0.5 + 1.0


@unpython.gpu
@unpython.type('int64', F1, F1, None)
def bounds_on_step(steps, a, b):
    """The nests' bounds and an index depend on the step."""
    n = a.shape[0]
    for t in range(steps):
        for i in prange(t, n):
            a[i] = a[i] + 1.0
        for i in prange(n - t):
            b[i] = b[i] + a[i + t]


@unpython.gpu
@unpython.type('int64', F2, F1, None)
def row_sweep(steps, grid, out):
    """Rows chosen by the step on the host: row `t % n` of grid read, the next one written."""
    n = grid.shape[0]
    m = grid.shape[1]
    for t in range(steps):
        r = t % n
        w = (t + 1) % n
        for j in prange(m):
            out[j] = out[j] + grid[r, j]
        for j in prange(m):
            grid[w, j] = grid[w, j] + out[j] * 0.5


@unpython.gpu
@unpython.type('int64', F2, F1, None)
def rows_around_zero(steps, grid, out):
    """Row `t - 2` of grid: rows -2 and -1 (Python's wrap-around), then 0, 1, ..."""
    m = grid.shape[1]
    for t in range(steps):
        for j in prange(m):
            out[j] = out[j] + grid[t - 2, j]


@unpython.gpu
@unpython.type('int64', 'ndarray[float32, 1]', 'ndarray[float32, 1]', None)
def float32_coefficient(steps, a, b):
    """A float32 coefficient the host computes each step: a 4-byte kernel argument."""
    n = a.shape[0]
    for t in range(steps):
        c = np.float32(0.5) / np.float32(t + 1)
        for i in prange(n):
            a[i] = a[i] * c + b[i]
        for i in prange(n):
            b[i] = b[i] - c


@unpython.gpu
@unpython.type('int64', F2, F1, None)
def rows_from_the_bottom(steps, grid, out):
    """Row `rows - 1 - t`: the step read with a negative coefficient, down to row 0 and past it
    into Python's negative indices (-1, -2: the last rows again)."""
    rows = grid.shape[0]
    m = grid.shape[1]
    for t in range(steps):
        for j in prange(m):
            out[j] = out[j] * 0.5 + grid[rows - 1 - t, j]
        for j in prange(m):
            grid[rows - 1 - t, j] = grid[rows - 1 - t, j] + 1.0


@unpython.gpu
@unpython.type('int64', F2, F1, None)
def rows_past_the_end(steps, grid, out):
    """Row `2 * t`: an IndexError once 2 * t passes the last row, after the rows before it
    were summed."""
    m = grid.shape[1]
    for t in range(steps):
        for j in prange(m):
            out[j] = out[j] + grid[2 * t, j]
        for j in prange(m):
            grid[2 * t, j] = 0.0


@unpython.gpu
@unpython.type(F2, F2, 'float64', 'int64', None)
def jacobi_until_converged(a, b, tol, most):
    """A convergence loop: Jacobi sweeps until the largest change (a reduction computed by a
    nest) is at most `tol`, or `most` sweeps."""
    n = a.shape[0]
    m = a.shape[1]
    err = tol + 1.0
    sweeps = 0
    while err > tol and sweeps < most:
        for i in prange(1, n - 1):
            for j in range(1, m - 1):
                b[i, j] = 0.25 * (a[i - 1, j] + a[i + 1, j] + a[i, j - 1] + a[i, j + 1])
        err = 0.0
        for i in prange(1, n - 1):
            for j in range(1, m - 1):
                err = max(err, abs(b[i, j] - a[i, j]))
        for i in prange(1, n - 1):
            for j in range(1, m - 1):
                a[i, j] = b[i, j]
        sweeps += 1


@unpython.gpu
@unpython.type('int64', 'ndarray[float32, 1]', 'ndarray[int64, 1]', 'ndarray[int32, 1]', F1,
               None)
def step_reductions(steps, x, k, m, trace):
    """Reductions of four types in a time loop (a float32 sum, an int64 min and max, an int32
    bitwise or), read by the host each step."""
    n = x.shape[0]
    for t in range(steps):
        s = np.float32(0.0)
        lo = 1 << 40
        hi = -(1 << 40)
        bits = np.int32(0)
        for i in prange(n):
            s += x[i] * np.float32(t + 1)
            lo = min(lo, k[i] - t)
            hi = max(hi, k[i] + t)
            bits |= m[i] + np.int32(t)
        trace[t] = float(s) + float(lo) * 1e-3 + float(hi) * 1e-6 + float(bits)


@unpython.gpu
@unpython.type('float64', F2, F2)
def source_term(dt, u):
    b = np.zeros_like(u)
    b[1:-1, 1:-1] = (u[1:-1, 2:] - u[1:-1, :-2]) / dt
    return b


@unpython.gpu
@unpython.type('int64', F2, F2, 'float64', None)
def new_temporaries(steps, u, v, dt):
    """Array statements as npbench's channel flow writes them: each step copies its arrays and
    calls a function that returns a new one, so its nests see new addresses every step."""
    for t in range(steps):
        un = u.copy()
        vn = v.copy()
        b = source_term(dt, u)
        u[1:-1, 1:-1] = (un[1:-1, 1:-1] + 0.1 * (un[2:, 1:-1] + un[:-2, 1:-1] - 2.0 * un[1:-1, 1:-1])
                         - 0.01 * b[1:-1, 1:-1])
        v[1:-1, 1:-1] = vn[1:-1, 1:-1] - 0.1 * un[1:-1, 1:-1] * (vn[1:-1, 2:] - vn[1:-1, :-2])
