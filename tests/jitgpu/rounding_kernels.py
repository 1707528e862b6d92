"""Kernels that amplify a rounding difference (tests/jitgpu/test_rounding.py): an escape-time
count, a threshold on a quantity that is exactly 0 when rounded twice, a chaotic recurrence.
Each has a `a * b + c` that an OpenCL compiler contracts into an FMA unless told not to; the
device must round as the interpreter does, bit for bit. Also one element-wise operation per
function, to compare the device's math functions with the host's."""

import numpy as np

import unpython
from unpython import prange


@unpython.gpu
@unpython.type('ndarray[float64,1]', 'ndarray[float64,1]', 'int64', 'ndarray[int64,2]', None)
def mandelbrot(xs, ys, maxiter, counts):
    for i in prange(ys.shape[0]):
        for j in range(xs.shape[0]):
            cr = xs[j]
            ci = ys[i]
            zr = 0.0
            zi = 0.0
            n = 0
            while n < maxiter and zr * zr + zi * zi <= 4.0:
                t = zr * zr - zi * zi + cr
                zi = 2.0 * zr * zi + ci
                zr = t
                n += 1
            counts[i, j] = n


@unpython.gpu
@unpython.type('ndarray[float32,1]', 'ndarray[float32,1]', 'int64', 'ndarray[int64,2]', None)
def mandelbrot_f32(xs, ys, maxiter, counts):
    for i in prange(ys.shape[0]):
        for j in range(xs.shape[0]):
            cr = xs[j]
            ci = ys[i]
            zr = np.float32(0.0)
            zi = np.float32(0.0)
            n = 0
            while n < maxiter and zr * zr + zi * zi <= 4.0:
                t = zr * zr - zi * zi + cr
                zi = 2.0 * zr * zi + ci
                zr = t
                n += 1
            counts[i, j] = n


@unpython.gpu
@unpython.type('ndarray[float64,1]', 'ndarray[float64,1]', 'ndarray[float64,1]',
               'ndarray[int64,1]', None)
def threshold(a, b, c, out):
    # With c = -(a * b) rounded, a * b + c is 0 rounded twice, and the rounding error of
    # a * b (either sign) as an FMA.
    for i in prange(a.shape[0]):
        out[i] = 1 if a[i] * b[i] + c[i] > 0.0 else 0


@unpython.gpu
@unpython.type('ndarray[float32,1]', 'ndarray[float32,1]', 'ndarray[float32,1]',
               'ndarray[int64,1]', None)
def threshold_f32(a, b, c, out):
    for i in prange(a.shape[0]):
        out[i] = 1 if a[i] * b[i] + c[i] > 0.0 else 0


@unpython.gpu
@unpython.type('ndarray[float64,1]', 'ndarray[float64,1]', 'int64', None)
def henon(x, y, steps):
    # The Henon map, chaotic: a difference of one rounding grows to the whole attractor.
    for i in prange(x.shape[0]):
        u = x[i]
        v = y[i]
        for k in range(steps):
            t = 1.0 - 1.4 * u * u + v
            v = 0.3 * u
            u = t
        x[i] = u
        y[i] = v


@unpython.gpu
@unpython.type('ndarray[float32,1]', 'ndarray[float32,1]', 'int64', None)
def henon_f32(x, y, steps):
    for i in prange(x.shape[0]):
        u = x[i]
        v = y[i]
        for k in range(steps):
            t = 1.0 - 1.4 * u * u + v
            v = 0.3 * u
            u = t
        x[i] = u
        y[i] = v


@unpython.gpu
@unpython.type('ndarray[float32,1]', 'ndarray[float32,1]', 'ndarray[float32,1]', None)
def square_plus_f32(a, b, out):
    for i in prange(a.shape[0]):
        out[i] = a[i] + b[i] * b[i]


# --- one operation or function per kernel (float64, then float32) ----------------------------

