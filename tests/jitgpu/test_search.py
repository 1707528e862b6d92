"""The first call's search of loop-optimisation choices (jitgpu/search.py) on the tested OpenCL
device with UNPY_GPU_SEARCH=1: the candidates (distinct, legal, what their tuning says), every
candidate's result against the interpreter (odd sizes, a triangular nest), search runs that
never reach NumPy memory (an in-place accumulation), the disk record (reused by a fresh
preparation, searched again when corrupt), the switch, the budget (and the search going on at
the next preparation), and a search abandoned on the error flag."""
import inspect
import json
import math
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from jitgpu import offload, search
from jitgpu.bind import bind, device_limits, with_local_size
from jitgpu.loopopt import optimise
from jitgpu.nest import instantiate, load_nest
from jitgpu.opencl_emit import print_kernel
from jitgpu.plan import plan_call
from modulepair import gpu_pair

HERE = Path(__file__).resolve().parent
RNG = np.random.default_rng(41)
ALTERNATIVES = search.ALTERNATIVES


@pytest.fixture(scope="session")
def srch(tmp_path_factory):
    """tests/jitgpu/search_kernels.py, compiled and interpreted."""
    return gpu_pair(HERE / "search_kernels.py", tmp_path_factory.mktemp("build-search_kernels"))


@pytest.fixture
def runs(device_env, monkeypatch, tmp_path):
    """UNPY_GPU_SEARCH=1, records under tmp_path, no budget; the kernels the search timed."""
    device_env.setenv("UNPY_GPU_SEARCH", "1")
    device_env.setenv("UNPY_REPLAY", "0")         # every call through Python's preparation
    monkeypatch.setattr(search, "record_dir", lambda: str(tmp_path / "search"))
    monkeypatch.setattr(search, "SEARCH_BUDGET_S", 1e3)
    timed = []
    real = search.time_kernel

    def counted(device, part, kernel, cl_kernel, values):
        timed.append(kernel)
        return real(device, part, kernel, cl_kernel, values)
    monkeypatch.setattr(search, "time_kernel", counted)
    offload._PREPARED.clear()
    return timed


def _fastest_after_default(monkeypatch):
    """Time every candidate for real but report the first (the default) as the slowest: the
    search then chooses the first alternative."""
    real = search.time_kernel

    def faked(device, part, kernel, cl_kernel, values):
        real(device, part, kernel, cl_kernel, values)
        faked.calls += 1
        return 1.0 if faked.calls == 1 else 1e-3 / faked.calls
    faked.calls = 0
    monkeypatch.setattr(search, "time_kernel", faked)
    return faked


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


# --- candidates (pure) ------------------------------------------------------------------------

def test_candidates_are_distinct_legal_and_made_as_their_tuning_says(srch, device):
    bound = _bound(srch, device, "matmul_f64", *_matmul_args())
    limits = device_limits(device)
    found = list(search.candidates(bound, "all", limits))
    assert 3 <= len(found) <= search.MAX_CANDIDATES
    assert found[0].tuning == search.Tuning()
    assert found[0].source == print_kernel(optimise(bound, "all"))
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
        offload._PREPARED.clear()
        _, report = srch.check(func, *args, rtol=1e-12,
                               reason=f"search chose {candidate.label} (searched)")
        assert report.nests[0].source == candidate.source


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
    offload._PREPARED.clear()
    a = rand(p, n).T if transposed else rand(n, p)
    if triangular:
        srch.check("syrk_tri", 0.5, a, 2.0, rand(n, n), rtol=1e-12)
    else:
        srch.check("accumulate", a, rand(p, m), rand(n, m), rtol=1e-12)


def test_search_runs_leave_numpy_memory_alone(srch, runs, monkeypatch):
    monkeypatch.setattr(search, "MAX_CANDIDATES", 3)
    # c += a @ b: had a search run written back, c would hold the sum more than once.
    a, b, c = rand(37, 11), rand(11, 29), rand(37, 29)
    _, report = srch.check("accumulate", a, b, c, rtol=1e-12, reason="search chose")
    assert len(runs) >= 3                 # several candidates ran on the data
    assert "candidates timed" in report.nests[0].details["search"]


def test_the_record_is_used_by_a_fresh_preparation(srch, runs, monkeypatch, tmp_path):
    args = _matmul_args()
    _fastest_after_default(monkeypatch)
    _, report = srch.check("matmul_f64", *args, rtol=1e-12, reason="(searched)")
    choice = report.nests[0].reason.split("search chose ")[1].split(" (")[0]
    assert choice != "default"
    (path,) = _records(tmp_path)
    record = json.loads(path.read_text())
    assert record["choice"] == choice and record["complete"] is True
    assert record["candidates"]["default"][2] == 1.0

    def not_measured(*_):
        raise AssertionError("a search run although the record has every candidate")
    monkeypatch.setattr(search, "time_kernel", not_measured)
    offload._PREPARED.clear()
    _, report = srch.check("matmul_f64", *args, rtol=1e-12,
                           reason=f"search chose {choice} (from the search record)")
    assert "0 now" in report.nests[0].details["search"]


