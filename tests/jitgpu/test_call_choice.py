"""The whole call as the unit of the GPU-or-OpenMP choice where its nests keep data on the device
(jitgpu/calls.py): the rules with synthetic seconds, then time loops on the tested OpenCL device
with synthetic call times through the `measured_seconds` seam (never the host's timing)."""
import numpy as np
import pytest

from jitgpu import calls, report
from jitgpu.calls import DEVICE, OPENMP, CallTrial, ScopeTally

RNG = np.random.default_rng(2026)


def run(trial, seconds: dict, tallies: dict):
    """One call: the side `trial` picks, recorded with that side's synthetic seconds."""
    side = trial.next()
    if side is not None:
        trial.record(side, seconds[side], tallies.get(side))
    return side


def test_calls_without_a_device_nest_leave_the_choice_to_the_nests():
    """QUIET calls whose nests stayed off the device without deciding for good (the function's
    first calls), or one whose nests all decided."""
    trial = CallTrial()
    first_calls = {DEVICE: ScopeTally(undecided=True)}
    sides = [run(trial, {DEVICE: 1.0}, first_calls) for _ in range(calls.QUIET + 2)]
    assert sides == [DEVICE] * calls.QUIET + [None, None]
    trial = CallTrial()
    sides = [run(trial, {DEVICE: 1.0}, {DEVICE: ScopeTally()}) for _ in range(3)]
    assert sides == [DEVICE, None, None] and trial.idle


def test_device_nests_clear_by_their_estimates_settle_without_measuring_openmp():
    trial = CallTrial()
    clear = ScopeTally(device=True, clear=True, estimated_s=0.5, estimated_openmp_s=2.0)
    assert run(trial, {DEVICE: 1.0}, {DEVICE: clear}) == DEVICE
    assert trial.next() is None and trial.by_estimate
    assert trial.choice.times[OPENMP] == []


def test_a_call_its_clear_estimates_misjudge_is_measured_both_ways():
    trial = CallTrial()
    misjudged = {DEVICE: ScopeTally(device=True, clear=True, estimated_s=1e-3)}
    sides = [run(trial, {DEVICE: calls.AGREE * 1e-3 * 20, OPENMP: 1e-3}, misjudged)
             for _ in range(5)]
    assert sides == [DEVICE, DEVICE, OPENMP, OPENMP, OPENMP], sides
    assert not trial.by_estimate and trial.choice.chosen == OPENMP


def test_a_device_call_slower_than_its_nests_estimated_openmp_time_is_measured_both_ways():
    """Within AGREE of the device estimate but slower than the estimated OpenMP time (the
    H200's reduction_in_scalar_operand: 2.7 ms estimated on the device, 7.2 with OpenMP, 15
    taken on the device): the estimate's case for the device is gone."""
    trial = CallTrial()
    tally = {DEVICE: ScopeTally(device=True, clear=True, estimated_s=2.7e-3,
                                estimated_openmp_s=7.2e-3)}
    sides = [run(trial, {DEVICE: 15e-3, OPENMP: 8.1e-3}, tally) for _ in range(6)]
    assert not trial.by_estimate and trial.choice.chosen == OPENMP, sides


def test_close_calls_are_measured_both_ways_and_the_faster_kept():
    trial = CallTrial()
    close = {DEVICE: ScopeTally(device=True, clear=False)}
    seconds = {DEVICE: 0.300, OPENMP: 0.050}
    sides = [run(trial, seconds, close) for _ in range(6)]
    # One uncounted call of each side, then one counted: OpenMP is 6x faster, the device is
    # dropped after its one counted call.
    assert sides == [DEVICE, DEVICE, OPENMP, OPENMP, OPENMP, OPENMP], sides
    assert trial.choice.chosen == OPENMP
    assert "measured OpenMP faster for the whole call" in trial.describe()


def test_a_device_call_counts_without_its_preparations():
    """New arrays: each device call spends most of its time preparing its nests (analysis,
    planning, builds), which the calls after it do not; counted with it, OpenMP was kept."""
    trial = CallTrial()
    seconds = {DEVICE: 0.022, OPENMP: 0.012}
    preparing = {DEVICE: ScopeTally(device=True, clear=False, prepared_s=0.017)}
    sides = [run(trial, seconds, preparing) for _ in range(6)]
    assert trial.choice.chosen == DEVICE, (sides, trial.describe())
    assert trial.choice.fastest(DEVICE) == pytest.approx(0.005)
    # the same calls counted whole keep OpenMP
    whole = CallTrial()
    for _ in range(6):
        run(whole, seconds, {DEVICE: ScopeTally(device=True, clear=False)})
    assert whole.choice.chosen == OPENMP


