"""One nest on several participants at once, run for real (jitgpu/multi.py, gpurts/concurrent.py,
the compiled caller's unpy::SplitRange) and compared with the interpreter: the tested OpenCL
device plus the OpenMP code, and two contexts of the tested device as two devices
(UNPY_DEVICE lists), on every kernel of examples/ at small odd sizes over repeated calls (the
shares, and so the ranges, move between calls; jacobi2d's two nests per time step read what the
other wrote), reductions combined across parts, an error in one part, writes whose regions may
meet (run on one participant), `@unpython.gpu(devices=...)`, the estimate's refusal, and what
`unpython.explain` says."""
import math
import sys
from pathlib import Path

import numpy as np
import pytest

import diffcheck
import testdevice
from gpucheck import GpuPair, assert_ran, load_module
from jitgpu.split import OPENMP

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
if str(EXAMPLES) not in sys.path:
    sys.path.append(str(EXAMPLES))
import _harness  # noqa: E402

SPECS = {"device+openmp": f"{testdevice.SPEC},openmp",
         "two contexts": f"{testdevice.SPEC},{testdevice.SPEC}"}
KERNELS = ["mmult", "nbody", "cp", "syrk", "syr2k", "stencil", "jacobi2d"]
CASES = [case for kernel in KERNELS for case in _harness.interpreted(kernel).CASES]
SIZES = {"cp": 83}        # cp: n // 16 atoms


def _built(path: Path, out_dir: Path, name: str) -> object:
    from unpy.cpp_emit.build import build
    testdevice.tested_device()
    with diffcheck.build_lock(f"split-{path.stem}"):
        so = build(str(path), str(out_dir)).output
    return load_module(name, so)


@pytest.fixture(scope="module")
def example(tmp_path_factory):
    pairs = {}

    def pair(kernel):
        if kernel not in pairs:
            pairs[kernel] = GpuPair(_built(EXAMPLES / f"{kernel}.py",
                                           tmp_path_factory.mktemp(f"split-{kernel}"), kernel),
                                    _harness.interpreted(kernel))
        return pairs[kernel]
    return pair


@pytest.fixture(scope="module")
def split_kernels(tmp_path_factory):
    path = Path(__file__).resolve().parent / "split_kernels.py"
    return GpuPair(_built(path, tmp_path_factory.mktemp("split-kernels"), "split_kernels"),
                   load_module("interpreted_split_kernels", path))


def assert_split(report, participants=2):
    for nest in report.nests:
        assert nest.ran_on is not None and len(nest.ran_on.split(" + ")) == participants, \
            str(report)
        assert nest.ran_on.startswith("opencl:"), str(report)


@pytest.mark.parametrize("spec", SPECS)
@pytest.mark.parametrize("case", CASES, ids=lambda case: case.label)
def test_example_split_matches_the_interpreter(example, device_env, case, spec):
    device_env.setenv("UNPY_DEVICE", SPECS[spec])
    pair = example(case.kernel)
    args = case.args(SIZES.get(case.kernel, 23))
    for _ in range(3):      # the shares move after each call, and the ranges with them
        _, report = pair.check(case.func, *args, rtol=case.rtol)
        assert_split(report)
    if spec == "device+openmp":
        assert report.nests[0].ran_on.endswith(" + openmp")


@pytest.mark.parametrize("spec", SPECS)
@pytest.mark.parametrize("func", ["red_several", "red_sum_i64", "red_min_f64", "red_xor_i64",
                                  "red_sum_3d"])
def test_reductions_combine_across_parts(gpu, device_env, func, spec):
    device_env.setenv("UNPY_DEVICE", SPECS[spec])
    rng = np.random.default_rng(5)
    for n in (2, 37, 300):
        if func == "red_several":
            args = (rng.standard_normal(n),)
        elif func == "red_sum_3d":       # three collapsed levels, split along the outer one
            args = (rng.integers(-1000, 1000, (n % 7 + 2, 5, 3)),)
        elif func == "red_min_f64":
            args = (rng.standard_normal(n), np.float64(0.5))
        else:
            args = (rng.integers(-2 ** 40, 2 ** 40, n), np.int64(-7))
        _, report = gpu.check(func, *args, rtol=1e-12 if func == "red_several" else 0.0)
        assert_split(report)


