"""Time-stepping and sweep loops around GPU nests (issue 21, items 1 and 5): nests launched again
within one call with only scalars changed give the interpreter's results, and after their first
launches they are relaunched without transfer analysis or planning (counted by
`unpython.explain(f).launches`, never timed). Kernels: tests/kernels/time_loops.py, on the
tested OpenCL device with UNPY_FORCE_GPU=1 (tests/jitgpu/conftest.py)."""
import numpy as np
import pytest

from gpurts.residency import TABLE

RNG = np.random.default_rng(21)


@pytest.fixture(autouse=True)
def nothing_left_behind():
    yield
    assert not TABLE.entries, "device copies outlived their call"


def launches(loops, func):
    return loops.explain(func).launches


def test_jacobi_relaunches_without_planning(loops):
    a, b = RNG.random((20, 20)), np.zeros((20, 20))
    loops.check("jacobi2d", 8, a, b, rtol=1e-12)
    counts = launches(loops, "jacobi2d")
    # Each nest is prepared once per call at most (fresh arrays: a new layout), its first
    # launches copy in; every later one is relaunched with nothing but the launch itself.
    assert counts.launches == 16, counts
    assert counts.prepared <= 2, counts
    assert counts.relaunched >= 16 - 4, counts
    # ... all but each nest's first by the compiled caller, without Python (unpy::Relaunch)
    assert counts.compiled == counts.relaunched - 2, counts
    assert loops.explain("jacobi2d").transfers == {"a": (1, 1), "b": (1, 1)}
    assert "relaunched with only scalars set" in str(loops.explain("jacobi2d"))


def test_a_steps_temporary_keeps_its_block_and_the_launches_relaunch(loops):
    """`a[1:-1, 1:-1] = f(a[:-2, 1:-1], ...)` makes a temporary at every step: its block is taken
    again (unpy::allocate_again, though its device copy holds it too), so the launches keep
    one layout and relaunch, and the temporary never comes back to the host. (A new block per
    step made every launch a new layout: 3.5 ms of host work a launch on PoCL.)"""
    steps = 9
    loops.check("jacobi_slices", steps, RNG.random((23, 17)), rtol=1e-12)
    counts = launches(loops, "jacobi_slices")
    assert counts.launches == 2 * steps, counts
    assert counts.prepared <= 2 and counts.relaunched >= 2 * (steps - 2), counts
    assert loops.explain("jacobi_slices").transfers == {"a": (1, 1)}


def test_heat3d(loops):
    a, b = RNG.random((9, 10, 11)), np.zeros((9, 10, 11))
    loops.check("heat3d", 5, a, b, rtol=1e-12)
    counts = launches(loops, "heat3d")
    assert counts.launches == 10 and counts.relaunched >= 6, counts


def test_fdtd_row_from_the_step(loops):
    """`ey[0, j] = fict[t]`: an index that is the step; its nest is prepared once."""
    nx, ny, tmax = 12, 15, 7
    ex, ey, hz = RNG.random((nx, ny)), RNG.random((nx, ny)), RNG.random((nx, ny))
    loops.check("fdtd2d", tmax, ex, ey, hz, RNG.random(tmax), rtol=1e-12)
    counts = launches(loops, "fdtd2d")
    assert counts.launches == 4 * tmax, counts
    assert counts.prepared <= 4, counts
    assert counts.relaunched >= 4 * (tmax - 2), counts


def test_floyd_warshall_pivot(loops):
    """`path[i, k]`, `path[k, j]`: the pivot k in the indices; one plan serves every k."""
    n = 14
    path = RNG.integers(1, 50, (n, n)).astype(np.float64)
    np.fill_diagonal(path, 0.0)
    loops.check("floyd_warshall", path)
    counts = launches(loops, "floyd_warshall")
    assert counts.launches == n and counts.prepared == 1, counts
    assert counts.relaunched == n - 2, counts
    # k's range (0 <= k < n, where path[i, k] and path[k, j] stay inside) is C++'s check
    assert counts.compiled == n - 3, counts


def test_without_replay_the_relaunches_take_python(loops, device_env):
    """UNPY_REPLAY=0: nothing runs from C++ records; the relaunches go through the hook."""
    device_env.setenv("UNPY_REPLAY", "0")
    a, b = RNG.random((20, 20)), np.zeros((20, 20))
    loops.check("jacobi2d", 8, a, b, rtol=1e-12)
    counts = launches(loops, "jacobi2d")
    assert counts.relaunched >= 16 - 4 and counts.compiled == 0, counts