def test_a_device_call_without_device_nests_does_not_count_as_a_sample():
    trial = CallTrial()
    close = ScopeTally(device=True, clear=False)
    run(trial, {DEVICE: 1.0}, {DEVICE: close})         # warm-up
    run(trial, {DEVICE: 1.0}, {DEVICE: ScopeTally(undecided=True)})   # nothing ran there
    assert trial.choice.times[DEVICE] == [] and trial.quiet == 1
    run(trial, {DEVICE: 0.5}, {DEVICE: close})
    assert trial.choice.times[DEVICE] == [0.5] and trial.quiet == 0


# --- on the tested device ------------------------------------------------------------------

def asks_nothing(pair, func, *args):
    """A call of `func` that reaches no hook (the nests' reports stay as they were) and gives
    the interpreter's results."""
    key = (pair.compiled.__name__, func)
    marks = {nest_id: report.NestReport(nest_id, None, "before the call")
             for nest_id in report.nests_reported(*key)}
    assert marks, "no nest has a report to watch"
    report._last[key] = dict(marks)
    pair.check(func, *args, rtol=1e-12, ran_on=None)
    assert report._last[key] == marks, report._last[key]


@pytest.fixture
def unforced(device_env, monkeypatch):
    """The automatic mode, each nest put on the device by its estimate but none clear by its
    margin: the whole call is what is measured."""
    from jitgpu import decide, session
    from jitgpu.plan import GpuPlan
    device_env.delenv("UNPY_FORCE_GPU")
    monkeypatch.setattr(GpuPlan, "profitable", property(lambda plan: True))
    monkeypatch.setattr(decide, "by_estimate", lambda plan: None)
    session.forget()
    yield monkeypatch
    session.forget()


# A time loop's first calls: device (warm-up), device, OpenMP (warm-up), OpenMP.
MEASURED = [{"opencl"}, {"opencl"}, {"openmp"}, {"openmp"}]


def jacobi_sides(loops, calls_made=6) -> list:
    """Where the nests of each of `calls_made` calls of time_loops.jacobi2d ran (checked
    against the interpreter)."""
    a = RNG.random((18, 18))
    ran = []
    for _ in range(calls_made):
        loops.check("jacobi2d", 3, a, np.zeros_like(a), rtol=1e-12, ran_on=None)
        ran.append({n.ran_on.split(":")[0] for n in loops.explain("jacobi2d").nests})
    return ran


@pytest.mark.parametrize("faster", [OPENMP, DEVICE])
def test_a_time_loop_runs_where_its_whole_calls_were_faster(loops, unforced, faster):
    seconds = {faster: 0.010, ({DEVICE, OPENMP} - {faster}).pop(): 1.0}
    unforced.setattr(calls, "measured_seconds", lambda side, s: seconds[side])
    want = "openmp" if faster == OPENMP else "opencl"
    assert jacobi_sides(loops) == MEASURED + [{want}, {want}]
    assert "faster for the whole call" in loops.explain("jacobi2d").nests[0].reason \
        or faster == DEVICE


def test_nests_whose_work_the_estimate_only_floors_are_measured_in_the_whole_call(loops,
                                                                                  unforced):
    """Estimated slower on the device, but counting a while loop (or computed bounds) once:
    the call's device calls put them there and the faster whole call is kept (without the
    floor, they refuse by themselves and the device is never measured)."""
    from jitgpu import plan as planning
    from jitgpu.plan import GpuPlan
    unforced.setattr(GpuPlan, "profitable", property(lambda plan: False))
    unforced.setattr(planning, "work_floor_only", lambda instance: "a while loop (the test's)")
    unforced.setattr(calls, "measured_seconds",
                     lambda side, s: 0.010 if side == DEVICE else 1.0)
    assert jacobi_sides(loops) == MEASURED + [{"opencl"}, {"opencl"}]


def test_short_calls_kept_on_openmp_skip_python(loops, unforced):
    """Kept on OpenMP with calls shorter than a watch is worth: the compiled caller remembers
    its arguments' layouts and asks nothing more (no report is written)."""
    unforced.setattr(calls, "measured_seconds",
                     lambda side, s: 1.0 if side == DEVICE else 1e-4)
    a, b = RNG.random((18, 18)), np.zeros((18, 18))
    for _ in range(5):
        loops.compiled.jacobi2d(2, a, b)
    assert calls._CALLS and next(iter(calls._CALLS.values())).choice.chosen == OPENMP
    asks_nothing(loops, "jacobi2d", 2, a, b)