@pytest.mark.parametrize("spec", SPECS)
@pytest.mark.parametrize("zero_at", [1, 28])
def test_an_error_in_one_part_raises_as_the_openmp_code_does(gpu, device_env, spec, zero_at):
    """Integer division by zero in the first participant's range, or in the last one's (the
    OpenMP code's, for device+openmp): ZeroDivisionError, with the array as the OpenMP code
    alone leaves it (every other element divided)."""
    a = np.arange(30, dtype=np.int64) * 7
    d = np.full(30, 3, np.int64)
    d[zero_at] = 0
    device_env.setenv("UNPY_DEVICE", "none")
    alone = a.copy()
    with pytest.raises(ZeroDivisionError):
        gpu.compiled.divide_in_place(alone, d)
    device_env.setenv("UNPY_DEVICE", SPECS[spec])
    split = a.copy()
    with pytest.raises(ZeroDivisionError):
        gpu.compiled.divide_in_place(split, d)
    np.testing.assert_array_equal(split, alone)
    d[zero_at] = 2
    _, report = gpu.check("divide_in_place", a, d)      # and the next call runs split again
    assert_split(report)


@pytest.mark.parametrize("spec", SPECS)
def test_writes_whose_regions_may_meet_run_on_one_participant(gpu, split_kernels, device_env,
                                                              spec):
    """scatter writes out[idx[i]] (non-affine: any part may write anywhere): not split, right.
    transpose, split along i, writes columns of `out` whose rows interleave: the bytes each
    part writes (its rows' runs, not their span) meet nothing the other touches, so it is
    split, right too."""
    device_env.setenv("UNPY_DEVICE", SPECS[spec])
    rng = np.random.default_rng(1)
    idx = rng.permutation(41)
    _, report = gpu.check("scatter", rng.standard_normal(41), idx, np.zeros(41),
                          ran_on="opencl:", reason="not split")
    assert " + " not in report.nests[0].ran_on
    _, report = split_kernels.check("transpose", rng.standard_normal((9, 13)), np.zeros((13, 9)))
    assert_split(report)
    # Each box taken as its span (as one of too many lines is), the parts' spans meet; tiled
    # to fit a small memory limit, the device's own tiles meet too: the one-device executor
    # runs them (each written back before the next).
    device_env.setattr("unpy.host_memory.MAX_RUNS", 0)
    _, report = split_kernels.check("transpose", rng.standard_normal((9, 13)), np.zeros((13, 9)),
                                    ran_on="opencl:", reason="not split")
    assert " + " not in report.nests[0].ran_on
    device_env.setenv("UNPY_GPU_MEM_LIMIT", "800")
    _, report = split_kernels.check("transpose", rng.standard_normal((10, 11)), np.zeros((11, 10)))
    assert report.nests[0].timings["tiles"] > 1, str(report)


def test_a_function_names_its_participants(split_kernels, device_env):
    """@unpython.gpu(devices="cpu,openmp") splits when UNPY_DEVICE is unset; UNPY_DEVICE wins."""
    from gpurts import device_selection
    if device_selection("cpu").device is None:
        pytest.skip("no CPU OpenCL device")
    device_env.delenv("UNPY_DEVICE")
    x = np.random.default_rng(2).standard_normal(50)
    _, report = split_kernels.check("scaled_sum", x, np.zeros(50), rtol=1e-12)
    assert_split(report)
    assert report.nests[0].ran_on.endswith(" + openmp")
    device_env.setenv("UNPY_DEVICE", testdevice.SPEC)
    _, report = split_kernels.check("scaled_sum", x, np.zeros(50), rtol=1e-12)
    assert " + " not in report.nests[0].ran_on


