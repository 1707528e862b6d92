"""bind: a part of a plan as a frozen KernelNest (parameters with their values, NDRange, a device
index per stable access id); print_kernel only prints it; loopopt returns it unchanged so far."""
import dataclasses

import numpy as np
import pytest

from jitgpu.bind import KernelNest, bind
from jitgpu.loopopt import optimise
from jitgpu.nest import instantiate, load_nest
from unpy.loopopt.nest import ArrayAccess
from jitgpu.opencl_emit import print_kernel
from jitgpu.plan import DeviceFacts, plan_call
from unpy import ir
from unpy.typeinfer.reductions import walk_exprs

FACTS = DeviceFacts("opencl:test", True, 1 << 30, 1 << 28, 50e9, 50e9)


def _bound(function, values, facts=FACTS):
    instance = instantiate(load_nest("gpu_kernels", function, 0), values)
    plan = plan_call(instance, values, facts, forced=True)
    return [bind(instance, part, values, True) for part in plan.parts]


def test_accesses_have_stable_ids(gpu):
    nest = load_nest("gpu_kernels", "axpy", 0)
    subscripts = [e for e in walk_exprs(nest.loop) if isinstance(e, ir.Subscript)]
    assert all(isinstance(e, ArrayAccess) for e in subscripts)
    assert [e.aid for e in subscripts] == list(range(len(subscripts)))
    values = {"x": np.ones(10), "y": np.zeros(10), "alpha": 2.0}
    instance = instantiate(nest, values)
    assert [a.ref_id for _, a in instance.accesses] == [e.aid for e, _ in instance.accesses]
    written = [a for _, a in instance.accesses if a.write]
    assert [a.array for a in written] == ["y"] and written[0].unconditional


def test_kernel_nest_of_axpy(gpu):
    (kernel,) = _bound("axpy", {"x": np.ones(1000), "y": np.zeros(1000), "alpha": 2.0})
    assert isinstance(kernel, KernelNest)
    kinds = [p.kind for p in kernel.params]
    assert kinds[:4] == ["buffer", "buffer", "scalar", "flag"] and set(kinds[4:]) == {"long"}
    assert kernel.longs["unpy_n0"] == 1000 and kernel.longs["unpy_lo0"] == 0
    assert kernel.global_size == (1024,) and kernel.local_size == (256,)
    scalar = next(p for p in kernel.params if p.kind == "scalar")
    assert (scalar.name, scalar.value) == ("alpha", 2.0)
    body_ids = sorted(e.aid for e in walk_exprs(list(kernel.body)) if isinstance(e, ArrayAccess))
    assert body_ids == [aid for aid, _ in kernel.accesses]
    for aid, index in kernel.accesses:
        assert index.offset == f"unpy_off{aid}"
        assert [(t.coeff, t.loop) for t in index.terms] == [(1, "i")]
    assert "access 0: g" in str(kernel)
    with pytest.raises(dataclasses.FrozenInstanceError):
        kernel.name = "other"


def test_tiles_share_one_source(gpu):
    """Tile origins, offsets and sizes are long parameters: every part prints the same kernel."""
    values = {"a": np.ones((64, 64)), "b": np.ones((64, 64)), "c": np.zeros((64, 64)), "m": 64, "n": 64, "p": 64}
    kernels = _bound("matmul", values, dataclasses.replace(FACTS, mem_limit=64 * 64 * 8))
    assert len(kernels) > 1
    assert len({print_kernel(k) for k in kernels}) == 1
    assert len({tuple(sorted(k.longs.items())) for k in kernels}) == len(kernels)


def test_non_affine_access_is_checked(gpu):
    values = {"x": np.ones(10), "idx": np.array([0, 3]), "out": np.zeros(2)}
    (kernel,) = _bound("gather", values)
    checked = [t for _, index in kernel.accesses for t in index.terms if t.bound]
    assert checked and all(t.index is not None for t in checked)
    assert "unpy_index(" in print_kernel(kernel)


def test_print_only_prints_and_optimise_is_identity(gpu):
    (kernel,) = _bound("axpy", {"x": np.ones(8), "y": np.zeros(8), "alpha": 2.0})
    source = print_kernel(kernel)
    assert print_kernel(kernel) == source and "__kernel void unpy_nest(" in source
    # `none` is the naive kernel; the other levels are tested in tests/jitgpu/loopopt.
    assert optimise(kernel, "none") is kernel
    assert optimise(kernel, "load").transforms == ("const_buffers",)
    # A transformation is an edit of the value: here the body dropped, the source follows.
    empty = kernel.replace(body=(), accesses=())
    assert "g0[" not in print_kernel(empty) and "g0[" in source


def test_local_size_fits_the_device():
    """Local sizes are capped by max_work_group_size and max_work_item_sizes, powers of two,
    dimension 0 widest."""
    from jitgpu.bind import LOCAL_SIZES, local_size
    assert local_size(1) == LOCAL_SIZES[1] == local_size(1, (1024, (1024, 1024, 64)))
    assert local_size(1, (16, (16, 16, 16))) == (16,)
    assert local_size(1, (100, (1024,))) == (64,)
    assert local_size(2, (16, (16, 16, 16))) == (16, 1)
    assert local_size(2, (64, (8, 64, 64))) == (8, 8)
    assert local_size(3, (16, (16, 16, 16))) == (16, 1, 1)
    assert local_size(3, (32, (8, 16, 16))) == (8, 4, 1)
    assert local_size(3, (1, (1, 1, 1))) == (1, 1, 1)


def test_bind_caps_local_size_and_reduction_tree(gpu):
    values = {"a": np.ones((5, 7))}
    instance = instantiate(load_nest("gpu_kernels", "red_sum_2d", 0), values)
    plan = plan_call(instance, values, FACTS, forced=True)
    kernel = bind(instance, plan.parts[0], values, True, (16, (16, 16, 16)))
    assert kernel.local_size == (16, 1) and kernel.global_size == (16, 5)
    source = print_kernel(kernel)
    assert "unpy_s = 8;" in source and "get_local_id(1) * 16" in source
