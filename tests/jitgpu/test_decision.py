"""The GPU-vs-OpenMP decision (jitgpu/decide.py) on the CPU OpenCL device: the estimate decides
clear cases; close calls alternate timed device and OpenMP calls (the compiled caller times its
OpenMP code) and keep the faster side for that layout. Synthetic situations get their measured
seconds through the seam `decide.measured_seconds`; every call is checked against the
interpreter."""
import dataclasses

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
    monkeypatch.setattr("jitgpu.plan.margin", lambda estimate: 1e12)
    session.forget()

    def seconds(device_s, openmp_s):
        times = {"device": device_s, "openmp": openmp_s}
        monkeypatch.setattr(decide, "measured_seconds", lambda side, s, path: times[side])
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
    from jitgpu import plan as planning
    monkeypatch.setattr(planning, "margin", lambda estimate: 1.0001)   # any ratio below 1 is clear
    # The device's estimate < 0, OpenMP's a second: clear, and the first call agrees
    # (decide.contradicts).
    estimate = planning.estimate
    monkeypatch.setattr(planning, "estimate", lambda *args: dataclasses.replace(
        estimate(*args), device_s=-1.0, host_s=1.0))
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


# --- the estimate on a machine's calibration, and the margin it decides by -------------------

def _calibration(**figures):
    from gpurts.calibration import Calibration
    machine = dict(launch_s=20e-6, h2d=50e9, d2h=50e9, device_bytes_per_s=2e12,
                   host_bytes_per_s=100e9, memcpy_bytes_per_s=25e9, cores=16, spread=1.0)
    return Calibration(**{**machine, **figures})


def _estimate(device_s, host_s, device_calibrated_s=0.0, host_calibrated_s=0.0, **figures):
    from jitgpu.plan import Estimate
    return Estimate(device_s, host_s, 0, device_calibrated_s=device_calibrated_s,
                    host_calibrated_s=host_calibrated_s,
                    calibration=_calibration(**figures) if figures or device_calibrated_s
                    or host_calibrated_s else None)


def test_the_margin_follows_what_the_estimate_rests_on():
    from jitgpu.plan import CALIBRATED_ERROR as cal, CONSTANT_ERROR as const, margin
    assert margin(_estimate(1.0, 1.0)) == const * const == 4.0     # the constants alone
    assert margin(_estimate(1.0, 1.0, 1.0, 1.0)) == pytest.approx(cal * cal)
    assert margin(_estimate(1.0, 1.0, 1.0, 0.0)) == pytest.approx(cal * const)
    # half of the device's seconds measured: the mean of the two factors
    assert margin(_estimate(1.0, 1.0, 0.5, 1.0)) == pytest.approx((cal + const) / 2 * cal)
    # a noisy machine's figures are trusted less, never less than the constants
    assert margin(_estimate(1.0, 1.0, 1.0, 1.0, spread=1.2)) == pytest.approx((cal * 1.2) ** 2)
    assert margin(_estimate(1.0, 1.0, 1.0, 1.0, spread=5.0)) == const * const


@pytest.mark.parametrize("ratio, calibrated, verdict", [
    (0.5, True, True), (2.0, True, False), (0.5, False, None), (2.0, False, None)])
def test_a_calibrated_estimate_decides_where_the_constants_measure(ratio, calibrated, verdict):
    """Device / OpenMP = 0.5 or 2: clear beyond a calibrated estimate's margin (1.25^2), a
    close call, measured, within the constants' 4x."""
    from jitgpu.plan import GpuPlan
    device_s, host_s = ratio * 1e-3, 1e-3
    e = _estimate(device_s, host_s, *((device_s, host_s) if calibrated else ()))
    assert decide.by_estimate(GpuPlan("n", (), e, False, "all")) is verdict
    assert f"decides beyond {1.5625 if calibrated else 4.0:.2f}x" in str(e)


def _axpy_estimate(n, facts):
    from jitgpu import plan as planning
    from jitgpu.nest import instantiate, load_nest
    values = {"x": np.ones(n), "y": np.zeros(n), "alpha": 2.0}
    instance = instantiate(load_nest("gpu_kernels", "axpy", 0), values)
    return planning.plan_call(instance, values, facts), planning.work(instance)