def test_explain_shows_each_part_and_the_share_history(example, device_env):
    device_env.setenv("UNPY_DEVICE", SPECS["device+openmp"])
    pair = example("mmult")
    case = pair.interpreted.CASES[0]
    args = case.args(31)
    for _ in range(2):
        _, report = pair.check(case.func, *args, rtol=case.rtol)
    nest = report.nests[0]
    parts = nest.details["parts"]
    assert "opencl:" in parts and "openmp: i = " in parts and " of 31 iterations" in parts
    assert "moved " in parts and " ms" in parts
    history = nest.details["shares"]
    assert "call 1:" in history and "call 2:" in history
    assert set(nest.timings["ranges"]) == set(nest.timings["participants"])
    assert sum(hi - lo for lo, hi in nest.timings["ranges"].values()) == 31
    import unpython
    text = str(unpython.explain(getattr(pair.compiled, case.func), source=True))
    assert "split of mmult." in text and "part 0: tile i in [0, " in text


def test_the_estimate_keeps_a_small_nest_on_openmp(example, device_env):
    """Without UNPY_FORCE_GPU, a tiny matmul does not pay for a device's launch: the OpenMP
    code runs it alone, and explain says why."""
    device_env.delenv("UNPY_FORCE_GPU")
    device_env.setenv("UNPY_DEVICE", SPECS["device+openmp"])
    pair = example("mmult")
    case = pair.interpreted.CASES[1]
    _, report = pair.check(case.func, *case.args(5), rtol=case.rtol, ran_on="openmp",
                           reason="does not pay")
    assert_ran(report, "openmp")


@pytest.mark.parametrize("spec", SPECS)
def test_the_shares_kept_on_openmp_hold_for_the_layout(example, device_env, spec):
    """The shares that keep a small nest on the OpenMP code alone hold for the arrays' layout:
    a call with arrays of that layout at other addresses (a time loop's temporaries) runs the
    OpenMP code without asking the hook."""
    from jitgpu import report as reports
    device_env.delenv("UNPY_FORCE_GPU")
    device_env.setenv("UNPY_DEVICE", SPECS[spec])
    pair = example("mmult")
    case = pair.interpreted.CASES[1]
    pair.check(case.func, *case.args(7), rtol=case.rtol, ran_on="openmp", reason="does not pay")
    reports._last.pop((pair.compiled.__name__, case.func), None)
    _, again = pair.check(case.func, *case.args(7), rtol=case.rtol, ran_on=None)
    assert [nest.ran_on for nest in again.nests] == [None], str(again)      # not asked


# --- the shares on a synthetic imbalance (jitgpu.multi.slowdown) ------------------------------

@pytest.fixture
def slowdown(monkeypatch):
    from jitgpu import multi
    monkeypatch.setattr(multi, "slowdown", {})
    return multi.slowdown


def shares_of(report):
    return tuple(report.nests[0].timings["shares"].values())


def test_shares_converge_within_three_calls_on_a_synthetic_imbalance(example, device_env,
                                                                      slowdown):
    """Two contexts of one device, the second made 3x slower per iteration than the first (a
    slowdown far above the real times): the third call runs the balanced shares, 3:1, and
    later calls keep them (and their parts); every call equals the interpreter."""
    device_env.setenv("UNPY_DEVICE", SPECS["two contexts"])
    pair = example("nbody")
    case = pair.interpreted.CASES[0]
    args = case.args(2 * 97)          # a size of its own: a Balance of its own
    first, second = (d.label for d in two_contexts())
    slowdown.update({first: 1.0, second: 3.0})    # (far above real times, even on a busy host)
    seen = []
    for _ in range(5):
        _, report = pair.check(case.func, *args, rtol=case.rtol)
        assert_split(report)
        seen.append(shares_of(report))
    history = report.nests[0].details["shares"]
    assert seen[2] == seen[3] == seen[4], history
    assert seen[2] == pytest.approx((0.75, 0.25), abs=0.03)
    # The first run of each split's ranges (fresh device buffers) is noted, not learnt from.
    notes = [line.split("; ", 2)[-1] for line in history.splitlines()[1:]]
    assert "first run" in notes[0] and "shares moved" in notes[1], history
    assert "first run" in notes[2] and "first run" not in notes[3], history


