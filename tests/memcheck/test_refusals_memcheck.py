"""The nests of issue 24 on Oclgrind (tests/jitgpu/refusal_kernels.py): accesses proved under
their guards, loop bounds read on the device, negative indices folded or wrapped in the kernel
read and write only the elements the interpreter does, and the results match it."""
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.memcheck

JITGPU_TESTS = Path(__file__).resolve().parent.parent / "jitgpu"


@pytest.fixture(scope="module")
def refusals(tmp_path_factory):
    from modulepair import gpu_pair
    return gpu_pair(JITGPU_TESTS / "refusal_kernels.py",
                    tmp_path_factory.mktemp("build-refusal_kernels"))


def _cases():
    if str(JITGPU_TESTS) not in sys.path:
        sys.path.append(str(JITGPU_TESTS))
    from test_gpu_refusals import NAMES, cases
    return NAMES, cases


NAMES, CASES = _cases()


# Not UNPY_GPU_OPT=all: its vector loads in a loop that runs backwards (reused_name's second
# loop) crash Oclgrind's check of uninitialised memory (OCLGRIND_UNINITIALIZED=1), a segfault of
# the simulator seen with any such loop, whatever its variable is called.
@pytest.mark.parametrize("opt", ["none", "unroll"])
@pytest.mark.parametrize("case", range(len(NAMES)), ids=NAMES)
def test_refusal_kernels_on_oclgrind(memcheck, refusals, oclgrind_env, opt, case):
    oclgrind_env.setenv("UNPY_GPU_OPT", opt)
    func, args = CASES(5)[case]
    memcheck.check(refusals, func, *args, rtol=1e-12)
