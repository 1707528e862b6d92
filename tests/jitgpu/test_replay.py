"""Repeated device calls replayed from C++ (jitgpu/replay.py, gpurts/record.py, unpy::Replay): a
call with the inputs and switches of the last call that ran on the device runs its OpenCL
commands again without Python. The hook is not asked then: the report of the recording call
stays (the same object) and counts the replayed calls; a report forgotten stays forgotten."""
import os
import threading

import numpy as np
import pytest

import unpython
from gpurts import record
from jitgpu import replay, report

RNG = np.random.default_rng(7)


def _nest(pair, func):
    return pair.explain(func).nests[0]


def _forget(pair, func):
    report._last.pop((pair.compiled.__name__, func), None)


def _replays(pair, func, call, times=3):
    """Call `call()` `times` times after one recording call; returns the recording report."""
    call()
    recorded = _nest(pair, func)
    assert recorded.ran_on.startswith("opencl:"), str(pair.explain(func))
    before = recorded.replayed_calls
    for _ in range(times):
        call()
    assert _nest(pair, func) is recorded
    assert recorded.replayed_calls == before + times, str(pair.explain(func))
    return recorded


def test_replayed_calls_follow_the_contents(gpu):
    a, b = RNG.random((24, 16), np.float32), RNG.random((16, 20), np.float32)
    c = np.zeros((24, 20), np.float32)
    gpu.compiled.matmul_f32(a, b, c)
    recorded = _nest(gpu, "matmul_f32")
    for k in range(4):          # new contents, same arrays: replayed, the interpreter's results
        a[...] = RNG.random(a.shape, np.float32)
        b[k % 16, :] = -1.0
        c[...] = 7.0
        gpu.compiled.matmul_f32(a, b, c)
        expected = np.zeros_like(c)
        gpu.interpreted.matmul_f32(a, b, expected)
        np.testing.assert_allclose(c, expected, rtol=1e-5, atol=1e-5)
    assert _nest(gpu, "matmul_f32") is recorded and recorded.replayed_calls >= 4
    assert "later calls replayed from C++ (no Python), fastest" in str(gpu.explain("matmul_f32"))
    fastest, mean = recorded.replay.seconds()
    assert 0 < fastest <= mean
    _forget(gpu, "matmul_f32")
    gpu.compiled.matmul_f32(a, b, c)
    assert _nest(gpu, "matmul_f32").ran_on is None          # the hook was not asked


def test_other_inputs_take_the_python_path(gpu):
    x, y = RNG.random(200), RNG.random(200)
    expected = y.copy()

    def call(alpha=0.5, xs=x, ys=y, mirror=expected):
        gpu.compiled.axpy(xs, ys, alpha)
        mirror += alpha * xs
    recorded = _replays(gpu, "axpy", call)
    call(alpha=0.25)                                        # another scalar
    assert _nest(gpu, "axpy") is not recorded
    recorded = _replays(gpu, "axpy", call)
    x2 = x.copy()
    call(xs=x2)                                             # a new array
    assert _nest(gpu, "axpy") is not recorded
    np.testing.assert_allclose(y, expected, rtol=1e-12)
    recorded = _replays(gpu, "axpy", call)
    short = expected[:150]
    call(xs=x[:150], ys=y[:150], mirror=short)              # another shape
    assert _nest(gpu, "axpy") is not recorded
    np.testing.assert_allclose(y, expected, rtol=1e-12)


@pytest.mark.parametrize("switch, value", [("UNPY_GPU_OPT", "none"), ("UNPY_FORCE_GPU", None),
                                           ("UNPY_DEVICE", "none"), ("UNPY_REPLAY", "0")])
def test_switch_changes_take_the_python_path(gpu, device_env, switch, value):
    a, b = RNG.random((12, 10)), RNG.random((12, 10))
    out = np.zeros((12, 10))
    recorded = _replays(gpu, "add2", lambda: gpu.compiled.add2(a, b, out), times=2)
    replayed = recorded.replayed_calls
    if value is None:
        device_env.delenv(switch)
    else:
        device_env.setenv(switch, value)
    a[0, 0] = 5.0
    gpu.compiled.add2(a, b, out)
    np.testing.assert_array_equal(out, a + 2.0 * b)
    assert _nest(gpu, "add2") is not recorded
    assert recorded.replayed_calls == replayed