def test_a_split_that_does_not_pay_falls_back_to_the_fastest_device(example, device_env,
                                                                    slowdown):
    """Without UNPY_FORCE_GPU, the second context made far slower: the measured rates leave it
    out, or the split is measured against the first alone; within five calls the first runs
    alone from then on, explain says so, and every call equals the interpreter."""
    device_env.delenv("UNPY_FORCE_GPU")
    device_env.setenv("UNPY_DEVICE", SPECS["two contexts"])
    # The estimate's OpenMP rate as when this was written, so that splitting looks worth a try
    # (at plan.py's H100 rate the OpenMP code alone wins on 2 cores and nothing is split).
    device_env.setattr("jitgpu.plan.HOST_OPS_PER_CORE", 2e9)
    device_env.setattr("jitgpu.plan.CPU_DEVICE_OPS", 2e9)
    pair = example("mmult")
    case = pair.interpreted.CASES[1]
    args = case.args(96)
    first, second = (d.label for d in two_contexts())
    slowdown.update({second: 1.0})
    reports = []
    for _ in range(7):
        _, report = pair.check(case.func, *args, rtol=case.rtol)
        reports.append(report.nests[0])
    assert [nest.ran_on for nest in reports[5:]] == [first, first], reports[-1].details["shares"]
    assert reports[-1].reason.startswith(f"{first} alone: ")
    assert "alone" in reports[-1].reason


def test_a_split_beside_a_slow_device_falls_back_to_the_openmp_code(example, device_env,
                                                                   slowdown):
    """Device + OpenMP without UNPY_FORCE_GPU, the device made far slower: within six calls the
    OpenMP code runs alone from then on, its calls alone learnt from (only the device parts'
    first runs are not), explain shows the share history, and every call equals the
    interpreter."""
    device_env.delenv("UNPY_FORCE_GPU")
    device_env.setenv("UNPY_DEVICE", SPECS["device+openmp"])
    device_env.setattr("jitgpu.plan.HOST_OPS_PER_CORE", 2e9)    # (as in the test above)
    device_env.setattr("jitgpu.plan.CPU_DEVICE_OPS", 2e9)
    pair = example("mmult")
    case = pair.interpreted.CASES[1]
    args = case.args(94)              # a size of its own: a Balance of its own
    # Synthetic times on both sides: the OpenMP part's measured first run took 4.7 ms on a busy
    # host (about 1 ms quiet), enough to send the shares on a detour past the sixth call.
    slowdown.update({testdevice.tested_device().label: 1.0, OPENMP: 0.002})
    reports = []
    for _ in range(8):
        _, report = pair.check(case.func, *args, rtol=case.rtol, ran_on=None)
        reports.append(report.nests[0])
    history = reports[-1].details["shares"]       # explain shows how the shares came to it
    assert [nest.ran_on for nest in reports[6:]] == ["openmp", "openmp"], history
    assert "openmp 1.000" in history.splitlines()[0], history
    alone = [line for line in history.splitlines()[1:] if " -> openmp " in line]
    assert alone and not any("first run" in line for line in alone), history


def _replayed_with_new_values(pair, case, mine, recorded):
    """Three more calls of `case` on the arrays `mine`, each after new values in its first
    array: each equals the interpreter, and all three replayed from `recorded`'s record."""
    func = getattr(pair.compiled, case.func)
    for k in range(3):
        mine[0][k] = -mine[0][k]
        func(*mine)
        expected = [a.copy() for a in mine]
        getattr(pair.interpreted, case.func)(*expected)
        np.testing.assert_allclose(mine[case.out], expected[case.out], rtol=case.rtol)
    assert pair.explain(case.func).nests[0] is recorded and recorded.replayed_calls >= 3, \
        str(pair.explain(case.func))


