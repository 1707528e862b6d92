"""Every UNPY_GPU_OPT level on the tested OpenCL device, against the interpreter: the kernels of
tests/jitgpu/gpu_kernels.py at odd sizes (remainders of every unroll factor), triangular nests,
reductions, control flow; and unroll-and-jam forced onto each level with factors 2 and 3."""

import numpy as np
import pytest

from jitgpu import loopopt, session
from jitgpu.loopopt.unroll_and_jam import unroll_and_jam

RNG = np.random.default_rng(77)
LEVELS = ("none", "load", "unroll", "all")
SIZES = (1, 3, 17, 33)


def rand(*shape, dtype=np.float64):
    return RNG.uniform(-2, 2, shape).astype(dtype)


def cases(n):
    """(function, arguments, rtol) at size n."""
    return [
        ("matmul", (rand(n, 5), rand(5, n + 2), np.zeros((n, n + 2))), 1e-12),
        ("matmul_f32", (rand(n, 9, dtype=np.float32), rand(9, n, dtype=np.float32),
                        np.zeros((n, n), np.float32)), 1e-5),
        ("matmul", (rand(n, n).T, rand(n, 3)[::-1], np.zeros((n, 3))), 1e-12),
        ("syrk", (rand(n, 4), np.zeros((n, n))), 1e-12),
        ("tri_lower", (rand(n, n), np.zeros((n, n))), 1e-12),
        ("tri_sum", (rand(n, n + 2),), 1e-12),
        ("tri_three_levels", (np.zeros((n, n, n), np.int64), n, 2, np.int64(5)), 0),
        ("upper_scale", (rand(n, n), np.zeros((n, n))), 1e-12),
        ("red_sum_2d", (rand(n, n + 1),), 1e-12),
        ("red_several", (rand(n),), 1e-12),
        ("add3", (RNG.integers(-9, 9, (n, 3, n)).astype(np.int32), np.zeros((n, 3, n), np.int32)),
         0),
        ("inner_steps", (rand(n, 7), np.zeros((n, 2)), 2), 1e-12),
        ("collatz", (RNG.integers(1, 50, n), np.zeros(n, np.int64)), 0),
        ("skip_negative", (rand(n), np.zeros(n)), 1e-12),
        ("axpy_f32", (rand(n, dtype=np.float32), rand(n, dtype=np.float32), np.float32(0.5)),
         1e-6),
        # Inner trip counts 1, 3, 5, 17 (unroll_inner's remainders, vector_loads' lanes).
        ("inner_dot", (rand(n, 17), rand(17), np.zeros(n), 1), 1e-12),
        ("inner_dot", (rand(n, 17), rand(17), np.zeros(n), 3), 1e-12),
        ("inner_dot", (rand(n, 17), rand(17), np.zeros(n), 5), 1e-12),
        ("inner_dot", (rand(n, 17), rand(17), np.zeros(n), 17), 1e-12),
        ("inner_backwards", (rand(n, n + 2), np.zeros((n, 2))), 1e-12),
        ("inner_gather", (rand(n + 8), RNG.integers(0, n + 8, 9), np.zeros(n)), 1e-12),
        ("aos_points", (rand(n + 4, 4, dtype=np.float32), rand(n, dtype=np.float32),
                        np.zeros(n, np.float32)), 1e-5),
        ("rows_in_place", (rand(n, 5),), 1e-12),
    ]


CASE_NAMES = [c[0] + f"#{k}" for k, c in enumerate(cases(1))]


@pytest.fixture
def fresh_preparations():
    """No kernel prepared by another test (the cache is keyed by layout and level only)."""
    session.forget()


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("case", range(len(CASE_NAMES)), ids=CASE_NAMES)
def test_levels_match_interpreter(gpu, device_env, fresh_preparations, level, n, case):
    device_env.setenv("UNPY_GPU_OPT", level)
    func, args, rtol = cases(n)[case]
    gpu.check(func, *args, rtol=rtol)


@pytest.mark.parametrize("factor", [2, 3])
@pytest.mark.parametrize("which", [0, -1])
@pytest.mark.parametrize("n", [1, 5, 17])
@pytest.mark.parametrize("case", range(len(CASE_NAMES)), ids=CASE_NAMES)
def test_forced_unroll_and_jam(gpu, device_env, fresh_preparations, monkeypatch, factor,
                               which, n, case):
    """unroll_and_jam on the outermost or innermost NDRange level of every kernel, whether or
    not its heuristic would choose it."""
    def forced(kernel, model):
        return unroll_and_jam(kernel, model, level=which % len(kernel.levels), factor=factor)
    monkeypatch.setattr(loopopt, "PASSES", (("forced", ("all",), forced),))
    device_env.setenv("UNPY_GPU_OPT", "all")
    func, args, rtol = cases(n)[case]
    _, report = gpu.check(func, *args, rtol=rtol)
    # Left naive: skip_negative's `continue` would leave every copy. (inner_steps's two loops
    # over k are two variables, jitgpu.nest.scope_loop_variables: the first is jammed, the
    # second, whose start reads i, runs per copy.)
    applied = all("unroll_and_jam(" in nest.reason for nest in report.nests)
    assert applied == (func != "skip_negative"), str(report)
