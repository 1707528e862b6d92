"""register_tiles on bound nests (the two levels jammed, the strided copies, the guards of each
combination of copies, the register budget and the device's fill, what is refused), and against
the interpreter on the tested OpenCL device: odd and non-square sizes, copies past the trip
counts, triangular nests, a reduction, forced tile shapes on small work-groups, with and without
local tiles, and the example kernels it applies to (f32 and f64) at UNPY_GPU_OPT=all."""
import sys
from pathlib import Path

import numpy as np
import pytest

from bound import bound
from jitgpu import bind as bind_module
from jitgpu import loopopt, offload
from jitgpu.loopopt.cost import GpuModel
from jitgpu.loopopt.local_tiles import local_tiles
from jitgpu.loopopt.nodes import CopyValid, LocalLoad, TileLoad, UnrolledLevel
from jitgpu.loopopt.register_tiles import register_tiles
from unpy.loopopt.rewrite import transform
from jitgpu.loopopt.unroll_inner import unroll_inner
from jitgpu.opencl_emit import print_kernel
from modulepair import gpu_pair
from unpy import ir
from unpy.typeinfer.reductions import walk_stmts

F = np.float32
RNG = np.random.default_rng(23)
HERE = Path(__file__).resolve().parent
EXAMPLES = HERE.parents[2] / "examples"
if str(EXAMPLES) not in sys.path:
    sys.path.append(str(EXAMPLES))          # the examples' _harness (appended: shadows nothing)


@pytest.fixture(scope="session")
def tiles(tmp_path_factory):
    return gpu_pair(HERE / "tile_kernels.py", tmp_path_factory.mktemp("build-tile_kernels"))


@pytest.fixture(scope="session")
def regs(tmp_path_factory):
    return gpu_pair(HERE / "register_kernels.py",
                    tmp_path_factory.mktemp("build-register_kernels"))


def rand(*shape, dtype=np.float64):
    return RNG.uniform(-2, 2, shape).astype(dtype)


def _matmul(tiles, n=70, p=9, m=None):
    m = n if m is None else m
    return bound(tiles, "matmul_f32", rand(n, p, dtype=F), rand(p, m, dtype=F),
                 np.zeros((n, m), F))


def _guards(kernel):
    """The CopyValid tests of the body's guarded statements."""
    return [s.test.copy for s in walk_stmts(list(kernel.body))
            if isinstance(s, ir.If) and isinstance(s.test, CopyValid)]


# --- on bound nests ---------------------------------------------------------------------------

def test_mmult_gets_an_8_by_4_block_with_strided_columns(tiles):
    kernel = _matmul(tiles, n=70, m=101)
    assert kernel.local_size == (16, 16)
    out = register_tiles(kernel)
    i, j = out.levels
    assert isinstance(i, UnrolledLevel) and (i.factor, i.strided) == (8, False)
    assert isinstance(j, UnrolledLevel) and (j.factor, j.strided) == (4, True)
    assert "register_tiles(i x j: 8 x 4)" in out.transforms
    # j: ceil(101 / (16 * 4)) groups of 16; i: ceil(ceil(70 / 8) / 16) groups of 16.
    assert out.global_size == (32, 16)
    # One store per combination of copies, each guarded by its own (u, v).
    assert sorted(_guards(out)) == [(u, v) for u in range(8) for v in range(4)]
    source = print_kernel(out)
    assert "const long unpy_w1 = get_group_id(0) * 64L + get_local_id(0);" in source
    assert "long unpy_t1_3 = unpy_w1 + 48L;" in source
    # R + C trip-count tests kept, combined at each store.
    assert "const bool unpy_in1_3 = unpy_t1_3 < unpy_n1;" in source
    assert "if (!unpy_in1_3) { unpy_t1_3 = unpy_t1; j__3 = j; }" in source
    assert "if ((unpy_in0_7 && unpy_in1_3)) {" in source


def test_local_tiles_read_the_strided_copies_a_group_width_apart(tiles):
    out = local_tiles(register_tiles(_matmul(tiles)), GpuModel(local_mem=48 * 1024))
    (load,) = [s for s in walk_stmts(list(out.body)) if isinstance(s, TileLoad)]
    a_tile, b_tile = load.tiles
    assert (a_tile.rows, a_tile.factor, a_tile.strided) == (128, 8, False)
    assert (b_tile.rows, b_tile.factor, b_tile.strided, b_tile.rows_fastest) == (64, 4, True,
                                                                                 True)
    loads = []
    transform(list(out.body), lambda n: loads.append(n) or n if isinstance(n, LocalLoad) else n)
    # b's copies read one element each, once per i copy (the compiler keeps one load: the
    # tile does not change within an iteration); no vector across a strided level's copies.
    b_loads = [x.copy for x in loads if x.tile == b_tile.name]
    assert sorted(b_loads) == [v for v in range(4) for _ in range(8)]
    assert all(x.width == 1 for x in loads if x.tile == b_tile.name)
    source = print_kernel(unroll_inner(out))
    assert f"{b_tile.name}[(int)(k - k__tile) * 64 + unpy_l1 + 48]" in source


