"""The search of loop-optimisation choices (jitgpu/search.py) on the tested OpenCL device with
UNPY_GPU_SEARCH=1: the candidates (distinct, legal, what their tuning says; an unroll factor for
a one-level reduction nest), a first call that builds only the default (the worker builds the
candidates), later calls of the layout that time them one a call and switch to the fastest,
every call's result against the interpreter before, during and after the switch (odd sizes, a
triangular nest, odd trip counts), search runs that never reach NumPy memory (an in-place
accumulation), the C++ replay held back while the search is pending, the disk record (complete
afterwards and reused by a fresh preparation with no build, continued where incomplete,
searched again when corrupt), the switch, a build error (that candidate failed, the worker
goes on) and a search abandoned on the error flag."""
import inspect
import json
import logging
import math
import os
import subprocess
import sys
import textwrap
import threading
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import gpurts
from gpurts import BuildError
from jitgpu import offload, overlap, replay, search, session
from jitgpu.bind import bind, device_limits, with_local_size
from jitgpu.loopopt import optimise
from jitgpu.loopopt.cost import GpuModel
from jitgpu.nest import instantiate, load_nest
from jitgpu.opencl_emit import print_kernel
from jitgpu.plan import plan_call
from modulepair import gpu_pair
import testdevice

HERE = Path(__file__).resolve().parent
RNG = np.random.default_rng(41)
ALTERNATIVES = search.ALTERNATIVES


@pytest.fixture(scope="session")
def srch(tmp_path_factory):
    """tests/jitgpu/search_kernels.py, compiled and interpreted."""
    return gpu_pair(HERE / "search_kernels.py", tmp_path_factory.mktemp("build-search_kernels"))


@pytest.fixture
def runs(device_env, monkeypatch, tmp_path):
    """UNPY_GPU_SEARCH=1, records under tmp_path; the kernels the search timed. The worker's
    builds are waited for afterwards (none goes on into the next test)."""
    device_env.setenv("UNPY_GPU_SEARCH", "1")
    device_env.setenv("UNPY_REPLAY", "0")         # every call through Python's preparation
    monkeypatch.setattr(search, "record_dir", lambda: str(tmp_path / "search"))
    timed = []
    real = search.time_kernel

    def counted(device, part, kernel, cl_kernel, values, **options):
        timed.append(kernel)
        return real(device, part, kernel, cl_kernel, values, **options)
    monkeypatch.setattr(search, "time_kernel", counted)
    ran = search.Pending.ran

    def ran_counted(pending, label, seconds):     # (timed by the layout's own calls)
        new = label not in pending.record.times
        ran(pending, label, seconds)
        if new and label in pending.record.times:
            timed.append(pending.made[label].kernel)
    monkeypatch.setattr(search.Pending, "ran", ran_counted)
    session.forget()
    yield timed
    assert search.settle(120)


def _fastest_after_default(monkeypatch):
    """Run every candidate for real but report the default as the slowest (its time from the
    calls that run it, or a timed run of its own in a split's search) and each later
    candidate's time below the one before: the search then switches from the default."""
    real = search.time_kernel

    def faked(device, part, kernel, cl_kernel, values, **options):
        real(device, part, kernel, cl_kernel, values, **options)
        faked.calls += 1
        if any(kernel is pending.first.kernel for pending in list(search._IN_FLIGHT)):
            return 1.0
        return 1e-3 / faked.calls
    faked.calls = 0
    monkeypatch.setattr(search, "time_kernel", faked)
    ran = search.Pending.ran

    def ran_faked(pending, label, seconds):
        faked.calls += 1
        ran(pending, label, 1.0 if label == pending.first.label else 1e-3 / faked.calls)
    monkeypatch.setattr(search.Pending, "ran", ran_faked)
    return faked


def _model(device):
    """The loop optimisations' model of `device`, as offload makes it."""
    return GpuModel.for_device(device_limits(device))


def rand(*shape):
    return RNG.uniform(-2, 2, shape)


