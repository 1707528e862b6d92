"""Complex numbers on the OpenMP path, interpreter vs compiled (tests/kernels/complex_numbers.py):
one case per construct, hypothesis over values and layouts, and the refusals."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from npstrategies import arrays

RNG = np.random.default_rng(11)
# NumPy's loops may multiply complex numbers with fused multiply-adds (its SIMD code on machines
# with FMA), the compiled code never contracts: results agree to rounding, not to the bit.
TOL = 1e-12


def cplx(*shape, dtype=np.complex128):
    return (RNG.standard_normal(shape) + 1j * RNG.standard_normal(shape)).astype(dtype)


def grid(ny, nx):
    return np.linspace(-2.0, 0.6, nx)[None, :] + np.linspace(-1.2, 1.2, ny)[:, None] * 0


# name -> arguments; every function of the module has at least one case.
CASES = {
    "scalar_arithmetic": lambda: (1.5 - 2j, 0.25 + 3j),
    "scalar_arithmetic of numpy scalars": lambda: (np.complex128(-0.5 + 1j), np.complex128(2)),
    "scalar_arithmetic of a real and an int": lambda: (2.5, 3),
    # NumPy's complex division by zero (Python's complex raises; the compiled code divides as
    # NumPy does, as it does for floats: docs/supported.md).
    "scalar_arithmetic by zero": lambda: (np.complex128(1 + 1j), np.complex128(-1j)),
    "parts": lambda: (3 - 4j, 0.5),
    "cmath_functions": lambda: (0.3 + 0.7j,),
    "cmath_functions of a negative real": lambda: (-2.0 + 0j,),
    "rotate": lambda: (cplx(50), RNG.uniform(-np.pi, np.pi, 50)),
    "array_functions": lambda: (cplx(40),),
    "array_parts": lambda: (cplx(5, 6),),
    "mandelbrot": lambda: (np.linspace(-2.0, 0.6, 30), np.linspace(-1.2, 1.2, 20), 25),
    "mandelbrot_loops": lambda: (RNG.uniform(-2.0, 0.6, (12, 12)), 40),
    "single_precision": lambda: (cplx(20, dtype=np.complex64), cplx(20, dtype=np.complex64)),
    "classify": lambda: (np.array([1 + 1j, complex(np.nan, 0), complex(0, -np.inf), 0.5j,
                                   complex(np.inf, np.nan), -2.0]),),
    "reductions": lambda: (cplx(33),),
    "reductions of nothing": lambda: (np.zeros(0, np.complex128),),
    "prange_sum": lambda: (cplx(1000),),
    "product": lambda: (cplx(12) / 1.5,),
    "matrix_vector": lambda: (cplx(7, 5), cplx(5)),
    "from_parts": lambda: (RNG.standard_normal(9), RNG.standard_normal(9)),
    "scale_in_place": lambda: (cplx(6), -0.5),
    "count_unit": lambda: (np.array([0, 0.5j, 1 + 1j, -0.2, 0.9 + 0.1j]),),
}


def tolerance(case):
    return 1e-5 if "single" in case else TOL


def test_every_function_has_a_case(complex_numbers_kernels):
    functions = {f["name"] for f in complex_numbers_kernels.compiled.__unpy_functions__.values()}
    assert functions and functions <= {case.split()[0] for case in CASES}


@pytest.mark.parametrize("case", list(CASES))
def test_construct(complex_numbers_kernels, case):
    complex_numbers_kernels.check(case.split()[0], *CASES[case](), rtol=tolerance(case))


def test_arguments_are_checked(complex_numbers_kernels):
    f = complex_numbers_kernels.compiled.rotate
    with pytest.raises(TypeError, match=r"rotate\(\) argument 'z': expected "
                                        r"ndarray\[complex128, 1\], got ndarray\[float64, 1\]"):
        f(np.zeros(3), np.zeros(3))
    with pytest.raises(TypeError, match="argument 'a'"):
        complex_numbers_kernels.compiled.scalar_arithmetic("1j", 1j)


def test_results_are_python_and_numpy_scalars(complex_numbers_kernels):
    """complex128 comes back as a Python complex (as float64 as a float); complex64 as
    np.complex64."""
    assert type(complex_numbers_kernels.compiled.scalar_arithmetic(1j, 2j)) is complex
    z = complex_numbers_kernels.compiled.reductions(cplx(4))
    assert type(z[0]) is complex


complex_values = st.complex_numbers(max_magnitude=1e3, allow_nan=False, allow_infinity=False)


@settings(max_examples=40, deadline=None)
@given(complex_values, complex_values)
def test_scalar_arithmetic_any_values(complex_numbers_kernels, a, b):
    """As NumPy scalars: Python's complex raises for a zero divisor, NumPy's does not."""
    complex_numbers_kernels.check("scalar_arithmetic", np.complex128(a), np.complex128(b),
                                  rtol=1e-9)


@settings(max_examples=25, deadline=None)
@given(arrays(np.complex128, 2, max_side=6))
def test_arrays_any_layout(complex_numbers_kernels, z):
    complex_numbers_kernels.check("array_parts", z, rtol=TOL)
    complex_numbers_kernels.check("reductions", z.ravel(), rtol=1e-9)
    complex_numbers_kernels.check("rotate", z[0] if z.shape[0] else z.ravel(),
                                  np.ones(z.shape[1] if z.shape[0] else 0), rtol=TOL)
