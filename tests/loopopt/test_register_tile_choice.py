"""unpy/loopopt/register_tiles.py: the one register-tile choice, with each back end's cost model
(unpy/loopopt/cost.py's CpuModel, jitgpu/loopopt/cost.py's GpuModel), on the nests both back
ends describe: the levels and R x C each lowering (register_blocks, jitgpu's register_tiles)
gets, and the refusals."""
import dataclasses

import numpy as np

from described import TESTS, bound_kernel, cpu_view, gpu_view
from jitgpu.loopopt.cost import GpuModel
from jitgpu.loopopt.view import loop_nest
from unpy.loopopt import cost
from unpy.loopopt.register_tiles import Refusal, RegisterTile, register_tile

TILES = TESTS / "jitgpu" / "loopopt" / "tile_kernels.py"
CONTRACTIONS = TESTS / "kernels" / "contractions.py"
MODEL = cost.CpuModel.for_machine()
PACKED = dataclasses.replace(MODEL, packed_rows=True)
F = np.float32


def _gpu_choice(name, *args, tile=None):
    kernel = bound_kernel(TILES, name, *args)
    return register_tile(loop_nest(kernel), GpuModel().of(kernel, tile))


def test_gpu_matmul_f32_is_8_x_4_of_i_and_j():
    choice = _gpu_choice("matmul_f32", np.ones((70, 9), F), np.ones((9, 70), F),
                         np.zeros((70, 70), F))
    assert choice == RegisterTile(0, 1, 8, 4, ("i", "j"))
    assert str(choice) == "i x j: 8 x 4"


def test_gpu_f64_accumulators_halve_the_rows():
    choice = _gpu_choice("syrk_tri", 1.5, np.ones((37, 7)), 1.2, np.ones((37, 37)))
    assert (choice.rows, choice.cols) == (4, 4)


def test_gpu_search_choice_overrides_the_model():
    choice = _gpu_choice("matmul_f32", np.ones((70, 9), F), np.ones((9, 70), F),
                         np.zeros((70, 70), F), tile=(2, 2))
    assert (choice.rows, choice.cols) == (2, 2)
    refused = _gpu_choice("matmul_f32", np.ones((70, 9), F), np.ones((9, 70), F),
                          np.zeros((70, 70), F), tile=(1, 1))
    assert isinstance(refused, Refusal) and "1 x 1" in refused.reason


def test_gpu_refuses_operands_not_crossed():
    kernel = bound_kernel(TILES, "moving_bounds", np.ones((5, 7)), np.zeros((6, 5)))
    assert isinstance(register_tile(loop_nest(kernel), GpuModel().of(kernel)), Refusal)


def test_cpu_panelled_blocks_are_packed_rows_by_one_vector():
    choice = register_tile(cpu_view(CONTRACTIONS, "matmul"), PACKED)
    assert choice == RegisterTile(0, 1, 12, MODEL.vector_bytes // 8, ("i", "j"))
    f32 = register_tile(cpu_view(CONTRACTIONS, "matmul_f32"), PACKED)
    assert (f32.rows, f32.cols) == (12, MODEL.vector_bytes // 4)


def test_cpu_rows_are_shared_by_the_accumulators():
    choice = register_tile(cpu_view(CONTRACTIONS, "distances"), PACKED)
    assert (choice.rows, choice.cols) == (6, MODEL.vector_bytes // 8)


def test_cpu_columns_from_the_row_are_6_rows_by_two_vectors():
    choice = register_tile(cpu_view(CONTRACTIONS, "gram_upper"), MODEL)
    assert (choice.rows, choice.cols) == (6, 2 * MODEL.vector_bytes // 8)


def test_one_level_is_refused():
    nest = gpu_view(TILES, "matmul_f32", np.ones((70, 9), F), np.ones((9, 70), F),
                    np.zeros((70, 70), F))
    one = dataclasses.replace(nest, levels=nest.levels[:1])
    assert isinstance(register_tile(one, MODEL), Refusal)
