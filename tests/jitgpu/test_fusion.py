"""Fused nests (unpy/typeinfer/fuse.py) against the interpreter on the tested OpenCL device, and
on OpenMP: a fused pair runs as one kernel, an illegal pair stays two; arrays that view one
buffer in the way the compile-time rule guards against."""
from pathlib import Path

import numpy as np
import pytest

from modulepair import gpu_pair

RNG = np.random.default_rng(9)


@pytest.fixture(scope="session")
def fused(tmp_path_factory):
    """tests/jitgpu/fused_kernels.py, compiled and interpreted."""
    return gpu_pair(Path(__file__).parent / "fused_kernels.py",
                    tmp_path_factory.mktemp("build-fused_kernels"))


def rand(*shape, dtype=np.float64):
    return RNG.uniform(-1, 1, shape).astype(dtype)


def cases(n):
    """(function, arguments, rtol, number of nests after fusion)."""
    return [
        ("producer_consumer", (rand(n), np.zeros(n), np.zeros(n)), 1e-12, 1),
        ("two_levels", (rand(n, n + 2, dtype=np.float32), np.zeros((n, n + 2), np.float32),
                        np.zeros((n, n + 2), np.float32)), 1e-5, 1),
        ("steps", (rand(n), np.zeros(n), rand(n), 3), 1e-12, 1),      # three nests in one
        ("jacobi", (rand(n + 2, n + 2), np.zeros((n + 2, n + 2)), 2), 1e-12, 2),
        ("sum_then_scale", (rand(n), np.zeros(n)), 1e-12, 2),
        ("shifted_bounds", (rand(n), np.zeros(n)), 1e-12, 2),
        ("host_between", (rand(n), np.zeros(n)), 1e-12, 2),
        ("maybe_views", (rand(n), np.zeros(n), np.zeros(n)), 1e-12, 2),
    ]


NAMES = [c[0] for c in cases(1)]


@pytest.mark.parametrize("where", ["opencl", "openmp"])
@pytest.mark.parametrize("n", [1, 17])
@pytest.mark.parametrize("case", range(len(NAMES)), ids=NAMES)
def test_fused_and_unfused_nests_match_interpreter(fused, device_env, where, n, case):
    if where == "openmp":
        device_env.setenv("UNPY_DEVICE", "none")
    func, args, rtol, count = cases(n)[case]
    # With UNPY_DEVICE=none a nest may skip the hook (and its report) as it did before.
    ran_on = "opencl:" if where == "opencl" else None
    if func == "shifted_bounds" and n == 1:
        ran_on = None           # its second nest has no iteration: OpenMP
    _, report = fused.check(func, *args, rtol=rtol, ran_on=ran_on)
    assert len(report.nests) == count, str(report)
    fused_nests = [nest for nest in report.nests if nest.fused]
    assert len(fused_nests) == (1 if count == 1 or func == "steps" else 0), str(report)
    if fused_nests:
        assert f"(fused: the nests at lines {fused_nests[0].fused[0]}, " in str(report)


def test_a_view_of_the_same_buffer_keeps_results(fused):
    # maybe_views(a, b, a[1:]-like): c[i] is a[i + 1]; fused, iteration i would write a[i + 1]
    # before iteration i + 1 read it. Unfused, the interpreter's answer on both paths.
    values = rand(18)

    def make():
        base = values.copy()
        return [base[:17], np.zeros(17), base[1:]], [base]
    fused.check_fresh("maybe_views", make, rtol=1e-12)