def test_a_float32_coefficient_set_from_cpp(loops):
    """A float32 scalar computed on the host each step: a 4-byte argument set by C++."""
    a, b = RNG.random(40).astype(np.float32), RNG.random(40).astype(np.float32)
    loops.check("float32_coefficient", 9, a, b)
    counts = launches(loops, "float32_coefficient")
    # (its two nests are fused into one: 9 launches)
    assert counts.launches == 9 and counts.compiled == 9 - 3, counts


def test_a_step_read_downwards_into_negative_rows(loops):
    """`grid[rows - 1 - t, j]`: C++ relaunches while the row is inside [0, rows) (a negative
    coefficient's range); the rows past 0 (Python's -1, -2) take the Python path, which plans
    the wrapped row."""
    rows = 5
    loops.check("rows_from_the_bottom", rows + 2, RNG.random((rows, 7)), np.zeros(7),
                rtol=1e-12)
    counts = launches(loops, "rows_from_the_bottom")
    # (fused: one launch a step) rows 4 and 3 copy in, row 2 is relaunched through Python
    # (which makes the record), rows 1 and 0 from C++; row -1 is prepared anew (wrapped), -2
    # relaunched through Python
    assert counts.launches == rows + 2 and counts.prepared == 2, counts
    assert counts.relaunched == rows - 1 and counts.compiled == rows - 3, counts


def test_a_step_past_the_last_row_raises_as_python(loops):
    """`grid[2 * t, j]` past the last row: not relaunched from C++ (out of its range); the
    launch through Python finds the index outside and OpenMP raises IndexError as the
    interpreter does, with the rows before summed and the device's data copied back."""
    rows, m = 7, 6
    grid = RNG.random((rows, m))
    results = []
    for f in (loops.interpreted.rows_past_the_end, loops.compiled.rows_past_the_end):
        g, out = grid.copy(), np.zeros(m)
        with pytest.raises(IndexError):
            f(rows, g, out)
        results.append((g, out))
    (g0, out0), (g1, out1) = results
    np.testing.assert_array_equal(out1, out0)
    np.testing.assert_array_equal(g1, g0)
    counts = launches(loops, "rows_past_the_end")
    # (fused: one launch a step) rows 0, 2, 4, 6; every relaunch from C++
    assert counts.launches == 4 and counts.compiled == counts.relaunched - 1 >= 1, counts


def test_a_pivot_loop_kept_on_openmp_decides_once(loops, device_env, monkeypatch):
    """The estimate keeps Floyd-Warshall's nest on OpenMP: that answer serves every pivot `k`
    (no trip count or bound reads it), so the nest is prepared once, not once per `k` (more
    pivots than the 32 layouts kept: each was prepared again, 0.75 ms a launch)."""
    from jitgpu import decide, offload
    device_env.delenv("UNPY_FORCE_GPU")
    monkeypatch.setattr(decide, "by_estimate", lambda plan: False)
    prepared = []
    real = offload.prepare
    monkeypatch.setattr(offload, "prepare", lambda *a, **k: prepared.append(a[4]) or real(*a, **k))
    n = 45
    path = RNG.integers(1, 50, (n, n)).astype(np.float64)
    np.fill_diagonal(path, 0.0)
    loops.check("floyd_warshall", path, ran_on="openmp")
    assert len(prepared) == 1, len(prepared)


def test_a_first_call_kept_on_openmp_asks_once_a_nest(loops, device_env, monkeypatch):
    """In a function's first call the estimate is not final (how many nest calls share the
    copies is known at the call's end): a nest it keeps on OpenMP asks the hook once, and the
    refusal holds for the rest of that call only (each launch asked through Python, 30-60 us,
    before); every launch still counts towards the next call's share."""
    from jitgpu import hook, residency
    from jitgpu.plan import GpuPlan
    device_env.delenv("UNPY_FORCE_GPU")
    monkeypatch.setattr(GpuPlan, "profitable", property(lambda plan: False))
    monkeypatch.setattr(residency, "_NEST_CALLS", {})
    asked = []
    real = hook.first_thing         # (the hook's first step: one a time it is asked)
    monkeypatch.setattr(hook, "first_thing", lambda *args: asked.append(1) or real(*args))
    a, b = RNG.random((20, 20)), np.zeros((20, 20))
    loops.check("jacobi2d", 8, a, b, rtol=1e-12, ran_on="openmp")
    assert len(asked) == 2, asked
    assert residency._NEST_CALLS[(loops.compiled.__name__, "jacobi2d")][1] == 16
    # The next call is no first call: it asks again, its share the 16 launches (rounded).
    asked.clear()
    loops.check("jacobi2d", 8, a, b, rtol=1e-12, ran_on="openmp")
    assert len(asked) == 2, asked
    assert "shared by the 16 nest calls" in loops.explain("jacobi2d").nests[0].reason