def _bound(srch, device, func, *args):
    nest = load_nest(srch.compiled.__name__, func, 0)
    values = dict(zip(inspect.signature(getattr(srch.interpreted, func)).parameters, args))
    instance = instantiate(nest, values)
    plan = plan_call(instance, values, offload.device_facts(device), forced=True, opt="all")
    return bind(instance, plan.parts[0], values, device.has_fp64, device_limits(device))


def _matmul_args():
    return rand(37, 11), rand(11, 29), np.zeros((37, 29))


def _syrk_args():
    return 1.5, rand(23, 7), 0.5, rand(23, 23)


def _records(tmp_path):
    return sorted((tmp_path / "search").glob("*.json"))


def _same_arrays(args):
    """A `make` for `check_fresh`: the interpreter gets copies of `args` as they are now, the
    compiled call `args` themselves (one layout, call after call)."""
    sides = iter(("interpreted", "compiled"))

    def make():
        fresh = ([a.copy() if isinstance(a, np.ndarray) else a for a in args]
                 if next(sides) == "interpreted" else list(args))
        return fresh, [a for a in fresh if isinstance(a, np.ndarray)]
    return make


def _call(pair, func, args, reason=None):
    """One call on `args` (the same layout each time), against the interpreter: its nest."""
    _, report = pair.check_fresh(func, _same_arrays(args), rtol=1e-12, reason=reason)
    return report.nests[0]


def _until_settled(pair, func, args, calls=24) -> list:
    """The nests of calls of `func` on `args` until its search is over, each call against the
    interpreter; the worker's builds waited for after each call."""
    nests = []
    for _ in range(calls):
        nests.append(_call(pair, func, args))
        if search.PENDING not in nests[-1].reason:
            return nests
        assert search.settle(120)
    raise AssertionError(f"the search is not over after {calls} calls: {nests[-1]}")


def _choice(nest) -> str:
    return nest.reason.split("search chose ")[1].split(" (")[0]


# --- candidates (pure) ------------------------------------------------------------------------

def test_candidates_are_distinct_legal_and_made_as_their_tuning_says(srch, device):
    bound = _bound(srch, device, "matmul_f64", *_matmul_args())
    limits = device_limits(device)
    found = list(search.candidates(bound, "all", limits))
    assert 3 <= len(found) <= search.MAX_CANDIDATES
    assert found[0].tuning == search.Tuning()
    assert found[0].source == print_kernel(optimise(bound, "all", GpuModel.for_device(limits)))
    launches = {(c.source, c.kernel.global_size, c.kernel.local_size) for c in found}
    assert len(launches) == len(found) == len({c.label for c in found})
    for c in found[1:]:
        tile, local = c.tuning.tile, c.tuning.local
        tiles = [t for t in c.kernel.transforms if t.startswith("register_tiles")]
        if tile == (1, 1):
            assert not tiles
        elif tile is not None:
            assert tiles == [f"register_tiles(i x j: {tile[0]} x {tile[1]})"]
        if local is not None:
            assert c.kernel.local_size == local
            assert math.prod(local) <= limits[0]
        assert all(g % n == 0 for g, n in zip(c.kernel.global_size, c.kernel.local_size))
    # A one-level nest: no register tile applies, no 2-D work-group: the default alone.
    one = _bound(srch, device, "scale", rand(50), np.zeros(50))
    assert [c.label for c in search.candidates(one, "all", limits)] == ["default"]
    # With a reduction loop inside: an unroll factor, nothing else.
    x = rand(37)
    reduction = list(search.candidates(_bound(srch, device, "pull", x, rand(37), np.zeros(37)),
                                       "all", limits))
    assert [c.label for c in reduction] == ["default", "inner unroll 8"]
    assert "unroll_inner(j, 8)" in reduction[1].kernel.transforms
    assert "unroll_inner(j, 8)" not in reduction[0].kernel.transforms
    # At `none` the register tiles do nothing: only work-group shapes differ.
    assert all(c.tuning.tile is None for c in search.candidates(bound, "none", limits))


