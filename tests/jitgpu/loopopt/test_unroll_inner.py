import numpy as np

from bound import bound
from jitgpu.loopopt.unroll_and_jam import unroll_and_jam
from jitgpu.loopopt.unroll_inner import unroll_inner
from jitgpu.opencl_emit import print_kernel
from unpy import ir

F = np.float32


def _loops(kernel):
    return [s for s in kernel.body if isinstance(s, ir.For)]


def test_dot_loop_gets_main_and_remainder(gpu):
    kernel = bound(gpu, "inner_dot", np.ones((5, 17)), np.ones(17), np.zeros(5), 17)
    out = unroll_inner(kernel)
    assert out.transforms == ("unroll_inner(k, 4)",)
    main, rest = _loops(out)
    assert main.var == rest.var == "k" and main.step.value == 4 and rest.step.value == 1
    # Copies in order: copy 0, then `k__u = k + u` and copy u; the next start last.
    updates = [s.target.id for s in main.body if isinstance(s, ir.Assign)]
    assert updates == ["s", "k__1", "s", "k__2", "s", "k__3", "s", "k__lo"]
    assert rest.body == kernel.body[1].body     # the remainder is the original loop
    assert {"k__1", "k__2", "k__3"} <= {v.var for v in out.loops}
    # a[i, k] gets a new access per copy, as b[k] does: 2 * 3 new ids.
    assert len(out.accesses) == len(kernel.accesses) + 6
    source = print_kernel(out)
    # The unrolled loop stops 3 before the end (its copies read k + 3); the remainder runs on.
    assert "unpy_k_k_stop = ((long)((ulong)(k__hi) - (ulong)(3L))), unpy_k_k_step = 4L" in source
    assert "unpy_k_k_start = k__lo, unpy_k_k_stop = k__hi, unpy_k_k_step = 1L" in source


def test_after_unroll_and_jam_budget_and_factor(gpu):
    kernel = bound(gpu, "matmul_f32", np.ones((17, 9), F), np.ones((9, 5), F),
                   np.zeros((17, 5), F))
    jammed = unroll_and_jam(kernel)
    out = unroll_inner(jammed)            # 8 a-loads + 1 b-load per copy: 3 * 9 <= 32
    assert out.transforms[-1] == "unroll_inner(k, 4)"
    assert unroll_inner(jammed, factor=2).transforms[-1] == "unroll_inner(k, 2)"


def test_negative_step(gpu):
    out = unroll_inner(bound(gpu, "inner_backwards", np.ones((3, 9)), np.zeros((3, 2))))
    main, rest = _loops(out)
    assert main.step.value == -4 and rest.step.value == -1
    k1 = next(s for s in main.body if isinstance(s, ir.Assign) and s.target.id == "k__1")
    assert k1.value.right.value == -1


def test_not_unrolled(gpu):
    # An inner loop with a loop inside, a while, a break: nothing; one iteration: nothing.
    for func, args in [("collatz", (np.ones(5, np.int64), np.zeros(5, np.int64))),
                       ("inner_dot", (np.ones((5, 1)), np.ones(1), np.zeros(5), 1)),
                       ("axpy", (np.ones(5), np.ones(5), 2.0))]:
        kernel = bound(gpu, func, *args)
        assert unroll_inner(kernel) is kernel, func
