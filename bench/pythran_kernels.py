"""Pythran versions of the example kernels: the same loops, the outer `prange` of each written as
an OpenMP `parallel for` (Pythran has no prange; inner pranges become plain loops, as Numba
treats them). bench/cpu.py compiles this file with `pythran -fopenmp -O3 -march=native`."""
import math

import numpy as np

#pythran export mmult_f32(float32[:,:], float32[:,:], float32[:,:])
#pythran export mmult_f64(float64[:,:], float64[:,:], float64[:,:])
#pythran export nbody_f32(float32[:], float32[:], float32[:], float32[:])
#pythran export nbody_f64(float64[:], float64[:], float64[:], float64[:])
#pythran export cp(float32[:,:], float32, float32, float32[:,:])
#pythran export syrk_f32(float32, float32[:,:], float32, float32[:,:])
#pythran export syrk_f64(float64, float64[:,:], float64, float64[:,:])
#pythran export syr2k_f32(float32, float32[:,:], float32[:,:], float32, float32[:,:])
#pythran export syr2k_f64(float64, float64[:,:], float64[:,:], float64, float64[:,:])
#pythran export stencil(float64[:,:], float64, float64, float64[:,:])


def mmult_f32(a, b, c):
    m = a.shape[0]
    n = b.shape[1]
    p = a.shape[1]
    #omp parallel for
    for i in range(m):
        for j in range(n):
            s = np.float32(0.0)
            for k in range(p):
                s += a[i, k] * b[k, j]
            c[i, j] = s


def mmult_f64(a, b, c):
    m = a.shape[0]
    n = b.shape[1]
    p = a.shape[1]
    #omp parallel for
    for i in range(m):
        for j in range(n):
            s = 0.0
            for k in range(p):
                s += a[i, k] * b[k, j]
            c[i, j] = s


def nbody_f32(x, y, z, out):
    n = x.shape[0]
    #omp parallel for
    for i in range(n):
        s = np.float32(0.0)
        for j in range(n):
            dx = x[i] - x[j]
            dy = y[i] - y[j]
            dz = z[i] - z[j]
            s += np.sqrt(dx * dx + dy * dy + dz * dz)
        out[i] = s


def nbody_f64(x, y, z, out):
    n = x.shape[0]
    #omp parallel for
    for i in range(n):
        s = 0.0
        for j in range(n):
            dx = x[i] - x[j]
            dy = y[i] - y[j]
            dz = z[i] - z[j]
            s += math.sqrt(dx * dx + dy * dy + dz * dz)
        out[i] = s


def cp(atoms, spacing, zplane, e):
    natoms = atoms.shape[0]
    ny = e.shape[0]
    nx = e.shape[1]
    #omp parallel for
    for j in range(ny):
        for i in range(nx):
            x = np.float32(i) * spacing
            y = np.float32(j) * spacing
            s = np.float32(0.0)
            for k in range(natoms):
                dx = x - atoms[k, 0]
                dy = y - atoms[k, 1]
                dz = zplane - atoms[k, 2]
                s += atoms[k, 3] / np.sqrt(dx * dx + dy * dy + dz * dz)
            e[j, i] = s


def syrk_f32(alpha, a, beta, c):
    n = c.shape[0]
    p = a.shape[1]
    #omp parallel for
    for i in range(n):
        for j in range(i + 1):
            s = np.float32(0.0)
            for k in range(p):
                s += a[i, k] * a[j, k]
            c[i, j] = beta * c[i, j] + alpha * s


def syrk_f64(alpha, a, beta, c):
    n = c.shape[0]
    p = a.shape[1]
    #omp parallel for
    for i in range(n):
        for j in range(i + 1):
            s = 0.0
            for k in range(p):
                s += a[i, k] * a[j, k]
            c[i, j] = beta * c[i, j] + alpha * s


def syr2k_f32(alpha, a, b, beta, c):
    n = c.shape[0]
    p = a.shape[1]
    #omp parallel for
    for i in range(n):
        for j in range(i + 1):
            s = np.float32(0.0)
            for k in range(p):
                s += a[i, k] * b[j, k] + b[i, k] * a[j, k]
            c[i, j] = beta * c[i, j] + alpha * s


def syr2k_f64(alpha, a, b, beta, c):
    n = c.shape[0]
    p = a.shape[1]
    #omp parallel for
    for i in range(n):
        for j in range(i + 1):
            s = 0.0
            for k in range(p):
                s += a[i, k] * b[j, k] + b[i, k] * a[j, k]
            c[i, j] = beta * c[i, j] + alpha * s


def stencil(a, w0, w1, out):
    n = a.shape[0]
    m = a.shape[1]
    #omp parallel for
    for i in range(1, n - 1):
        for j in range(1, m - 1):
            out[i, j] = w0 * a[i, j] + w1 * (a[i - 1, j] + a[i + 1, j] + a[i, j - 1] + a[i, j + 1])
