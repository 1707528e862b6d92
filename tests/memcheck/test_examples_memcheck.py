"""The six example kernels (examples/) on Oclgrind at their tiny sizes: each result matches the
interpreter's on the same inputs, the nest ran on Oclgrind, and Oclgrind reported no invalid
access and no read of memory nothing wrote (nor data races, with OCLGRIND_DATA_RACES=1)."""
import pytest

import _harness

pytestmark = pytest.mark.memcheck

KERNELS = ["mmult", "nbody", "cp", "syrk", "syr2k", "stencil"]
CASES = [case for kernel in KERNELS for case in _harness.interpreted(kernel).CASES]


@pytest.mark.parametrize("case", CASES, ids=lambda case: case.label)
def test_example_on_oclgrind(memcheck, example, case):
    module = _harness.interpreted(case.kernel)
    memcheck.check(example(case.kernel), case.func, *case.args(module.SIZES["tiny"]),
                   rtol=case.rtol)
