"""The ILP heuristic of section 4.3.4 (constraints 29-34, objective 33, Algorithm 1)."""
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pulp

from jitgpu.lmad import Access, AffineForm, LoopDim, analyse
from jitgpu.lmad import ilp
from jitgpu.lmad.cslmad import Cslmad
from jitgpu.lmad.ilp import solve_ilp

from .oracle import check_plan, live

F = AffineForm


def test_highs_runs_in_process():
    assert "HiGHS" in pulp.listSolvers(onlyAvailable=True)


def five_point_stencil():
    """b[i+1, j], b[i, j+1], b[i+1, j+1], b[i+1, j+2], b[i+2, j+1] on every other row and
    column of a 20x20 array: strides (40, 2) elements, bases too far apart for Theorem 2."""
    b = np.zeros((20, 20))[::2, ::2]
    loops = [LoopDim("i", 8, True), LoopDim("j", 8, True)]
    shifts = [(1, 0), (0, 1), (1, 1), (1, 2), (2, 1)]
    accesses = [Access(k, "b", [F(di, {"i": 1}), F(dj, {"j": 1})], True, k == 2)
                for k, (di, dj) in enumerate(shifts)]
    return loops, [live("b", b)], accesses


def test_five_point_stencil_on_a_strided_view_is_stretched_by_the_ilp():
    loops, arrays, accesses = five_point_stencil()
    plan = analyse(loops, arrays, accesses)
    (group,) = plan.groups
    assert group.case == "ilp"
    # G' is the 10x10 grid of b (b' = b_1 - 2); the two corners outside the group's interval
    # are not copied.
    assert group.device_elems == 98 and group.touched_elems == 8 * 8 + 4 * 8
    span = (2 + 9 * 40 + 9 * 2) - 2 + 1 - 4
    assert group.device_elems < span
    check_plan(plan, loops, arrays, accesses)


def test_solving_prints_nothing():
    """HiGHS's banner (printed once per process by highspy's constructor, at the C level)
    stays out of a user's stdout: a fresh process solves the stencil's ILP."""
    root = Path(__file__).resolve().parents[2]
    code = ("import sys; sys.path.insert(0, 'tests')\n"
            "from lmad.test_ilp import five_point_stencil\n"
            "from jitgpu.lmad import analyse\n"
            "assert analyse(*five_point_stencil()).groups[0].case == 'ilp'\n")
    run = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True,
                         text=True, env={**os.environ, "PYTHONPATH": str(root)}, timeout=120)
    assert run.returncode == 0, run.stderr
    assert run.stdout == ""


def test_solutions_are_cached_by_the_normalised_problem(monkeypatch):
    ilp._SOLUTIONS.clear()
    calls = []
    real_solve = ilp._solve
    monkeypatch.setattr(ilp, "_solve", lambda *a, **k: calls.append(a) or real_solve(*a, **k))
    loops, arrays, accesses = five_point_stencil()
    first = analyse(loops, arrays, accesses)
    # the same problem elsewhere in memory (other base addresses) hits the cache
    _, other, _ = five_point_stencil()
    second = analyse(loops, other, accesses)
    assert len(calls) == 1
    assert first.groups[0].device_elems == second.groups[0].device_elems


def test_variable_budget_aborts_to_the_span_with_the_reason():
    loops, arrays, accesses = five_point_stencil()
    plan = analyse(loops, arrays, accesses, ilp_max_vars=10)
    (group,) = plan.groups
    assert group.case == "span"
    assert "the ILP needs 18 variables, over the budget of 10" in group.note
    check_plan(plan, loops, arrays, accesses)


def test_infeasible_problem_says_so():
    # rows of 10, windows of 5 starting at 0, 3 and 6: no window of <= 10 holds all three
    members = [Cslmad(b, ((10, 3), (1, 5))) for b in (0, 3, 6)]
    outcome = solve_ilp(members)
    assert outcome.layout is None and "infeasible" in outcome.reason


def test_strides_too_close_are_rejected_before_solving():
    members = [Cslmad(0, ((16, 8), (5, 4))), Cslmad(1, ((16, 8), (5, 4)))]
    outcome = solve_ilp(members)
    assert outcome.layout is None and "inequality 32" in outcome.reason


def test_members_with_different_stride_sets_share_one_g_prime():
    # a row a[i, 0:6] and a single column element a[i, 7]: strides (10, 1); the second member
    # has no j dimension (extent 1)
    members = [Cslmad(0, ((10, 4), (1, 6))), Cslmad(7, ((10, 4),))]
    outcome = solve_ilp(members)
    layout = outcome.layout
    assert layout is not None and layout.extents == (4, 8)
    assert all(layout.place(m) is not None for m in members)


def test_the_gpu_path_imports_pulp_only_to_solve():
    """Importing PuLP costs 60-130 ms: a first call whose layouts all have closed forms does
    not pay it."""
    code = ("import sys, jitgpu.hook, jitgpu.multi, jitgpu.offload, jitgpu.calls\n"
            "assert 'pulp' not in sys.modules and 'highspy' not in sys.modules\n")
    root = Path(__file__).resolve().parents[2]
    subprocess.run([sys.executable, "-c", code], check=True,
                   env=dict(os.environ, PYTHONPATH=str(root)))
