"""The NumPy corpus (tests/corpus/corpus.py): every kernel of tests/corpus/kernels runs under the
interpreter; every kernel not in tests/corpus/pending.txt compiles, builds (all of them in one
module, once per session and pytest-xdist worker, from the build cache when nothing changed) and
matches the interpreter with OpenMP and on the GPU path forced onto the tested device; every
kernel in pending.txt still fails the way its line says, so that the list stays true: when a
feature lands, the test says which kernels to take off it."""
import warnings

import numpy as np
import pytest

import corpus
import testdevice

KERNELS = {k.name: k for k in corpus.load_kernels()}
PENDING = corpus.read_pending()


def test_pending_names_kernels():
    unknown = sorted(set(PENDING) - set(KERNELS))
    assert not unknown, f"tests/corpus/pending.txt names no kernel: {', '.join(unknown)}"


def test_names_unique_across_the_corpus():
    corpus.combined_source(list(KERNELS.values()))


@pytest.mark.parametrize("name", sorted(KERNELS))
def test_interpreter_runs(name):
    """The reference itself: the call works under the plain interpreter without a warning,
    on inputs of the declared number, and under 50k elements."""
    kernel = KERNELS[name]
    args = kernel.arguments()
    assert sum(a.size for a in args if isinstance(a, np.ndarray)) < 50_000
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        getattr(kernel.interpreted, kernel.function)(*args)


@pytest.fixture(scope="session")
def built(tmp_path_factory):
    """{kernel name: Status} with every compiling kernel built (not yet run)."""
    return corpus.build_all(list(KERNELS.values()), tmp_path_factory.mktemp("corpus"), PENDING,
                            log=lambda line: None)


@pytest.mark.parametrize("name", sorted(KERNELS))
def test_kernel(name, built):
    kernel, status = KERNELS[name], built[name]
    modes = corpus.tested_modes()
    if status.compiled is not None:
        if "gpu" in modes:
            testdevice.tested_device()     # fails loudly when there is no device to test on
        corpus.run_kernel(kernel, status, modes)
    failure = status.failure
    if name not in PENDING:
        assert failure is None, (
            f"{name} fails: {failure}\n(if that is expected for now, add the line "
            f"'{name}: <an exact substring of the failure>' to tests/corpus/pending.txt)")
        return
    if failure is None and PENDING[name].startswith("gpu:") and "gpu" not in modes:
        pytest.skip("its pending failure is on the GPU path, switched off here")
    assert failure is not None, (
        f"{name} compiles, builds and matches the interpreter now: delete its line from "
        f"tests/corpus/pending.txt")
    assert PENDING[name] in failure, (
        f"{name} still fails, but no longer with {PENDING[name]!r} (tests/corpus/pending.txt): "
        f"now {corpus.first_line(failure)!r}")
