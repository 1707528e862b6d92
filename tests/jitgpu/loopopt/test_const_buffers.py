import numpy as np

from bound import bound
from jitgpu.loopopt.const_buffers import const_buffers
from jitgpu.opencl_emit import print_kernel


def test_read_only_buffers_are_const(gpu):
    f = np.float32
    kernel = bound(gpu, "matmul_f32", np.ones((3, 4), f), np.ones((4, 5), f), np.zeros((3, 5), f))
    out = const_buffers(kernel)
    assert [p.read_only for p in out.params if p.kind == "buffer"] == [True, True, False]
    source = print_kernel(out)
    assert source.count("__global const float* restrict") == 2
    assert out.transforms == ("const_buffers",) and kernel.transforms == ()
    assert const_buffers(out) == out
