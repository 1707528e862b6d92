import numpy as np

from bound import bound
from jitgpu.loopopt.cost import GpuModel
from jitgpu.loopopt.nodes import UnrolledLevel
from jitgpu.loopopt.unroll_and_jam import unroll_and_jam
from jitgpu.opencl_emit import print_kernel

F = np.float32


def test_matmul_unrolls_rows_and_shares_b(gpu):
    kernel = bound(gpu, "matmul_f32", np.ones((17, 4), F), np.ones((4, 5), F),
                   np.zeros((17, 5), F))
    out = unroll_and_jam(kernel)
    level = out.levels[0]
    assert isinstance(level, UnrolledLevel) and level.factor == 8 and level.var == "i"
    assert out.global_size == (16, 16)        # rows: ceil(17 / 8) = 3 work-items, one group
    assert out.transforms == ("unroll_and_jam(i, 8)",)
    b_aid = next(aid for aid, ix in kernel.accesses if ix.buffer == 1)
    # One k loop; b[k, j] keeps its access id in all 8 copies, a[i, k] gets one per copy.
    loop = next(s for s in out.body if type(s).__name__ == "For")
    assert len(loop.body) == 8
    assert len(out.accesses) == len(kernel.accesses) + 2 * 7
    assert all(aid != b_aid or ix.buffer == 1 for aid, ix in out.accesses)
    source = print_kernel(out)
    assert "unpy_ok7" in source and "if (unpy_ok3) {" in source


def test_forced_level_and_factor(gpu):
    kernel = bound(gpu, "tri_lower", np.ones((5, 5)), np.zeros((5, 5)))
    out = unroll_and_jam(kernel, level=1, factor=3)
    assert out.levels[1].copies == ("j__1", "j__2") and out.levels[1].guard is not None
    # The third copy is guarded by the triangle's bound j < i + 1.
    assert "(j__2 >= 0L && j__2 < ((long)((ulong)(i) + (ulong)(1L))))" in print_kernel(out)
    assert unroll_and_jam(kernel) is kernel     # no inner loop: no load to share


def test_continue_of_the_body_is_not_unrolled(gpu):
    kernel = bound(gpu, "skip_negative", np.ones(7), np.zeros(7))
    assert unroll_and_jam(kernel, level=0, factor=4) is kernel


def test_factor_keeps_a_gpu_full(gpu):
    kernel = bound(gpu, "matmul_f32", np.ones((64, 4), F), np.ones((4, 64), F),
                   np.zeros((64, 64), F))
    items = int(np.prod(kernel.global_size))            # 4096 work-items
    assert unroll_and_jam(kernel, GpuModel(fill_items=items)) is kernel
    assert unroll_and_jam(kernel, GpuModel(fill_items=items // 2)).levels[0].factor == 2
    assert unroll_and_jam(kernel, GpuModel(fill_items=items // 8)).levels[0].factor == 8
