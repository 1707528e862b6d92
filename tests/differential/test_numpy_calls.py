"""NumPy library functions of published kernels (tests/kernels/numpy_calls.py), interpreter vs
compiled on the OpenMP path and on the GPU path forced onto the tested OpenCL device: one case
per construct and its errors, hypothesis over shapes; and the compile errors of the forms
still refused (they say what to write)."""
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import diffcheck
import irtools
import testdevice
from unpy.errors import CompileError

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "jitgpu"))
from gpucheck import GpuPair  # noqa: E402

SETTINGS = settings(max_examples=25, deadline=None)
RNG = np.random.default_rng(11)


def rand(*shape, dtype=np.float64):
    if np.dtype(dtype).kind == "f":
        return (RNG.random(shape) - 0.3).astype(dtype)
    return RNG.integers(-9, 9, shape).astype(dtype)


def ints(low, high, shape, dtype=np.int64):
    return RNG.integers(low, high, shape).astype(dtype)


# name -> arguments; every function of the module has at least one case.
CASES = {
    "positional_nones": lambda: (rand(5, 4),),
    "positional_nones one row": lambda: (rand(1, 4),),
    "lists_as_arrays": lambda: (3, -2.5),
    "lists_as_arrays zero": lambda: (0, 0.5),
    "collatz_steps": lambda: (27,),
    "collatz_steps one": lambda: (1,),
    "selected_stores": lambda: (np.array([0.9, 0.1, 0.7, 0.6]), np.array([1.0, 2.0, 3.0])),
    "selected_stores one value": lambda: (np.array([0.9, 0.1, 0.7, 0.6]), np.array([5.0])),
    "selected_stores mismatched": lambda: (np.array([0.9, 0.1, 0.7, 0.6]), np.array([1.0, 2.0])),
    "selected_stores none selected": lambda: (np.array([0.1, 0.2]), np.zeros(0)),
    "row_masks": lambda: (rand(7, 3), ints(0, 3, 7), RNG.random(7)),
    "row_masks no rows": lambda: (rand(0, 3), ints(0, 3, 0), RNG.random(0)),
    "triangle_indices": lambda: (rand(6, 6), 1),
    "triangle_indices wide": lambda: (rand(4, 7), -2),
    "triangle_indices empty": lambda: (rand(0, 3), 0),
    "triangle_indices beyond": lambda: (rand(5, 5), 9),
    "masked_rows_indexed": lambda: (rand(9, 3, 4), ints(0, 3, 9), 2),
    "masked_rows_indexed strided": lambda: (rand(9, 4, 8)[::-1, ::2, ::-2], ints(0, 3, 9), -1),
    "masked_rows_indexed out of range": lambda: (rand(9, 3, 4), ints(0, 3, 9), 4),
    "masked_rows_indexed mask too short": lambda: (rand(9, 3, 4), ints(0, 3, 8), 0),
    "simplex_projection": lambda: (RNG.random(9), 1.0),
    "simplex_projection none kept": lambda: (-RNG.random(4), -10.0),
    "indexed_again": lambda: (RNG.random((4, 4, 3)), np.array([2, 0, 3])),
    "indexed_again out of range": lambda: (RNG.random((4, 4, 3)), np.array([2])),
    "tensordots": lambda: (rand(3, 4, 5), rand(5, 3), rand(4),
                           np.array([[-100, 100], [120, 90]], np.int8)),
    "tensordots empty": lambda: (rand(0, 4, 5), rand(5, 0), rand(4), rand(0, 0, dtype=np.int8)),
    "tensordots mismatched": lambda: (rand(3, 4, 5), rand(4, 3), rand(4),
                                      rand(2, 2, dtype=np.int8)),
    "tensordots length 1": lambda: (rand(3, 4, 5), rand(1, 3), rand(4), rand(2, 2, dtype=np.int8)),
    "stacked_products": lambda: (rand(2, 3, 3), rand(4, 1, 3, 3), rand(3),
                                 ints(-300, 300, (2, 3, 3), np.int16)),
    "stacked_products mismatched": lambda: (rand(2, 3, 3), rand(4, 2, 3, 3), rand(3),
                                            ints(0, 3, (2, 3, 3), np.int16)),
    "gathered_grid": lambda: (-1.0, 2.0, 5, ints(-5, 5, (3, 4))),
    "gathered_grid out of range": lambda: (-1.0, 2.0, 3, ints(2, 4, (2, 2))),
    "matrix_powers": lambda: (rand(4, 4) * 0.5, ints(-3, 3, (3, 3))),
    "matrix_powers one": lambda: (rand(1, 1), ints(-3, 3, (1, 1))),
    "matrix_powers not square": lambda: (rand(2, 3), ints(-3, 3, (3, 3))),
    "ndarrays": lambda: (3, 4),
    "ndarrays empty": lambda: (0, 0),
    "taken_along": lambda: (rand(3, 4), ints(-4, 4, (3, 2), np.int32),
                            ints(-3, 3, (5, 4), np.int8), rand(5), ints(-5, 5, 7)),
    "taken_along length 1": lambda: (rand(3, 4), ints(-4, 4, (1, 2), np.int32),
                                     ints(-3, 3, (5, 1), np.int8), rand(5), ints(-5, 5, 0)),
    "taken_along empty": lambda: (rand(0, 4), ints(-4, 4, (0, 2), np.int32),
                                  ints(-3, 3, (0, 4), np.int8), rand(0), ints(0, 1, 0)),
    "taken_along out of range": lambda: (rand(3, 4), ints(-4, 4, (3, 2), np.int32),
                                         ints(-3, 3, (5, 4), np.int8), rand(5), ints(5, 6, 2)),
    "taken_along mismatched": lambda: (rand(3, 4), ints(-4, 4, (2, 2), np.int32),
                                       ints(-3, 3, (5, 4), np.int8), rand(5), ints(-5, 5, 2)),
    "averages": lambda: (rand(3, 4), RNG.random((3, 4)), rand(3), np.arange(1, 5, dtype=np.int32),
                         RNG.random((3, 4)).astype(np.float32)),
    "averages zero weights": lambda: (rand(3, 4), np.array([[1.0, -1, 0, 0], [0, 0, 0, 0],
                                                            [1, 1, 1, 1]]), rand(3),
                                      np.arange(1, 5, dtype=np.int32),
                                      RNG.random((3, 4)).astype(np.float32)),
    "averages empty": lambda: (rand(0, 4), rand(0, 4), rand(0), np.zeros(0, np.int32),
                               RNG.random((3, 4)).astype(np.float32)),
    "averages weights along": lambda: (rand(3, 4), RNG.random((3, 4)), rand(4),
                                       np.arange(1, 5, dtype=np.int32),
                                       RNG.random((3, 4)).astype(np.float32)),
    "gradients": lambda: (rand(5, 4), 0.5, np.arange(1, 6, dtype=np.int32) ** 2,
                          rand(3, 4, dtype=np.float32)),
    "gradients shortest": lambda: (rand(3, 3), 0.25, np.arange(1, 3, dtype=np.int32),
                                   rand(2, 2, dtype=np.float32)),
    "gradients too short": lambda: (rand(3, 2), 0.5, np.arange(1, 3, dtype=np.int32),
                                    rand(2, 2, dtype=np.float32)),
    "gradients empty": lambda: (rand(3, 3), 0.5, np.zeros(0, np.int32),
                                rand(2, 2, dtype=np.float32)),
    "digitized": lambda: (RNG.integers(0, 6, (3, 4)) * 1.0, np.array([1.0, 2, 2, 4]),
                          np.arange(5, dtype=np.int32), 2.0),
    "digitized falling": lambda: (RNG.integers(0, 6, (3, 4)) * 0.5, np.array([4.0, 2, 2, 1]),
                                  np.arange(5, 0, -1, dtype=np.int32), 2.0),
    "digitized not monotonic": lambda: (rand(3, 4), np.array([4.0, 2, 3, 1]),
                                        np.arange(5, dtype=np.int32), 2.0),
    "digitized nan": lambda: (np.array([[np.nan, 1, 3]]), np.array([np.nan, 1, 3]),
                              np.array([3, 3, 2], np.int32), np.nan),
    "digitized empty bins": lambda: (rand(2, 2), np.zeros(0), np.zeros(0, np.int32), 1.0),
    "crosses": lambda: (rand(4, 3), rand(4, 3), rand(3), rand(4, 3, dtype=np.int32)),
    "crosses 2 and 3": lambda: (rand(4, 2), rand(4, 3), rand(3), rand(4, 3, dtype=np.int32)),
    "crosses broadcast": lambda: (rand(4, 3), rand(1, 2), rand(3), rand(1, 3, dtype=np.int32)),
    "crosses mismatched": lambda: (rand(4, 3), rand(2, 3), rand(3), rand(4, 3, dtype=np.int32)),
    "crosses 4": lambda: (rand(4, 4), rand(4, 3), rand(3), rand(4, 3, dtype=np.int32)),
    "crosses empty": lambda: (rand(0, 3), rand(0, 3), rand(3), rand(0, 3, dtype=np.int32)),
    "polyfits": lambda: (np.linspace(0, 1, 20), rand(20), rand(20, 3), 3,
                         np.arange(-5, 15, dtype=np.int32)),
    "polyfits constant": lambda: (np.linspace(-1, 1, 5), rand(5), rand(5, 2), 0,
                                  np.arange(3, dtype=np.int32)),
    "polyfits negative degree": lambda: (np.linspace(0, 1, 5), rand(5), rand(5, 2), -1,
                                         np.arange(3, dtype=np.int32)),
    "quantiles_along": lambda: (rand(3, 5), 0.3, rand(2, 3, 4, dtype=np.int32),
                                rand(3, 4, dtype=np.float32)),
    "quantiles_along nan": lambda: (np.array([[1.0, np.nan, 2], [3, 4, 5]]), 0.7,
                                    rand(2, 3, 1, dtype=np.int32), rand(1, 4, dtype=np.float32)),
    "quantiles_along empty rows": lambda: (rand(3, 0), 0.3, rand(2, 3, 4, dtype=np.int32),
                                           rand(3, 4, dtype=np.float32)),
    "quantiles_along no rows": lambda: (rand(3, 5), 0.5, rand(0, 3, 4, dtype=np.int32),
                                        rand(0, 4, dtype=np.float32)),
    "quantiles_along q out of range": lambda: (rand(3, 5), 1.5, rand(2, 3, 4, dtype=np.int32),
                                               rand(3, 4, dtype=np.float32)),
    "ptps": lambda: (rand(3, 5), np.array([[-100, 100, 3], [5, 1, -7]], np.int8),
                     rand(6, dtype=np.float32)),
    "ptps nan": lambda: (np.array([[1.0, np.nan, 2], [3, 4, 5]]), rand(2, 1, dtype=np.int8),
                         np.array([np.nan, 1], np.float32)),
    "ptps empty": lambda: (rand(0, 3), rand(2, 3, dtype=np.int8), rand(4, dtype=np.float32)),
    "quantile_lists": lambda: (rand(3, 5), 0.3, rand(6, dtype=np.float32)),
    "quantile_lists nan": lambda: (np.array([[1.0, np.nan, 2], [3, 4, 5]]), 0.7,
                                   rand(1, dtype=np.float32)),
    "quantile_lists q out of range": lambda: (rand(3, 5), -0.5, rand(6, dtype=np.float32)),
    "over_axes": lambda: (rand(3, 4, 5), rand(2, 3, 4, dtype=np.int32), RNG.random((3, 4)) > 0.7),
    "over_axes nan": lambda: (np.where(RNG.random((2, 3, 4)) > 0.5, np.nan, rand(2, 3, 4)),
                              rand(2, 1, 3, dtype=np.int32), np.zeros((2, 3), bool)),
    "over_axes empty": lambda: (rand(0, 4, 5), rand(2, 0, 4, dtype=np.int32),
                                np.zeros((3, 0), bool)),
    "norms_ordered": lambda: (rand(7), rand(4, 5), rand(3, 4, dtype=np.int32),
                              rand(3, 4, dtype=np.float32)),
    "norms_ordered zeros": lambda: (np.zeros(3), rand(1, 1), np.zeros((2, 3), np.int32),
                                    rand(1, 4, dtype=np.float32)),
    "pads": lambda: (rand(3, 4), 2, rand(2, 3, dtype=np.int32), rand(5, dtype=np.float32), 2),
    "pads empty": lambda: (rand(0, 4), 1, rand(2, 0, dtype=np.int32), rand(0, dtype=np.float32),
                           0),
    "pads no width": lambda: (rand(3, 4), 0, rand(2, 3, dtype=np.int32),
                              rand(5, dtype=np.float32), 1),
    "pads negative width": lambda: (rand(3, 4), -1, rand(2, 3, dtype=np.int32),
                                    rand(5, dtype=np.float32), 1),
    "pads negative length": lambda: (rand(3, 4), 1, rand(2, 3, dtype=np.int32),
                                     rand(5, dtype=np.float32), -2),
    "pad_modes": lambda: (rand(3, 4), 2, 1, rand(5, dtype=np.int32),
                          rand(2, 3, 4, dtype=np.float32)),
    "pad_modes wide": lambda: (rand(2, 3), 7, 5, rand(3, dtype=np.int32),
                               rand(1, 2, 2, dtype=np.float32)),
    "pad_modes one": lambda: (rand(1, 1), 3, 2, rand(1, dtype=np.int32),
                              rand(1, 1, 1, dtype=np.float32)),
    "pad_modes no width": lambda: (rand(0, 4), 0, 0, rand(0, dtype=np.int32),
                                   rand(0, 2, 0, dtype=np.float32)),
    "pad_modes empty": lambda: (rand(0, 4), 1, 0, rand(3, dtype=np.int32),
                                rand(2, 3, 4, dtype=np.float32)),
    "pad_modes negative width": lambda: (rand(3, 4), 1, -1, rand(5, dtype=np.int32),
                                         rand(2, 3, 4, dtype=np.float32)),
    "weighted_histograms": lambda: (RNG.random(50), rand(50), 6, rand(4, 5, dtype=np.float32),
                                    rand(4, 5, dtype=np.int32)),
    "weighted_histograms two blocks": lambda: (RNG.random(70000), rand(70000), 5,
                                               rand(300, 250, dtype=np.float32),
                                               rand(300, 250, dtype=np.int32)),
    "weighted_histograms empty": lambda: (rand(0), rand(0), 2, rand(0, 3, dtype=np.float32),
                                          rand(0, 3, dtype=np.int32)),
    "weighted_histograms other shape": lambda: (RNG.random(5), rand(5), 2,
                                                rand(4, 5, dtype=np.float32),
                                                rand(5, 4, dtype=np.int32)),
    "grids": lambda: (rand(4, 6), 2, np.int32(3)),
    "grids empty": lambda: (rand(0, 3), 1, np.int32(0)),
    "grids negative step": lambda: (rand(3, 3), -1, np.int32(2)),
    "ufunc_outers": lambda: (rand(5), rand(2, 3, dtype=np.float32), ints(-20, 50, (6, 6),
                                                                        np.int32), 1.5),
    "ufunc_outers empty": lambda: (rand(0), rand(2, 0, dtype=np.float32),
                                   ints(0, 5, (0, 0), np.int32), 1.5),
}
# Compiled np.polyfit solves the normal equations where NumPy calls lstsq (an SVD); a float32
# norm sums in another order than NumPy's pairwise sum (its last bit may differ).
TOLERANCE = {"polyfits": 1e-7, "norms_ordered": 1e-6}


