"""unpy/loopopt/unroll_and_jam.py: the one unroll-and-jam choice, with each back end's cost
model (jitgpu/loopopt/cost.py's GpuModel: the level whose copies share the most loads, the
factor the registers and the device's fill allow; unpy/loopopt/cost.py's CpuModel: the level
that makes the innermost accesses unit-stride, in strips of its strip_width), and the refusals."""
import numpy as np

from described import TESTS, bound_kernel, function
from jitgpu.loopopt.cost import GpuModel
from jitgpu.loopopt.view import loop_nest
from unpy.loopopt import cost
from unpy.loopopt.nest import cpu_nest
from unpy.loopopt.register_tiles import Refusal
from unpy.loopopt.unroll_and_jam import Jam, choose_jam
from unpy.typeinfer.reductions import outermost_pranges

TILES = TESTS / "jitgpu" / "loopopt" / "tile_kernels.py"
LOOP_ORDERS = TESTS / "kernels" / "loop_orders.py"
F = np.float32


def _matmul(n=70):
    return bound_kernel(TILES, "matmul_f32", np.ones((n, 9), F), np.ones((9, n), F),
                        np.zeros((n, n), F))


def _strips(name):
    nest = cpu_nest(next(outermost_pranges(function(LOOP_ORDERS, name).body)), with_middle=False)
    return choose_jam(nest, cost.CpuModel.for_machine())


def test_gpu_matmul_jams_k_for_8_copies_of_the_outer_level():
    kernel = _matmul()
    jam = choose_jam(loop_nest(kernel), GpuModel().of(kernel))
    assert jam == Jam(0, "i", 8, frozenset({"k"}))
    assert str(jam) == "i by 8, jamming k"


def test_gpu_fill_halves_the_factor():
    kernel = _matmul(64)
    half = GpuModel(fill_items=64 * 64 // 2).of(kernel)
    assert choose_jam(loop_nest(kernel), half).factor == 2
    starved = GpuModel(fill_items=64 * 64).of(kernel)
    assert isinstance(choose_jam(loop_nest(kernel), starved), Refusal)


def test_gpu_named_level_and_factor():
    kernel = _matmul()
    jam = choose_jam(loop_nest(kernel), GpuModel().of(kernel), level=1, factor=4)
    assert (jam.var, jam.factor, jam.jammed) == ("j", 4, {"k"})


def test_cpu_column_sums_are_strips_of_the_prange_jamming_the_rows():
    width = cost.CpuModel.for_machine().strip_width
    assert _strips("column_sums") == Jam(0, "j", width, frozenset({"i"}))
    assert _strips("column_recurrence") == Jam(0, "j", width, frozenset({"i"}))


def test_cpu_refuses_a_nest_that_walks_its_rows_already():
    refused = _strips("transpose_add")
    assert isinstance(refused, Refusal) and "unit stride" in refused.reason
