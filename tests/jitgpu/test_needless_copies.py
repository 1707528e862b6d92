"""Copies the code shows are needless (unpy/cpp_emit/nest_contents.py, jitgpu/plan.py
without_needless_copies): a fresh np.empty is not copied in, a local nothing reads later is not
copied back, and a nest alone in its call keeps nothing on the device (so later calls replay
from C++). Each case runs on the tested OpenCL device against the interpreter; the copies are
counted from `unpython.explain`; the near misses (a loop carrying the array, np.zeros, a host
read after) copy as before and still match."""
from pathlib import Path

import numpy as np
import pytest

import irtools
from modulepair import gpu_pair
from unpy.cpp_emit.nest_contents import dead_after_nests, lone_nests, undefined_at_nests

RNG = np.random.default_rng(5)


def moves(report, name: str) -> set:
    """How the groups of `name` moved in the last call's plans: {'in', 'out', 'in+out',
    'none'}."""
    found = set()
    for nest in report.nests:
        for line in str(nest.plan or "").splitlines():
            line = line.strip()
            if line.startswith("group ") and line.split(": ", 2)[1].split(", ") == [name]:
                found.add(line.split(", copy ", 1)[1].split(";", 1)[0])
    return found


@pytest.fixture(scope="session")
def pair(tmp_path_factory):
    return gpu_pair(Path(__file__).parent / "needless_kernels.py",
                    tmp_path_factory.mktemp("build-needless_kernels"))


def test_array_expression_temporaries_move_nothing(pair):
    a = RNG.random((37, 29))
    for _ in range(3):
        pair.check("softmax_rows", a, np.zeros_like(a), rtol=1e-12)
    report = pair.explain("softmax_rows")
    temporaries = [n for n in ("e", "__a_3") if moves(report, n)]
    assert temporaries and all(moves(report, n) == {"none"} for n in temporaries), str(report)
    assert moves(report, "a") == {"in"} and moves(report, "out") == {"in+out"}, str(report)


def test_lone_nest_is_replayed_and_its_temporary_never_moves(pair):
    a = RNG.random((30, 7))
    for _ in range(4):
        pair.check("lone_temporary", a, np.zeros((30, 7)), rtol=1e-12)
    report = pair.explain("lone_temporary")
    assert moves(report, "tmp") == {"none"}, str(report)
    assert "later calls replayed from C++" in str(report), str(report)


def test_fresh_array_read_on_the_host_is_copied_back(pair):
    a = RNG.random(41)
    out = np.zeros(41)
    got = out.copy()
    pair.compiled.half_written_then_read(a, got)
    pair.interpreted.half_written_then_read(a, out)
    np.testing.assert_array_equal(got[::2], out[::2])
    assert moves(pair.explain("half_written_then_read"), "tmp") == {"out"}


@pytest.mark.parametrize("steps", [1, 3])
def test_array_carried_by_a_loop_is_copied_in(pair, steps):
    pair.check("carried_by_a_loop", RNG.random(50), np.zeros(50), steps, rtol=1e-12)


def test_zeros_are_copied_in(pair):
    pair.check("zeros_are_defined", RNG.random(50), np.zeros(50), rtol=1e-12)
    assert moves(pair.explain("zeros_are_defined"), "tmp") == {"in+out"}


@pytest.mark.parametrize("twice", [True, False])
def test_nests_on_exclusive_branches_replay(pair, twice):
    a = RNG.random(64)
    for _ in range(3):
        pair.check("one_nest_per_branch", a, np.zeros(64), twice, rtol=1e-12)
    assert "later calls replayed from C++" in str(pair.explain("one_nest_per_branch"))


# --- the analyses on the IR ---------------------------------------------------------------

def _nests(fn):
    from unpy.typeinfer.reductions import walk_stmts
    return [s.nest_id for s in walk_stmts(fn.body) if getattr(s, "nest_id", None) is not None]


def test_analyses_of_the_kernels():
    module = irtools.typed(Path(__file__).with_name("needless_kernels.py").read_text()
                           .split("\n", 5)[5])
    by = {f.name: f for f in module.functions}
    assert undefined_at_nests(by["lone_temporary"]) == {0: ["tmp"]}
    assert dead_after_nests(by["lone_temporary"]) == {0: ["tmp"]}
    assert lone_nests(by["lone_temporary"]) == {0}
    assert undefined_at_nests(by["half_written_then_read"]) == {0: ["tmp"]}
    assert dead_after_nests(by["half_written_then_read"]) == {0: []}
    assert undefined_at_nests(by["carried_by_a_loop"]) == {0: []}
    assert dead_after_nests(by["carried_by_a_loop"]) == {0: []}
    assert lone_nests(by["carried_by_a_loop"]) == set()
    assert undefined_at_nests(by["zeros_are_defined"]) == {0: []}
    assert lone_nests(by["one_nest_per_branch"]) == {0, 1}


def test_sequential_nests_are_not_lone_and_a_mention_ends_freshness():
    fn = irtools.typed_function("""
        @unpython.gpu
        @unpython.type('ndarray[float64, 1]', None)
        def f(out):
            n = out.shape[0]
            t = np.empty(n)
            u = np.empty(n)
            u[0] = 1.0
            for i in prange(n):
                t[i] = 2.0
                u[i] = 3.0
            for i in prange(n):
                out[i] = t[n - 1 - i] + u[i]
        """)
    assert undefined_at_nests(fn) == {0: ["t"], 1: []}
    assert dead_after_nests(fn) == {0: [], 1: ["t", "u"]}
    assert lone_nests(fn) == set()
