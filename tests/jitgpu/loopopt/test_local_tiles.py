"""local_tiles on bound nests (which loads become tiles, their shapes, what is refused), and
against the interpreter on the tested OpenCL device: odd sizes, tiles cut by the loop's stop and
by the rows' trip count, small work-groups, a forced odd tile length, UNPY_GPU_OPT=all."""
from pathlib import Path

import numpy as np
import pytest

import diffcheck
from bound import bound
from gpucheck import GpuPair, load_module
from jitgpu import bind as bind_module
from jitgpu import loopopt, session
from jitgpu.loopopt.cost import GpuModel
from jitgpu.loopopt.local_tiles import local_tiles
from jitgpu.loopopt.nodes import GroupActive, Lane, LocalLoad, TileLoad
from unpy.loopopt.nest import accesses_of
from unpy.loopopt.rewrite import transform
from jitgpu.loopopt.unroll_and_jam import unroll_and_jam
from jitgpu.loopopt.unroll_inner import unroll_inner
from jitgpu.opencl_emit import print_kernel
from unpy import ir
from unpy.typeinfer.reductions import walk_stmts

F = np.float32
RNG = np.random.default_rng(11)
HERE = Path(__file__).resolve().parent


@pytest.fixture(scope="session")
def tiles(tmp_path_factory) -> GpuPair:
    """tests/jitgpu/loopopt/tile_kernels.py, compiled and interpreted."""
    from unpy.cpp_emit.build import BuildOptions, build
    import testdevice
    testdevice.tested_device()
    path = HERE / "tile_kernels.py"
    with diffcheck.build_lock(path.stem):
        so = build(str(path), str(tmp_path_factory.mktemp("build-tile_kernels")),
                   BuildOptions()).output
    return GpuPair(load_module(path.stem, so), load_module(f"interpreted_{path.stem}", path))


def rand(*shape, dtype=np.float64):
    return RNG.uniform(-2, 2, shape).astype(dtype)


def _tile_loads(kernel):
    return [s for s in walk_stmts(list(kernel.body)) if isinstance(s, TileLoad)]


def _local_loads(kernel):
    found = []
    transform(list(kernel.body), lambda n: found.append(n) or n
              if isinstance(n, LocalLoad) else n)
    return found


def _matmul(tiles, n=33, p=9):
    return bound(tiles, "matmul_f32", rand(n, p, dtype=F), rand(p, n, dtype=F),
                 np.zeros((n, n), F))


# --- on bound nests ---------------------------------------------------------------------------

def test_matmul_tiles_both_operands_after_unroll_and_jam(tiles):
    kernel = unroll_and_jam(_matmul(tiles))
    assert kernel.levels[0].factor == 8 and kernel.local_size == (16, 16)
    out = local_tiles(kernel, GpuModel(local_mem=48 * 1024))     # an H100's
    (load,) = _tile_loads(out)
    a_tile, b_tile = load.tiles
    # a[i, k]: the group's 16 x 8 rows of i (the unrolled level), 32 iterations of k, loaded
    # along k (its unit stride), each column padded by 16 bytes.
    assert (a_tile.level, a_tile.factor, a_tile.rows, a_tile.stride, a_tile.columns,
            a_tile.rows_fastest) == (0, 8, 128, 132, 32, False)
    # b[k, j]: the group's 16 columns j, loaded along j.
    assert (b_tile.level, b_tile.rows, b_tile.stride, b_tile.rows_fastest) == (1, 16, 16, True)
    # Every load of a and b in the loop now reads a tile: the 8 copies' rows of a as two
    # aligned float4 (each copy reads its lane), b once per copy.
    loads = _local_loads(out)
    assert sorted((x.tile, x.copy, x.width) for x in loads) == sorted(
        [(a_tile.name, 0, 4), (a_tile.name, 4, 4)] + [(b_tile.name, 0, 1)] * 8)
    lanes = []
    transform(list(out.body), lambda n: lanes.append(n) or n if isinstance(n, Lane) else n)
    assert sorted(x.lane for x in lanes) == [0, 0, 1, 1, 2, 2, 3, 3]
    assert dict(out.privates)[lanes[0].vector] == "float32x4"
    assert not [e for e in accesses_of(list(out.body)) if e.array.id in ("a", "b")]
    assert {aid for aid, _ in out.accesses} >= {a_tile.aid, b_tile.aid}
    assert out.transforms[-1].startswith("local_tiles(k, 32")
    source = print_kernel(out)
    assert f"__local float {a_tile.name}[4224] " in source
    assert source.count("barrier(CLK_LOCAL_MEM_FENCE);") == 2
    assert "if (unpy_active) do" not in source          # every work-item runs the body


def test_unroll_inner_unrolls_the_loop_over_a_tile(tiles):
    out = unroll_inner(local_tiles(unroll_and_jam(_matmul(tiles))))
    assert "unroll_inner(k, 4)" in out.transforms
    # The copies k__1.. read the tiles at their own iterations.
    assert {x.var.id for x in _local_loads(out)} == {"k", "k__1", "k__2", "k__3"}


def test_tiles_without_unroll_and_jam(tiles):
    (load,) = _tile_loads(local_tiles(_matmul(tiles)))
    assert [(t.level, t.factor, t.rows) for t in load.tiles] == [(0, 1, 16), (1, 1, 16)]