def test_a_split_settled_on_one_device_replays_as_that_device(example, device_env, slowdown):
    """The fallback above where the first device alone is profitable by its own estimate: it
    runs through the one-device path, and once settled, repeated calls with the same inputs
    replay from C++ as that device's own calls would, with the interpreter's results."""
    from jitgpu import session
    # Nothing remembered of the test above (its layouts may come back at the same addresses).
    session.forget()
    device_env.delenv("UNPY_FORCE_GPU")
    device_env.setenv("UNPY_DEVICE", SPECS["two contexts"])
    device_env.setattr("jitgpu.plan.HOST_OPS_PER_CORE", 1e7)     # the device clearly pays
    device_env.setattr("jitgpu.plan.CPU_DEVICE_OPS", 2e9)
    pair = example("mmult")
    case = pair.interpreted.CASES[1]
    first, second = (d.label for d in two_contexts())
    slowdown.update({second: 1.0})
    mine = case.args(96)
    func = getattr(pair.compiled, case.func)
    for _ in range(6):
        func(*mine)
    recorded = pair.explain(case.func).nests[0]
    assert recorded.reason.startswith(f"{first} alone: "), str(pair.explain(case.func))
    _replayed_with_new_values(pair, case, mine, recorded)


def test_a_settled_split_replays_every_part_from_cpp(example, device_env, slowdown):
    """Once the shares settle (kept, no move proposed, the ranges run before), later calls
    with the same inputs run from one C++ record, each device's part on its own queue, with
    no Python; values changed in the same arrays are read at each call."""
    device_env.setenv("UNPY_DEVICE", SPECS["two contexts"])
    pair = example("mmult")
    case = pair.interpreted.CASES[1]
    first, second = (d.label for d in two_contexts())
    slowdown.update({first: 1.0, second: 1.0})      # (even shares whatever the host does)
    mine = case.args(2 * 59)          # a size of its own: a Balance of its own
    func = getattr(pair.compiled, case.func)
    for _ in range(4):
        func(*mine)
    recorded = pair.explain(case.func).nests[0]
    assert len(recorded.ran_on.split(" + ")) == 2, str(recorded)
    assert not isinstance(recorded.replay, (str, type(None))), str(recorded)
    _replayed_with_new_values(pair, case, mine, recorded)


@pytest.mark.parametrize("zero_at", [1, 28])
def test_a_replayed_split_that_sets_a_flag_raises_as_the_openmp_code_does(gpu, device_env,
                                                                         slowdown, zero_at):
    """A replayed split call whose part sets its error flag writes nothing into the arrays:
    the call takes the Python path, whose OpenMP fallback raises ZeroDivisionError and leaves
    the array as the OpenMP code alone does; the next calls are the interpreter's again."""
    device_env.setenv("UNPY_DEVICE", SPECS["two contexts"])
    slowdown.update({d.label: 1.0 for d in two_contexts()})
    a = np.arange(1, 38, dtype=np.int64) * 3 ** 9
    d = np.full(37, 3, np.int64)
    for _ in range(5):
        gpu.compiled.divide_in_place(a, d)
    recorded = gpu.explain("divide_in_place").nests[0]
    assert recorded.replayed_calls >= 1, str(recorded)
    d[zero_at] = 0
    expected = a.copy()
    device_env.setenv("UNPY_DEVICE", "none")
    with pytest.raises(ZeroDivisionError):
        gpu.compiled.divide_in_place(expected, d)
    device_env.setenv("UNPY_DEVICE", SPECS["two contexts"])
    with pytest.raises(ZeroDivisionError):
        gpu.compiled.divide_in_place(a, d)
    np.testing.assert_array_equal(a, expected)
    d[zero_at] = 3
    _, report = gpu.check("divide_in_place", a, d)
    assert_split(report)


