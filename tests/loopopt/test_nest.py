"""unpy/loopopt/nest.py: access ids, the parallel levels, and the LoopNest the GPU path makes of
a bound nest (jitgpu/loopopt/view.py), before and after register_tiles, and the C++ path's
(cpu_nest), which agree: tests/jitgpu/loopopt/tile_kernels.py's and examples/syrk.py's."""
import numpy as np
import pytest

from described import TESTS, bound_kernel, cpu_view, function, gpu_view
from jitgpu.loopopt.register_tiles import register_tiles
from jitgpu.loopopt.view import index_reads, loop_nest
from unpy import ir
from unpy.loopopt.nest import (ArrayAccess, accesses_of, address_of, number_accesses,
                               parallel_levels)
from unpy.typeinfer.reductions import walk_stmts

KERNELS = TESTS / "jitgpu" / "loopopt" / "tile_kernels.py"
F = np.float32


def _outer(name):
    return next(s for s in walk_stmts(function(KERNELS, name).body)
                if isinstance(s, ir.For) and s.parallel)


def test_accesses_are_numbered_in_walk_order():
    numbered = number_accesses(_outer("matmul_f32"))
    found = accesses_of(numbered)
    assert all(isinstance(e, ArrayAccess) for e in found)
    assert [(e.array.id, e.aid) for e in found] == [("a", 0), ("b", 1), ("c", 2)]


def test_parallel_levels_are_the_perfectly_nested_pranges():
    assert [loop.var for loop in parallel_levels(_outer("matmul_f32"))] == ["i", "j"]


def test_gpu_view_of_matmul():
    nest = gpu_view(KERNELS, "matmul_f32", np.ones((70, 9), F), np.ones((9, 70), F),
                    np.zeros((70, 70), F))
    assert [(lv.var, lv.guarded) for lv in nest.levels] == [("i", False), ("j", False)]
    by_array = {a.array: a for _, a in nest.addresses}
    assert by_array["a"].names == {"i", "k"}
    assert by_array["b"].names == {"k", "j"}
    assert by_array["c"].names == {"i", "j"}
    assert by_array["b"].dims == ({"k"}, {"j"})
    assert nest.privates == {"s", "k"}
    assert str(nest).splitlines()[:3] == ["level 0: i", "level 1: j",
                                          "access 0: a reads {i, k} by dimension i | k"]


def test_gpu_view_of_a_triangle_has_a_guarded_level():
    nest = gpu_view(KERNELS, "syrk_tri", 1.5, np.ones((33, 5)), 0.5, np.zeros((33, 33)))
    assert [(lv.var, lv.guarded) for lv in nest.levels] == [("i", False), ("j", True)]
    assert sorted(a.names for _, a in nest.addresses if a.array == "a") == [
        {"i", "k"}, {"j", "k"}]


def test_gpu_view_of_a_register_tile_has_the_levels_copies():
    kernel = register_tiles(bound_kernel(KERNELS, "matmul_f32", np.ones((70, 9), F),
                                         np.ones((9, 70), F), np.zeros((70, 70), F)))
    nest = loop_nest(kernel)
    rows, cols = (lv.copies for lv in nest.levels)
    assert (len(rows) + 1, len(cols) + 1) == (8, 4)
    assert [lv.strided for lv in nest.levels] == [False, True]
    # Each copy's load of b reads its own copy of j.
    assert {a.names for _, a in nest.addresses if a.array == "b"} == {
        frozenset({"k", v}) for v in ("j",) + cols}
    assert all(index_reads(kernel.access(aid)) == a.names for aid, a in nest.addresses)


EXAMPLES = TESTS.parent / "examples"
SAME_SOURCE = [
    (KERNELS, "matmul_f32", (np.ones((70, 9), F), np.ones((9, 70), F), np.zeros((70, 70), F)),
     {}),
    (KERNELS, "syrk_tri", (1.5, np.ones((33, 5)), 0.5, np.zeros((33, 33))), {}),
    (KERNELS, "syr2k_tri", (np.ones((33, 5), F), np.ones((33, 5), F), np.zeros((33, 33), F)),
     {}),
    (KERNELS, "grid_potential", (np.ones((7, 3), F), F(0.5), np.zeros((17, 9), F)), {}),
    (KERNELS, "tiled_reduction", (np.ones((9, 5)), np.ones((5, 7))), {}),
    (EXAMPLES / "syrk.py", "syrk_f64", (1.5, np.ones((33, 5)), 0.5, np.zeros((33, 33))),
     {"n": 33, "p": 5}),
]


@pytest.mark.parametrize("path, name, args, local_values", SAME_SOURCE,
                         ids=[c[1] for c in SAME_SOURCE])
def test_cpu_and_gpu_describe_a_nest_alike(path, name, args, local_values):
    """The same levels, the same addresses (the GPU's aids count the levels' own accesses
    too: compared in order), the same privates and reductions."""
    cpu, gpu = cpu_view(path, name), gpu_view(path, name, *args, **local_values)
    assert cpu.levels == gpu.levels
    assert [a for _, a in cpu.addresses] == [a for _, a in gpu.addresses]
    assert (cpu.privates, cpu.reductions) == (gpu.privates, gpu.reductions)


def test_an_address_reads_by_dimension():
    e = accesses_of(number_accesses(_outer("syrk_tri")))[0]
    assert address_of(e).dims == ({"i"}, {"k"})
    assert address_of(e).oriented("i", "k") and not address_of(e).oriented("k", "i")