@pytest.fixture(scope="session")
def kernels(tmp_path_factory):
    return diffcheck.load_kernel_pair("numpy_calls", tmp_path_factory.mktemp("build-calls"))


@pytest.fixture
def on_device(kernels, monkeypatch):
    """The same compiled module with its nests forced onto the tested OpenCL device."""
    testdevice.tested_device()
    for switch in ("UNPY_DISABLE", "UNPY_GPU_MEM_LIMIT", "UNPY_REPLAY"):
        monkeypatch.delenv(switch, raising=False)
    monkeypatch.setenv("UNPY_DEVICE", testdevice.SPEC)
    monkeypatch.setenv("UNPY_FORCE_GPU", "1")
    return GpuPair(kernels.compiled, kernels.interpreted)


def test_every_function_has_a_case(kernels):
    functions = {f["name"] for f in kernels.compiled.__unpy_functions__.values()}
    assert functions and functions <= {case.split()[0] for case in CASES}


@pytest.mark.parametrize("case", list(CASES))
def test_construct(kernels, case):
    func = case.split()[0]
    kernels.check(func, *CASES[case](), rtol=TOLERANCE.get(func, 1e-12))


@pytest.mark.parametrize("case", sorted({case.split()[0] for case in CASES}))
def test_construct_on_the_device(on_device, case):
    """Each function once (its checks run on the host before its nests, as on OpenMP); some
    of its nests run on the device (scans and LAPACK calls stay on the host)."""
    _, report = on_device.check(case, *CASES[case](), rtol=TOLERANCE.get(case, 1e-9),
                                ran_on=None)
    assert any(nest.ran_on and nest.ran_on.startswith("opencl:") for nest in report.nests), \
        str(report)


