"""Random differential testing (issue 19 item 7), the fixed seeds that `make test` runs: the
programs tests/fuzz/generate.py makes from SEEDS, built as one module, each run by the
interpreter (the reference), compiled on the OpenMP path, and compiled as `@unpython.gpu` on
the tested OpenCL device (UNPY_FORCE_GPU=1). The equality rules and their tolerances are in
tests/fuzz/run.py: integers and bools exactly, with the interpreter's dtypes; float64 and
complex128 within 1e-9, float32 within 1e-4, of the largest magnitude compared (reductions in
another order, NumPy's own SIMD libm, OpenCL contraction).

A refusal (a CompileError with a location) passes; a wrong result, an exception the interpreter
does not raise, an internal error or a failing g++ fails. The longer sweep:
`python -m tests.fuzz.run --count 2000 --jobs 2` (tests/fuzz/findings.md lists what it found).
"""
import sys
from pathlib import Path

import numpy as np
import pytest

import diffcheck
import testdevice

sys.path.insert(0, str(Path(__file__).resolve().parent))
import run  # noqa: E402
import generate  # noqa: E402

# Chosen (greedily, from seeds 0-399) to cover the generator's features with few statements
# (test_seeds_cover_the_features), in one module; the module and its OpenCL kernels are then in
# the build cache.
SEEDS = [198, 234, 244, 282, 299, 333, 296, 36, 327]


def test_random_programs_agree(monkeypatch):
    from unpy.cpp_emit.build import cache_dir
    if testdevice.SPEC == "none":
        monkeypatch.setenv("UNPY_DEVICE", "none")
    else:
        testdevice.tested_device()
        monkeypatch.setenv("UNPY_DEVICE", testdevice.SPEC)
    monkeypatch.setenv("UNPY_FORCE_GPU", "1")
    # a fixed folder: the build cache knows a module by its path too
    workdir = cache_dir().parent / "fuzz-modules" / "fixed"
    with diffcheck.build_lock("fuzz-fixed"):
        result = run.run_batch(SEEDS, workdir, name="fuzz_fixed")
    text = run.summary(result, 0)
    assert not result.invalid, text
    assert not result.findings, text + "\n\n" + "\n\n".join(
        f"seed {f.seed} [{f.kind}/{f.variant}]\n{f.message}\n{f.source}\nargs: {f.args}"
        for f in result.findings)
    assert result.compared >= len(SEEDS) - 3, text


def test_seeds_cover_the_features():
    """The fixed seeds exercise each kind of construct the brief names."""
    features = set()
    for seed in SEEDS:
        features |= generate.generate(seed).features
    wanted = {"prange", "range-step", "range-negative-step", "view-local", "layout-neg",
              "layout-step", "prange-atomic-update", "scalar-helper", "whole-array-assign",
              "broadcast", "reduction-axis", "matmul", "tuple-helper", "np.where",
              "nested-prange", "prange-reduction-+=", "prange-reduction-min/max", "alias-args",
              "dtype-complex128", "dtype-float32", "dtype-int32", "array-helper-views",
              "mask-assign", "augmented-array", "for-in-array", "triangular", "layout-T",
              "layout-F", "tuple-return", "readonly-arg", "alloc-empty_like", "recurrence",
              "python-scalar-arg", "overlapping-args"}
    assert wanted <= features, sorted(wanted - features)


def test_difference_catches_what_it_should():
    """The comparison itself: dtype, shape, values, exceptions of tolerance."""
    d = run.difference
    assert d(np.int64(3), np.int64(3)) is None
    assert d(np.int32(3), np.int64(3))                       # dtype
    assert d(np.arange(3), np.arange(3.0))                  # dtype of an array
    assert d(np.arange(3), np.arange(4))                    # shape
    assert d(np.array([1, 2]), np.array([1, 3]))            # integers: exact
    x = np.array([1.0, 2.0, np.nan, np.inf])
    assert d(x, x.copy()) is None
    assert d(x, x + 1e-12) is None                          # within float64 tolerance
    assert d(x, x + 1e-6)
    assert d(np.float32(1), np.float32(1.00001)) is None
    assert d(np.float32(1), np.float32(1.01))
    assert d((1.0, np.zeros(2)), (1.0, np.ones(2)))
    assert d(3, 3.0)                                        # Python int vs a float
    assert d(np.complex128(1 + 1j), np.complex128(1 + 2j))