def test_f64_accumulators_shrink_the_block_to_the_budget(tiles):
    # tiled_reduction: s is float64 (two registers), and a prange reduction t beside it.
    kernel = bound(tiles, "tiled_reduction", rand(40, 6), rand(6, 40))
    out = register_tiles(kernel)
    assert [lv.factor for lv in out.levels] == [4, 4]
    assert register_tiles(kernel, tile=(2, 2)).transforms[-1].endswith("2 x 2)")
    # The search's choice is the model's.
    chosen = register_tiles(kernel, GpuModel(register_tile=(2, 2)))
    assert chosen.transforms[-1].endswith("2 x 2)")


def test_a_device_to_fill_shrinks_the_block_then_leaves_it_to_unroll_and_jam(tiles):
    kernel = _matmul(tiles, n=64)          # 64 x 64 work-items
    divisor = GpuModel().fill_divisor
    need = GpuModel(fill_items=64 * 64 // 8 * divisor)
    assert [lv.factor for lv in register_tiles(kernel, need).levels] == [4, 2]
    assert register_tiles(kernel, GpuModel(fill_items=64 * 64 * divisor)) is kernel


def test_triangular_nest_guards_each_combination(tiles):
    kernel = bound(tiles, "syrk_tri", 1.5, rand(37, 7), 1.2, rand(37, 37))
    out = register_tiles(kernel)
    assert out.transforms[-1] == "register_tiles(i x j: 4 x 4)"      # float64 accumulators
    source = print_kernel(out)
    # The guard j <= i of each combination of i's and j's copies, at its store.
    valid = source.split("if ((unpy_in0_2 && unpy_in1_1 && ")[1].split(") {")[0]
    assert valid.startswith("(j__1 >= ") and "i__2" in valid


@pytest.mark.parametrize("func, args", [
    ("row_scaled", lambda: (rand(20, 5, dtype=F), rand(20, dtype=F), np.zeros((20, 20), F))),
    ("tri_divide", lambda: (rand(20, 5), np.zeros((20, 20)))),
])
def test_refused(regs, func, args):
    kernel = bound(regs, func, *args())
    assert register_tiles(kernel) is kernel


def test_refused_where_one_level_jammed_shares_as_much(tiles):
    # cp: the atoms depend on neither level (unroll_and_jam shares them as well alone).
    kernel = bound(tiles, "grid_potential", rand(21, 3, dtype=F), F(0.5), np.zeros((9, 17), F))
    assert register_tiles(kernel) is kernel
    assert loopopt.optimise(kernel, "all").transforms[1].startswith("unroll_and_jam(")


def test_refused_on_one_level_and_on_a_group_one_wide(tiles):
    one = bound(tiles, "pull", rand(24, 2), rand(24), np.zeros(20), 1, 24)
    assert register_tiles(one) is one
    narrow = _matmul(tiles).replace(local_size=(1, 16))
    assert register_tiles(narrow) is narrow


def test_in_level_all_before_unroll_and_jam(tiles):
    out = loopopt.optimise(_matmul(tiles), "all")
    assert out.transforms[1] == "register_tiles(i x j: 8 x 4)"
    assert not any(t.startswith("unroll_and_jam") for t in out.transforms)
    assert any(t.startswith("local_tiles") for t in out.transforms)


# --- on the tested OpenCL device, against the interpreter -----------------------------------

@pytest.fixture
def fresh_preparations(monkeypatch):
    monkeypatch.setattr(offload, "_PREPARED", type(offload._PREPARED)())


def tile_cases(n):
    """(pair name, function, arguments, rtol): odd, non-square, triangular, a reduction."""
    return [
        ("tiles", "matmul_f32", (rand(n, 9, dtype=F), rand(9, n + 3, dtype=F),
                                 np.zeros((n, n + 3), F)), 1e-5),
        ("tiles", "syrk_tri", (1.5, rand(n, 5), 1.2, rand(n, n)), 1e-12),
        ("tiles", "syr2k_tri", (rand(n, 3, dtype=F), rand(n, 3, dtype=F),
                                rand(n, n, dtype=F)), 1e-5),
        ("tiles", "tiled_reduction", (rand(n, 4), rand(4, n + 1)), 1e-12),
        ("tiles", "backwards_int", (RNG.integers(-9, 9, (n, 7)).astype(np.int32),
                                    RNG.integers(-9, 9, (7, n)).astype(np.int32),
                                    np.zeros((n, n), np.int64)), 0),
        ("regs", "matmul_t_f64", (rand(6, n), rand(6, n + 2), np.zeros((n, n + 2))), 1e-12),
        ("regs", "row_scaled", (rand(n, 5, dtype=F), rand(n, dtype=F), np.zeros((n, n), F)),
         1e-5),
        ("regs", "tri_divide", (rand(n, 5) + 3.0, np.zeros((n, n))), 1e-12),
    ]


CASE_NAMES = [c[1] for c in tile_cases(1)]


@pytest.mark.parametrize("n", [1, 5, 33, 70])
@pytest.mark.parametrize("case", range(len(CASE_NAMES)), ids=CASE_NAMES)
def test_all_matches_interpreter(tiles, regs, device_env, fresh_preparations, n, case):
    device_env.setenv("UNPY_GPU_OPT", "all")
    pair, func, args, rtol = tile_cases(n)[case]
    (tiles if pair == "tiles" else regs).check(func, *args, rtol=rtol)


@pytest.mark.parametrize("with_tiles", [False, True], ids=["registers", "registers+local"])
@pytest.mark.parametrize("shape", [(2, 3), (3, 2), (8, 4)], ids=str)
@pytest.mark.parametrize("n", [5, 19])
@pytest.mark.parametrize("case", range(len(CASE_NAMES)), ids=CASE_NAMES)
def test_forced_shapes_on_small_groups(tiles, regs, device_env, fresh_preparations, monkeypatch,
                                       shape, with_tiles, n, case):
    """Groups of 4 x 2, tile shapes that divide nothing, local tiles of 3 iterations."""
    def forced(kernel, model):
        out = register_tiles(kernel, model, tile=shape)
        return local_tiles(out, model, columns=3) if with_tiles else out
    monkeypatch.setattr(bind_module, "LOCAL_SIZES", {1: (8,), 2: (4, 2), 3: (2, 2, 2)})
    monkeypatch.setattr(loopopt, "PASSES", (("forced", ("all",), forced),))
    device_env.setenv("UNPY_GPU_OPT", "all")
    pair, func, args, rtol = tile_cases(n)[case]
    _, report = (tiles if pair == "tiles" else regs).check(func, *args, rtol=rtol)
    if func not in ("row_scaled", "tri_divide"):
        assert "register_tiles" in report.nests[0].reason, str(report)


@pytest.fixture(scope="session")
def examples(tmp_path_factory):
    pairs = {}

    def pair(kernel):
        if kernel not in pairs:
            pairs[kernel] = gpu_pair(EXAMPLES / f"{kernel}.py",
                                     tmp_path_factory.mktemp(f"build-{kernel}"))
        return pairs[kernel]
    return pair


EXAMPLE_CASES = [(kernel, f"{kernel}_{dtype}") for kernel in ("mmult", "syrk", "syr2k")
                 for dtype in ("f32", "f64")]


@pytest.mark.parametrize("n", [7, 67, 130])
@pytest.mark.parametrize("kernel, func", EXAMPLE_CASES, ids=[f for _, f in EXAMPLE_CASES])
def test_examples_match_interpreter(examples, device_env, fresh_preparations, kernel, func, n):
    import _harness  # noqa: E402  (examples/, on the path above)
    device_env.setenv("UNPY_GPU_OPT", "all")
    case = next(c for c in _harness.interpreted(kernel).CASES if c.func == func)
    _, report = examples(kernel).check(func, *case.args(n), rtol=case.rtol)
    assert "register_tiles" in report.nests[0].reason, str(report)


def test_tiles_that_differ_in_their_first_rows_are_optimised_once(regs, monkeypatch):
    """`optimise` remembers a kernel without its levels' first values (`unpy_lo<k>`): a tile
    starting elsewhere gets the remembered kernel with its own first values, the kernel a
    fresh optimisation of it gives."""
    n = 40
    kernel = bound(regs, "matmul_t_f64", rand(6, n), rand(6, n + 2), np.zeros((n, n + 2)))
    starts = {p.name: p.value for p in kernel.params if p.name.startswith("unpy_lo")}
    assert set(starts) == {"unpy_lo0", "unpy_lo1"}
    later = loopopt._with_starts(kernel, {"unpy_lo0": 8, "unpy_lo1": 2})
    monkeypatch.setattr(loopopt, "_OPTIMISED", type(loopopt._OPTIMISED)())
    fresh = loopopt.optimise(later, "all")
    monkeypatch.setattr(loopopt, "_OPTIMISED", type(loopopt._OPTIMISED)())
    first = loopopt.optimise(kernel, "all")
    remembered = loopopt.optimise(later, "all")
    assert len(loopopt._OPTIMISED) == 1               # one optimisation for both
    assert remembered == fresh and remembered != first
    assert dict((p.name, p.value) for p in remembered.params)["unpy_lo0"] == 8
    assert print_kernel(remembered) == print_kernel(first)