@SETTINGS
@given(st.data(), st.integers(0, 4), st.integers(0, 4), st.integers(0, 4))
def test_tensordot_any_shapes(kernels, data, i, j, k):
    """Any lengths (empty, 1), views with steps; lengths that differ raise ValueError."""
    step = data.draw(st.sampled_from([1, -1, 2]))
    t = rand(i, j, abs(step) * k)[:, :, ::step]
    w = rand(data.draw(st.sampled_from([k, k, 1, k + 1])), i)
    v = rand(data.draw(st.sampled_from([j, j, j + 1])))
    kk = RNG.integers(-128, 128, (i, i)).astype(np.int8)
    kernels.check("tensordots", t, w, v, kk, rtol=1e-12)


@SETTINGS
@given(st.data(), st.integers(0, 3), st.integers(0, 3), st.integers(0, 3))
def test_stacked_products_any_shapes(kernels, data, b, n, k):
    """Stacks of any lengths (empty, 1: broadcast), views with steps; lengths that differ
    raise ValueError."""
    step = data.draw(st.sampled_from([1, -1, 2]))
    s = rand(b, n, abs(step) * n)[:, :, ::step]
    q = rand(data.draw(st.sampled_from([2, 1])), data.draw(st.sampled_from([b, 1, b + 1])), n, n)
    v = rand(data.draw(st.sampled_from([n, n, n + 1])))
    kk = RNG.integers(-300, 300, (b, k, k)).astype(np.int16)
    kernels.check("stacked_products", s, q, v, kk, rtol=1e-12)


