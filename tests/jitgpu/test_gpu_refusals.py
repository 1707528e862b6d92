"""Nests the GPU path once refused although they can run on the device (issue 24), against the
interpreter on the tested OpenCL device: loop variables reused by sibling loops, accesses safe
under their guard, loop bounds read from arrays, negative indices, helpers of scalars; and the
reason `explain` and UNPY_LOG=info give for a nest that has nothing to run."""
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import testdevice
from modulepair import gpu_pair

HERE = Path(__file__).resolve().parent
REPO = str(HERE.parent.parent)
RNG = np.random.default_rng(24)


@pytest.fixture(scope="session")
def refusals(tmp_path_factory):
    """tests/jitgpu/refusal_kernels.py, compiled and interpreted."""
    return gpu_pair(HERE / "refusal_kernels.py", tmp_path_factory.mktemp("build-refusals"))


def csr(rows: int, cols: int, rng):
    """(indptr, indices, data) of a random sparse matrix, some rows empty."""
    counts = rng.integers(0, 4, rows)
    indptr = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
    indices = rng.integers(0, cols, indptr[-1]).astype(np.int64)
    return indptr, indices, rng.uniform(-1, 1, indptr[-1])


def cases(n: int):
    """(function, arguments) for sizes n >= 3."""
    m = n + 2
    indptr, indices, data = csr(n, m, RNG)
    return [
        ("reused_name", (RNG.random((n, m)), np.zeros((n, m)))),
        ("guarded_shift", (RNG.random((n, m)), np.zeros((n, m)), 2)),
        ("guarded_shift", (RNG.random((n, m)), np.zeros((n, m)), m + 3)),
        ("guarded_rows", (RNG.random((n, m)), np.zeros((n, m)))),
        ("while_guard", (RNG.random(n), np.zeros(n), 1)),
        ("clamped_stencil", (RNG.random(n), np.zeros(n))),
        ("csr_matvec", (indptr, indices, data, RNG.random(m), np.zeros(n))),
        ("last_minus", (RNG.random(n), np.zeros(n))),
        ("reversed_rows", (RNG.random((n, m)), np.zeros((n, m)))),
        ("rotate", (RNG.random(n), np.zeros(n), 2)),
        ("rotate", (RNG.random(n), np.zeros(n), n)),     # negative all over: folded
        ("triangle_under_empty", (RNG.random((n, m)), np.zeros(n))),
        ("smooth", (RNG.random(n), np.zeros(n))),
    ]


NAMES = [f"{func}#{k}" for k, (func, _) in enumerate(cases(3))]


@pytest.mark.parametrize("opt", ["none", "all"])
@pytest.mark.parametrize("n", [3, 17])
@pytest.mark.parametrize("case", range(len(NAMES)), ids=NAMES)
def test_offloaded_and_equal_to_the_interpreter(refusals, device_env, opt, n, case):
    device_env.setenv("UNPY_GPU_OPT", opt)
    func, args = cases(n)[case]
    refusals.check(func, *args, rtol=1e-12, ran_on="opencl:")


def test_sibling_loops_keep_their_own_ranges(refusals):
    """The second `for j` is a variable of its own: the proof sees j in [0, m - 3], not the
    hull of both loops."""
    from jitgpu.nest import instantiate, load_nest
    nest = load_nest("refusal_kernels", "reused_name", 0)
    a, b = np.zeros((4, 9)), np.zeros((4, 9))
    instance = instantiate(nest, {"a": a, "b": b})
    loops = {var: (box.lo, box.step, box.extent) for var, box in instance.boxes.items()}
    assert loops == {"i": (0, 1, 4), "j": (2, 1, 7), "j_1": (6, -1, 7)}
    assert not instance.checked
    assert all(acc.is_affine for _, acc in instance.accesses)