def test_the_estimate_takes_the_machines_figures(gpu):
    """axpy over 2^20 float64 (24 MiB moved, 16 MiB touched): the device's time is a launch,
    the copies over the link (staged: times 1 + link / memcpy) and the longer of the kernel's
    operations and its bytes; OpenMP's the longer of its operations on the machine's cores
    and its bytes at the host's throughput."""
    from jitgpu import plan as planning
    machine = _calibration(host_bytes_per_s=10e9)            # a host with slow memory
    facts = planning.DeviceFacts("opencl:test", True, 1 << 40, 1 << 40, 50e9, 50e9,
                                 calibration=machine)
    plan, operations = _axpy_estimate(1 << 20, facts)
    e = plan.estimate
    moved, touched = 3 * 8 << 20, 2 * 8 << 20
    assert e.bytes_moved == moved and e.calibration is machine
    copies = moved * (1 + 50e9 / 25e9) / 50e9
    kernel = max(operations / planning.GPU_OPS, touched / 2e12)
    assert e.copies_s == pytest.approx(copies)
    assert e.device_s == pytest.approx(20e-6 + copies + kernel)
    host = max(operations / (planning.HOST_OPS_PER_CORE * 16), touched / 10e9)
    assert e.host_s == pytest.approx(host) and host == touched / 10e9
    assert e.host_calibrated_s == e.host_s                   # memory-bound: all measured
    assert "calibrated on this machine: launch 0.020 ms, link 50.0/50.0 GB/s" in plan.verdict
    assert "host memory 10.0 GB/s on 16 cores" in plan.verdict


def test_the_same_nest_is_decided_per_machine(gpu, monkeypatch):
    """One nest, three machines: a fast link and launch (the device, by the estimate), a slow
    link (OpenMP, by the estimate), no calibration (the constants, on 2 cores: a close call,
    measured)."""
    from jitgpu import plan as planning
    monkeypatch.setattr(planning.os, "cpu_count", lambda: 2)

    def decided(calibration):
        facts = planning.DeviceFacts("opencl:test", True, 1 << 40, 1 << 40,
                                     calibration.h2d if calibration else 50e9,
                                     calibration.d2h if calibration else 50e9,
                                     pins_from=1 << 20, calibration=calibration)
        return decide.by_estimate(_axpy_estimate(1 << 20, facts)[0])
    assert decided(_calibration(h2d=500e9, d2h=500e9, host_bytes_per_s=20e9)) is True
    assert decided(_calibration(h2d=2e9, d2h=2e9)) is False
    assert decided(None) is None


def test_a_while_loops_work_is_a_floor_that_never_decides_for_openmp(gpu):
    """collatz's while loop runs as often as its test says: its work counted once is a floor,
    so an estimate for OpenMP is measured instead (mandelbrot's escape loop, estimated 0.049
    ms with OpenMP, took 31 ms), where one for the device would stand (more work favours it): a
    nest without one, as clearly for OpenMP, is decided."""
    from jitgpu import plan as planning
    from jitgpu.nest import instantiate, load_nest

    def planned(link):
        facts = planning.DeviceFacts("opencl:test", True, 1 << 40, 1 << 40, link, link,
                                     calibration=_calibration(h2d=link, d2h=link))
        n = 1 << 20
        values = {"x": np.full(n, 27, dtype=np.int64), "out": np.zeros(n, dtype=np.int64)}
        instance = instantiate(load_nest("gpu_kernels", "collatz", 0), values)
        return planning.plan_call(instance, values, facts)
    slow = planned(1e8)
    assert slow.estimate.device_s > 4 * slow.estimate.host_s        # clearly OpenMP, counted
    assert decide.by_estimate(slow) is None                          # ... but measured
    assert "work at least: a while loop runs as many times" in str(slow.estimate)
    axpy, _ = _axpy_estimate(1 << 20, planning.DeviceFacts(
        "opencl:test", True, 1 << 40, 1 << 40, 1e8, 1e8, calibration=_calibration(h2d=1e8,
                                                                                d2h=1e8)))
    assert not axpy.estimate.floor_only and decide.by_estimate(axpy) is False


def test_calibrated_once_per_machine_never_with_device_none(built_dir, tmp_path):
    """A fresh cache: with UNPY_DEVICE=none nothing is calibrated (nor gpurts imported); the
    first process with a device calibrates it (logged, kept beside the probe) and its estimate
    says which figures it used; the next process reads them back without measuring."""
    import json
    import os
    import subprocess
    import sys
    import textwrap

    import testdevice
    script = textwrap.dedent("""
        import json, sys
        import numpy as np
        import unpython, gpu_kernels as g
        x, y = np.arange(64.0), np.ones(64)
        g.axpy(x, y, 2.0)
        assert np.allclose(y, 1 + 2 * np.arange(64.0))
        print(json.dumps({"calibration": "gpurts.calibration" in sys.modules,
                          "reason": unpython.explain(g.axpy).nests[0].reason}))
    """)
    repo = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    cache = tmp_path / "cache"

    def run(device):
        env = dict(os.environ, UNPY_DEVICE=device, UNPY_LOG="info", UNPY_CACHE_DIR=str(cache),
                   UNPY_CALIBRATE="1",
                   PYTHONPATH=os.pathsep.join([str(built_dir), repo,
                                               os.environ.get("PYTHONPATH", "")]))
        for name in ("UNPY_FORCE_GPU", "UNPY_GPU_MEM_LIMIT"):
            env.pop(name, None)
        done = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, env=env,
                              capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout.splitlines()[-1]), done.stderr

    answer, _ = run("none")
    assert not answer["calibration"]
    assert not list(cache.glob("probes/*.calibration.json"))
    answer, log = run(testdevice.SPEC)
    assert answer["calibration"] and "unpy: calibrated opencl:" in log, log
    assert "not profitable: estimated" in answer["reason"]
    assert "[calibrated on this machine: launch" in answer["reason"], answer["reason"]
    assert "decides beyond" in answer["reason"]
    kept = list(cache.glob("probes/*.calibration.json"))
    assert len(kept) == 1 and json.loads(kept[0].read_text())["figures"]["launch_s"] > 0
    answer, log = run(testdevice.SPEC)
    assert "unpy: calibrated" not in log and "[calibrated on this machine" in answer["reason"]