@SETTINGS
@given(st.data(), st.integers(0, 4), st.integers(0, 4))
def test_take_along_axis_any_shapes(kernels, data, m, n):
    """Any lengths (empty, 1: broadcast), indices of any sign, in and out of range."""
    a = rand(m, n)
    if data.draw(st.booleans()):
        a = a.T.copy().T
    rows, cols = data.draw(st.sampled_from([(m, 2), (1, 3), (m, 0), (m + 1, 1)]))
    high = max(n, 1) + data.draw(st.sampled_from([0, 0, 0, 1]))
    idx = ints(-high, high, (rows, cols), np.int32)
    idx0 = ints(-max(m, 1), max(m, 1), (2, data.draw(st.sampled_from([n, 1]))), np.int8)
    v = rand(m * n)
    j = ints(-max(m * n, 1), max(m * n, 1), data.draw(st.integers(0, 4)))
    kernels.check("taken_along", a, idx, idx0, v, j, rtol=1e-12)


@SETTINGS
@given(st.data(), st.integers(1, 4), st.integers(1, 5))
def test_average_any_shapes(kernels, data, m, n):
    """Weights of any sign (sums of 0 raise ZeroDivisionError), lengths that differ
    (ValueError; compiled code checks the shapes of a statement before its values, so the
    weights of the others are positive there)."""
    a = rand(m, n)
    w0 = rand(data.draw(st.sampled_from([m, m, m + 1])))
    w = RNG.integers(-1 if len(w0) == m else 1, 3, (m, n)).astype(np.float64)
    k = RNG.integers(-5, 5, data.draw(st.integers(0, 4))).astype(np.int32)
    kernels.check("averages", a, w, w0, k, rand(3, 4, dtype=np.float32), rtol=1e-9)