def test_a_split_call_gives_its_buffers_back_at_once(example, device_env):
    """The kits (device buffers) of parts that are not kept (too large to keep, their staging
    used) are gone when the call ends, not when its report is replaced: the next call, at other
    shares too, takes their buffers from the pool instead of fresh ones."""
    import weakref

    from gpurts import concurrent
    device_env.setenv("UNPY_DEVICE", SPECS["two contexts"])
    kits = []

    def noted(kit, part, recipe, *rest):
        keep_kit(kit, part, recipe, *rest)
        kits.append((weakref.ref(kit), kit in recipe.get("kits", [])))
    keep_kit = concurrent.keep_kit
    device_env.setattr(concurrent, "keep_kit", noted)
    pair = example("stencil")
    case = pair.interpreted.CASES[0]
    args = case.args(2100)          # 35 MB arrays: each part's kit over KEEP_BYTES
    getattr(pair.compiled, case.func)(*args)
    nest = pair.explain(case.func).nests[0]         # the call's report, held here
    assert len(nest.ran_on.split(" + ")) == 2, str(nest)
    dropped = [ref for ref, kept in kits if not kept]
    assert dropped and all(ref() is None for ref in dropped)


def two_contexts():
    from gpurts import devices_selection
    return devices_selection(SPECS["two contexts"]).devices


# --- gpurts.concurrent.ConcurrentRun on a split plan -------------------------------------------

@pytest.fixture(scope="module")
def two():
    from gpurts import devices_selection
    return devices_selection(f"{testdevice.SPEC},{testdevice.SPEC}").devices


def split_run(two, function, values, shares=(0.5, 0.5), here=False):
    """A ConcurrentRun of gpu_kernels.`function` on `values` split across `two` as the split
    path runs it (the plan's early parts write back on their own; `here`: the caller's thread
    runs the second device)."""
    from gpurts.concurrent import ConcurrentRun
    from jitgpu.nest import instantiate, load_nest
    from jitgpu.offload import build_part, device_facts
    from jitgpu.split import Participant, split_plan
    instance = instantiate(load_nest("gpu_kernels", function, 0), values)
    who = [Participant(dev.label, device_facts(dev)) for dev in two]
    split = split_plan(instance, values, who, shares)
    kernels = [build_part(instance, part, values, {d.label: d for d in two}[part.device], "none")
               for part in split.plan.parts]
    return ConcurrentRun(split.plan, [(k, built.kernel) for k, _, built in kernels], values,
                         {d.label: d for d in two}, early=split.early, here=here)


def split_divide(two, a, d, shares=(0.5, 0.5)):
    """`a //= d` (gpu_kernels.divide_in_place) split across `two`."""
    return split_run(two, "divide_in_place", {"a": a, "d": d}, shares)


def test_parts_run_on_their_devices_and_write_back_together(gpu, two):
    a = np.arange(1, 41, dtype=np.int64) * 7
    d = np.arange(1, 41, dtype=np.int64)
    want = a // d
    run = split_divide(two, a, d, (0.3, 0.7))
    assert set(run.seconds()) == {dev.label for dev in two}
    assert run.finish({}) == {}
    np.testing.assert_array_equal(a, want)
    assert all(r.timings.h2d_bytes > 0 for r in run.runs.values())
    assert not any(r.written_s for r in run.runs.values())     # in place: none early


def test_a_failed_part_writes_nothing(gpu, two):
    """The second device's part meets a division by zero: the first's results (in place) are
    not written either, so the OpenMP rerun starts from the caller's data."""
    a = np.arange(1, 41, dtype=np.int64) * 7
    d = np.arange(1, 41, dtype=np.int64)
    d[35] = 0
    before = a.copy()
    from gpurts.executor import KernelFlagged
    run = split_divide(two, a, d)
    with pytest.raises(KernelFlagged):
        run.finish({})
    np.testing.assert_array_equal(a, before)