def test_with_local_size_rounds_the_global_size_up():
    from jitgpu.bind import KernelNest, Level, Param
    kernel = KernelNest("k", True, (Param("long", "unpy_n0", value=37),
                                    Param("long", "unpy_n1", value=29)),
                        (32, 48), (16, 16), (Level("i"), Level("j")), (), (), (), (), (), (), ())
    out = with_local_size(kernel, (32, 8))
    assert (out.global_size, out.local_size) == ((32, 40), (32, 8))
    assert kernel.global_size == (32, 48)


def test_wanted_only_for_one_part_and_by_the_switch(srch, device, device_env, monkeypatch):
    a, b, c = _matmul_args()
    nest = load_nest(srch.compiled.__name__, "matmul_f64", 0)
    instance = instantiate(nest, {"a": a, "b": b, "c": c})
    one, two = SimpleNamespace(parts=(0,)), SimpleNamespace(parts=(0, 1))
    gpu_limits, cpu_limits = (256, (256,), 1024), (256, (256,), 0)
    device_env.delenv("UNPY_GPU_SEARCH", raising=False)
    monkeypatch.setattr(search, "MIN_KERNEL_S", 0.0)
    assert search.wanted(one, instance, gpu_limits)
    assert not search.wanted(one, instance, cpu_limits)
    assert not search.wanted(two, instance, gpu_limits)
    monkeypatch.setattr(search, "MIN_KERNEL_S", 1.0)      # too small a kernel to measure
    assert not search.wanted(one, instance, gpu_limits)
    device_env.setenv("UNPY_GPU_SEARCH", "1")
    assert search.wanted(one, instance, cpu_limits) and not search.wanted(two, instance, None)
    device_env.setenv("UNPY_GPU_SEARCH", "0")
    monkeypatch.setattr(search, "MIN_KERNEL_S", 0.0)
    assert not search.wanted(one, instance, gpu_limits)


# --- searched calls against the interpreter ----------------------------------------------------

@pytest.mark.parametrize("func, make", [("matmul_f64", _matmul_args), ("syrk_tri", _syrk_args)])
def test_every_candidate_gives_the_interpreters_result(srch, device, runs, monkeypatch, tmp_path,
                                                       func, make):
    args = make()
    found = list(search.candidates(_bound(srch, device, func, *args), "all",
                                   device_limits(device)))
    assert len(found) >= 3
    for k, candidate in enumerate(found[1:]):
        # Only this alternative beside the default, and it times faster.
        monkeypatch.setattr(search, "ALTERNATIVES", (candidate.tuning,))
        monkeypatch.setattr(search, "record_dir", lambda k=k: str(tmp_path / f"s{k}"))
        _fastest_after_default(monkeypatch)
        session.forget()
        nests = _until_settled(srch, func, args)
        assert nests[-1].reason.endswith(f"search chose {candidate.label} (searched)")
        assert nests[-1].source == candidate.source
        assert {n.source for n in nests[:-1]} <= {found[0].source, candidate.source}


@given(n=st.integers(1, 40), p=st.integers(1, 12), m=st.integers(1, 40),
       transposed=st.booleans(), pick=st.integers(0, len(ALTERNATIVES) - 1),
       triangular=st.booleans())
