"""Atomic updates (tests/jitgpu/atomic_kernels.py) against the interpreter, on the tested OpenCL
device and on OpenMP (2 threads or more, so updates of one element really meet): histograms of
every dtype, min/max scatters, bitwise and product updates, updates in an inner loop and in a
2-level nest. Floating-point sums use integer values, which add exactly in any order."""
from pathlib import Path

import numpy as np
import pytest

import testdevice
from modulepair import gpu_pair

RNG = np.random.default_rng(19)
N = 60_000


@pytest.fixture(scope="session")
def atomic(tmp_path_factory):
    """tests/jitgpu/atomic_kernels.py, compiled and interpreted."""
    return gpu_pair(Path(__file__).parent / "atomic_kernels.py",
                    tmp_path_factory.mktemp("build-atomic_kernels"))


def bins(n, k=16):
    """Indices into k bins, negative ones (counting from the end) included."""
    return RNG.integers(-k, k, n)


def values(n, dtype, low=-8, high=9):
    return RNG.integers(low, high, n).astype(dtype)


def cases():
    """(function, arguments)."""
    return [
        ("hist_int64", (bins(N), values(N, np.int64), np.zeros(16, np.int64))),
        ("hist_int32", (bins(N), values(N, np.int32), np.zeros(16, np.int32))),
        ("hist_float64", (bins(N), values(N, np.float64), np.zeros(16))),
        ("hist_float32", (bins(N), values(N, np.float32), np.zeros(16, np.float32))),
        ("scatter_max_float64", (bins(N, 40), RNG.standard_normal(N), np.full(40, -np.inf))),
        ("scatter_min_float32", (bins(N, 40), RNG.standard_normal(N).astype(np.float32),
                                 np.full(40, np.inf, np.float32))),
        ("scatter_min_int64", (bins(N, 40), values(N, np.int64, -10**15, 10**15),
                               np.full(40, 2**62, np.int64))),
        ("scatter_max_int32", (bins(N, 40), values(N, np.int32, -2**31, 2**31 - 1),
                               np.full(40, -2**31, np.int32))),
        ("column_sums", (values(N, np.int64).reshape(-1, 12), np.zeros(12, np.int64))),
        ("image_hist", (RNG.integers(0, 9, (300, 200)), np.zeros(9, np.int32))),
        ("bitsets", (values(N, np.int64, 0, 2**40), np.zeros(8, np.int64),
                     np.zeros(4, np.int32))),
        ("products", (bins(200, 5), np.ones(5, np.int64))),
    ]


NAMES = [c[0] for c in cases()]


@pytest.mark.parametrize("where", ["opencl", "openmp"])
@pytest.mark.parametrize("case", range(len(NAMES)), ids=NAMES)
def test_atomic_updates_match_the_interpreter(atomic, device_env, where, case):
    if where == "openmp":
        device_env.setenv("UNPY_DEVICE", "none")
    func, args = cases()[case]
    atomic.check(func, *args, ran_on="opencl:" if where == "opencl" else None)


def test_openmp_threads_lose_no_update(atomic, device_env):
    """Enough updates for the threads to meet: without the atomic, 2 threads lost up to
    500,000 of these 2,000,000 in half of the runs on a 2-core machine."""
    device_env.setenv("UNPY_DEVICE", "none")
    b = RNG.integers(0, 16, 2_000_000)
    expected = np.bincount(b, minlength=16)
    for _ in range(5):
        hist = np.zeros(16, np.int64)
        atomic.compiled.hist_int64(b, np.ones(b.size, np.int64), hist)
        assert np.array_equal(hist, expected)


def test_byte_updates_run_on_openmp_with_the_reason(atomic):
    atomic.check("hist_uint8", bins(N), np.zeros(16, np.uint8), ran_on="openmp",
                 reason="an atomic update of uint8 elements is not supported on the GPU")


@pytest.mark.parametrize("func, dtype", [("hist_complex128", np.complex128),
                                         ("hist_complex64", np.complex64)])
def test_complex_sums_are_atomic_on_openmp(atomic, device_env, func, dtype):
    """A complex element's sum: its real and imaginary parts each an atomic sum (OpenMP, 2
    threads, integer values: exact in any order); on the device the nest stays on OpenMP."""
    device_env.setenv("UNPY_DEVICE", "none")
    b = bins(200_000)
    w = (values(b.size, np.float64) + 1j * values(b.size, np.float64)).astype(dtype)
    hist = np.zeros((16, 2) if dtype == np.complex128 else 16, dtype)
    atomic.check(func, b, w, hist, ran_on=None)
    device_env.setenv("UNPY_DEVICE", testdevice.SPEC)
    atomic.check(func, b[:1000], w[:1000], hist[:], ran_on="openmp",
                 reason=f"an atomic update of {np.dtype(dtype).name} elements is not supported "
                        "on the GPU")


def test_every_loop_optimisation_keeps_updates_atomic(atomic, device_env):
    """UNPY_GPU_OPT=all unrolls column_sums' loops; `none` keeps them: both give the same."""
    for opt in ("none", "all"):
        device_env.setenv("UNPY_GPU_OPT", opt)
        atomic.check("column_sums", values(N, np.int64).reshape(-1, 12),
                     np.zeros(12, np.int64))