@pytest.mark.parametrize("here", [False, True])
@pytest.mark.parametrize("zero_at", [3, 35])
def test_a_part_that_only_overwrites_writes_back_before_the_other_fails(gpu, two, zero_at,
                                                                        here):
    """divmod_i64 writes every element of its slices of q and r and reads none: each part
    writes back from its own thread as soon as it succeeds, the other part's division by zero
    notwithstanding (the OpenMP rerun writes those elements again: the next test). `here`: the
    caller's thread runs the second device."""
    from gpurts.executor import KernelFlagged
    a = np.arange(1, 41, dtype=np.int64) * 7
    b = np.arange(1, 41, dtype=np.int64)
    b[zero_at] = 0
    q, r = np.zeros(40, np.int64), np.zeros(40, np.int64)
    run = split_run(two, "divmod_i64", {"a": a, "b": b, "q": q, "r": r}, here=here)
    assert len(run.futures) == (1 if here else 2)
    with pytest.raises(KernelFlagged):
        run.finish({})
    done = slice(20, 40) if zero_at < 20 else slice(0, 20)
    failed = slice(0, 20) if zero_at < 20 else slice(20, 40)
    np.testing.assert_array_equal(q[done], a[done] // b[done])
    np.testing.assert_array_equal(r[done], a[done] % b[done])
    assert not q[failed].any() and not r[failed].any()
    assert sum(1 for run_ in run.runs.values() if run_.written_s > 0) == 1


@pytest.mark.parametrize("spec", SPECS)
@pytest.mark.parametrize("zero_at", [1, 28])
def test_an_error_beside_a_part_written_early_leaves_what_the_openmp_code_does(gpu, device_env,
                                                                               spec, zero_at):
    """divmod_i64 split with a division by zero in one participant's range: the other's
    results went back early, yet the call raises ZeroDivisionError with q and r as the OpenMP
    code alone leaves them; without the zero, every call equals the interpreter and explain
    says that the device parts wrote back on their own."""
    a = np.arange(30, dtype=np.int64) * 7 - 50
    b = np.full(30, 3, np.int64)
    b[zero_at] = 0
    outputs = {}
    for where in ("none", SPECS[spec]):
        device_env.setenv("UNPY_DEVICE", where)
        q, r = np.full(30, -1, np.int64), np.full(30, -1, np.int64)
        with pytest.raises(ZeroDivisionError):
            gpu.compiled.divmod_i64(a, b, q, r)
        outputs[where] = (q, r)
    for alone, split in zip(outputs["none"], outputs[SPECS[spec]]):
        np.testing.assert_array_equal(split, alone)
    b[zero_at] = 2
    for _ in range(2):
        _, report = gpu.check("divmod_i64", a, b, np.zeros(30, np.int64), np.zeros(30, np.int64))
        assert_split(report)
    assert "written back on its own" in report.nests[0].details["parts"]


def test_repeated_calls_reuse_the_prepared_split_and_the_feeding_threads(example, device_env,
                                                                         monkeypatch):
    """Calls on the same arrays whose ranges came before prepare nothing again (plan, kernels),
    run on the same feeding threads, and equal the interpreter."""
    import threading
    import unpython
    from jitgpu import multi
    device_env.setenv("UNPY_DEVICE", SPECS["two contexts"])
    prepared = []
    monkeypatch.setattr(multi, "_prepare", lambda *a, _prepare=multi._prepare, **k: (
        prepared.append(a[1]) or _prepare(*a, **k)))
    pair = example("mmult")
    case = pair.interpreted.CASES[0]
    args = case.args(2 * 53)          # a size of its own: a layout of its own
    func = getattr(pair.compiled, case.func)
    seen, threads = [], []
    for _ in range(5):
        before = len(prepared)
        func(*args)
        nest = unpython.explain(func).nests[0]
        assert len(nest.ran_on.split(" + ")) == 2, nest.reason
        ranges = tuple(nest.timings["ranges"].values())
        assert (len(prepared) > before) == (ranges not in seen), (ranges, seen)
        seen.append(ranges)
        threads.append({t.ident for t in threading.enumerate() if t.name.startswith("unpy-feed")})
    assert len(prepared) == len(set(seen)) and threads[1] == threads[-1], (prepared, threads)
    want = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    want[case.out][...] = 0
    getattr(pair.interpreted, case.func)(*want)
    np.testing.assert_allclose(args[case.out], want[case.out], rtol=case.rtol)


@pytest.mark.parametrize("kernel, case_index", [("mmult", 0), ("mmult", 1), ("stencil", -1)])
def test_large_device_parts_run_as_overlapped_tiles(example, device_env, kernel, case_index):
    """On two contexts of the device (even shares), each device's part runs as overlapped
    tiles (OVERLAP_BYTES lowered: every part qualifies), its copies beside its kernels,
    written back from its own thread: mmult's in tiles of rows and columns (a row tile alone
    would wait for all of b), stencil's in tiles of rows."""
    from jitgpu import multi, overlap
    device_env.setenv("UNPY_DEVICE", SPECS["two contexts"])
    device_env.setattr(overlap, "OVERLAP_BYTES", 256)
    device_env.setattr(overlap, "TWO_LEVEL_TILE_S", 0.0)
    device_env.setattr(multi, "_PREPARED", type(multi._PREPARED)())
    pair = example(kernel)
    case = _harness.interpreted(kernel).CASES[case_index]      # (mmult: f32 and f64)
    args = case.args(37 if kernel == "mmult" else 200)   # (stencil: halos of tiles 25 rows high)
    for _ in range(3):
        _, report = pair.check(case.func, *args, rtol=case.rtol)
        assert_split(report)
    tiled = [p for p in multi._PREPARED.values() if p.tiled]
    assert tiled, [str(p.split) for p in multi._PREPARED.values()]
    assert any(len(p.tiled) == 2 for p in tiled)
    for prepared in tiled:
        for label in prepared.tiled:
            mine = sum(part.device == label for part in prepared.split.plan.parts)
            grid = dict(prepared.split.grids)[label]
            assert grid.counts == ((overlap.TILES,) * 2 if kernel == "mmult"
                                   else (overlap.TILES,)), str(prepared.split)
            assert 2 <= mine <= math.prod(grid.counts)


def test_a_repeated_split_pins_what_its_device_part_moves(example, device_env):
    """The same arrays split between the device and the OpenMP code again and again: from the
    second call the device part's arrays are pinned, although it moves under a quarter of them
    (gpurts.pins.PIN_MIN_FRACTION), which before went through staging at every call; the call
    that pins is not learnt from (its parts take fresh buffers)."""
    from unpy.host_memory import memory_root
    from gpurts.pins import PINS
    device_env.setenv("UNPY_DEVICE", SPECS["device+openmp"])
    device_env.setenv("UNPY_PIN", "1")          # (a CPU device pins only when told to)
    # Staged copies at the H200's 2.5x (not this machine's calibrated slowdown), so that the
    # first shares leave the device under a quarter of the rows.
    device_env.setattr("jitgpu.plan.staging_slowdown", lambda facts: 2.5)
    pair = example("stencil")
    case = _harness.interpreted("stencil").CASES[0]
    args = case.args(600)                       # a 2.9 MB input: over PIN_MIN_BYTES
    want = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    getattr(pair.interpreted, case.func)(*want)
    compiled = getattr(pair.compiled, case.func)
    pinned, device_rows = [], []
    for _ in range(4):
        compiled(*args)
        nest = pair.explain(case.func).nests[0]
        assert nest.ran_on.endswith(" + openmp"), str(nest)
        pinned.append(PINS.is_pinned(memory_root(args[0])))
        lo, hi = next(r for label, r in nest.timings["ranges"].items() if label != "openmp")
        device_rows.append(hi - lo)
    # the device's share of the 598 rows at the call that pins (the estimate's: the first call
    # is not learnt from; later calls' shares follow this machine's measured times)
    assert device_rows[1] < 0.25 * 598, (device_rows, nest.timings)
    assert pinned == [False, True, True, True]
    history = nest.details["shares"]
    assert "first run" in history.splitlines()[2], history
    np.testing.assert_allclose(args[case.out], want[case.out], rtol=1e-12)