def test_resident_arrays_are_not_replayed(res):
    a = RNG.random(500)
    expected = a.copy()
    recorded = _replays(res, "scale", lambda: res.compiled.scale(a, 1.5), times=2)
    replayed = recorded.replayed_calls
    expected *= 1.5 ** 3
    with unpython.resident(a):
        for _ in range(2):
            res.compiled.scale(a, 1.5)
            expected *= 1.5
        assert _nest(res, "scale") is not recorded
        unpython.sync(a)
    np.testing.assert_allclose(a, expected, rtol=1e-12)
    assert recorded.replayed_calls == replayed


def test_a_set_flag_raises_as_the_interpreter(gpu_checked):
    x = RNG.random(10)
    idx, out = np.array([0, 1, 2, 3]), np.zeros(4)
    recorded = _replays(gpu_checked, "gather_checked",
                        lambda: gpu_checked.compiled.gather_checked(x, idx, out))
    replayed = recorded.replayed_calls
    np.testing.assert_array_equal(out, x[idx])
    idx[2] = 10                                  # out of range on a later call's data
    out[...] = -1.0
    with pytest.raises(IndexError):
        gpu_checked.compiled.gather_checked(x, idx, out)
    with pytest.raises(IndexError):
        gpu_checked.interpreted.gather_checked(x, idx, np.zeros(4))
    assert "replay" not in _nest(gpu_checked, "gather_checked").reason
    idx[2] = 5                                   # valid again: the Python path, then a record
    gpu_checked.compiled.gather_checked(x, idx, out)
    np.testing.assert_array_equal(out, x[idx])
    assert recorded.replayed_calls == replayed


def test_strided_views(gpu):
    base_x, base_y = RNG.random(400), RNG.random(400)
    x, y = base_x[::2], base_y[1::2]
    expected = base_y.copy()
    for _ in range(4):
        gpu.compiled.axpy(x, y, 2.0)
        expected[1::2] += 2.0 * x
        x *= 0.5
    np.testing.assert_allclose(base_y, expected, rtol=1e-12)
    nest = _nest(gpu, "axpy")
    assert nest.ran_on.startswith("opencl:")
    # Replayed or not, the results are right; explain says which.
    assert "replay:" in str(gpu.explain("axpy"))


def test_two_threads_at_once(gpu):
    n = 48
    arrays = [(RNG.random((n, n), np.float32), RNG.random((n, n), np.float32),
               np.zeros((n, n), np.float32)) for _ in range(2)]
    shared = arrays[0]
    gpu.compiled.matmul_f32(*shared)
    errors = []

    def work(a, b, c, rounds=12):
        try:
            for _ in range(rounds):
                c[...] = 0.0
                gpu.compiled.matmul_f32(a, b, c)
                np.testing.assert_allclose(c, a @ b, rtol=1e-4, atol=1e-4)
        except BaseException as e:      # the test thread reports it
            errors.append(e)

    # Two threads on one set of arrays (read-only inputs, same results) and one on another.
    own = [np.zeros((n, n), np.float32) for _ in range(2)]
    threads = [threading.Thread(target=work, args=(shared[0], shared[1], own[0])),
               threading.Thread(target=work, args=(shared[0], shared[1], own[1])),
               threading.Thread(target=work, args=arrays[1])]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors[0]


def test_explain_says_why_not(gpu):
    x = RNG.random(64)
    gpu.compiled.red_sum_f64(x, 0.0)
    text = str(gpu.explain("red_sum_f64"))
    assert "replay: later calls take the Python path (the nest has reductions)" in text, text