@pytest.mark.parametrize("corrupt", [
    b"", b"{not json", b"[]", b'{"key": 1}',
    lambda r: {**r, "key": r["key"][:-1]},                         # another layout's
    lambda r: {**r, "candidates": {"default": [None, None, -1.0]}},   # a time below 0
    lambda r: {**r, "candidates": {"default": [[4, "x"], None, 1.0]}},
    lambda r: {**r, "candidates": {"bogus": [None, None, 1.0]}},     # label and tuning differ
    lambda r: {**r, "complete": "yes"},
], ids=["empty", "broken", "list", "no-fields", "key", "negative", "tile", "label", "flag"])
def test_a_corrupt_record_is_searched_again(srch, runs, monkeypatch, tmp_path, corrupt):
    monkeypatch.setattr(search, "MAX_CANDIDATES", 2)
    args = _matmul_args()
    srch.check("matmul_f64", *args, rtol=1e-12, reason="(searched)")
    (path,) = _records(tmp_path)
    if callable(corrupt):
        path.write_text(json.dumps(corrupt(json.loads(path.read_text()))))
    else:
        path.write_bytes(corrupt)
    runs.clear()
    offload._PREPARED.clear()
    srch.check("matmul_f64", *args, rtol=1e-12, reason="(searched)")
    assert len(runs) >= 2
    assert json.loads(path.read_text())["complete"] is True


def test_switched_off_or_auto_on_a_cpu_device_no_search(srch, runs, device_env):
    for value in ("0", None):
        if value is None:
            device_env.delenv("UNPY_GPU_SEARCH")      # auto: the tested device is no GPU
        else:
            device_env.setenv("UNPY_GPU_SEARCH", value)
        offload._PREPARED.clear()
        _, report = srch.check("matmul_f64", *_matmul_args(), rtol=1e-12)
        assert "search" not in report.nests[0].reason
        assert "search" not in report.nests[0].details
    assert runs == []


def test_the_budget_stops_the_search_and_the_next_preparation_goes_on(srch, runs, monkeypatch,
                                                                       tmp_path):
    monkeypatch.setattr(search, "SEARCH_BUDGET_S", 0.0)
    args = _matmul_args()
    timed = []
    for _ in range(3):
        offload._PREPARED.clear()
        runs.clear()
        _, report = srch.check("matmul_f64", *args, rtol=1e-12, reason="(searched)")
        timed.append(len(runs))
        detail = report.nests[0].details["search"]
    assert timed == [1, 1, 1]             # one candidate per preparation
    assert detail.startswith("3 candidates timed (1 now")
    assert "the rest at the next preparation" in detail
    monkeypatch.setattr(search, "SEARCH_BUDGET_S", 1e3)
    offload._PREPARED.clear()
    _, report = srch.check("matmul_f64", *args, rtol=1e-12)
    assert "the rest" not in report.nests[0].details["search"]
    assert json.loads(_records(tmp_path)[0].read_text())["complete"] is True


def test_an_error_flag_abandons_the_search_and_keeps_the_default(srch, runs, monkeypatch,
                                                                  tmp_path):
    monkeypatch.setattr(search, "MAX_CANDIDATES", 2)
    idx = RNG.integers(0, 5, 17)
    idx[3] = 40
    # (built without --boundscheck, the OpenMP code does not raise: its result is not compared)
    srch.compiled.gathered(rand(13, 5), rand(5, 5), idx, np.zeros((13, 17)))
    nest = srch.explain("gathered").nests[0]
    assert nest.ran_on == "openmp" and "error for" in nest.reason
    assert len(runs) == 1                    # the default's run flagged: nothing more timed
    assert _records(tmp_path) == []
    runs.clear()
    idx[3] = 4                               # in range: searched, and as the interpreter
    srch.check("gathered", rand(13, 5), rand(5, 5), idx, np.zeros((13, 17)), rtol=1e-12,
               reason="(searched)")
    assert len(runs) >= 2


def test_searched_nests_of_calls_that_keep_data_on_the_device(res, runs):
    # jacobi: two 2-D nests per step, the arrays kept on the device between them (the search
    # runs before the nest's real run: a device copy newer than the host is copied back first).
    a = RNG.random((21, 21))
    _, report = res.check("jacobi", 5, a, np.zeros((21, 21)), rtol=1e-12, reason="search chose")
    assert len(runs) >= 2 * 2                   # the work-group shapes of both nests timed
    assert all("work-group" in n.details["search"] for n in report.nests)
    res.check("host_between", RNG.random(50), np.zeros(50), np.zeros(50), rtol=1e-12)
