"""bench/time_loops_peers.py computes what tests/kernels/time_loops.py computes: each program's
Numba version, and its CuPy version run with NumPy standing in for CuPy (CuPy and a GPU are
missing here), against the interpreter on the same arguments at tiny sizes; and the parts of
bench/time_loops.py that decide what a column shows (its comparison, where nests ran, a missing
CuPy)."""
import importlib.util
import sys
import types
from pathlib import Path

import numpy as np
import pytest

REPO = Path(__file__).resolve().parents[1]


def load(name: str, path: Path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# (bench/time_loops.py under another name: "time_loops" is the compiled module's, for explain)
bench = load("bench_time_loops", REPO / "bench" / "time_loops.py")
peers = bench.peers
interpreted = load("interpreted_time_loops_peers", REPO / "tests" / "kernels" / "time_loops.py")


class NumpyAsCupy:
    """NumPy where the CuPy versions expect CuPy: `asarray` copies (as to a device) and
    `asnumpy` copies back, so a version that forgets to copy a result back leaves its input
    unchanged, as on a GPU."""

    cuda = types.SimpleNamespace(Device=lambda: types.SimpleNamespace(synchronize=lambda: None))

    def __getattr__(self, name):
        return getattr(np, name)

    @staticmethod
    def asarray(a):
        return np.array(a, copy=True)

    @staticmethod
    def asnumpy(a):
        return np.array(a, copy=True)


def run_both(program, version, rtol):
    args = bench.make_args(program, bench.SIZES["tiny"][program], np.random.default_rng(4))
    want, got = bench.fresh(args), bench.fresh(args)
    getattr(interpreted, program)(*want)
    version(*got)
    changed = [not np.array_equal(w, a) for w, a in zip(bench.arrays(want), bench.arrays(args))]
    assert any(changed), f"{program}: the interpreter changed no array (a vacuous comparison)"
    for k, (w, g) in enumerate(zip(bench.arrays(want), bench.arrays(got))):
        np.testing.assert_allclose(g, w, rtol=rtol, atol=rtol * np.abs(w).max(initial=0.0),
                                   err_msg=f"{program}: array {k}")


@pytest.mark.skipif(peers.NUMBA_MISSING is not None, reason=str(peers.NUMBA_MISSING))
@pytest.mark.parametrize("program", peers.PROGRAMS)
def test_numba_version_matches_the_interpreter(program):
    run_both(program, peers.NUMBA[program], rtol=1e-12)


@pytest.mark.parametrize("program", peers.PROGRAMS)
def test_cupy_version_with_numpy_matches_the_interpreter(program):
    cupy_version = peers.CUPY[program]
    run_both(program, lambda *args: cupy_version(*args, xp=NumpyAsCupy()), rtol=1e-12)


def test_every_program_has_its_peers_and_sizes():
    names = {name for name in vars(interpreted) if name in bench.PROGRAMS}
    assert names == set(bench.PROGRAMS)
    assert set(peers.NUMBA) == set(peers.CUPY) == set(bench.PROGRAMS)
    for sizes in bench.SIZES.values():
        assert set(sizes) == set(bench.PROGRAMS)
    assert set(bench.RTOL) == set(bench.PROGRAMS)


def test_relative_error_finds_a_difference_and_nans():
    want = [np.array([1.0, 2.0, 4.0]), np.zeros(2)]
    assert bench.relative_error([w.copy() for w in want], want) == 0.0
    assert bench.relative_error([np.array([1.0, 2.0, 4.2]), np.zeros(2)], want) == \
        pytest.approx(0.05)
    assert bench.relative_error([want[0], np.array([0.0, 1.0])], want) == pytest.approx(0.25)
    assert bench.relative_error([np.array([1.0, np.nan, 4.0]), np.zeros(2)], want) == np.inf


def test_a_column_that_computes_otherwise_is_marked(capsys):
    """`measure` checks the first call against the reference; `cell` says 'differs'."""
    args = (np.ones(4),)
    right = bench.measure(lambda a: a.__imul__(2.0), args, [np.full(4, 2.0)], 0.0, repeat=1)
    wrong = bench.measure(lambda a: a.__imul__(3.0), args, [np.full(4, 2.0)], 0.1, repeat=1)
    failed = bench.measure(lambda a: 1 / 0, args, [np.full(4, 2.0)], 0.1, repeat=1)
    assert right["agrees"] and "differs" not in bench.cell(right)
    assert not wrong["agrees"] and "differs: 5.0e-01" in bench.cell(wrong)
    assert not failed["ok"] and failed["reason"].startswith("ZeroDivisionError")
    assert bench.cell(failed) == "—"
    assert np.array_equal(args[0], np.ones(4)), "a column changed the shared arguments"


def test_where_nests_ran_is_summarised():
    nest = types.SimpleNamespace
    report = types.SimpleNamespace(nests=[
        nest(ran_on="opencl:NVIDIA H100", reason="profitable"),
        nest(ran_on="openmp", reason="not profitable"),
        nest(ran_on="opencl:NVIDIA H100", reason="profitable"),
        nest(ran_on=None, reason="not called yet")])
    where = bench.where_nests_ran(report)
    assert where["summary"] == "GPU 2, OpenMP 1, not run 1"
    assert where["nests"][1] == ["openmp", "not profitable"]


def test_cupy_column_is_skipped_with_a_reason_where_cupy_is_missing(monkeypatch):
    monkeypatch.setitem(sys.modules, "cupy", None)      # import cupy raises ImportError
    reason = bench.cupy_missing()
    assert reason.startswith("CuPy unusable (ModuleNotFoundError") or \
        reason.startswith("CuPy unusable (ImportError"), reason
