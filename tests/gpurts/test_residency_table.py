"""gpurts.residency with the executor on a real device: a group kept on the device (copy-back
delayed), reused by the next run (no copy-in), copied back by a host read through any view of
its memory, forgotten on a host write, dropped without a copy when its memory dies, and held
across calls by `resident` (hold/release). Plans are minimal stand-ins of jitgpu's."""
from types import SimpleNamespace as NS

import numpy as np
import pytest

from gpurts.executor import execute
from gpurts.residency import COUNTERS, TABLE
from test_executor import _kernel, _part

SCOPE = 10 ** 9          # far from the ids compiled callers take


@pytest.fixture(autouse=True)
def empty_table():
    yield
    TABLE.close_scope(SCOPE)
    for hold in list(TABLE.held):
        TABLE.release([hold])
    assert not TABLE.entries and COUNTERS[0] == 0


def _bounds(a):
    return np.lib.array_utils.byte_bounds(a)


def _run(device, a, *, reuse, keep=True, flagless=False, recipes=None):
    """Double every element of `a` on the device; the group stays there when `keep`.
    `flagless`: the plan says the kernel cannot flag (this one can, but never does here)."""
    part = _part(device, a, a)
    group = part.transfers.groups[0]
    group.copy_in = not reuse
    group.copy_back = not keep
    decision = NS(group=0, arrays=("a",), reuse=reuse, keep=keep, written=True)
    plan = NS(parts=(part,), residency=NS(groups=(decision,), flush=(), keeps=keep or reuse,
                                          flagless=flagless))
    return execute(plan, [_kernel(device, 0, a.size)], {"a": a}, {device.label: device},
                   {} if recipes is None else recipes, SCOPE, TABLE.log(SCOPE))[1]


def test_kept_group_is_copied_back_at_the_first_host_read(device):
    a = np.arange(32, dtype=np.float64)
    timings = _run(device, a, reuse=False)
    assert np.array_equal(a, np.arange(32)) and timings.d2h_bytes < a.nbytes   # delayed
    assert COUNTERS[0] == 1 and TABLE.entries[0].stale
    timings = _run(device, a, reuse=True)
    assert timings.h2d_bytes < a.nbytes                                    # no copy-in
    view = a[5:7]                          # a read through a view of the same memory
    TABLE.flush_ranges([_bounds(view)], [])
    assert np.array_equal(a, 4 * np.arange(32))
    assert len(TABLE.entries) == 1 and not TABLE.entries[0].stale            # still there
    assert TABLE.log(SCOPE).copies == {"a": [1, 1]}


def test_host_write_forgets_the_device_copy(device):
    a = np.arange(16, dtype=np.float64)
    _run(device, a, reuse=False)
    TABLE.flush_ranges([], [_bounds(a[3:4])])
    assert not TABLE.entries and np.array_equal(a, 2 * np.arange(16))
    a[3] = 100.0                           # the host's write; the next run copies in again
    _run(device, a, reuse=False)
    TABLE.close_scope(SCOPE)
    want = 4 * np.arange(16.0)
    want[3] = 200.0
    assert np.array_equal(a, want)


def test_memory_that_dies_with_the_call_is_not_copied_back(device):
    a = np.arange(16, dtype=np.float64)
    _run(device, a, reuse=False)
    TABLE.close_scope(SCOPE, [_bounds(a)])
    assert not TABLE.entries and np.array_equal(a, np.arange(16))


def test_a_run_without_residency_decisions_flushes_first(device):
    a = np.arange(24, dtype=np.float64)
    _run(device, a, reuse=False)
    plan = NS(parts=(_part(device, a, a[:8]),))
    execute(plan, [_kernel(device, 0, 8)], {"a": a[:8]}, {device.label: device})
    want = 2 * np.arange(24.0)
    want[:8] *= 2
    assert not TABLE.entries and np.array_equal(a, want)


def test_held_memory_outlives_the_call(device):
    a = np.arange(8, dtype=np.float64)
    holds = TABLE.hold([a])
    _run(device, a, reuse=False)
    TABLE.close_scope(SCOPE)
    assert len(TABLE.entries) == 1 and np.array_equal(a, np.arange(8))    # still on device
    _run(device, a, reuse=True)
    TABLE.release(holds)
    assert not TABLE.entries and np.array_equal(a, 4 * np.arange(8))


def test_flagless_kernels_are_not_waited_for(device):
    a = np.arange(64, dtype=np.float64)
    recipes = {}           # kept with the plan: the kit (and its clear flag) is reused
    _run(device, a, reuse=False, flagless=True, recipes=recipes)
    for _ in range(3):
        timings = _run(device, a, reuse=True, flagless=True, recipes=recipes)
        assert timings.h2d_bytes == 0 and timings.d2h_bytes == 0   # not even the flag
    assert np.array_equal(a, np.arange(64))
    TABLE.close_scope(SCOPE)                 # the copy back waits for the queue
    assert np.array_equal(a, 16 * np.arange(64))