def test_a_replayed_layout_may_pin_its_arrays(gpu, device_env):
    from gpurts.pins import PINS
    device_env.setenv("UNPY_PIN", "1")                   # (the CPU device pins only when told)
    device_env.setenv("UNPY_REPLAY_PIN_BYTES", "4096")
    a, b = RNG.random((40, 40), np.float32), RNG.random((40, 40), np.float32)
    c = np.zeros((40, 40), np.float32)
    assert not PINS.is_pinned(a)
    recorded = _replays(gpu, "matmul_f32", lambda: gpu.compiled.matmul_f32(a, b, c))
    assert PINS.is_pinned(a) and PINS.is_pinned(c)      # 6.4 KB each, copied straight now
    a[...] = RNG.random(a.shape, np.float32)
    gpu.compiled.matmul_f32(a, b, c)
    np.testing.assert_allclose(c, a @ b, rtol=1e-4, atol=1e-4)
    assert _nest(gpu, "matmul_f32") is recorded


def test_forgotten_decisions_stop_the_replays(gpu):
    from jitgpu import decide
    x, y = RNG.random(120), RNG.random(120)
    recorded = _replays(gpu, "axpy", lambda: gpu.compiled.axpy(x, y, 1.0), times=2)
    replayed = recorded.replayed_calls
    decide.forget()
    gpu.compiled.axpy(x, y, 1.0)
    assert _nest(gpu, "axpy") is not recorded and recorded.replayed_calls == replayed


@pytest.fixture
def close_call(gpu, device_env, monkeypatch):
    """Every estimate a close call, no decision remembered; returns `until(seam, verdict)`,
    which sets the measured seconds' seam and calls matmul (checked against NumPy) until its
    reason says `verdict`, and returns its arrays."""
    from jitgpu import decide, session
    device_env.delenv("UNPY_FORCE_GPU")
    monkeypatch.setattr("jitgpu.plan.margin", lambda estimate: 1e12)
    session.forget()

    def until(seam, verdict):
        monkeypatch.setattr(decide, "measured_seconds", seam)
        a, b, c = RNG.random((21, 21)), RNG.random((21, 21)), np.zeros((21, 21))
        for _ in range(8):
            gpu.compiled.matmul(a, b, c)
            np.testing.assert_allclose(c, a @ b, rtol=1e-12)
            if verdict in _nest(gpu, "matmul").reason:
                break
        return a, b, c
    yield until
    session.forget()


def test_a_close_call_is_measured_at_replay_speed(gpu, close_call):
    """While a close call is measured, C++ replays one call per device turn and its time is a
    device sample; once the device wins, every repeated call replays."""
    samples = []

    def seam(side, seconds, path):
        samples.append((side, seconds))
        return seconds if side == "device" else 1.0      # OpenMP made slow: the device wins
    a, b, c = close_call(seam, "measured the device faster")
    nest = _nest(gpu, "matmul")
    assert "measured the device faster" in nest.reason, str(gpu.explain("matmul"))
    # One call was replayed while measuring, and its own time (C++'s clock) was the
    # device's sample (the first device call, which builds, is not counted; the calls after
    # the decision are the kept side's, watched: jitgpu/choice.py).
    assert nest.replayed_calls == 1
    assert [s for side, s in samples if side == "device"][0] == nest.replay.seconds()[1]
    replayed = nest.replayed_calls
    for _ in range(3):
        gpu.compiled.matmul(a, b, c)
    assert _nest(gpu, "matmul") is nest and nest.replayed_calls == replayed + 3


def test_a_close_call_measured_for_openmp_at_replay_speed_stops_replaying(gpu, close_call):
    """The mirror case: the replayed device sample (a NumPy number from C++'s clock) loses to
    OpenMP, so every later call runs the OpenMP code; no call replays or runs on the device
    after the decision (a NumPy bool verdict once slipped past `on_device is False`)."""
    from jitgpu import decide
    a, b, c = close_call(lambda side, seconds, path: seconds if side == "device" else 1e-9,
                         "measured OpenMP faster")
    trial = next(iter(decide._TRIALS.values()))
    assert trial.on_device is False, str(trial)
    decided = _nest(gpu, "matmul")
    replayed = decided.replayed_calls
    for _ in range(3):
        c[:] = 0
        gpu.compiled.matmul(a, b, c)
        np.testing.assert_allclose(c, a @ b, rtol=1e-12)
    assert decided.replayed_calls == replayed, str(gpu.explain("matmul"))
    assert _nest(gpu, "matmul").ran_on == "openmp", str(gpu.explain("matmul"))


