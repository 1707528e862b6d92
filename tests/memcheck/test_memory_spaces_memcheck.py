"""Lime's memory spaces on Oclgrind at UNPY_GPU_OPT=unroll (at `all`, cp's atoms go to local
tiles): cp's atoms as aligned float4 loads from __constant memory and the kernels of
tests/jitgpu/loopopt/space_kernels.py (aligned, unaligned, mirrored structures) read only
elements the naive kernel reads, and the results match the interpreter."""
from pathlib import Path

import numpy as np
import pytest

import _harness

pytestmark = pytest.mark.memcheck

F = np.float32


@pytest.fixture(scope="module")
def spaces(tmp_path_factory):
    from modulepair import gpu_pair
    return gpu_pair(Path(__file__).resolve().parent.parent / "jitgpu" / "loopopt"
                    / "space_kernels.py", tmp_path_factory.mktemp("build-space_kernels"))


@pytest.mark.parametrize("n", [35, 83])      # 2 and 5 atoms
def test_cp_at_the_unroll_level(memcheck, example, oclgrind_env, n):
    oclgrind_env.setenv("UNPY_GPU_OPT", "unroll")
    (case,) = _harness.interpreted("cp").CASES
    report = memcheck.check(example("cp"), case.func, *case.args(n), rtol=case.rtol)
    reason = report.nests[0].reason
    assert "structure_loads" in reason and "constant_space" in reason, str(report)


def test_structures_on_oclgrind(memcheck, spaces):
    rng = np.random.default_rng(3)
    base = rng.uniform(-1, 1, 4 * 5 + 1).astype(F)
    memcheck.check(spaces, "structs4", rng.uniform(-1, 1, (5, 4)).astype(F),
                   rng.uniform(-1, 1, 7).astype(F), np.zeros(7, F), rtol=1e-5)
    memcheck.check(spaces, "structs4", base[1:].reshape(5, 4), base[:5], np.zeros(5, F),
                   rtol=1e-5)
    memcheck.check(spaces, "structs4_steps", rng.uniform(-1, 1, (5, 4)).astype(F),
                   rng.uniform(-1, 1, 3).astype(F), np.zeros(3, F), 2, rtol=1e-5)
    memcheck.check(spaces, "structs2_rows", rng.uniform(-1, 1, (3, 2)), np.zeros((3, 5)),
                   rtol=1e-12)
