"""The example kernels under the plain interpreter agree with NumPy: the reference semantics that
compiled builds must reproduce."""
import sys
from pathlib import Path

import numpy as np
import pytest

EXAMPLES_DIR = Path(__file__).resolve().parent.parent / "examples"
sys.path.append(str(EXAMPLES_DIR))

import _harness  # noqa: E402  (needs the examples directory on sys.path)

KERNELS = ["mmult", "nbody", "cp", "syrk", "syr2k", "stencil", "jacobi2d"]
MODULES = {kernel: _harness.interpreted(kernel) for kernel in KERNELS}
CASES = [case for module in MODULES.values() for case in module.CASES]


@pytest.mark.parametrize("case", CASES, ids=lambda case: case.label)
def test_interpreter_matches_numpy(case):
    module = MODULES[case.kernel]
    args = case.args(module.SIZES["tiny"])
    result = _harness.measure(case, getattr(module, case.func), args, case.expected(args), repeat=0)
    assert result.ok, result.verdict


def float_local_types(func, args):
    """The types of the floating-point values each local of `func` held during the call."""
    seen = {}

    def trace(frame, event, arg):
        if frame.f_code is not func.__code__:
            return None
        for name, value in frame.f_locals.items():
            if isinstance(value, (float, np.floating)):
                seen.setdefault(name, set()).add(type(value))
        return trace

    sys.settrace(trace)
    try:
        func(*args)
    finally:
        sys.settrace(None)
    return seen


@pytest.mark.parametrize("case", [c for c in CASES if c.dtype == np.float32],
                         ids=lambda case: case.label)
def test_float32_kernels_stay_float32(case):
    """Every floating-point local of a float32 kernel is a float32 throughout (NEP 50: literals
    are weak, np.float32(0.0) starts an accumulator, np.sqrt keeps float32)."""
    module = MODULES[case.kernel]
    seen = float_local_types(getattr(module, case.func), case.args(module.SIZES["tiny"]))
    assert "s" in seen
    assert {name: types for name, types in seen.items() if types != {np.float32}} == {}