@settings(max_examples=8, deadline=None, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
def test_any_shape_with_any_alternative_chosen(srch, runs, monkeypatch, tmp_path, n, p, m,
                                               transposed, pick, triangular):
    # The sources take sizes as arguments: the examples share a few OpenCL builds.
    monkeypatch.setattr(search, "ALTERNATIVES", (ALTERNATIVES[pick],))
    monkeypatch.setattr(search, "record_dir", lambda: str(tmp_path / f"h{n}-{p}-{m}"))
    _fastest_after_default(monkeypatch)
    session.forget()
    a = rand(p, n).T if transposed else rand(n, p)
    if triangular:
        _until_settled(srch, "syrk_tri", (0.5, a, 2.0, rand(n, n)))
    else:
        _until_settled(srch, "accumulate", (a, rand(p, m), rand(n, m)))


def test_the_first_call_builds_the_default_only_and_later_calls_switch(srch, runs, monkeypatch):
    # The worker's builds wait until let go: the first call cannot have waited for them.
    let_go, worker_builds = threading.Event(), []
    real = gpurts.build_kernel

    def held(device, source, name, options=(), aside=False):
        if threading.current_thread().name == "unpy-search-builds":
            assert let_go.wait(120) and aside
            worker_builds.append(source)
        return real(device, source, name, options, aside)
    monkeypatch.setattr(gpurts, "build_kernel", held)
    _fastest_after_default(monkeypatch)
    args = _matmul_args()
    try:
        first = _call(srch, "matmul_f64", args, reason="search chose default for now")
        assert worker_builds == [] and search.in_flight() >= 1
        detail = first.details["search"]
        assert detail.startswith("0 candidates timed (0 by this process; ")
        assert "choice: default for now" in detail
    finally:
        let_go.set()
    assert search.settle(120)
    logger, said = logging.getLogger("unpy"), logging.Handler()   # (it does not propagate)
    said.emit = lambda record: said.lines.append(record.getMessage())
    said.lines, level = [], logger.level
    logger.addHandler(said)
    logger.setLevel(logging.INFO)          # UNPY_LOG=info
    try:
        nests = _until_settled(srch, "matmul_f64", args)
    finally:
        logger.removeHandler(said)
        logger.setLevel(level)
    built = len(worker_builds)
    assert built >= 2
    # The calls run each candidate once, in place of the default, the last call switching;
    # every candidate timed once (the default by its calls too).
    assert len(nests) == built + 1 and len(runs) == built + 1
    assert {n.source for n in nests[:-1]} <= {first.source, *worker_builds}
    assert set(worker_builds) <= {n.source for n in nests}
    assert nests[-1].source != first.source and nests[-1].source in worker_builds
    assert nests[-1].details["search"].startswith(f"{built + 1} candidates timed "
                                                  f"({built + 1} by this process)")
    assert any(f"switched to {_choice(nests[-1])}" in line for line in said.lines), said.lines
    runs.clear()
    after = _call(srch, "matmul_f64", args, reason=f"search chose {_choice(nests[-1])} "
                                                   "(searched)")
    assert runs == [] and after.source == nests[-1].source


def test_the_workers_builds_are_made_by_the_build_process(srch, device, runs, device_env,
                                                         monkeypatch, tmp_path):
    """Where the device has a build process (a GPU's: gpurts/build_aside.py), the worker's
    candidates are built there and loaded here, and the search ends as it does otherwise
    (built afresh: no program of the kernel cache's, in memory or on disk)."""
    from gpurts.build_aside import BuildAside
    device_env.setenv("UNPY_CACHE_DIR", str(tmp_path / "cache"))
    device.kernel_cache.clear_memory()
    aside = BuildAside(device)
    monkeypatch.setattr(type(device), "build_aside", property(lambda self: aside))
    asked = []
    real = aside.build
    monkeypatch.setattr(aside, "build", lambda *a: asked.append(a[0]) or real(*a))
    _fastest_after_default(monkeypatch)
    try:
        nests = _until_settled(srch, "matmul_f64", _matmul_args())
    finally:
        aside.stop()
    assert asked and aside.unusable is None
    assert _choice(nests[-1]) != "default" and nests[-1].source in asked


def test_the_replay_waits_until_the_search_is_over(srch, runs, device_env):
    device_env.setenv("UNPY_REPLAY", "1")
    args = _matmul_args()
    first = _call(srch, "matmul_f64", args)
    assert first.replay == "the search of this layout is still timing candidates"
    assert search.settle(120)
    nests = _until_settled(srch, "matmul_f64", args)
    assert all(n.replay == first.replay for n in nests[:-1])
    recorded = nests[-1]
    assert isinstance(recorded.replay, replay.Record), recorded
    _call(srch, "matmul_f64", args)            # replayed from C++: no new report
    assert srch.explain("matmul_f64").nests[0] is recorded and recorded.replayed_calls == 1


def test_a_large_layout_settles_into_overlapped_tiles_of_the_choice(srch, device, runs,
                                                                    monkeypatch):
    """A layout large enough for overlapped tiles runs whole while its search goes on; the
    call that settles it prepares it again, in tiles built with the search's choice."""
    monkeypatch.setattr(overlap, "OVERLAP_BYTES", 256)
    monkeypatch.setattr(overlap, "TWO_LEVEL_TILE_S", 0.0)
    _fastest_after_default(monkeypatch)
    args = _matmul_args()
    assert search.settle(120)
    nests = _until_settled(srch, "matmul_f64", args)
    assert all(not n.plan.overlap for n in nests[:-1])
    settled = nests[-1]
    choice = _choice(settled)
    assert choice != "default" and settled.plan.overlap, settled
    assert len(settled.plan.parts) == overlap.TILES ** 2      # (tiles of rows and columns)
    assert settled.plan.grid.counts == (overlap.TILES, overlap.TILES)
    # Each tile's kernel is the choice made on that tile's bound nest.
    tuning = next(t for t in search.ALTERNATIVES if str(t) == choice)
    values = dict(zip(["a", "b", "c"], args))
    nest = load_nest(srch.compiled.__name__, "matmul_f64", 0)
    instance = instantiate(nest, values)
    for part, source in zip(settled.plan.parts, settled.sources or ()):
        bound = bind(instance, part, values, device.has_fp64, device_limits(device))
        assert source == search.made(bound, "all", tuning, _model(device)).source
    after = _call(srch, "matmul_f64", args, reason=f"search chose {choice}")
    assert after.plan.overlap and after.source == settled.source


def test_a_split_builds_its_parts_with_the_choice_of_the_whole_nests_search(
        srch, device, runs, monkeypatch, device_env, tmp_path):
    """Two contexts of the tested device split the nest (as two GPUs of one model would): the
    search of the whole nest on that model, the one a single device runs, times its
    candidates at the split's calls, and once it is over the parts are built with its choice
    (bench/multi.py, H200: halves with the default tiles took 76 % of the whole's kernel)."""
    device_env.setenv("UNPY_DEVICE", f"{testdevice.SPEC},{testdevice.SPEC}")
    device_env.setenv("UNPY_FORCE_GPU", "1")
    _fastest_after_default(monkeypatch)
    args = _matmul_args()
    first = _call(srch, "matmul_f64", args)
    assert " + " in first.ran_on, first
    for _ in range(12):
        assert search.settle(120)
        nest = _call(srch, "matmul_f64", args)
        if nest.sources != first.sources:
            break
    (record,) = _records(tmp_path)
    choice = json.loads(record.read_text())["choice"]
    assert choice != "default" and " + " in nest.ran_on, nest
    tuning = next(t for t in search.ALTERNATIVES if str(t) == choice)
    values = dict(zip(["a", "b", "c"], args))
    instance = instantiate(load_nest(srch.compiled.__name__, "matmul_f64", 0), values)
    parts = nest.plan.plan.parts
    assert len(parts) == 2
    for part in parts:
        bound = bind(instance, part, values, device.has_fp64, device_limits(device))
        assert search.made(bound, "all", tuning, _model(device)).source in nest.sources


def test_search_runs_leave_numpy_memory_alone(srch, runs, monkeypatch):
    monkeypatch.setattr(search, "MAX_CANDIDATES", 3)
    # c += a @ b: had a search run written back, c would hold the sum more than once.
    nests = _until_settled(srch, "accumulate", (rand(37, 11), rand(11, 29), rand(37, 29)))
    assert len(runs) == 3                 # every candidate ran on the data
    assert "candidates timed" in nests[-1].details["search"]


def test_the_record_is_complete_and_a_fresh_preparation_builds_nothing(srch, device, runs,
                                                                       monkeypatch, tmp_path):
    args = _matmul_args()
    _fastest_after_default(monkeypatch)
    assert search.settle(120)
    nests = _until_settled(srch, "matmul_f64", args)
    choice = _choice(nests[-1])
    assert choice != "default"
    (path,) = _records(tmp_path)
    record = json.loads(path.read_text())
    assert record["choice"] == choice and record["complete"] is True
    assert record["candidates"]["default"][3] == 1.0
    assert len(record["candidates"]) == len(runs)       # each timed, the default too

    def not_measured(*_):
        raise AssertionError("a search run although the record has every candidate")
    monkeypatch.setattr(search, "time_kernel", not_measured)
    builds = device.kernel_cache.stats.builds
    session.forget()
    fresh = _call(srch, "matmul_f64", _matmul_args(),
                  reason=f"search chose {choice} (from the search record)")
    assert fresh.source == nests[-1].source and "(0 by this process)" in fresh.details["search"]
    assert device.kernel_cache.stats.builds == builds
    assert fresh.replay is None or "search" not in str(fresh.replay)


def test_an_incomplete_record_is_searched_on_by_the_next_preparation(srch, runs, monkeypatch,
                                                                     tmp_path):
    args = _matmul_args()
    _call(srch, "matmul_f64", args)             # the default timed by its own run
    assert search.settle(120)
    _call(srch, "matmul_f64", args)             # and one alternative, run by the call
    (path,) = _records(tmp_path)
    record = json.loads(path.read_text())
    assert record["complete"] is False and len(record["candidates"]) == 2
    runs.clear()
    session.forget()
    nests = _until_settled(srch, "matmul_f64", _matmul_args())
    record = json.loads(path.read_text())
    assert record["complete"] is True and len(runs) == len(record["candidates"]) - 2
    assert nests[-1].details["search"].startswith(
        f"{len(record['candidates'])} candidates timed ({len(runs)} by this process)")


@pytest.mark.parametrize("corrupt", [
    b"", b"{not json", b"[]", b'{"key": 1}',
    lambda r: {**r, "key": r["key"][:-1]},                         # another layout's
    lambda r: {**r, "candidates": {"default": [None, None, None, -1.0]}},   # a time below 0
    lambda r: {**r, "candidates": {"default": [[4, "x"], None, None, 1.0]}},
    lambda r: {**r, "candidates": {"inner unroll 0": [None, None, 0, 1.0]}},
    lambda r: {**r, "candidates": {"default": [None, None, 1.0]}},   # of record version 1
    lambda r: {**r, "candidates": {"bogus": [None, None, None, 1.0]}},  # label and tuning
    lambda r: {**r, "complete": "yes"},
], ids=["empty", "broken", "list", "no-fields", "key", "negative", "tile", "unroll", "old",
        "label", "flag"])
def test_a_corrupt_record_is_searched_again(srch, runs, monkeypatch, tmp_path, corrupt):
    monkeypatch.setattr(search, "MAX_CANDIDATES", 2)
    args = _matmul_args()
    _until_settled(srch, "matmul_f64", args)
    (path,) = _records(tmp_path)
    if callable(corrupt):
        path.write_text(json.dumps(corrupt(json.loads(path.read_text()))))
    else:
        path.write_bytes(corrupt)
    runs.clear()
    session.forget()
    _until_settled(srch, "matmul_f64", args)
    assert len(runs) == 2
    assert json.loads(path.read_text())["complete"] is True


def test_switched_off_or_auto_on_a_cpu_device_no_search(srch, runs, device_env):
    for value in ("0", None):
        if value is None:
            device_env.delenv("UNPY_GPU_SEARCH")      # auto: the tested device is no GPU
        else:
            device_env.setenv("UNPY_GPU_SEARCH", value)
        session.forget()
        _, report = srch.check("matmul_f64", *_matmul_args(), rtol=1e-12)
        assert "search" not in report.nests[0].reason
        assert "search" not in report.nests[0].details
    assert runs == []


def test_a_build_error_fails_that_candidate_and_the_worker_goes_on(srch, runs, monkeypatch):
    monkeypatch.setattr(search, "MAX_CANDIDATES", 3)
    real, refused = gpurts.build_kernel, []

    def first_refused(device, source, name, options=(), aside=False):
        if threading.current_thread().name == "unpy-search-builds" and not refused:
            refused.append(source)
            raise BuildError("refused by the test", "")
        return real(device, source, name, options)
    monkeypatch.setattr(gpurts, "build_kernel", first_refused)
    nests = _until_settled(srch, "matmul_f64", _matmul_args())
    assert refused and " failed" in nests[-1].details["search"]
    assert nests[-1].source != refused[0] and len(runs) == 2       # the failed one not run
    # A worker error (a bug in making the candidates) abandons that search only.
    args = _syrk_args()
    with monkeypatch.context() as patched:
        patched.setattr(search, "candidates", lambda *_: iter([1 / 0]))
        _call(srch, "syrk_tri", args, reason=search.PENDING)
        assert search.settle(120)
    assert "search" not in _call(srch, "syrk_tri", args).reason
    _until_settled(srch, "accumulate", (rand(9, 4), rand(4, 7), rand(9, 7)))


def test_an_error_flag_abandons_the_search_and_keeps_the_default(srch, runs, monkeypatch,
                                                                  tmp_path):
    monkeypatch.setattr(search, "MAX_CANDIDATES", 2)
    idx = RNG.integers(0, 5, 17)
    idx[3] = 40
    args = (rand(13, 5), rand(5, 5), idx, np.zeros((13, 17)))
    for _ in range(2):       # the call's own run flags: the search is abandoned
        with pytest.raises(IndexError):     # from the OpenMP code, as the interpreter's
            srch.compiled.gathered(*args)
        nest = srch.explain("gathered").nests[0]
        assert nest.ran_on == "openmp" and "error for" in nest.reason
    assert len(runs) == 0 and _records(tmp_path) == []
    with pytest.raises(IndexError):
        srch.compiled.gathered(*args)
    assert len(runs) == 0                    # the search is over: nothing timed
    runs.clear()
    idx[3] = 4                               # in range: searched, and as the interpreter
    session.forget()
    nests = _until_settled(srch, "gathered", args)
    assert nests[-1].reason.endswith("(searched)") and len(runs) == 2


@pytest.mark.parametrize("n", [2, 3, 8, 9, 17, 30])
def test_the_unroll_candidate_of_a_one_level_reduction(srch, runs, monkeypatch, n):
    # Odd trip counts: the main loop by 8 and the remainder, exactly as the interpreter adds.
    _fastest_after_default(monkeypatch)
    x, m = rand(n), rand(n)
    nests = _until_settled(srch, "pull", (x, m, np.zeros(n)))
    assert nests[-1].reason.endswith("search chose inner unroll 8 (searched)")
    assert "unroll_inner(j, 8)" in nests[-1].reason and "unroll_inner(j, 8)" not in nests[0].reason
    assert nests[-1].source != nests[0].source


def test_searched_nests_of_calls_that_keep_data_on_the_device(res, runs):
    # jacobi: two 2-D nests per step, the arrays kept on the device between them (a search run
    # before the nest's real run copies a device copy newer than the host back first).
    # (the first call's preparations do not know yet how many nest calls share the copies:
    # the second call prepares again, its search going on from the record)
    a, b = RNG.random((21, 21)), np.zeros((21, 21))
    for _ in range(4):
        _, report = res.check_fresh("jacobi", _same_arrays((12, a, b)), rtol=1e-12,
                                    reason="search chose")
        if not any(search.PENDING in n.reason for n in report.nests):
            break
        assert search.settle(120)
    assert not any(search.PENDING in n.reason for n in report.nests), str(report)
    assert len(runs) >= 2 * 2                   # the work-group shapes of both nests timed
    assert all("work-group" in n.details["search"] for n in report.nests)
    res.check("host_between", RNG.random(50), np.zeros(50), np.zeros(50), rtol=1e-12)


def test_the_worker_waits_while_a_call_is_under_way(srch, runs, monkeypatch):
    real, worker_builds = gpurts.build_kernel, []

    def counted(device, source, name, options=(), aside=False):
        if threading.current_thread().name == "unpy-search-builds":
            worker_builds.append(source)
        return real(device, source, name, options)
    monkeypatch.setattr(gpurts, "build_kernel", counted)
    args = _syrk_args()
    with search.foreground():            # as another thread's call would
        _call(srch, "syrk_tri", args, reason="search chose default for now")
        assert not search.settle(0.5) and worker_builds == []
    assert search.settle(120) and worker_builds


def test_a_build_in_another_thread_holds_up_no_other_build(device, monkeypatch, tmp_path):
    # The kernel cache's lock is not held while building: the search's worker building one
    # source does not hold up the caller's build of another.
    from gpurts import kernel_cache
    monkeypatch.setenv("UNPY_CACHE_DIR", str(tmp_path))
    inside, let_go = threading.Event(), threading.Event()
    real = kernel_cache.build_program

    def held(*args, **kwargs):
        if threading.current_thread().name == "held-build":
            inside.set()
            assert let_go.wait(120)
        return real(*args, **kwargs)
    monkeypatch.setattr(kernel_cache, "build_program", held)
    token = RNG.integers(1 << 40)         # sources no earlier test built
    sources = [f"__kernel void k(__global float *a) {{ a[0] = {k}.5f + {token}; }}"
               for k in range(2)]
    built = []
    held_thread = threading.Thread(target=lambda: built.append(
        gpurts.build_kernel(device, sources[0], "k")), name="held-build")
    held_thread.start()
    try:
        assert inside.wait(120)
        other = threading.Thread(target=lambda: built.append(
            gpurts.build_kernel(device, sources[1], "k")))
        other.start()
        other.join(120)
        assert not other.is_alive() and len(built) == 1 and not built[0].cache_hit
    finally:
        let_go.set()
        held_thread.join(120)
    assert len(built) == 2


def test_processes_exit_while_building_and_a_later_one_reads_the_record(srch, tmp_path):
    # A: exits right after its first call, the worker building (a cold cache): a clean exit.
    # B: settles the search. C: its first call takes the choice from the record, a cache hit.
    script = textwrap.dedent("""
        import sys, numpy as np, unpython, search_kernels as k
        from jitgpu import search
        a, b, c = np.ones((37, 11)), np.ones((11, 29)), np.zeros((37, 29))
        k.matmul_f64(a, b, c)
        for _ in range(12 if sys.argv[1] == "settle" else 0):
            if search.PENDING not in unpython.explain(k.matmul_f64).nests[0].reason:
                break
            assert search.settle(120)
            k.matmul_f64(a, b, c)
        nest = unpython.explain(k.matmul_f64).nests[0]
        print(nest.reason, "|", nest.details["time"], "|", search.in_flight())
        assert np.array_equal(c, a @ b)
    """)
    env = dict(os.environ, UNPY_DEVICE=testdevice.SPEC, UNPY_FORCE_GPU="1",
               UNPY_GPU_SEARCH="1", UNPY_CACHE_DIR=str(tmp_path / "cache"),
               PYTHONPATH=os.pathsep.join([str(Path(srch.compiled.__file__).parent),
                                           str(HERE.parents[1]),
                                           os.environ.get("PYTHONPATH", "")]))
    env.pop("UNPY_GPU_MEM_LIMIT", None)
    said = []
    for mode in ("exit", "settle", "record"):
        done = subprocess.run([sys.executable, "-c", script, mode], cwd=tmp_path, env=env,
                              capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr
        said.append(done.stdout.strip())
    assert "search chose default for now" in said[0] and said[0].endswith("| 1"), said
    assert "(searched)" in said[1] and said[1].endswith("| 0"), said
    assert "(from the search record)" in said[2] and "(1/1 cache hits)" in said[2], said
    assert said[2].endswith("| 0"), said