@SETTINGS
@given(st.integers(0, 4), st.integers(0, 4), st.integers(0, 3), st.booleans())
def test_pad_any_shapes(kernels, m, n, k, view):
    """Any lengths (empty too), any width, views with negative and non-unit strides."""
    a = rand(m, 2 * n)
    a = a[::-1, ::2] if view else a[:, :n]
    kernels.check("pads", a, k, rand(n, m, dtype=np.int32)[::-1],
                  rand(m + n, dtype=np.float32)[::2], k - 1, rtol=0.0)


@SETTINGS
@given(st.integers(0, 4), st.integers(0, 4), st.integers(0, 9), st.integers(0, 9),
       st.booleans())
def test_pad_modes_any_shapes(kernels, m, n, b, c, view):
    """np.pad's 'edge', 'wrap', 'reflect' and 'symmetric' modes: any lengths (an empty axis to
    pad: ValueError), widths up to several times the array's length, views with negative and
    non-unit strides."""
    a = rand(m, 2 * n)
    a = a[::-1, ::2] if view else a[:, :n]
    kernels.check("pad_modes", a, b, c, rand(m + n, dtype=np.int32)[::-2],
                  rand(n, 2, m, dtype=np.float32)[:, ::-1], rtol=0.0)


@SETTINGS
@given(st.integers(1, 5), st.integers(1, 5), st.floats(0.1, 4), st.integers(0, 5))
def test_gradient_any_shapes(kernels, m, n, h, p):
    """Any lengths (too short: ValueError), any spacing."""
    kernels.check("gradients", rand(m, n), h, RNG.integers(-9, 9, p).astype(np.int32),
                  rand(m, n, dtype=np.float32), rtol=1e-9)