def test_tiles_of_a_memory_limit_update_one_histogram(atomic, device_env):
    """A nest cut into tiles to fit the device's memory: every tile updates the whole
    histogram, which each copies in and back in turn."""
    device_env.setenv("UNPY_GPU_MEM_LIMIT", str(200_000))
    _, report = atomic.check("hist_int64", bins(100_000), values(100_000, np.int64),
                             np.zeros(16, np.int64))
    assert "tile" in str(report), str(report)


@pytest.mark.parametrize("func, dtype, atomic_call", [
    ("hist_int32", np.int32, "atomic_add("), ("hist_int64", np.int64, "atom_add("),
    ("hist_float32", np.float32, "atomic_cmpxchg("), ("hist_float64", np.float64,
                                                      "atom_cmpxchg(")])
def test_the_kernel_updates_atomically(atomic, func, dtype, atomic_call):
    _, report = atomic.check(func, bins(1000), values(1000, dtype), np.zeros(16, dtype))
    source = report.nests[0].source
    assert atomic_call in source and "#pragma OPENCL FP_CONTRACT OFF" in source
    assert ("cl_khr_int64_base_atomics" in source) == (dtype in (np.int64, np.float64))


def test_private_copies_where_a_nest_only_adds_to_an_array():
    """The OpenMP code of a nest that only adds to (or subtracts from) an array updates a
    private copy per thread where it may (unpy/cpp_emit/emit.py private_updates); min, max,
    bitwise and product updates stay atomic."""
    from unpy.cpp_emit.emit import private_updates
    from unpy.pipeline import compile_to_ir
    from unpy.typeinfer.reductions import walk_stmts
    from unpy import ir
    path = Path(__file__).parent / "atomic_kernels.py"
    module = compile_to_ir(str(path), path.read_text())
    found = {}
    for fn in module.functions:
        nests = [s for s in walk_stmts(fn.body) if isinstance(s, ir.For) and s.parallel]
        found[fn.name] = private_updates(nests[0], fn)
    assert found == {"hist_int64": ("hist",), "hist_int32": ("hist",),
                     "hist_float64": ("hist",), "hist_float32": ("hist",),
                     "scatter_max_float64": (), "scatter_min_float32": (),
                     "scatter_min_int64": (), "scatter_max_int32": (),
                     "column_sums": ("sums",), "image_hist": ("hist",), "bitsets": (),
                     "products": (), "hist_uint8": ("hist",),
                     "hist_complex128": (), "hist_complex64": (),     # (parts atomic)
                     "rows_added": ("y",), "scaled_subtracted": ("out",),
                     "local_arrays_added": (), "arrays_multiplied": ()}


@pytest.mark.parametrize("hist", [
    np.zeros(N, np.int64),              # as many bins as updates: atomic updates
    np.zeros(32, np.int64)[::2],        # not contiguous: atomic updates
    np.zeros(16, np.int64),             # private copies
], ids=["many bins", "strided", "few bins"])
def test_openmp_histograms_of_every_kind(atomic, device_env, hist):
    device_env.setenv("UNPY_DEVICE", "none")
    atomic.check("hist_int64", bins(N, hist.size), values(N, np.int64), hist, ran_on=None)


def test_openmp_empty_histograms(atomic, device_env):
    """No bins and no updates (the private copy's condition holds, its copy is empty: that
    crashed the process), and no bins with updates (IndexError, as the interpreter)."""
    device_env.setenv("UNPY_DEVICE", "none")
    empty = np.zeros(0, np.int64)
    atomic.check("hist_int64", empty, empty, np.zeros(0, np.int64), ran_on=None)
    atomic.check("hist_int64", np.zeros(5, np.int64), np.ones(5, np.int64),
                 np.zeros(0, np.int64), ran_on=None)


def whole_arrays(n=3000, k=5):
    """Integer values, which add exactly in any order."""
    x = values(n * k, np.float64).reshape(n, k)
    return [
        ("rows_added", (x,)),
        ("scaled_subtracted", (x, values(k, np.float64).reshape(1, k), np.zeros((k, k)))),
        ("scaled_subtracted", (x, values(k, np.float64).reshape(k, 1), np.ones((k, k)))),
        ("scaled_subtracted", (x, values(k * k, np.float64).reshape(k, k), np.zeros((k, k)))),
        ("scaled_subtracted", (x[:0], np.ones((1, 1)), np.zeros((k, k)))),
        ("local_arrays_added", ((x + 1j * x[:, ::-1]).astype(np.complex128),
                                np.zeros((k, 3), np.complex128))),
        ("arrays_multiplied", (20,)),
        ("arrays_multiplied", (0,)),
    ]


@pytest.mark.parametrize("where", ["opencl", "openmp"])
@pytest.mark.parametrize("case", range(len(whole_arrays())))
def test_whole_arrays_added_up_by_the_iterations(atomic, device_env, where, case):
    """`y += x[i]` in a prange (Numba's array reductions), also where the added array
    broadcasts into `y` in a way known only at the call, or is the iteration's own."""
    if where == "openmp":
        device_env.setenv("UNPY_DEVICE", "none")
    func, args = whole_arrays()[case]
    atomic.check(func, *args, ran_on=None)


def test_a_whole_array_added_that_cannot_broadcast_raises_as_numpy(atomic, device_env):
    device_env.setenv("UNPY_DEVICE", "none")
    x = np.ones((10, 4))
    for compiled in (True, False):
        f = (atomic.compiled if compiled else atomic.interpreted).scaled_subtracted
        with pytest.raises(ValueError, match="could not be broadcast"):
            f(x, np.ones((2, 4)), np.zeros((4, 4)))
