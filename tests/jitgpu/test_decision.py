"""The GPU-vs-OpenMP decision (jitgpu/decide.py) on the CPU OpenCL device: the estimate decides
clear cases; close calls alternate timed device and OpenMP calls (the compiled caller times its
OpenMP code) and keep the faster side for that layout. Synthetic situations get their measured
seconds through the seam `decide.measured_seconds`; every call is checked against the
interpreter."""
import numpy as np
import pytest

from jitgpu import decide, session

RNG = np.random.default_rng(7)


@pytest.fixture
def close(device_env, monkeypatch):
    """Every estimate is a close call, no decision remembered; returns a function that makes
    the seam answer `device_s` and `openmp_s` for every measured call of each side."""
    device_env.delenv("UNPY_FORCE_GPU")
    # Calls in the order below: replays (which a reused address allows) would add device calls
    # (tests/jitgpu/test_replay.py measures with them).
    device_env.setenv("UNPY_REPLAY", "0")
    monkeypatch.setattr(decide, "MEASURE_WITHIN", 1e12)
    session.forget()

    def seconds(device_s, openmp_s):
        times = {"device": device_s, "openmp": openmp_s}
        monkeypatch.setattr(decide, "measured_seconds", lambda side, s: times[side])
    yield seconds
    session.forget()


def _matmul_args(n):
    return RNG.random((n, n)), RNG.random((n, n)), np.zeros((n, n))


def _ran(gpu, n, ran_on, reason=None):
    return gpu.check("matmul", *_matmul_args(n), rtol=1e-12, ran_on=ran_on, reason=reason)


def test_close_call_kept_on_openmp_when_measured_faster(gpu, close):
    close(device_s=1e-3, openmp_s=1e-4)
    _ran(gpu, 23, "opencl:", "close call, measuring")   # builds: not counted
    _ran(gpu, 23, "opencl:", "close call, measuring")   # counted
    _ran(gpu, 23, "openmp", "close call, measuring")    # OpenMP's first: not counted either
    _ran(gpu, 23, "openmp", "close call, measuring")    # timed by the compiled caller
    # 10x apart after one call each: decided, and every later layout of these shapes stays
    _, report = _ran(gpu, 23, "openmp", "measured OpenMP faster: 1.000 ms on the device")
    assert "0.100 ms with OpenMP" in report.nests[0].reason
    assert "estimated" in report.nests[0].reason
    for _ in range(2):
        _ran(gpu, 23, "openmp", "measured OpenMP faster")
    _ran(gpu, 24, "opencl:", "close call, measuring")   # another shape: measured anew


def test_close_call_kept_on_the_device_when_measured_faster(gpu, close):
    close(device_s=1e-4, openmp_s=1e-3)
    sides = ["opencl:", "opencl:", "openmp", "openmp"]
    for ran_on in sides:
        _ran(gpu, 25, ran_on, "close call, measuring")
    for _ in range(3):
        _, report = _ran(gpu, 25, "opencl:", "measured the device faster: 0.100 ms on the "
                         "device (1 call(s)) vs 1.000 ms with OpenMP (1 call(s))")


def test_close_times_take_two_calls_of_each(gpu, close):
    close(device_s=1.0e-3, openmp_s=0.9e-3)
    for ran_on in ["opencl:", "opencl:", "openmp", "openmp", "opencl:", "openmp"]:
        _ran(gpu, 26, ran_on, "close call, measuring")
    _ran(gpu, 26, "openmp", "measured OpenMP faster: 1.000 ms on the device (2 call(s)) vs "
         "0.900 ms with OpenMP (2 call(s))")


def test_measured_openmp_skips_the_hook_for_the_same_inputs(gpu, close):
    close(device_s=1e-3, openmp_s=1e-5)
    a, b, c = _matmul_args(27)
    for _ in range(5):
        gpu.compiled.matmul(a, b, c)
    assert "measured OpenMP faster" in gpu.explain("matmul").nests[0].reason
    from jitgpu import report
    report._last.pop((gpu.compiled.__name__, "matmul"), None)
    c[:] = 0
    gpu.compiled.matmul(a, b, c)             # the same inputs: refused in C++, no report
    assert gpu.explain("matmul").nests[0].ran_on is None
    np.testing.assert_allclose(c, a @ b, rtol=1e-12)


def test_a_kept_openmp_side_is_watched_and_the_device_measured_again(gpu, close):
    """Kept on OpenMP at 3 ms (watched: over decide.WATCH_OPENMP_S), its calls are timed all
    the same; when three in a row take over twice the device's 10 ms, the device is measured
    again (its first call not counted): over twice as fast after one call, it is kept."""
    close(device_s=10e-3, openmp_s=3e-3)
    for ran_on in ["opencl:", "opencl:", "openmp", "openmp"]:
        _ran(gpu, 30, ran_on, "close call, measuring")
    close(device_s=10e-3, openmp_s=25e-3)       # OpenMP's calls slow down
    for _ in range(decide.RULES.window):
        _ran(gpu, 30, "openmp", "measured OpenMP faster: 10.000 ms on the device")
    _ran(gpu, 30, "opencl:", "close call, measuring: measured again (1 time(s))")
    _ran(gpu, 30, "opencl:", "measured the device faster: 10.000 ms on the device (1 call(s)) "
         "vs 25.000 ms with OpenMP (3 call(s))")