def test_a_small_nest_runs_where_the_steps_data_is(loops, device_env, monkeypatch):
    """FDTD's first nest a step (`ey[0, j] = fict[t]`) is no profit on the device by itself,
    but `ey` is there, kept by the step's other nests: it runs there too, instead of copying
    `ey` back and in again every step."""
    from jitgpu.plan import GpuPlan
    device_env.delenv("UNPY_FORCE_GPU")
    monkeypatch.setattr(GpuPlan, "profitable",
                        property(lambda plan: not plan.nest.endswith("nest 0")))
    nx, ny, tmax = 12, 15, 7
    ex, ey, hz = RNG.random((nx, ny)), RNG.random((nx, ny)), RNG.random((nx, ny))
    loops.check("fdtd2d", tmax, ex, ey, hz, RNG.random(tmax), rtol=1e-12, ran_on=None)
    report = loops.explain("fdtd2d")
    assert report.nests[0].ran_on.startswith("opencl:"), report.nests[0]
    assert "kept there by this call's earlier nests" in report.nests[0].reason
    assert report.transfers["ey"] == (1, 1), report.transfers


def test_nbody_leapfrog(loops):
    n = 17
    pos, vel = RNG.random((n, 3)), RNG.random((n, 3)) - 0.5
    loops.check("nbody_leapfrog", 4, 0.01, pos, vel, np.zeros((n, 3)), RNG.random(n) + 0.5,
                rtol=1e-12)
    counts = launches(loops, "nbody_leapfrog")
    assert counts.relaunched >= counts.launches - 2 * 4, counts


def test_coefficient_computed_on_the_host(loops):
    """`c = 1 / (t + 1)` set as an argument only: the same plan for every step."""
    loops.check("host_coefficient", 9, RNG.random(40), RNG.random(40), rtol=1e-12)
    counts = launches(loops, "host_coefficient")
    # (its two nests are fused into one: 9 launches)
    assert counts.launches == 9 and counts.prepared == 1, counts
    assert counts.relaunched == 9 - 2, counts


def test_host_code_between_nests_reads_what_the_device_wrote(loops):
    n, steps = 30, 12
    loops.check("host_reads_between", steps, RNG.random(n), np.zeros(n), np.zeros(steps),
                rtol=1e-12)
    counts = launches(loops, "host_reads_between")
    # The host reads b and writes a every step: the next nests take the full path, but the
    # preparations of the first step serve them all.
    assert counts.launches == 2 * steps and counts.prepared <= 2, counts


def test_nest_under_an_if(loops):
    loops.check("nest_under_if", 10, RNG.random(25), RNG.random(25), rtol=1e-12)
    counts = launches(loops, "nest_under_if")
    assert counts.launches == 10 + 4, counts


def test_bounds_that_depend_on_the_step(loops):
    """`prange(t, n)`, `a[i + t]`: the bounds change, so each step is a new plan (never a
    relaunch of another step's)."""
    loops.check("bounds_on_step", 6, RNG.random(20), RNG.random(20), rtol=1e-12)
    counts = launches(loops, "bounds_on_step")
    assert counts.launches == 12 and counts.relaunched == 0, counts


def test_row_of_the_step_modulo(loops):
    """`grid[r, j]`, `grid[w, j]`, rows the host computes from the step: one plan, its
    indices proved again for every value."""
    loops.check("row_sweep", 11, RNG.random((4, 9)), np.zeros(9), rtol=1e-12)
    counts = launches(loops, "row_sweep")
    # (its two nests are fused into one: 11 launches)
    assert counts.launches == 11 and counts.prepared == 1, counts
    assert counts.relaunched == 11 - 2, counts


def test_second_call_on_the_same_arrays_prepares_nothing(loops):
    a, b = RNG.random((16, 16)), np.zeros((16, 16))
    # (the second call prepares again: it shares the copies among the first call's launches
    # in its estimate, jitgpu.residency.amortised)
    for _ in range(3):
        loops.compiled.jacobi2d(5, a, b)
    counts = launches(loops, "jacobi2d")
    assert counts.launches == 10 and counts.prepared == 0, counts
    assert counts.relaunched >= 10 - 4, counts


