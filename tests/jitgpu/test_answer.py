"""The hook's typed answer (jitgpu/answer.py) and the compiled caller's reading of it."""
import re
from pathlib import Path

from jitgpu import answer
from jitgpu.answer import Kind

ROOT = Path(__file__).resolve().parents[2]


def test_the_compiled_caller_reads_the_same_kinds():
    """unpy::AnswerKind (unpy_python.cpp) has Kind's numbers: the caller switches on them."""
    source = (ROOT / "unpy/cpp_emit/unpy_python.cpp").read_text()
    body = re.search(r"enum class AnswerKind : int \{([^}]*)\}", source).group(1)
    kinds = {name.strip(): int(value) for name, value in re.findall(r"(\w+) = (\d+)", body)}
    assert kinds == {kind.name.lower(): kind.value for kind in Kind}


def test_answers_without_data_are_shared():
    """The cheap answers allocate nothing: one instance each."""
    assert answer.RUN_OPENMP.kind is Kind.RUN_OPENMP
    assert answer.NO_DEVICE.kind is Kind.NO_DEVICE
    for by_layout in (False, True):
        for in_call in (False, True):
            found = answer.refused(by_layout, in_call)
            assert found is answer.refused(by_layout, in_call)
            assert (found.kind, found.by_layout, found.in_call) == (Kind.REFUSED, by_layout,
                                                                   in_call)


def test_answers_with_data():
    results = {"s": 1.5}
    done = answer.ran_on_device(results)
    assert (done.kind, done.results, done.replay, done.relaunch) == (Kind.DONE, results, None,
                                                                     None)
    split = answer.split_range(3, 7, 1, 42)
    assert (split.kind, split.lo, split.hi, split.spare, split.handle) == (Kind.SPLIT, 3, 7, 1,
                                                                           42)
    timed = answer.timed_openmp(9)
    assert (timed.kind, timed.token) == (Kind.TIMED_OPENMP, 9)