def test_guard_narrows_the_proof(refusals):
    """`g[k, e - w]` under `if e - w >= 0`: affine and proved over e in [w, m), no check,
    where the loop over e runs in the work-item (its iterations are independent: here it is
    kept a loop, as where the arrays overlap at the call)."""
    import dataclasses
    from jitgpu.nest import instantiate, load_nest
    from unpy import ir
    from unpy.loopopt.rewrite import transform
    nest = load_nest("refusal_kernels", "guarded_shift", 0)
    nest = dataclasses.replace(nest, loop=transform(nest.loop, lambda n: dataclasses.replace(
        n, independent=False) if isinstance(n, ir.For) else n))
    instance = instantiate(nest, {"g": np.zeros((4, 9)), "out": np.zeros((4, 9)), "w": 3})
    [(read, access)] = [(e, a) for e, a in instance.accesses if e.array.id == "g"]
    assert access.is_affine and access.domain == (("e", 3, 9),)
    assert not instance.checked


def test_loop_bounds_read_on_the_device(refusals):
    """The loop over p has no box: the kernel reads indptr[i] and indptr[i + 1]; the indices
    that use p are checked against their arrays' extents."""
    from jitgpu.nest import instantiate, load_nest
    nest = load_nest("refusal_kernels", "csr_matvec", 0)
    indptr, indices, data = csr(5, 7, RNG)
    values = {"indptr": indptr, "indices": indices, "data": data, "x": np.zeros(7),
              "y": np.zeros(5)}
    instance = instantiate(nest, values)
    assert instance.on_device == {"p"} and "p" not in instance.boxes
    checked = {(e.array.id, d) for e, _ in instance.accesses for d in range(len(e.indices))
               if (e.aid, d) in instance.checked}
    assert checked == {("data", 0), ("indices", 0), ("x", 0)}
    # Its trips are the kernel's to find: the estimate's work (one trip) is a floor, which
    # the decision never takes for OpenMP (jitgpu/decide.py measures instead).
    from jitgpu.plan import work_floor_only
    assert work_floor_only(instance) == ("the trips of the loop over p are computed in the "
                                         "nest at run time")


@pytest.mark.parametrize("func, args", [
    ("empty_inner", lambda: (np.zeros((0, 4)),)),
    ("triangle_under_empty", lambda: (np.zeros((0, 3)), np.zeros(0))),
    ("csr_matvec", lambda: (np.zeros(1, np.int64), np.zeros(0, np.int64), np.zeros(0),
                            np.zeros(3), np.zeros(0))),
])
def test_empty_parallel_loop_says_so(refusals, func, args):
    refusals.check(func, *args(), ran_on="openmp", reason="the parallel loop has no iterations")


def test_empty_inner_loop_runs_on_the_device(refusals):
    """A loop of no iteration under the parallel one: the kernel runs, and its loop is left
    out (the loop over k, under it, is never bounded)."""
    refusals.check("triangle_under_empty", np.zeros((4, 0)), np.zeros(4), ran_on="opencl:")
    refusals.check("empty_inner", np.zeros((4, 0)), ran_on="opencl:")


def test_log_info_names_the_reason_once_per_nest(refusals, tmp_path):
    folder = Path(refusals.compiled.__file__).parent
    script = textwrap.dedent("""
        import numpy as np
        import refusal_kernels as r
        r.empty_inner(np.zeros((0, 3)))
        r.last_minus(np.arange(5.0), np.zeros(5))
    """)
    env = dict(os.environ, UNPY_DEVICE=testdevice.SPEC, UNPY_FORCE_GPU="1", UNPY_LOG="info",
               PYTHONPATH=os.pathsep.join([str(folder), REPO, os.environ.get("PYTHONPATH", "")]))
    done = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    lines = [line for line in done.stderr.splitlines() if line.startswith("unpy: refusal_")]
    assert lines[0] == ("unpy: refusal_kernels.empty_inner nest 0: OpenMP (the parallel loop "
                        "has no iterations)"), done.stderr
    assert "last_minus nest 0: ran on opencl:" in lines[1] and len(lines) == 2, done.stderr
