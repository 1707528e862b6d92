"""Complex numbers inside @gpu functions: on the device a complex number is a vector of two floats
(float2, double2) with the runtime's NumPy formulas for the operators; each case of
tests/differential/test_complex.py runs on the tested OpenCL device and matches the interpreter."""
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "differential"))
from test_complex import CASES  # noqa: E402  (one table of cases for both paths)

# Functions with nests, all of which run on the device.
ON_DEVICE = ["rotate", "array_functions", "array_parts", "mandelbrot", "mandelbrot_loops",
             "single_precision", "classify", "reductions", "prange_sum", "matrix_vector", "scale_in_place"]


def tolerance(case):
    """The device's exp, log, sin, ... are not the host's glibc (a few ulps; more where a
    function cancels, as log near |z| = 1); complex64 in single precision."""
    return 1e-4 if "single" in case else 1e-9


@pytest.mark.parametrize("case", list(CASES))
def test_construct_on_the_device(complex_gpu, case):
    complex_gpu.check(case.split()[0], *CASES[case](), rtol=tolerance(case), ran_on=None)


@pytest.mark.parametrize("func", ON_DEVICE)
def test_complex_nests_are_offloaded(complex_gpu, func):
    _, report = complex_gpu.check(func, *CASES[func](), rtol=tolerance(func), ran_on="opencl:")
    assert report.nests


def test_a_complex_product_reduction_runs_on_openmp(complex_gpu):
    complex_gpu.check("product", *CASES["product"](), rtol=1e-9, ran_on="openmp",
                      reason="a complex reduction by * is not supported on the GPU")
