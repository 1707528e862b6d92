"""Numba CUDA versions of the example kernels, written the naive way a Numba user would: one CUDA
thread per iteration of the example's `prange` levels (the innermost on the thread grid's x, so
that neighbouring threads touch neighbouring elements of a row), the same sequential loops inside,
no shared memory or tiling. bench/gpu.py times them beside unpy's OpenCL kernels.

`kernel(case)` returns a function with the example function's signature that does the whole trip
from NumPy arrays, as unpy's call does: `cuda.to_device` of each input array, the kernel, and
`copy_to_host` of the output into the caller's array. An output that is not also an input is only
allocated on the device, as unpy copies in only what is read, unless the kernel writes part of it
(stencil's border): then it is copied in too, so that `copy_to_host` brings back what it held.

The kernels are written once for both precisions: `cuda_kernels(dtype)` compiles them with that
dtype's zero as the accumulators' start, as the examples write `np.float32(0.0)` or `0.0`.
"""
import functools
import math

import numpy as np

if not hasattr(np, "row_stack"):  # numba-cuda still calls it; NumPy 2 removed it
    np.row_stack = np.vstack

from numba import cuda  # noqa: E402

THREADS_1D = 128
THREADS_2D = (16, 16)


@functools.cache
def cuda_kernels(dtype):
    """{example: CUDA kernel} with accumulators of `dtype`."""
    zero = np.dtype(dtype).type(0)

    @cuda.jit
    def mmult(a, b, c):
        j, i = cuda.grid(2)
        if i < c.shape[0] and j < c.shape[1]:
            s = zero
            for k in range(a.shape[1]):
                s += a[i, k] * b[k, j]
            c[i, j] = s

    @cuda.jit
    def nbody(x, y, z, out):
        i = cuda.grid(1)
        n = x.shape[0]
        if i < n:
            s = zero
            for j in range(n):
                dx = x[i] - x[j]
                dy = y[i] - y[j]
                dz = z[i] - z[j]
                s += math.sqrt(dx * dx + dy * dy + dz * dz)
            out[i] = s

    @cuda.jit
    def cp(atoms, spacing, zplane, e):
        i, j = cuda.grid(2)
        if j < e.shape[0] and i < e.shape[1]:
            x = np.float32(i) * spacing
            y = np.float32(j) * spacing
            s = zero
            for k in range(atoms.shape[0]):
                dx = x - atoms[k, 0]
                dy = y - atoms[k, 1]
                dz = zplane - atoms[k, 2]
                s += atoms[k, 3] / math.sqrt(dx * dx + dy * dy + dz * dz)
            e[j, i] = s

    @cuda.jit
    def syrk(alpha, a, beta, c):
        j, i = cuda.grid(2)
        if i < c.shape[0] and j <= i:  # triangular: threads above the diagonal do nothing
            s = zero
            for k in range(a.shape[1]):
                s += a[i, k] * a[j, k]
            c[i, j] = beta * c[i, j] + alpha * s

    @cuda.jit
    def syr2k(alpha, a, b, beta, c):
        j, i = cuda.grid(2)
        if i < c.shape[0] and j <= i:
            s = zero
            for k in range(a.shape[1]):
                s += a[i, k] * b[j, k] + b[i, k] * a[j, k]
            c[i, j] = beta * c[i, j] + alpha * s

    @cuda.jit
    def stencil(a, w0, w1, out):
        jj, ii = cuda.grid(2)
        i = ii + 1
        j = jj + 1
        if i < a.shape[0] - 1 and j < a.shape[1] - 1:
            out[i, j] = w0 * a[i, j] + w1 * (a[i - 1, j] + a[i + 1, j] + a[i, j - 1]
                                             + a[i, j + 1])

    return {"mmult": mmult, "nbody": nbody, "cp": cp, "syrk": syrk, "syr2k": syr2k,
            "stencil": stencil}


WRITES_PART_OF_OUTPUT = {"stencil"}

# The trip counts of each example's prange levels, outermost first, from its arguments.
ITERATIONS = {
    "mmult": lambda a, b, c: (a.shape[0], b.shape[1]),
    "nbody": lambda x, y, z, out: (x.shape[0],),
    "cp": lambda atoms, spacing, zplane, e: (e.shape[0], e.shape[1]),
    "syrk": lambda alpha, a, beta, c: (c.shape[0], c.shape[0]),
    "syr2k": lambda alpha, a, b, beta, c: (c.shape[0], c.shape[0]),
    "stencil": lambda a, w0, w1, out: (a.shape[0] - 2, a.shape[1] - 2),
}


def launch_shape(trips):
    """(blocks, threads per block) covering `trips` (outermost first) with one thread each; the
    innermost level is the grid's x."""
    if len(trips) == 1:
        return (trips[0] + THREADS_1D - 1) // THREADS_1D, THREADS_1D
    threads = THREADS_2D
    blocks = tuple((t + b - 1) // b for t, b in zip(reversed(trips), threads))
    return blocks, threads


def kernel(case):
    """The example function of `case` (an `_harness.Case`) as a Numba CUDA call from NumPy
    arrays, transfers included; compiles on its first call."""
    cuda_kernel = cuda_kernels(case.dtype)[case.kernel]
    iterations = ITERATIONS[case.kernel]

    def call(*args):
        on_device = []
        for k, value in enumerate(args):
            if not isinstance(value, np.ndarray):
                on_device.append(value)
            elif k == case.out and not case.inout and case.kernel not in WRITES_PART_OF_OUTPUT:
                on_device.append(cuda.device_array_like(value))
            else:
                on_device.append(cuda.to_device(value))
        blocks, threads = launch_shape(iterations(*args))
        cuda_kernel[blocks, threads](*on_device)
        on_device[case.out].copy_to_host(args[case.out])
        cuda.synchronize()

    call.__name__ = case.func
    return call


@functools.cache
def jacobi2d_kernels():
    """The two stencils of one jacobi-2d time step (examples/jacobi2d.py), one thread per
    interior point."""
    @cuda.jit
    def a_to_b(a, b):
        jj, ii = cuda.grid(2)
        i, j = ii + 1, jj + 1
        if i < a.shape[0] - 1 and j < a.shape[1] - 1:
            b[i, j] = 0.2 * (a[i, j] + a[i, j - 1] + a[i, j + 1] + a[i + 1, j] + a[i - 1, j])

    @cuda.jit
    def b_to_a(a, b):
        jj, ii = cuda.grid(2)
        i, j = ii + 1, jj + 1
        if i < a.shape[0] - 1 and j < a.shape[1] - 1:
            a[i, j] = 0.2 * (b[i, j] + b[i, j - 1] + b[i, j + 1] + b[i + 1, j] + b[i - 1, j])

    return a_to_b, b_to_a


def jacobi2d(steps, a, b):
    """jacobi-2d as a user who keeps the arrays on the device writes it (bench/resident.py):
    `cuda.to_device` once, `steps` times the two kernels, `copy_to_host` once per array (the
    function updates both, as the example's does)."""
    a_to_b, b_to_a = jacobi2d_kernels()
    on_a, on_b = cuda.to_device(a), cuda.to_device(b)
    blocks, threads = launch_shape((a.shape[0] - 2, a.shape[1] - 2))
    for _ in range(steps):
        a_to_b[blocks, threads](on_a, on_b)
        b_to_a[blocks, threads](on_a, on_b)
    on_a.copy_to_host(a)
    on_b.copy_to_host(b)
    cuda.synchronize()