def test_real_times_decide_and_the_openmp_time_comes_from_the_caller(gpu, close):
    for _ in range(6):
        _ran(gpu, 28, None)
    trials = [t for k, t in decide._TRIALS.items() if k[:2] == (gpu.compiled.__name__,
                                                                 "matmul")]
    assert len(trials) == 1
    trial = trials[0]
    assert trial.on_device is not None, trial
    assert trial.openmp_s and all(0 < s < 1 for s in trial.openmp_s)
    assert trial.device_s and all(0 < s < 1 for s in trial.device_s)
    side = "opencl:" if trial.on_device else "openmp"
    _ran(gpu, 28, side, "measured")


def test_clear_estimates_are_not_measured(gpu, device_env, monkeypatch):
    device_env.delenv("UNPY_FORCE_GPU")
    decide.forget()
    # 64 elements: the launch alone is far above the OpenMP time
    gpu.check("axpy", RNG.random(64), RNG.random(64), 2.0, ran_on="openmp",
              reason="not profitable: estimated")
    assert not decide._TRIALS
    monkeypatch.setattr(decide, "MEASURE_WITHIN", 1.0001)   # any ratio below 1 is clear
    monkeypatch.setattr("jitgpu.plan.LAUNCH_OVERHEAD", -1.0)  # the device's estimate < 0
    gpu.check("axpy", RNG.random(65), RNG.random(65), 2.0, ran_on="opencl:",
              reason="estimate favours the device: estimated")
    assert not decide._TRIALS


def test_trial_on_numbers():
    from jitgpu.plan import Estimate
    trial = decide.Trial(Estimate(1e-3, 1e-3, 0))
    trial.record("device", 5.0)                 # the warm-up call
    assert trial.device_s == [] and not trial.wants_openmp()
    trial.record("device", 2e-3)
    assert trial.wants_openmp()
    trial.record("openmp", 9.0)                 # OpenMP's warm-up call
    assert trial.openmp_s == [] and trial.wants_openmp()
    trial.record("openmp", 1.5e-3)
    assert trial.on_device is None and not trial.wants_openmp()
    trial.record("device", 1e-3)                # a busy spell before does not count
    trial.record("openmp", 3e-3)
    assert trial.on_device is True
    trial.record("openmp", 1e-6)                # decided: later numbers change nothing
    assert trial.on_device is True and "measured the device faster" in str(trial)


def test_the_log_says_why_with_the_times(gpu, close):
    import logging
    close(device_s=2e-3, openmp_s=1e-4)
    lines = []
    handler = logging.Handler()
    handler.emit = lambda record: lines.append(record.getMessage())
    log = logging.getLogger("unpy")
    level = log.level
    log.addHandler(handler)
    log.setLevel(logging.INFO)
    try:
        for ran_on in ["opencl:", "opencl:", "openmp", "openmp", "openmp"]:
            _ran(gpu, 29, ran_on)
    finally:
        log.removeHandler(handler)
        log.setLevel(level)
    assert any("ran on opencl:" in l and "close call, measuring" in l for l in lines), lines
    assert any(l.startswith("OpenMP call timed at") for l in lines), lines
    assert "measured OpenMP faster: 2.000 ms on the device" in lines[-1], lines
    assert "vs 0.100 ms with OpenMP" in lines[-1] and "estimated" in lines[-1]


def test_pinned_copies_count_at_the_bandwidth(gpu):
    """Megabytes moved on a device that pins NumPy memory cost bytes / bandwidth; staged ones
    STAGING_SLOWDOWN times that."""
    import dataclasses
    from jitgpu import plan as planning
    from jitgpu.nest import instantiate, load_nest
    staged = planning.DeviceFacts("opencl:test", True, 1 << 30, 1 << 28, 50e9, 50e9)
    pinned = dataclasses.replace(staged, pins_from=1 << 20)
    values = {"x": np.ones(1 << 18), "y": np.zeros(1 << 18), "alpha": 2.0}   # 6 MiB moved
    instance = instantiate(load_nest("gpu_kernels", "axpy", 0), values)
    times = {}
    for name, facts in (("staged", staged), ("pinned", pinned)):
        p = planning.plan_call(instance, values, facts)
        times[name] = p.estimate.device_s
    copies = 3 * 8 * (1 << 18) / 50e9
    assert times["staged"] - times["pinned"] == pytest.approx(
        copies * (planning.STAGING_SLOWDOWN - 1), rel=1e-6)
