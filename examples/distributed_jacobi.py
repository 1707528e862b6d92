"""A time-stepped 5-point Jacobi stencil across processes (SPEC section 6, beyond one host): the
grid's interior rows are cut into slabs, one per MPI process; each process keeps its slab with
one halo row above and below, calls the compiled unpy kernel on it every step (which runs on
its own devices as UNPY_DEVICE says, split across them if it names several), and swaps its edge
rows with its neighbours' halos between steps. Every element is computed as the one-process run
computes it, so the results are equal.

    unpy build examples/distributed_jacobi.py
    mpiexec -n 4 python examples/distributed_jacobi.py --n 4096 --steps 100 --check

`--check` also runs the whole grid in one process (rank 0) and compares; `--out FILE` saves the
result (.npy). Without mpi4py, or under plain `python`, it runs as one process.
"""
import argparse
import importlib
import sys

import numpy as np

import unpython
from unpython import prange


@unpython.gpu
@unpython.type('ndarray[float64, 2]', 'ndarray[float64, 2]', None)
def jacobi_step(a, out):
    n = a.shape[0]
    m = a.shape[1]
    for i in prange(1, n - 1):
        for j in prange(1, m - 1):
            out[i, j] = 0.2 * (a[i, j] + a[i - 1, j] + a[i + 1, j] + a[i, j - 1] + a[i, j + 1])


def initial_grid(n: int) -> np.ndarray:
    """PolyBench's jacobi-2d start, on an n x n grid whose edge rows and columns stay fixed."""
    i, j = np.indices((n, n), np.float64)
    return (i * (j + 2) + 2) / n


def slab_rows(n: int, size: int, rank: int) -> tuple:
    """The interior rows [lo, hi) of process `rank` of `size`: [1, n - 1) cut evenly."""
    interior = max(n - 2, 0)
    lo = 1 + interior * rank // size
    hi = 1 + interior * (rank + 1) // size
    return lo, hi


def run(grid: np.ndarray, steps: int, step=None, comm=None):
    """`steps` Jacobi steps of `grid` (not changed); with `comm`, across its processes: the
    result on rank 0, None elsewhere. `step`: the kernel (default: this module's, compiled
    when built)."""
    step = step or jacobi_step
    size, rank = (comm.Get_size(), comm.Get_rank()) if comm else (1, 0)
    lo, hi = slab_rows(grid.shape[0], size, rank)
    a = grid[lo - 1:hi + 1].copy()          # the slab with a halo row on each side
    out = a.copy()                          # its edges (halos, edge columns) as in `a`
    above = rank - 1 if rank > 0 else None
    below = rank + 1 if rank < size - 1 else None
    for _ in range(steps):
        step(a, out)
        a, out = out, a
        if comm and hi > lo:
            # Edge rows out, neighbours' edge rows into the halos (the grid's edges stay).
            if above is not None:
                comm.Sendrecv(a[1], dest=above, recvbuf=a[0], source=above)
            if below is not None:
                comm.Sendrecv(a[-2], dest=below, recvbuf=a[-1], source=below)
    if not comm:
        result = grid.copy()
        result[lo:hi] = a[1:-1]
        return result
    pieces = comm.gather((lo, hi, a[1:-1]), root=0)
    if rank != 0:
        return None
    result = grid.copy()
    for lo, hi, rows in pieces:
        result[lo:hi] = rows
    return result


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=1024)
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--check", action="store_true",
                        help="compare with the whole grid run by one process (rank 0)")
    parser.add_argument("--out", help="save the result here (.npy, rank 0)")
    options = parser.parse_args(argv)
    # The compiled module when built (`import` prefers it), else this file.
    module = importlib.import_module("distributed_jacobi")
    try:
        from mpi4py import MPI
        comm = MPI.COMM_WORLD if MPI.COMM_WORLD.Get_size() > 1 else None
    except ImportError:
        comm = None
    grid = initial_grid(options.n)
    result = run(grid, options.steps, module.jacobi_step, comm)
    if result is None:
        return 0
    size = comm.Get_size() if comm else 1
    compiled = "compiled" if hasattr(module.jacobi_step, "__unpy_compiled__") else "interpreted"
    print(f"{options.n}x{options.n}, {options.steps} steps, {size} process(es), "
          f"{compiled} kernel: sum {result.sum():.12g}")
    if options.out:
        np.save(options.out, result)
    if options.check:
        alone = run(grid, options.steps, module.jacobi_step)
        same = np.array_equal(result, alone)
        print("equal to the one-process run" if same else "DIFFERS from the one-process run")
        return 0 if same else 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