@SETTINGS
@given(st.data(), st.integers(0, 5))
def test_digitize_any_bins(kernels, data, n):
    """Bins rising, falling, flat or neither, with repeated edges; x on and between them."""
    edges = np.sort(RNG.integers(0, 6, n)).astype(np.float64)
    order = data.draw(st.sampled_from(["rise", "fall", "shuffle"]))
    edges = edges[::-1].copy() if order == "fall" else RNG.permutation(edges) \
        if order == "shuffle" else edges
    x = RNG.integers(-1, 7, (2, 3)) * 1.0
    k = np.sort(RNG.integers(0, 6, 4)).astype(np.int32)
    kernels.check("digitized", x, edges, k, float(data.draw(st.integers(-1, 7))))


@SETTINGS
@given(st.integers(0, 3), st.integers(0, 4), st.sampled_from([-1.0, 0.0, 2.5]))
def test_polyfit_any_degree(kernels, deg, extra, shift):
    """Degrees 0 to 3 from the fewest points that determine them on (3 for the fit of
    degree 2: a rank-deficient fit is a documented difference)."""
    n = max(deg + 1 + extra, 3)
    x = np.linspace(shift, shift + 1.0, n)
    kernels.check("polyfits", x, rand(n), rand(n, 2), deg,
                  np.arange(max(n, 2), dtype=np.int32), rtol=1e-7)


@SETTINGS
@given(st.integers(0, 4), st.integers(1, 5), st.floats(0, 1), st.booleans())
def test_quantile_along_any_shapes(kernels, m, n, q, ties):
    """Any number of rows, rows of any length, any q, repeated values."""
    a = RNG.integers(0, 3, (m, n)) * 1.0 if ties else rand(m, n)
    kernels.check("quantiles_along", a, q, rand(2, m, n, dtype=np.int32),
                  rand(m, n, dtype=np.float32), rtol=1e-12)


@SETTINGS
@given(st.integers(0, 9), st.integers(1, 5), st.booleans())
def test_ufunc_outer_any_shapes(kernels, n, m, view):
    p = ints(-20, 60, (n, n), np.int32)
    kernels.check("ufunc_outers", rand(n)[::-1] if view else rand(n),
                  rand(m, n + 1, dtype=np.float32)[:, ::2], p.T if view else p, -0.5)


