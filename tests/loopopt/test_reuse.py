"""unpy/loopopt/reuse.py on the GPU path's description of tests/jitgpu/loopopt/tile_kernels.py's
nests: which loops the copies of a level run once, which loads they share, and when a two-level
nest crosses its operands (a register tile's condition)."""
import numpy as np

from described import TESTS, gpu_view
from unpy.loopopt.reuse import crossed_operands, jammed_loops, shared_loads

KERNELS = TESTS / "jitgpu" / "loopopt" / "tile_kernels.py"
F = np.float32


def _matmul():
    return gpu_view(KERNELS, "matmul_f32", np.ones((70, 9), F), np.ones((9, 70), F),
                    np.zeros((70, 70), F))


def test_matmul_jams_the_inner_product_for_either_level():
    nest = _matmul()
    for level in nest.levels:
        assert jammed_loops(list(nest.body), level.var, set(nest.privates)) == {"k"}


def test_each_level_shares_the_other_levels_operand():
    """Copies of i share b[k, j], copies of j share a[i, k]: one load each."""
    nest = _matmul()
    assert [shared_loads(nest, k) for k in range(2)] == [1, 1]


def test_matmul_crosses_its_operands():
    assert crossed_operands(_matmul(), 0, 1)


def test_a_loop_whose_bounds_read_the_level_is_not_jammed():
    a = np.ones((5, 7))
    nest = gpu_view(KERNELS, "moving_bounds", a, np.zeros((6, 5)))
    assert jammed_loops(list(nest.body), "i", set(nest.privates)) == set()
    assert jammed_loops(list(nest.body), "j", set(nest.privates)) == {"k"}
    assert shared_loads(nest, 0) == 0
    assert not crossed_operands(nest, 0, 1)


def test_syrk_reads_one_array_along_both_levels():
    a = np.ones((33, 5))
    nest = gpu_view(KERNELS, "syrk_tri", 1.5, a, 0.5, np.zeros((33, 33)))
    assert crossed_operands(nest, 0, 1)
    assert [shared_loads(nest, k) for k in range(2)] == [1, 1]