def test_forget_ends_the_refusals_compiled_callers_remember(gpu, close_call):
    """A trial decided for OpenMP refuses, and the compiled caller then skips the hook while the
    same inputs come; `session.forget()` ends that too: the same arrays (or new ones at the
    same addresses, as a later test's may be) are decided anew."""
    from jitgpu import decide, session
    a, b, c = close_call(lambda side, seconds, path: seconds if side == "device" else 1e-9,
                         "measured OpenMP faster")
    gpu.compiled.matmul(a, b, c)            # refused: remembered in C++
    session.forget()
    assert not decide._TRIALS
    gpu.compiled.matmul(a, b, c)
    np.testing.assert_allclose(c, a @ b, rtol=1e-12)
    assert decide._TRIALS, str(gpu.explain("matmul"))


@pytest.mark.parametrize("python_s, replayed_s, verdict", [
    (3e-3, 0.5e-3, "measured the device faster"),
    (0.5e-3, 3e-3, "measured OpenMP faster")])
def test_a_close_call_compares_replayed_device_calls_with_openmp(gpu, close_call, python_s,
                                                                 replayed_s, verdict):
    """Like with like: OpenMP takes 1 ms; the device calls through Python take `python_s`,
    the replayed ones `replayed_s`. Repeated calls replay, so the replayed ones decide: the
    device where they are faster, OpenMP where they are slower, whatever the Python path's."""
    from jitgpu import decide
    ran = []

    def seam(side, seconds, path):
        ran.append((side, path))
        return 1e-3 if side == "openmp" else python_s if path == decide.PYTHON else replayed_s
    a, b, c = close_call(seam, verdict)
    trial = next(iter(decide._TRIALS.values()))
    assert verdict in _nest(gpu, "matmul").reason, str(trial)
    assert trial.replays and trial.device_s == [replayed_s], str(trial)
    assert ("device", decide.REPLAYED) in ran
    for _ in range(3):                  # the kept side runs, checked against NumPy
        c[:] = 0
        gpu.compiled.matmul(a, b, c)
        np.testing.assert_allclose(c, a @ b, rtol=1e-12)
    assert trial.on_device is (verdict == "measured the device faster")


def test_a_close_call_replays_with_its_arrays_pinned_at_once(gpu, close_call, device_env):
    """While a close call measures, its replayed calls (its device samples) run as a repeated
    layout's will: arrays of REPIN_BYTES or more pinned at the first record, not after
    REPIN_AFTER replays."""
    from gpurts.epoch import invalidate_replays
    from gpurts.pins import PINS
    invalidate_replays()
    device_env.setenv("UNPY_PIN", "1")                   # (the CPU device pins only when told)
    a, b = RNG.random((80, 80)), RNG.random((80, 80))   # 51 KB each
    c = np.zeros((80, 80))
    gpu.compiled.matmul(a, b, c)
    np.testing.assert_allclose(c, a @ b, rtol=1e-12)
    recorded = _nest(gpu, "matmul")
    assert "close call, measuring" in recorded.reason, recorded.reason
    assert not recorded.replay.repin and PINS.is_pinned(a) and PINS.is_pinned(c)
    c[:] = 0
    gpu.compiled.matmul(a, b, c)                          # replayed from the pinned record
    np.testing.assert_allclose(c, a @ b, rtol=1e-12)
    assert recorded.replayed_calls == 1


