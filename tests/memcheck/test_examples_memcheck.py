"""The six example kernels (examples/) on Oclgrind at their tiny sizes: each result matches the
interpreter's on the same inputs, the nest ran on Oclgrind, and Oclgrind reported no invalid
access and no read of memory nothing wrote (nor data races, with OCLGRIND_DATA_RACES=1)."""
import pytest

import _harness

pytestmark = pytest.mark.memcheck

KERNELS = ["mmult", "nbody", "cp", "syrk", "syr2k", "stencil", "jacobi2d"]
CASES = [case for kernel in KERNELS for case in _harness.interpreted(kernel).CASES]


@pytest.mark.parametrize("case", CASES, ids=lambda case: case.label)
def test_example_on_oclgrind(memcheck, example, case):
    module = _harness.interpreted(case.kernel)
    memcheck.check(example(case.kernel), case.func, *case.args(module.SIZES["tiny"]),
                   rtol=case.rtol)


# Small odd sizes; cp has n // 16 atoms (its inner loop): 2 and 5 (remainders of 4).
ODD_SIZES = {"cp": (35, 83)}


@pytest.mark.parametrize("size", [0, 1])
@pytest.mark.parametrize("case", CASES, ids=lambda case: case.label)
def test_example_optimised_on_oclgrind(memcheck, example, oclgrind_env, case, size):
    """UNPY_GPU_OPT=all at small odd sizes: the unrolled copies, remainder loops and vector
    loads (vloadN) read and write only elements the naive kernel does."""
    oclgrind_env.setenv("UNPY_GPU_OPT", "all")
    n = ODD_SIZES.get(case.kernel, (5, 9))[size]
    report = memcheck.check(example(case.kernel), case.func, *case.args(n), rtol=case.rtol)
    assert all("loop optimisations applied" in nest.reason for nest in report.nests), str(report)
