"""Register tiles (jitgpu/loopopt/register_tiles.py) on Oclgrind: the two-level products of
tests/jitgpu/loopopt/tile_kernels.py with 3 x 2 blocks per work-item on groups of 4 x 2 (copies
past both trip counts, strided copies past a group's columns, triangular combinations outside
the guard), with local tiles of 3 iterations and without, read and write only what the
interpreter does and read no memory nothing wrote."""
import numpy as np
import pytest

pytestmark = pytest.mark.memcheck

F = np.float32
RNG = np.random.default_rng(29)


def rand(*shape, dtype=np.float64):
    return RNG.uniform(-2, 2, shape).astype(dtype)


CASES = {
    "matmul_f32": (lambda n: (rand(n, 7, dtype=F), rand(7, n + 1, dtype=F),
                              np.zeros((n, n + 1), F)), 1e-5),
    "syrk_tri": (lambda n: (1.5, rand(n, 5), 1.2, rand(n, n)), 1e-12),
    "syr2k_tri": (lambda n: (rand(n, 3, dtype=F), rand(n, 3, dtype=F), rand(n, n, dtype=F)),
                  1e-5),
    "tiled_reduction": (lambda n: (rand(n, 4), rand(4, n + 1)), 1e-12),
}


@pytest.mark.parametrize("with_tiles", [False, True], ids=["registers", "registers+local"])
@pytest.mark.parametrize("n", [5, 11])
@pytest.mark.parametrize("func", list(CASES))
def test_register_tiles_on_oclgrind(memcheck, tiles, oclgrind_env, monkeypatch, func, n,
                                    with_tiles):
    from jitgpu import bind, loopopt, session
    from jitgpu.loopopt.local_tiles import local_tiles
    from jitgpu.loopopt.register_tiles import register_tiles

    def forced(kernel, model):
        out = register_tiles(kernel, model, tile=(3, 2))
        return local_tiles(out, model, columns=3) if with_tiles else out
    monkeypatch.setattr(bind, "LOCAL_SIZES", {1: (8,), 2: (4, 2), 3: (2, 2, 2)})
    monkeypatch.setattr(loopopt, "PASSES", (("forced", ("all",), forced),))
    session.forget()
    oclgrind_env.setenv("UNPY_GPU_OPT", "all")
    make, rtol = CASES[func]
    report = memcheck.check(tiles, func, *make(n), rtol=rtol)
    assert all("register_tiles(" in nest.reason for nest in report.nests), str(report)