@pytest.mark.parametrize("pin", ["1", "0"])
def test_a_large_layout_is_replayed_when_its_arrays_are_pinned(gpu, device_env, monkeypatch,
                                                               pin):
    """A part larger than KEEP_BYTES keeps its kit, and so replays, when its arrays all move
    straight from pinned memory (no staging taken); staged, it takes the Python path."""
    from gpurts import executor, pins, transfer
    from gpurts.epoch import invalidate_replays
    invalidate_replays()        # (an earlier test's record may hold these arrays' addresses)
    device_env.setenv("UNPY_PIN", pin)
    monkeypatch.setattr(pins, "PIN_MIN_BYTES", 0)
    monkeypatch.setattr(transfer, "STAGE_BYTES", 0)            # every box counted as large
    monkeypatch.setattr(executor, "KEEP_BYTES", 1024)          # 40x40 float32: 6.4 KB each
    a, b = RNG.random((40, 40), np.float32), RNG.random((40, 40), np.float32)
    c = np.zeros((40, 40), np.float32)
    if pin == "0":
        gpu.compiled.matmul_f32(a, b, c)
        assert "not kept between calls (too large)" in str(gpu.explain("matmul_f32"))
        return
    recorded = _replays(gpu, "matmul_f32", lambda: gpu.compiled.matmul_f32(a, b, c))
    assert not any(s.taken for s in recorded.replay.keep[0].staging.values())
    a[...] = RNG.random(a.shape, np.float32)
    gpu.compiled.matmul_f32(a, b, c)
    np.testing.assert_allclose(c, a @ b, rtol=1e-4, atol=1e-4)
    assert _nest(gpu, "matmul_f32") is recorded


def test_large_kept_kits_stay_within_their_share_of_the_device(gpu, device_env, monkeypatch):
    from gpurts import executor, pins, transfer
    from gpurts.epoch import invalidate_replays
    invalidate_replays()        # (an earlier test's record may hold these arrays' addresses)
    device_env.setenv("UNPY_PIN", "1")
    monkeypatch.setattr(pins, "PIN_MIN_BYTES", 0)
    monkeypatch.setattr(transfer, "STAGE_BYTES", 0)
    monkeypatch.setattr(executor, "KEEP_BYTES", 1024)
    monkeypatch.setattr(executor, "KEEP_DEVICE_FRACTION", 1 << 40)     # a share of 0 bytes
    a, b = RNG.random((40, 40), np.float32), RNG.random((40, 40), np.float32)
    c = np.zeros((40, 40), np.float32)
    gpu.compiled.matmul_f32(a, b, c)
    np.testing.assert_allclose(c, a @ b, rtol=1e-4, atol=1e-4)
    assert "not kept between calls (too large)" in str(gpu.explain("matmul_f32"))


def test_a_layout_replayed_often_is_recorded_again_with_its_arrays_pinned(gpu, device_env):
    """Arrays under PIN_MIN_BYTES are staged at the first record; after REPIN_AFTER replays a
    call comes through Python and records again with those of REPIN_BYTES or more pinned, and
    every call follows the contents. New arrays on every call are never pinned."""
    from gpurts.epoch import invalidate_replays
    from gpurts.pins import PINS
    from jitgpu import replay
    invalidate_replays()
    device_env.setenv("UNPY_PIN", "1")                   # (the CPU device pins only when told)
    a, b = RNG.random((80, 80), np.float32), RNG.random((80, 80), np.float32)
    c = np.zeros((80, 80), np.float32)                   # 25.6 KB each
    first = _replays(gpu, "matmul_f32", lambda: gpu.compiled.matmul_f32(a, b, c),
                     times=replay.REPIN_AFTER)
    assert first.replay.repin and not PINS.is_pinned(a)
    a[...] = RNG.random(a.shape, np.float32)
    gpu.compiled.matmul_f32(a, b, c)                     # through Python: recorded again
    np.testing.assert_allclose(c, a @ b, rtol=1e-4, atol=1e-4)
    again = _nest(gpu, "matmul_f32")
    assert again is not first and first.replayed_calls == replay.REPIN_AFTER
    assert not again.replay.repin and PINS.is_pinned(a) and PINS.is_pinned(c)
    for _ in range(3):
        b[...] = RNG.random(b.shape, np.float32)
        gpu.compiled.matmul_f32(a, b, c)
        np.testing.assert_allclose(c, a @ b, rtol=1e-4, atol=1e-4)
    assert _nest(gpu, "matmul_f32") is again and again.replayed_calls == 3
    for _ in range(3):
        fresh = RNG.random((80, 80), np.float32)
        gpu.compiled.matmul_f32(fresh, b, c)
        np.testing.assert_allclose(c, fresh @ b, rtol=1e-4, atol=1e-4)
        assert not PINS.is_pinned(fresh)