# --- a call that keeps data: copies and launches shared by its nest calls --------------------

def _plan_of(estimate, parts=1):
    from jitgpu.plan import GpuPlan, Part
    return GpuPlan("m.f nest 0", tuple(Part(None, "gpu", None) for _ in range(parts)), estimate,
                   False, "none")


def test_a_time_loops_launches_cost_what_launches_in_a_row_cost():
    """A nest launched 256 times in a call pays one round trip of a waited launch (launch_s)
    per call, and enqueue_s per launch, where nothing is read back between its launches."""
    from jitgpu.residency import amortised
    e = _estimate(100e-6 + 57e-6, 40e-6, 100e-6 + 57e-6, 40e-6, launch_s=57e-6, enqueue_s=8e-6)
    e = dataclasses.replace(e, copies_s=100e-6)
    share = 256
    piped = amortised(_plan_of(e, parts=2), share, pipelined=True).estimate
    waited = amortised(_plan_of(e, parts=2), share, pipelined=False).estimate
    assert waited.device_s == pytest.approx(57e-6 + 100e-6 / share)
    assert piped.device_s == pytest.approx(waited.device_s - 2 * 49e-6 * (1 - 1 / share))
    assert piped.copies_s == waited.copies_s == pytest.approx(100e-6 / share)
    assert "launches' round trip shared by the 256 nest calls" in str(piped)
    assert "launches" not in str(waited).split("data kept")[1]
    # Not measured (an entry of an older calibration) or no calibration: the copies alone.
    unmeasured = dataclasses.replace(e, calibration=_calibration(launch_s=57e-6))
    assert amortised(_plan_of(unmeasured), share, pipelined=True).estimate.device_s == \
        pytest.approx(57e-6 + 100e-6 / share)
    assert amortised(_plan_of(e), 1, pipelined=True).estimate is e


# --- an estimate the first call contradicts ----------------------------------------------------

@pytest.fixture
def clear_for_the_device(device_env, monkeypatch):
    """Every estimate clearly for the device; returns a function that says whether the first
    call's measured device time contradicts it (the seam `decide.contradicts`) and makes the
    measured seconds `device_s` and `openmp_s`."""
    device_env.delenv("UNPY_FORCE_GPU")
    device_env.setenv("UNPY_REPLAY", "0")
    monkeypatch.setattr(decide, "by_estimate", lambda plan: True)
    session.forget()

    def situation(contradicted, device_s=1e-3, openmp_s=1e-4):
        monkeypatch.setattr(decide, "contradicts", lambda plan, seconds: contradicted)
        times = {"device": device_s, "openmp": openmp_s}
        monkeypatch.setattr(decide, "measured_seconds", lambda side, s, path: times[side])
    yield situation
    session.forget()


def test_a_first_call_that_contradicts_the_estimate_measures_both_ways(gpu, clear_for_the_device):
    clear_for_the_device(True, device_s=1e-3, openmp_s=1e-4)
    _ran(gpu, 29, "opencl:", "close call, measuring")   # the device's uncounted call
    _ran(gpu, 29, "opencl:", "close call, measuring")   # counted
    _ran(gpu, 29, "openmp", "close call, measuring")    # OpenMP's first: not counted
    _ran(gpu, 29, "openmp", "close call, measuring")
    for _ in range(2):
        _ran(gpu, 29, "openmp", "measured OpenMP faster: 1.000 ms on the device")


def test_a_first_call_that_agrees_keeps_the_device(gpu, clear_for_the_device):
    clear_for_the_device(False)
    for _ in range(4):
        _, report = _ran(gpu, 30, "opencl:")
        reason = report.nests[0].reason
        assert "close call" not in reason and "faster" not in reason, reason


def test_contradicts_when_the_measured_device_is_not_clearly_faster():
    from jitgpu.plan import GpuPlan, margin
    e = _estimate(1e-4, 1e-3, 1e-4, 1e-3, launch_s=1e-5)     # 10x for the device, calibrated
    plan = GpuPlan("m.f nest 0", (), e, False, "none")
    limit = e.host_s / margin(e)
    assert not decide.contradicts(plan, 0.9 * limit)
    assert decide.contradicts(plan, 1.1 * limit)
    assert not decide.contradicts(dataclasses.replace(plan, forced=True), 1.0)
