"""NumPy inside @gpu functions: the nests lowered from array statements run through OpenCL on
the tested device and match the interpreter (tests/kernels/numpy_exprs.py; the OpenMP side:
tests/differential/test_numpy.py)."""
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "differential"))
from test_numpy import CASES  # noqa: E402  (one table of cases for both paths)
from gpucheck import assert_ran  # noqa: E402
from jitgpu import report  # noqa: E402

# Functions whose nests all run on the device (the others have a sequential scan, a nest in a
# prange that allocates, or a nest inside a loop the device path leaves to OpenMP).
ON_DEVICE = ["axpy", "ufuncs", "float32_stays", "compare_arrays", "where_clip",
             "outer_broadcast", "row_broadcast", "jacobi", "transposed",
             "fill_slice", "masked", "axis0", "axis1", "matmul", "outer", "rebind_to_itself",
             "column_slices_broadcast", "helpers_in_nest", "reduction_in_scalar_operand",
             "converted_reduction_operand", "ellipsis_forms", "write_through_transpose",
             "row_mask", "positional_dtypes", "linalg_inv"]


@pytest.mark.parametrize("case", list(CASES))
def test_construct_on_the_device(numpy_gpu, case):
    numpy_gpu.check(case.split()[0], *CASES[case](), rtol=tolerance(case), ran_on=None)


def tolerance(case):
    """float32 kernels may contract a*b + c on the device (one rounding less)."""
    return 1e-4 if "32" in case else 1e-9


@pytest.mark.parametrize("func", ON_DEVICE)
def test_array_statements_are_offloaded(numpy_gpu, func):
    # Only this call's nests (of a statement in two versions, one runs).
    report._last.pop((numpy_gpu.compiled.__name__, func), None)
    args = CASES[func]()
    _, explained = numpy_gpu.check(func, *args, rtol=tolerance(func), ran_on="opencl:")
    assert explained.nests


@pytest.mark.parametrize("func, stretched, equal", [
    ("outer_of_parameters", ((5, 1), (1, 4)), ((5, 4), (5, 4))),
    ("in_place_stretch", ((4, 5), (4, 1), (4, 5)), ((4, 5), (4, 5), (4, 5))),
    ("stretch_in_prange", ((4, 5), (1, 1)), ((4, 5), (1, 5)))])
def test_both_versions_are_offloaded(numpy_gpu, func, stretched, equal):
    """A statement whose lengths may be 1 at run time: its general version (a length 1
    broadcast) and its fast one (lengths equal) both run on the device."""
    report._last.pop((numpy_gpu.compiled.__name__, func), None)
    rng = np.random.default_rng(5)
    for shapes in (stretched, equal):
        _, explained = numpy_gpu.check(func, *(rng.random(s) for s in shapes), rtol=1e-9,
                                       ran_on=None)
    assert_ran(explained, "opencl:")


def test_explain_names_the_version_a_call_did_not_need(numpy_gpu):
    """A statement in two versions (lengths of 1 found at run time broadcast): a call with
    equal lengths runs one; explain says of the other which nest ran in its place, not "not
    called yet"."""
    report._last.pop((numpy_gpu.compiled.__name__, "outer_of_parameters"), None)
    rng = np.random.default_rng(6)
    _, explained = numpy_gpu.check("outer_of_parameters", rng.random((5, 4)),
                                   rng.random((5, 4)), rtol=1e-9, ran_on=None)
    unrun = [n for n in explained.nests if n.ran_on is None]
    ran = {n.nest_id for n in explained.nests if n.ran_on is not None}
    assert unrun and ran, str(explained)
    for nest in unrun:
        other = int(nest.reason.split("nest ")[1].split(",")[0])
        assert nest.reason.startswith("not needed by these calls") and other in ran, nest
    assert "not needed by these calls: nest" in str(explained)


def test_inverse_hyperbolic_functions_are_offloaded(numpy_gpu):
    """np.arcsinh, np.arccosh, np.arctanh (OpenCL's asinh, acosh, atanh) and np.deg2rad,
    np.rad2deg run in the device's nests."""
    report._last.pop((numpy_gpu.compiled.__name__, "inverse_hyperbolic"), None)
    _, explained = numpy_gpu.check("inverse_hyperbolic", *CASES["inverse_hyperbolic float32"](),
                                   rtol=1e-4, ran_on="opencl:")
    assert explained.nests
