"""Local tiles (jitgpu/loopopt/local_tiles.py) on Oclgrind: the kernels of
tests/jitgpu/loopopt/tile_kernels.py with work-groups of 8 work-items and 3 iterations per tile
(tiles cut by the loop's stop, groups cut by the trip counts, triangular groups with no real
iteration) read and write only what the interpreter does, read no local element nothing wrote,
and (OCLGRIND_DATA_RACES=1) race on no local element; a kernel with a barrier left out does."""
import dataclasses
import os

import numpy as np
import pytest

from oclgrind import invalid_accesses
from unpy import ir

pytestmark = pytest.mark.memcheck

F = np.float32
RNG = np.random.default_rng(13)


def rand(*shape, dtype=np.float64):
    return RNG.uniform(-2, 2, shape).astype(dtype)


@pytest.fixture
def small_tiles(oclgrind_env, monkeypatch):
    """Groups of 8 work-items (4 x 2), 3 iterations per tile, after unroll-and-jam."""
    from jitgpu import bind, loopopt, session
    from jitgpu.loopopt.local_tiles import local_tiles
    from jitgpu.loopopt.unroll_and_jam import unroll_and_jam

    def forced(kernel, model):
        return local_tiles(unroll_and_jam(kernel, model), model, columns=3)
    monkeypatch.setattr(bind, "LOCAL_SIZES", {1: (8,), 2: (4, 2), 3: (2, 2, 2)})
    monkeypatch.setattr(loopopt, "PASSES", (("forced", ("all",), forced),))
    session.forget()
    oclgrind_env.setenv("UNPY_GPU_OPT", "all")
    return forced


CASES = {
    "matmul_f32": lambda n: (rand(n, 7, dtype=F), rand(7, n + 1, dtype=F),
                             np.zeros((n, n + 1), F)),
    "syrk_tri": lambda n: (1.5, rand(n, 5), 1.2, rand(n, n)),
    "grid_potential": lambda n: (rand(n + 2, 3, dtype=F), F(0.3), np.zeros((n, n), F)),
    "pull": lambda n: (rand(n + 4, 2), rand(n + 4), np.zeros(n), 1, n + 4),
}


@pytest.mark.parametrize("n", [5, 11])
@pytest.mark.parametrize("func", list(CASES))
def test_tiles_on_oclgrind(memcheck, tiles, small_tiles, func, n):
    tol = 1e-5 if func in ("matmul_f32", "grid_potential") else 1e-12
    report = memcheck.check(tiles, func, *CASES[func](n), rtol=tol)
    assert all("local_tiles(" in nest.reason for nest in report.nests), str(report)


@pytest.mark.skipif(os.environ.get("OCLGRIND_DATA_RACES") != "1",
                    reason="the data-race detector is off (OCLGRIND_DATA_RACES=1 turns it on)")
def test_missing_barrier_is_a_race(memcheck, tiles, small_tiles, monkeypatch):
    """Without the barrier after a tile's iterations, the next tile's loads overwrite elements
    other work-items still read: the detector sees it, so the clean runs above mean something."""
    from jitgpu import loopopt
    from jitgpu.loopopt.nodes import Barrier

    def without_barriers(kernel, model):
        kernel = small_tiles(kernel, model)
        body = list(kernel.body)
        k = next(k for k, s in enumerate(body) if isinstance(s, ir.For))     # over the tiles
        body[k] = dataclasses.replace(body[k], body=[
            s for s in body[k].body if not isinstance(s, Barrier)])
        return kernel.replace(body=tuple(body))

    def make():
        args = CASES["matmul_f32"](11)
        return args, [args[2]]
    monkeypatch.setattr(loopopt, "PASSES", (("planted", ("all",), without_barriers),))
    memcheck.reports()
    tiles.run("matmul_f32", make)
    reports = memcheck.reports()
    assert reports and any("data race" in r for r in reports), reports
    assert not invalid_accesses(reports)
