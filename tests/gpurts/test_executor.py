"""gpurts.executor.execute on a real device: stage-in, launch, error flag, stage-out with one
finish per part; parts written back in order and undone when a later one fails; pinned staging
and device buffers reused across calls. The plan and kernel nest are minimal stand-ins of
jitgpu's (the executor reads their fields only)."""
import dataclasses
from types import SimpleNamespace as NS

import numpy as np
import pytest

from gpurts import build_kernel
from gpurts.executor import KernelFlagged, execute, group_owner
from unpy.host_memory import Box

SOURCE = """
__kernel void k(__global double* g0, __global int* unpy_flag, const long off, const long n)
{
    long i = get_global_id(0);
    if (i < n) {
        if (g0[off + i] < 0) *unpy_flag = 1;
        g0[off + i] = 2 * g0[off + i];
    }
}
"""


def _part(device, a, view, device_offset=0):
    box = dataclasses.replace(Box.of_array(view), device_offset=device_offset)
    group = NS(arrays=("a",), device_elems=device_offset + view.size, itemsize=a.itemsize,
               copy_in=True, copy_back=True, boxes=[box])
    return NS(device=device.label, transfers=NS(groups=[group]))


def _kernel(device, off, n):
    params = (NS(kind="buffer", name="g0", dtype="float64", group=0, value=None),
              NS(kind="flag", name="unpy_flag", dtype="", group=-1, value=None),
              NS(kind="long", name="off", dtype="int64", group=-1, value=off),
              NS(kind="long", name="n", dtype="int64", group=-1, value=n))
    kernel = NS(params=params, global_size=(-(-n // 64) * 64,), local_size=(64,), reductions=())
    return kernel, build_kernel(device, SOURCE, "k", []).kernel


def test_strided_view_in_and_out(device):
    a = np.arange(40, dtype=np.float64)
    view = a[3:33:3]
    plan = NS(parts=(_part(device, a, view, 5),))
    results, timings = execute(plan, [_kernel(device, 5, view.size)], {"a": view},
                               {device.label: device})
    expected = np.arange(40, dtype=np.float64)
    expected[3:33:3] *= 2
    assert results == {} and np.array_equal(a, expected)
    assert timings.h2d_bytes >= view.nbytes and timings.d2h_bytes >= view.nbytes
    assert timings.kernel_seconds >= 0


def test_flag_drops_results(device):
    a = np.arange(10, dtype=np.float64)
    a[7] = -1
    before = a.copy()
    plan = NS(parts=(_part(device, a, a),))
    with pytest.raises(KernelFlagged):
        execute(plan, [_kernel(device, 0, 10)], {"a": a}, {device.label: device})
    assert np.array_equal(a, before)


def test_later_part_failing_undoes_earlier_parts(device):
    a = np.arange(20, dtype=np.float64)
    a[15] = -1
    before = a.copy()
    plan = NS(parts=(_part(device, a, a[:10]), _part(device, a, a[10:])))
    with pytest.raises(KernelFlagged):
        execute(plan, [_kernel(device, 0, 10), _kernel(device, 0, 10)], {"a": a},
                {device.label: device})
    assert np.array_equal(a, before)
    a[15] = 15
    execute(plan, [_kernel(device, 0, 10), _kernel(device, 0, 10)], {"a": a},
            {device.label: device})
    assert np.array_equal(a, 2 * np.arange(20))


def test_staging_and_buffers_are_reused(device):
    a = np.arange(1000, dtype=np.float64)
    plan = NS(parts=(_part(device, a, a),))
    run = lambda: execute(plan, [_kernel(device, 0, 1000)], {"a": a}, {device.label: device})
    run()
    pinned, pool = device.pinned.held_blocks, device.pool.held_blocks
    for _ in range(5):
        run()
    assert device.pinned.held_blocks == pinned and device.pool.held_blocks == pool
    assert np.array_equal(a, np.arange(1000) * 64)


def test_group_owner_of_two_roots_over_one_buffer():
    raw = bytearray(64)
    x = np.frombuffer(raw, np.float64)
    y = np.frombuffer(memoryview(raw)[8:], np.float64)
    owner = group_owner(("x", "y"), {"x": x, "y": y})
    assert owner.__array_interface__["data"][0] == x.__array_interface__["data"][0]
    assert owner.nbytes == 64


def test_small_part_keeps_its_kit_with_the_recipe(device):
    """With a recipe, a small part's staging, buffers and clear flag are reused: the flag is not
    copied in again."""
    a = np.arange(100, dtype=np.float64)
    plan = NS(parts=(_part(device, a, a),))
    recipes = {}
    kernels = [_kernel(device, 0, 100)]
    _, first = execute(plan, kernels, {"a": a}, {device.label: device}, recipes)
    kit = recipes[0]["kits"][0]
    _, second = execute(plan, kernels, {"a": a}, {device.label: device}, recipes)
    assert recipes[0]["kits"] == [kit]
    assert first.h2d_bytes == 800 + 4 and second.h2d_bytes == 800
    assert np.array_equal(a, np.arange(100) * 4)
    a[3] = -1
    with pytest.raises(KernelFlagged):
        execute(plan, kernels, {"a": a}, {device.label: device}, recipes)
    assert recipes[0]["kits"] == []        # a flagged run's kit is dropped