def test_the_entry_points_are_those_of_the_loader_pyopencl_loaded(device):
    """The compiled caller calls the OpenCL loader's functions at the addresses replay takes
    through cffi: each lies in the memory where this process mapped that loader."""
    path = os.path.realpath(record.opencl_loader_path())
    spans = []
    with open("/proc/self/maps") as maps:        # (the test's oracle)
        for line in maps:
            fields = line.split()
            if len(fields) > 5 and os.path.realpath(fields[-1]) == path:
                lo, hi = (int(x, 16) for x in fields[0].split("-"))
                spans.append((lo, hi))
    assert spans, f"{path} is not mapped"
    for address in record.entry_points(*record._ENTRY_POINTS):
        assert any(lo <= address < hi for lo, hi in spans), hex(address)



def _decoded(ops):
    """[(op, queue, args)] of replay ops, each with the queue it goes to."""
    sizes = {record.OP_COPY: 3, record.OP_WRITE: 4, record.OP_READ: 4, record.OP_LAUNCH: 8,
             record.OP_FINISH: 0, record.OP_FLAG: 1, record.OP_QUEUE: 1}
    out, k, queue = [], 0, None
    while k < len(ops):
        op, args = ops[k], ops[k + 1:k + 1 + sizes[ops[k]]]
        k += 1 + len(args)
        if op == record.OP_QUEUE:
            queue = args[0]
        else:
            out.append((op, queue, args))
    return out


def test_a_split_call_starts_every_part_before_it_waits_and_checks_every_flag_first():
    """call_ops of two parts (pure): each part's copies in and launch on its own queue before
    any queue is waited for; every error flag checked before any read into NumPy memory; the
    staged results copied out last. One part's ops are op_words' (no queue named)."""
    def part(queue, staged):
        c = record.Copy(0, 1000 * queue, 64, 0, staged, True, True)
        return [c], record.part_ops([c], {0: 10 * queue}, {0: 20 * queue}, 30 * queue, (8,),
                                    (4,), 40 * queue, 50 * queue, True, queue)
    (copies_a, a), (_, b) = part(1, staged=False), part(2, staged=True)
    ops = _decoded(record.call_ops([a, b]))
    at = {kind: [k for k, (op, _, _) in enumerate(ops) if op == kind]
          for kind in (record.OP_LAUNCH, record.OP_FINISH, record.OP_FLAG, record.OP_COPY)}
    assert [ops[k][1] for k in at[record.OP_LAUNCH]] == [1, 2]
    assert {ops[k][1] for k in at[record.OP_FINISH]} == {1, 2}
    assert max(at[record.OP_LAUNCH]) < min(at[record.OP_FINISH])
    host_reads = [k for k, (op, _, args) in enumerate(ops)
                  if op == record.OP_READ and args[3] == 1000]     # part 1's, into NumPy memory
    assert len(host_reads) == 1 and max(at[record.OP_FLAG]) < host_reads[0]
    assert ops[-1][::2] == (record.OP_COPY, [2000, 40, 64])    # part 2's staged result, last
    assert record.call_ops([a]) == record.op_words(copies_a, {0: 10}, {0: 20}, 30, (8,), (4,),
                                                   40, 50, True)
    assert all(queue is None for _, queue, _ in _decoded(record.call_ops([a])))  # one queue
