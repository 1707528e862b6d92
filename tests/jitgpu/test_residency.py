"""Residency (SPEC section 8, issue 9): within a call, data stays on the device between nests
and is copied back at the first host use or at the end of the call; across calls, inside
`unpython.resident`. Every case runs on the tested OpenCL device and is compared with the
interpreter; the copies are counted from `unpython.explain` and the device's byte counters."""
import numpy as np
import pytest

import unpython
from gpurts.residency import TABLE

RNG = np.random.default_rng(9)


@pytest.fixture(autouse=True)
def nothing_left_behind():
    yield
    assert not TABLE.entries, "device copies outlived their call"


def test_time_stepping_moves_each_array_once(res):
    a, b = RNG.random((40, 40)), np.zeros((40, 40))
    res.check("jacobi", 6, a, b, rtol=1e-12)
    assert res.explain("jacobi").transfers == {"a": (1, 1), "b": (1, 1)}
    assert "copies of the last call: a 1 in, 1 out; b 1 in, 1 out" in str(res.explain("jacobi"))


def test_residency_off_copies_every_nest(res, device_env):
    device_env.setenv("UNPY_RESIDENT", "0")
    a, b = RNG.random((40, 40)), np.zeros((40, 40))
    res.check("jacobi", 6, a, b, rtol=1e-12)
    copies = res.explain("jacobi").transfers
    # Each nest copies what it reads in and what it writes out (a fully written group is
    # not copied in): T times each way per array.
    assert copies == {"a": (6, 6), "b": (6, 6)}, copies


def test_plan_shows_the_residency_decisions(res):
    res.check("jacobi", 2, RNG.random((20, 20)), np.zeros((20, 20)), rtol=1e-12)
    plan = str(res.explain("jacobi").nests[1].plan)
    assert "residency: data stays on the device between nests" in plan
    assert "on the device already, no copy-in" in plan and "copy-back delayed" in plan


def test_host_read_and_write_between_nests(res):
    res.check("host_between", RNG.random(50), np.zeros(50), np.zeros(50), rtol=1e-12)


def test_openmp_nest_between_device_nests(res):
    _, report = res.check("openmp_between", RNG.random(33), np.zeros(33), np.zeros(33),
                          rtol=1e-12, ran_on=None)
    where = [n.ran_on for n in report.nests]
    assert where[0].startswith("opencl:") and where[1] == "openmp" and \
        where[2].startswith("opencl:"), str(report)


def test_memory_freed_and_taken_again_meets_no_device_copy(res):
    """Each step's array from a call is freed and its memory (a 1 MiB block, kept by the
    runtime for the next allocation of the size) taken again two steps later: the device copy
    of the dead array must not pass for the new one, which the host wrote (found on the
    corpus's logistic regression, where it drifted 1 %, when malloc gave a small array the
    same address)."""
    a = RNG.random(1 << 17)
    res.check("fresh_temporaries", a, 6, rtol=1e-12)


def test_view_of_a_resident_array(res):
    a = RNG.random(40)
    got, _ = res.check("through_view", a, a[3:], rtol=1e-12)
    assert got == a[3] * 2.0


def test_local_array_is_never_copied_back(res):
    res.check("local_temporary", RNG.random(64), np.zeros(64), rtol=1e-12)
    copies = res.explain("local_temporary").transfers
    # tmp is written whole on the device (no copy-in) and dies with the call (no copy-back)
    assert copies == {"a": (1, 0), "out": (0, 1)}, copies


def test_exception_after_a_nest_writes_back(res):
    a = RNG.random(16)
    with pytest.raises(ZeroDivisionError):
        res.compiled.raise_after_nest(a, 0)
    np.testing.assert_allclose(a, a.copy())   # the call's data came back before the raise
    b = a.copy()
    with pytest.raises(ZeroDivisionError):
        res.interpreted.raise_after_nest(b, 0)
    res.check("raise_after_nest", a, 0)


def test_resident_block_moves_data_once(res, device):
    a = RNG.random(256)
    expected = a * 2.0 ** 5
    counters = device.transfers
    h2d, d2h = counters.h2d_bytes, counters.d2h_bytes
    with unpython.resident(a):
        for _ in range(5):
            res.compiled.scale(a, 2.0)
        assert len(TABLE.entries) == 1
    np.testing.assert_array_equal(a, expected)
    moved_in = counters.h2d_bytes - h2d
    moved_out = counters.d2h_bytes - d2h
    assert a.nbytes <= moved_in < 2 * a.nbytes, moved_in      # once in (and error flags)
    assert a.nbytes <= moved_out < 2 * a.nbytes, moved_out


def test_sync_inside_resident_block(res):
    a = RNG.random(64)
    want = a.copy()
    with unpython.resident(a):
        res.compiled.scale(a, 3.0)
        unpython.sync(a)
        np.testing.assert_array_equal(a, want * 3.0)   # current on the host after sync
        a[0] = 1.0                                      # a host write the next call sees
        res.compiled.scale(a, 2.0)
    want *= 6.0
    want[0] = 2.0
    np.testing.assert_array_equal(a, want)


def test_resident_block_writes_back_when_it_raises(res):
    a = RNG.random(64)
    want = a * 4.0
    with pytest.raises(RuntimeError):
        with unpython.resident(a):
            res.compiled.scale(a, 4.0)
            raise RuntimeError("inside the block")
    np.testing.assert_array_equal(a, want)


def test_resident_is_a_no_op_in_the_interpreter(res):
    a = RNG.random(8)
    with unpython.resident(a):
        res.interpreted.scale(a, 2.0)
        unpython.sync(a)
    assert not TABLE.held


def test_flagged_nest_between_device_nests(res):
    a = np.arange(20, dtype=np.int64)
    res.check("flag_between", a, np.zeros(20, np.int64), np.zeros(20, np.int64), 3)
    b, c = np.zeros(20, np.int64), np.full(20, 5, np.int64)
    with pytest.raises(ZeroDivisionError):
        res.compiled.flag_between(a, b, c, 0)
    assert "the kernel met a case" in res.explain("flag_between").nests[-1].reason
    # The first nest's data came back (after a raise, what the raising loop's other
    # iterations wrote is not compared: OpenMP finishes them, the interpreter stops).
    np.testing.assert_array_equal(b, np.arange(1, 21))


def test_while_test_reads_what_the_loop_keeps_on_the_device(res):
    got, report = res.check("while_reads", np.zeros(10), 4.0)
    assert got == 4
    assert report.transfers["a"][1] == 4, report.transfers    # back before every test


def test_estimate_shares_copies_among_the_last_calls_nests(res, device_env):
    from jitgpu import residency
    device_env.delenv("UNPY_FORCE_GPU")
    # (the most nest calls of an earlier call count: forget other tests' calls of jacobi)
    device_env.setattr(residency, "_NEST_CALLS", {})
    a, b = RNG.random((24, 24)), np.zeros((24, 24))
    res.check("jacobi", 4, a, b, rtol=1e-12, ran_on=None)     # counts its 8 nest calls
    res.check("jacobi", 4, a, b, rtol=1e-12, ran_on=None)
    assert "the copies shared by the 8 nest calls" in res.explain("jacobi").nests[0].reason
