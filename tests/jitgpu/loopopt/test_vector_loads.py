import numpy as np

from bound import bound
from jitgpu.loopopt import optimise
from jitgpu.loopopt.load_elimination import load_elimination
from jitgpu.loopopt.nodes import Lane, VectorLoad
from unpy.loopopt.rewrite import transform
from jitgpu.loopopt.unroll_inner import unroll_inner
from jitgpu.loopopt.vector_loads import vector_loads
from jitgpu.opencl_emit import print_kernel

F = np.float32


def _nodes(kernel, kind):
    found = []
    transform(list(kernel.body), lambda n: found.append(n) or n if isinstance(n, kind) else n)
    return found


def test_unrolled_dot_reads_a_row_by_vload4(gpu):
    kernel = unroll_inner(bound(gpu, "inner_dot", np.ones((5, 17)), np.ones(17), np.zeros(5), 17))
    out = vector_loads(kernel)
    assert out.transforms[-1] == "vector_loads(vload4 2)"      # a[i, k..k+3] and b[k..k+3]
    assert [v.width for v in _nodes(out, VectorLoad)] == [4, 4]
    assert sorted(lane.lane for lane in _nodes(out, Lane)) == [0, 0, 1, 1, 2, 2, 3, 3]
    assert ("a_v0", "float64x4") in out.privates
    source = print_kernel(out)
    assert "vload4(0, g0 + " in source and "double4 a_v0 = 0;" in source
    assert ".s3" in source


def test_array_of_structures_and_conditional_loads(gpu):
    kernel = bound(gpu, "aos_points", np.ones((7, 4), F), np.ones(3, F), np.zeros(3, F))
    out = vector_loads(kernel)
    # atoms[k, 0..2] always run, atoms[k, 3] only in a branch of `if else`: lanes 0, 1.
    assert out.transforms == ("vector_loads(vload2 1)",)
    (vec,) = _nodes(out, VectorLoad)
    assert vec.width == 2 and "float2" in print_kernel(out)


def test_stores_to_the_buffer_and_unit_stride(gpu):
    # rows_in_place writes a: none. matmul's a[i, k] has a unit coefficient of k only when a is
    # C-contiguous; a transposed (strided) a gets no vector.
    kernel = unroll_inner(bound(gpu, "rows_in_place", np.ones((3, 9))))
    assert vector_loads(kernel) is kernel
    strided = np.ones((9, 5)).T
    kernel = unroll_inner(bound(gpu, "inner_dot", strided, np.ones(9), np.zeros(5), 9))
    out = vector_loads(kernel)
    assert out.transforms[-1] == "vector_loads(vload4 1)"      # b only


def test_negative_step_lane_zero_is_the_last_copy(gpu):
    kernel = unroll_inner(bound(gpu, "inner_backwards", np.ones((3, 9)), np.zeros((3, 2))))
    out = vector_loads(load_elimination(kernel))
    assert out.transforms[-1] == "vector_loads(vload4 1)"
    # The vector load goes before copy 0 (k), its first lane is k - 3 (the normalised k runs
    # downwards: coefficient -1): a new offset parameter.
    voff = [p for p in out.params if p.name.startswith("unpy_voff")]
    assert len(voff) == 1 and kernel.longs["unpy_c0_1"] == -1
    assert voff[0].value == kernel.longs["unpy_off0"] - 3
    assert "s3" in print_kernel(out)


def test_levels(gpu):
    kernel = bound(gpu, "aos_points", np.ones((7, 4), F), np.ones(3, F), np.zeros(3, F))
    assert "vector_loads" in optimise(kernel, "load").transforms[-1]
    assert not any("vector" in t for t in optimise(kernel, "unroll").transforms)