def test_tiles_without_rows_take_one_iteration_per_work_item(tiles):
    kernel = bound(tiles, "grid_potential", rand(21, 3, dtype=F), F(0.5), np.zeros((9, 17), F))
    (load,) = _tile_loads(local_tiles(kernel))
    assert len(load.tiles) == 3         # atoms[k, 0], atoms[k, 1], atoms[k, 2]
    assert all(t.level is None and t.rows == 1 and t.columns == 256 for t in load.tiles)


def test_triangular_groups_beyond_the_diagonal_skip_the_loop(tiles):
    kernel = bound(tiles, "syrk_tri", 1.5, rand(20, 7), 1.2, rand(20, 20))
    out = local_tiles(unroll_and_jam(kernel))
    (load,) = _tile_loads(out)
    assert sorted(t.level for t in load.tiles) == [0, 1]     # a[i, k] and a[j, k]
    assert any(isinstance(s, ir.If) and isinstance(s.test, GroupActive)
               for s in walk_stmts(list(out.body)))
    assert "atomic_or(&unpy_any, 1);" in print_kernel(out)


def test_tiles_fit_the_device_local_memory(tiles):
    kernel = unroll_and_jam(_matmul(tiles))
    # 32 iterations: a 132 x 32 + 16 x 32 floats = 18944 bytes; 4 iterations: 2368 bytes, 8:
    # 4736, over 95 % of 4000.
    (load,) = _tile_loads(local_tiles(kernel, GpuModel(local_mem=4000)))
    assert {t.columns for t in load.tiles} == {4}
    # Not even one iteration (592 bytes) fits.
    assert local_tiles(kernel, GpuModel(local_mem=500)) is kernel


@pytest.mark.parametrize("func", ["break_early", "moving_bounds"])
def test_refused(tiles, func):
    kernel = bound(tiles, func, rand(20, 7), np.zeros((20, 20)))
    assert local_tiles(kernel) is kernel


def test_no_reuse_in_a_group_of_one(tiles):
    kernel = _matmul(tiles).replace(local_size=(1, 1))
    assert local_tiles(kernel) is kernel


# --- against the interpreter ------------------------------------------------------------------

def cases(n):
    """(function, arguments, rtol) at size n."""
    return [
        ("matmul_f32", (rand(n, 9, dtype=F), rand(9, n + 2, dtype=F),
                        np.zeros((n, n + 2), F)), 1e-5),
        ("matmul_f32", (rand(n, 2 * n + 1, dtype=F)[:, ::2], rand(n + 3, n + 1, dtype=F).T,
                        np.zeros((n, n + 3), F)), 1e-5),
        ("syrk_tri", (1.5, rand(n, n + 4), 1.2, rand(n, n)), 1e-12),
        ("syr2k_tri", (rand(n, 7, dtype=F), rand(n, 7, dtype=F), rand(n, n, dtype=F)), 1e-5),
        ("grid_potential", (rand(n + 6, 3, dtype=F), F(0.3), np.zeros((n, n + 1), F)), 1e-5),
        ("pull", (rand(n + 20, 2), rand(n + 20), np.zeros(n), 1, n + 19), 1e-12),
        ("backwards_int", (RNG.integers(-3, 4, (n, 6)).astype(np.int32),
                           RNG.integers(-3, 4, (6, n)).astype(np.int32),
                           np.zeros((n, n), np.int64)), 0),
        ("tiled_reduction", (rand(n, 5), rand(5, n + 1)), 1e-12),
    ]


CASE_NAMES = [c[0] + f"#{k}" for k, c in enumerate(cases(1))]


@pytest.fixture
def fresh_preparations():
    session.forget()


@pytest.mark.parametrize("n", [1, 17, 33])
@pytest.mark.parametrize("case", range(len(CASE_NAMES)), ids=CASE_NAMES)
def test_all_matches_interpreter(tiles, device_env, fresh_preparations, n, case):
    device_env.setenv("UNPY_GPU_OPT", "all")
    func, args, rtol = cases(n)[case]
    _, report = tiles.check(func, *args, rtol=rtol)
    if n > 1:
        assert all("local_tiles(" in nest.reason for nest in report.nests), str(report)


@pytest.mark.parametrize("n", [5, 19])
@pytest.mark.parametrize("case", range(len(CASE_NAMES)), ids=CASE_NAMES)
def test_small_groups_and_odd_tiles(tiles, device_env, fresh_preparations, monkeypatch, n,
                                    case):
    """Work-groups of 8 work-items, 3 iterations per tile: several groups per dimension, the
    last tile and the last group cut short."""
    monkeypatch.setattr(bind_module, "LOCAL_SIZES", {1: (8,), 2: (4, 2), 3: (2, 2, 2)})

    def forced(kernel, model):
        return local_tiles(unroll_and_jam(kernel, model), model, columns=3)
    monkeypatch.setattr(loopopt, "PASSES", (("forced", ("all",), forced),))
    device_env.setenv("UNPY_GPU_OPT", "all")
    func, args, rtol = cases(n)[case]
    _, report = tiles.check(func, *args, rtol=rtol)
    assert all("local_tiles(" in nest.reason for nest in report.nests), str(report)