def compile_error(body, match):
    with pytest.raises(CompileError, match=match):
        irtools.typed(body)


@pytest.mark.parametrize("body, match", [
    ("""
        @unpython.type('ndarray[float64, 2]', 'ndarray[float64, 2]', 'float64')
        def f(a, b):
            return np.tensordot(a, b, axes=k)
     """, r"axes of np.tensordot\(\) must be written out"),
    ("""
        @unpython.type('ndarray[float64, 2]', 'ndarray[float64, 2]', 'float64')
        def f(a, b):
            return np.tensordot(a, b)
     """, r"gives a 0-d array.*np.sum\(a \* b\)"),
    ("""
        @unpython.type('ndarray[float64, 2]', 'ndarray[float64, 2]', 'ndarray[float64, 2]')
        def f(a, b):
            return np.tensordot(a, b, axes=([0], [0, 1]))
     """, r"sums over 1 axes of a and 2 of b"),
    ("""
        @unpython.type('ndarray[bool, 2]', 'ndarray[float64, 2]', 'ndarray[float64, 2]')
        def f(a, b):
            return np.tensordot(a, b, axes=1)
     """, r"np.tensordot\(\) of ndarray\[bool, 2\] is not supported"),
    ("""
        @unpython.type('ndarray[float64, 2]', 'ndarray[float64, 1]', 'ndarray[float64, 2]')
        def f(a, i):
            return np.take_along_axis(a, i, axis=1)
     """, r"must be an integer array"),
    ("""
        @unpython.type('ndarray[float64, 2]', 'ndarray[int64, 1]', 'ndarray[float64, 2]')
        def f(a, i):
            return np.take_along_axis(a, i, axis=1)
     """, r"same number of dimensions"),
    ("""
        @unpython.type('ndarray[float64, 2]', 'ndarray[int64, 2]', 'ndarray[float64, 1]')
        def f(a, i):
            return np.take_along_axis(a, i, axis=None)
     """, r"when axis=None, the indices of np.take_along_axis\(\) must have a single"),
    ("""
        @unpython.type('int64', 'ndarray[float64, 1]', 'ndarray[float64, 1]')
        def f(n, a):
            return np.ndarray((n,), buffer=a)
     """, r"buffer is not supported in compiled functions; write np.empty\(shape, dtype=...\)"),
    ("""
        @unpython.type('ndarray[float64, 1]', 'ndarray[float64, 1]', 'float64')
        def f(a, w):
            return np.average(a, weights=w, returned=True)[0]
     """, r"returned=True\) is not supported.*np.sum\(weights, axis\)"),
    ("""
        @unpython.type('ndarray[float64, 2]', 'ndarray[float64, 1]', 'float64')
        def f(a, w):
            return np.average(a, weights=w)
     """, r"axis must be specified when shapes of a and weights differ"),
    ("""
        @unpython.type('ndarray[float64, 1]', 'ndarray[float64, 1]', 'ndarray[float64, 1]')
        def f(a, x):
            return np.gradient(a, x)
     """, r"give each axis's uniform step as a number.*np.diff\(f\) / np.diff\(x\)"),
    ("""
        @unpython.type('ndarray[float64, 1]', 'ndarray[float64, 1]')
        def f(a):
            return np.gradient(a, edge_order=3)
     """, r"edge_order of np.gradient\(\) must be 1 or 2"),
    ("""
        @unpython.type('ndarray[float64, 2]', 'ndarray[float64, 2]', 'ndarray[float64, 2]')
        def f(a, b):
            return np.cross(a, b, axisa=0)
     """, r"along the last axis.*transpose the arrays first"),
    ("""
        @unpython.type('ndarray[float64, 1]', 'ndarray[float64, 2]', 'ndarray[int64, 1]')
        def f(x, bins):
            return np.digitize(x, bins)
     """, r"bins of np.digitize\(\) must be a 1-D array"),
    ("""
        @unpython.type('ndarray[float64, 1]', 'ndarray[float64, 1]', 'ndarray[float64, 1]')
        def f(x, y):
            return np.polyfit(x, y, 2, w=y)
     """, r"np.polyfit\(\) with w= is not supported"),
    ("""
        @unpython.type('ndarray[float64, 1]', 'ndarray[float64, 1]', 'ndarray[float64, 1]')
        def f(x, y):
            return np.polyfit(x, y, 1) if x.size > 2 else y
     """, r"write it in a statement of its own"),
    ("""
        @unpython.type('ndarray[float64, 3]', 'ndarray[float64, 1]')
        def f(a):
            return a.var(axis=(0, 1))
     """, r"np.var\(\) over a tuple of axes is not supported.*reduce one axis at a time"),
    ("""
        @unpython.type('ndarray[float64, 3]', 'ndarray[float64, 1]')
        def f(a):
            return a.sum(axis=(0, -3))
     """, r"duplicate value in 'axis'"),
    ("""
        @unpython.type('ndarray[float64, 2]', 'float64')
        def f(a):
            return a.sum(axis=(0, 2))
     """, r"axis 2 is out of bounds for an array of 2 dimension"),
    ("""
        @unpython.type('ndarray[float64, 2]', 'float64')
        def f(a):
            return np.linalg.norm(a, 2)
     """, r"of a matrix with ord=2 is not supported.*singular values"),
    ("""
        @unpython.type('ndarray[float64, 1]', 'float64')
        def f(x):
            return np.linalg.norm(x, 'fro')
     """, r"ord='fro' is a matrix norm; this is a vector"),
    ("""
        @unpython.type('ndarray[float64, 1]', 'float64', 'float64')
        def f(x, p):
            return np.linalg.norm(x, p)
     """, r"the ord of np.linalg.norm\(\) must be written out"),
    ("""
        @unpython.type('ndarray[float64, 3]', 'ndarray[float64, 1]')
        def f(a):
            return np.linalg.norm(a, 1, axis=(1, 2))
     """, r"ord and a tuple of axes"),
    ("""
        @unpython.type('ndarray[float64, 1]', 'ndarray[float64, 1]')
        def f(a):
            return np.pad(a, 2, mode='linear_ramp')
     """, r"np.pad\(\) takes mode 'constant' \(the default\), 'edge', 'wrap', 'reflect' or "
         r"'symmetric'.*assign the border's slices"),
    ("""
        @unpython.type('ndarray[float64, 1]', 'ndarray[float64, 1]')
        def f(a):
            return np.pad(a, 2, mode='edge', constant_values=1.0)
     """, r"constant_values only with mode='constant'"),
    ("""
        @unpython.type('ndarray[float64, 1]', 'ndarray[float64, 1]')
        def f(a):
            return np.pad(a, 2, constant_values=(1, 2))
     """, r"one constant_values number"),
    ("""
        @unpython.type('ndarray[float64, 2]', 'ndarray[float64, 2]')
        def f(a):
            return np.pad(a, ((1, 2), (0, 3), (1, 1)))
     """, r"one \(before, after\) or one per axis \(2\); 3 are given"),
    ("""
        @unpython.type('ndarray[float64, 1]', 'float64', 'ndarray[float64, 1]')
        def f(a, w):
            return np.pad(a, w)
     """, r"the pad widths of np.pad\(\) must be integers"),
    ("""
        @unpython.type('int64', 'ndarray[float64, 2]')
        def f(n):
            return np.mgrid[0:1:5j, 0:n][0]
     """, r"np.mgrid\[...\] takes slices start:stop:step of integers.*np.meshgrid\(np.linspace"),
    ("""
        @unpython.type('float64', 'ndarray[float64, 2]')
        def f(x):
            return np.ogrid[0:x, 0:2][0]
     """, r"np.ogrid\[...\] takes integer slices in compiled code, got float64"),
    ("""
        @unpython.type('ndarray[float64, 1]', 'ndarray[float64, 2]')
        def f(a):
            return np.sqrt.outer(a, a)
     """, r"np.sqrt.outer\(a, b\) is supported in compiled code for the ufuncs of two"),
])
def test_refused_forms_say_what_to_write(body, match):
    compile_error(body, match)
