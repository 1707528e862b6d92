import numpy as np

from bound import bound
from jitgpu.loopopt.load_elimination import load_elimination
from jitgpu.loopopt.unroll_and_jam import unroll_and_jam
from jitgpu.opencl_emit import print_kernel

F = np.float32


def test_jammed_copies_load_b_once(gpu):
    kernel = bound(gpu, "matmul_f32", np.ones((9, 4), F), np.ones((4, 5), F), np.zeros((9, 5), F))
    out = load_elimination(unroll_and_jam(kernel, level=0, factor=4))
    assert out.transforms[-1] == "load_elimination(3 loads)"
    source = print_kernel(out)
    assert source.count("b_ld") == 1 + 1 + 4    # declared, filled, read by the 4 copies


def test_store_to_the_buffer_ends_reuse(gpu):
    kernel = bound(gpu, "scale_into", np.ones(5), np.ones(5))
    # dst[i] = src[i] * 0.5 + dst[i]: two buffers' loads once each: nothing to reuse.
    assert load_elimination(kernel) is kernel


def test_branches_are_not_hoisted(gpu):
    kernel = bound(gpu, "red_several", np.ones(5))
    out = load_elimination(kernel)
    # x[i] three times in straight-line code, the third inside `if`: two reuse the first.
    assert out.transforms == ("load_elimination(1 loads)",)
    source = print_kernel(out)
    # declared, filled, read by `total +=` and twice by the printed max(); the `if` loads again
    assert source.count("x_ld") == 5