def test_calls_whose_nests_refuse_by_themselves_skip_python(loops, unforced):
    """Every nest refused by its estimate for QUIET calls in a row: later calls with arrays of
    the same layouts ask nothing, though they are new arrays and the step's coefficient `c` in
    the nest's inputs changes every launch (a refusal remembered by the inputs would bring
    each launch to Python)."""
    from jitgpu.plan import GpuPlan
    unforced.setattr(GpuPlan, "profitable", property(lambda plan: False))
    for _ in range(calls.QUIET + 1):
        loops.compiled.host_coefficient(4, RNG.random(40), RNG.random(40))
    a, b = RNG.random(40), RNG.random(40)
    reasons = [n.reason for n in loops.explain("host_coefficient").nests]
    assert all("not profitable" in r for r in reasons), reasons
    asks_nothing(loops, "host_coefficient", 4, a, b)


def test_calls_of_the_same_arrays_whose_nests_refuse_are_remembered_as_openmp(loops, unforced):
    """The same arrays at every call: from the second call the nests skip the hook by their
    own remembered refusals, so no call asks the whole call's choice again; the call that
    makes the choice idle (QUIET calls without a device nest) has the compiled caller remember
    the layouts as run with OpenMP, so that a call on new arrays of the same layouts asks
    nothing either."""
    from jitgpu.plan import GpuPlan
    unforced.setattr(GpuPlan, "profitable", property(lambda plan: False))
    a, b = RNG.random((18, 18)), np.zeros((18, 18))
    for _ in range(calls.QUIET + 2):
        loops.compiled.jacobi2d(2, a, b)
    assert next(iter(calls._CALLS.values())).idle
    assert python_calls(loops.compiled.jacobi2d, 2, a, b) == []
    new = RNG.random((18, 18)), np.zeros((18, 18))
    assert python_calls(loops.compiled.jacobi2d, 2, *new) == []


def python_calls(f, *args) -> list:
    """The names of the functions of jitgpu that a call of `f` runs."""
    import sys
    called = []

    def watch(frame, event, arg):
        if event == "call" and "jitgpu" in frame.f_code.co_filename:
            called.append(frame.f_code.co_name)
    sys.setprofile(watch)
    try:
        f(*args)
    finally:
        sys.setprofile(None)
    return called


def test_without_residency_each_nest_decides_alone(loops, unforced):
    """UNPY_RESIDENT=0: no call keeps data, so the nests' own decisions stand (here close
    calls, measured nest by nest; their calls may replay from C++, which a whole call's count
    of device nests would not see): no whole call is measured or kept on OpenMP."""
    from jitgpu import decide
    unforced.setenv("UNPY_RESIDENT", "0")
    # (the nests' own close calls judged on synthetic seconds, not this machine's load)
    unforced.setattr(decide, "measured_seconds",
                     lambda side, s, path: 1.0 if side == "device" else 1e-3)
    a = RNG.random((18, 18))
    for _ in range(calls.QUIET + 3):
        loops.check("jacobi2d", 2, a, np.zeros_like(a), rtol=1e-12, ran_on=None)
        reason = loops.explain("jacobi2d").nests[0].reason
        assert "close call" in reason or reason.startswith("measured OpenMP faster: "), reason
    assert not calls._CALLS


def test_a_refusal_by_the_estimate_holds_for_new_arrays_of_the_same_layouts(gpu, device_env,
                                                                            monkeypatch):
    """A lone nest that its estimate refuses is skipped in C++ for arrays of the same dtypes,
    shapes and strides at other addresses (a temporary allocated every call), not only for the
    same arrays; other shapes ask again. An analysis refusal stays tied to the arrays
    themselves (tests/jitgpu/test_gpu_refusals.py)."""
    from jitgpu import session
    from jitgpu.plan import GpuPlan
    device_env.delenv("UNPY_FORCE_GPU")
    monkeypatch.setattr(GpuPlan, "profitable", property(lambda plan: False))
    session.forget()
    gpu.check("axpy", RNG.random(64), RNG.random(64), 2.0, ran_on="openmp",
              reason="not profitable")
    asks_nothing(gpu, "axpy", RNG.random(64), RNG.random(64), 2.0)
    gpu.check("axpy", RNG.random(65), RNG.random(65), 2.0, ran_on="openmp",
              reason="not profitable")
    session.forget()