@unpython.gpu
@unpython.type('ndarray[float64,1]', 'ndarray[float64,1]', 'ndarray[float64,2]', None)
def exact_f64(a, b, out):
    for i in prange(a.shape[0]):
        out[0, i] = a[i] + b[i]
        out[1, i] = a[i] - b[i]
        out[2, i] = a[i] * b[i]
        out[3, i] = a[i] / b[i]
        out[4, i] = np.sqrt(abs(a[i]))
        out[5, i] = np.floor(a[i])
        out[6, i] = np.rint(a[i])
        out[7, i] = a[i] % b[i]


@unpython.gpu
@unpython.type('ndarray[float32,1]', 'ndarray[float32,1]', 'ndarray[float32,2]', None)
def exact_f32(a, b, out):
    for i in prange(a.shape[0]):
        out[0, i] = a[i] + b[i]
        out[1, i] = a[i] - b[i]
        out[2, i] = a[i] * b[i]
        out[3, i] = a[i] / b[i]
        out[4, i] = np.sqrt(abs(a[i]))
        out[5, i] = np.floor(a[i])
        out[6, i] = np.rint(a[i])
        out[7, i] = a[i] % b[i]


FUNCTIONS = ["sin", "cos", "tan", "exp", "exp2", "expm1", "log", "log2", "log10", "log1p",
             "cbrt", "arcsin", "arccos", "arctan", "sinh", "cosh", "tanh", "arctan2", "power",
             "hypot"]


@unpython.gpu
@unpython.type('ndarray[float64,1]', 'ndarray[float64,1]', 'ndarray[float64,2]', None)
def functions_f64(a, b, out):
    for i in prange(a.shape[0]):
        out[0, i] = np.sin(a[i])
        out[1, i] = np.cos(a[i])
        out[2, i] = np.tan(a[i])
        out[3, i] = np.exp(b[i])
        out[4, i] = np.exp2(b[i])
        out[5, i] = np.expm1(b[i])
        out[6, i] = np.log(abs(a[i]))
        out[7, i] = np.log2(abs(a[i]))
        out[8, i] = np.log10(abs(a[i]))
        out[9, i] = np.log1p(abs(a[i]))
        out[10, i] = np.cbrt(a[i])
        out[11, i] = np.arcsin(b[i] / 100.0)
        out[12, i] = np.arccos(b[i] / 100.0)
        out[13, i] = np.arctan(a[i])
        out[14, i] = np.sinh(b[i])
        out[15, i] = np.cosh(b[i])
        out[16, i] = np.tanh(b[i] / 10.0)
        out[17, i] = np.arctan2(a[i], b[i])
        out[18, i] = np.power(abs(a[i]), b[i] / 20.0)
        out[19, i] = np.hypot(a[i], b[i])


@unpython.gpu
@unpython.type('ndarray[float32,1]', 'ndarray[float32,1]', 'ndarray[float32,2]', None)
def functions_f32(a, b, out):
    for i in prange(a.shape[0]):
        out[0, i] = np.sin(a[i])
        out[1, i] = np.cos(a[i])
        out[2, i] = np.tan(a[i])
        out[3, i] = np.exp(b[i])
        out[4, i] = np.exp2(b[i])
        out[5, i] = np.expm1(b[i])
        out[6, i] = np.log(abs(a[i]))
        out[7, i] = np.log2(abs(a[i]))
        out[8, i] = np.log10(abs(a[i]))
        out[9, i] = np.log1p(abs(a[i]))
        out[10, i] = np.cbrt(a[i])
        out[11, i] = np.arcsin(b[i] / np.float32(100.0))
        out[12, i] = np.arccos(b[i] / np.float32(100.0))
        out[13, i] = np.arctan(a[i])
        out[14, i] = np.sinh(b[i])
        out[15, i] = np.cosh(b[i])
        out[16, i] = np.tanh(b[i] / np.float32(10.0))
        out[17, i] = np.arctan2(a[i], b[i])
        out[18, i] = np.power(abs(a[i]), b[i] / np.float32(20.0))
        out[19, i] = np.hypot(a[i], b[i])