def test_index_scalar_whose_proof_changes(loops):
    """`grid[t - 2, j]`: the plan of t = 0 (a negative index, wrapped as Python does) is not
    used where the index is no longer negative: the indices are proved again per value."""
    loops.check("rows_around_zero", 6, RNG.random((4, 7)), np.zeros(7), rtol=1e-12)
    counts = launches(loops, "rows_around_zero")
    assert counts.launches == 6 and counts.prepared == 2, counts


def cavity_args(ny, nx):
    """Barba's cavity at rest on a 2 x 2 square (dt as npbench sets it), the fields slightly
    perturbed so that every term of the updates is exercised from the first step."""
    u, v, p = (0.01 * RNG.standard_normal((ny, nx)) for _ in range(3))
    dx, dy = 2.0 / (nx - 1), 2.0 / (ny - 1)
    return u, v, 0.1 / ((nx - 1) * (ny - 1)), dx, dy, p, 1.0, 0.1


@pytest.mark.parametrize("where", ["opencl:", "openmp"])
def test_cavity_flow_pressure_loop_inside_the_step(loops, device_env, where):
    """A loop of `nit` pressure sweeps (a copy, the sweep, four boundary nests) inside each
    time step, arrays allocated in the function: the interpreter's results on the device and
    on the OpenMP path."""
    if where == "openmp":
        device_env.setenv("UNPY_DEVICE", "none")
    nt, nit = 3, 4
    loops.check("cavity_flow", nt, nit, *cavity_args(11, 13), rtol=1e-11, ran_on=where)
    if where == "opencl:":
        # Per step: the copy of u and v, b, nit x (the copy of p, the sweep, 4 boundary
        # nests), the velocities, 3 boundary nests.
        assert launches(loops, "cavity_flow").launches == nt * (2 + 6 * nit + 4)


def test_cavity_flow_keeps_p_on_the_device(loops):
    """The boundary nests of p's first row and column (`p[0, j] = p[1, j]`) take p's whole
    view, the layout the sweep keeps it in: p moves in and out once a call, and the launches
    of the later sweeps are relaunched."""
    nt, nit = 3, 4
    loops.check("cavity_flow", nt, nit, *cavity_args(11, 13), rtol=1e-11)
    assert loops.explain("cavity_flow").transfers["p"] == (1, 1)
    counts = launches(loops, "cavity_flow")
    assert counts.relaunched >= counts.launches // 2, counts


def test_a_convergence_loop(loops):
    """`while err > tol`, `err` the largest change, a reduction computed by a nest each sweep:
    the interpreter's sweeps and results; the sweep and the copy are relaunched."""
    a = np.zeros((12, 14))
    a[0, :], a[:, 0] = 1.0, 0.5
    loops.check("jacobi_until_converged", a, a.copy(), 1e-3, 500, rtol=0.0)
    counts = launches(loops, "jacobi_until_converged")
    sweeps = counts.launches // 3
    assert 5 < sweeps < 500, counts
    # every later launch, the reduction's too (its partial results combined in C++)
    assert counts.compiled == counts.relaunched - 3 >= 3 * (sweeps - 3), counts


def test_reductions_of_four_types_combined_in_cpp(loops):
    n, steps = 300, 9
    x = RNG.random(n).astype(np.float32)
    k = RNG.integers(-1000, 1000, n)
    m = RNG.integers(0, 1 << 20, n).astype(np.int32)
    loops.check("step_reductions", steps, x, k, m, np.zeros(steps), rtol=1e-6)
    counts = launches(loops, "step_reductions")
    assert counts.launches == steps and counts.compiled == counts.relaunched - 1 >= steps - 3, \
        counts


def test_new_temporaries_every_step_are_prepared_once(loops):
    """Each step's `u.copy()` and its helper's `np.zeros_like(u)` lie elsewhere in memory: the
    nests' layouts are the same up to their addresses, so each nest is prepared once and its
    plan moved to the new arrays' memory (jitgpu/rebase.py) at later steps."""
    steps = 12
    u, v = RNG.random((15, 17)), RNG.random((15, 17))
    loops.check("new_temporaries", steps, u, v, 0.5, rtol=1e-12)
    counts = launches(loops, "new_temporaries")
    nests = counts.launches // steps
    assert counts.launches == nests * steps and nests >= 4, counts
    # (before: every launch, 60 of 60)
    assert counts.prepared <= nests, counts
