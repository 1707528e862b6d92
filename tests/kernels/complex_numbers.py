"""Complex numbers in compiled functions: complex64 and complex128 scalars and arrays, `1j`,
complex(), arithmetic with NumPy's formulas, abs, .real, .imag, np.conj, np.exp and the other
functions that take complex values, cmath, reductions, and complex arrays from real ones. Every
function is `@unpython.gpu`: the same module is compared with the interpreter on the OpenMP path
(tests/differential/test_complex.py) and on the GPU path, where a complex number is a vector of
two floats (tests/jitgpu/test_gpu_complex.py)."""
import cmath

import numpy as np

import unpython
from unpython import prange

Z1 = 'ndarray[complex128, 1]'
Z2 = 'ndarray[complex128, 2]'
C1 = 'ndarray[complex64, 1]'
F1 = 'ndarray[float64, 1]'
F2 = 'ndarray[float64, 2]'
I2 = 'ndarray[int64, 2]'


@unpython.gpu
@unpython.type('complex128', 'complex128', 'complex128')
def scalar_arithmetic(a, b):
    """Every operator, a literal, complex(), powers by integers and by a complex."""
    return (a * b - a / (b + 1j) + complex(1.5, -2.0) * -a + a ** 2 + b ** -3
            + a ** (0.5 + 0.25j))


@unpython.gpu
@unpython.type('complex128', 'float64', 'tuple[float64, float64, float64, float64, bool]')
def parts(z, x):
    """.real, .imag, abs, the phase, equality; a real number's parts."""
    w = z.conjugate() * x
    return w.real, w.imag + x.imag, abs(w), cmath.phase(w), w == np.conj(z) * x


@unpython.gpu
@unpython.type('complex128', 'complex128')
def cmath_functions(z):
    return (cmath.exp(z) + cmath.log(z) + cmath.sqrt(z) + cmath.sin(z) * cmath.cos(z)
            + cmath.tanh(z) + cmath.log10(z) + cmath.sinh(z) - cmath.cosh(z) + cmath.tan(z))


@unpython.gpu
@unpython.type(Z1, F1, Z1)
def rotate(z, theta):
    """A mixer: each sample turned by its phase."""
    return z * np.exp(1j * theta)


@unpython.gpu
@unpython.type(Z1, Z1)
def array_functions(z):
    return np.sqrt(z) + np.log(z) * np.conj(z) - np.exp(-z) / (1.0 + np.abs(z)) + z ** 2


@unpython.gpu
@unpython.type(Z2, 'tuple[ndarray[float64, 2], ndarray[float64, 2], ndarray[float64, 2]]')
def array_parts(z):
    return z.real * 2.0, np.imag(z), np.angle(z)


@unpython.gpu
@unpython.type(F1, F1, 'int64', I2)
def mandelbrot(xs, ys, maxiter):
    """Escape counts on a grid made by broadcasting, frozen with np.where once escaped."""
    c = xs[None, :] + 1j * ys[:, None]
    z = np.zeros_like(c)
    counts = np.zeros(c.shape, np.int64)
    for k in range(maxiter):
        inside = np.abs(z) <= 2.0
        counts[inside] += 1
        z = np.where(inside, z * z + c, z)
    return counts


@unpython.gpu
@unpython.type(F2, 'int64', I2)
def mandelbrot_loops(grid, maxiter):
    """The loop version: one complex number per pixel, a while loop in a prange."""
    ny, nx = grid.shape
    counts = np.zeros((ny, nx), dtype=np.int64)
    for i in prange(ny):
        for j in range(nx):
            c = complex(grid[i, j], 0.5 * grid[j % ny, i % nx])
            z = 0j
            n = 0
            while n < maxiter and abs(z) <= 2.0:
                z = z * z + c
                n += 1
            counts[i, j] = n
    return counts


@unpython.gpu
@unpython.type(C1, C1, C1)
def single_precision(a, b):
    """complex64 stays complex64 (a Python float and complex are weak, as in NEP 50)."""
    return a * b + 0.5j * a - np.conjugate(b) / 2.0 + np.complex64(np.real(a[0]))


@unpython.gpu
@unpython.type(Z1, 'tuple[ndarray[bool, 1], ndarray[bool, 1], ndarray[bool, 1], '
                   'ndarray[complex128, 1]]')
def classify(z):
    """nan and inf in either part; the other functions of complex arrays."""
    return (np.isnan(z), np.isinf(z), np.isfinite(z),
            np.square(z) + np.reciprocal(z) + np.tan(z) + np.log10(z) * np.sinh(z)
            - np.cosh(z) * np.sin(z) / np.cos(z) + np.tanh(z))


@unpython.gpu
@unpython.type(Z1, 'tuple[complex128, complex128, float64]')
def reductions(z):
    return np.sum(z), z.mean(), np.sum(np.abs(z) ** 2)


@unpython.gpu
@unpython.type(Z1, 'complex128')
def prange_sum(z):
    """A complex accumulator in a prange: an OpenMP reduction of std::complex."""
    s = 0j
    for i in prange(z.shape[0]):
        s += z[i] * z[i]
    return s


@unpython.gpu
@unpython.type(Z2, Z1, Z1)
def matrix_vector(a, x):
    """`@` of complex arrays (a loop nest; the BLAS is for real ones)."""
    return a @ x


@unpython.gpu
@unpython.type(F1, F1, Z1)
def from_parts(re, im):
    """A complex array filled from two real ones, element by element and by slices."""
    n = re.shape[0]
    out = np.zeros(n, dtype=np.complex128)
    for i in range(n):
        out[i] = complex(re[i], im[i])
    out[1:] += 1j * out[:-1]
    return out


@unpython.gpu
@unpython.type(Z1, 'float64', Z1)
def scale_in_place(z, alpha):
    z *= alpha
    z[0] = z[-1] * 1j
    return z.copy()


@unpython.gpu
@unpython.type(Z1, 'int64')
def count_unit(z):
    """Comparisons: == on complex values, ordering on their absolute values."""
    n = 0
    for i in range(z.shape[0]):
        if z[i] != 0 and abs(z[i]) < 1.0:
            n += 1
    return n


@unpython.gpu
@unpython.type(Z1, 'complex128')
def product(z):
    """A complex product: a reduction by * the GPU path leaves to OpenMP."""
    p = 1 + 0j
    for i in prange(z.shape[0]):
        p *= z[i]
    return p
