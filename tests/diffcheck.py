"""Differential testing: build a kernel module of tests/kernels once, load the compiled module
beside the interpreted one, call the same function of both on the same inputs and compare.

The interpreter is the reference (SPEC section 1). Inputs are copied for each side, so in-place
writes are compared too.
"""
from __future__ import annotations

import copy
import fcntl
import importlib.util
import math
import os
import sys
import warnings
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import numpy as np

TESTS = Path(__file__).resolve().parent
REPO = TESTS.parent
KERNELS = TESTS / "kernels"
# Modules of tests/kernels, in the order a test worker builds them ahead of need.
KERNEL_MODULES = ["numpy_exprs", "arith", "loops", "arrays", "prange", "mathfuncs", "checked",
                  "python_forms", "complex_numbers", "signatures"]
BOUNDSCHECKED = {"checked"}
FASTMATH = {"matmul_loops", "native_draws"}


@contextmanager
def build_lock(name: str, wait: bool = True):
    """One builder of a kernel module at a time across pytest-xdist workers (the others then
    find it in the build cache). Yields whether the lock is held: always, when `wait`."""
    from unpy.cpp_emit.build import cache_dir
    locks = cache_dir().parent / "test-locks"
    locks.mkdir(parents=True, exist_ok=True)
    with open(locks / f"{name}.lock", "w") as f:
        try:
            fcntl.flock(f, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
        except BlockingIOError:
            yield False
            return
        try:
            yield True
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


def _options(name):
    from unpy.cpp_emit.build import BuildOptions
    return BuildOptions(boundscheck=name in BOUNDSCHECKED, fastmath=name in FASTMATH)


def _build(name: str, out_dir: Path) -> Path:
    from unpy.cpp_emit.build import build
    return build(str(KERNELS / f"{name}.py"), str(out_dir), _options(name)).output


def _in_cache(name: str) -> bool:
    from unpy.cpp_emit.build import build_key, cache_dir, extension_suffix
    path = KERNELS / f"{name}.py"
    key = build_key(path.read_text(), _options(name), str(path))
    return (cache_dir() / key / f"{name}{extension_suffix()}").exists()


def build_kernel_module(name: str, out_dir: Path) -> Path:
    """Build tests/kernels/<name>.py into out_dir (from the build cache when it is there). While
    another worker builds this one, build one that nobody has built yet."""
    with build_lock(name, wait=False) as mine:
        if mine:
            return _build(name, out_dir)
    for other in KERNEL_MODULES:
        if other != name and not _in_cache(other):
            with build_lock(other, wait=False) as mine:
                if mine:
                    _build(other, out_dir / "ahead")
                    break
    with build_lock(name):
        return _build(name, out_dir)


def _load(module_name: str, path: Path):
    spec = importlib.util.spec_from_file_location(module_name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module      # explain() finds a compiled module by its name
    spec.loader.exec_module(module)
    return module


@dataclass
class KernelPair:
    """A kernel module twice: compiled (the extension module) and interpreted (the .py)."""
    name: str
    compiled: object
    interpreted: object

    def run(self, func: str, *args):
        """(interpreter outcome, compiled outcome, interpreter args, compiled args) of one call on
        copies of `args`; an outcome is ('ok', value) or ('raise', exception)."""
        py_args, c_args = copy_args(args), copy_args(args)
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            expected = _outcome(getattr(self.interpreted, func), py_args)
        got = _outcome(getattr(self.compiled, func), c_args)
        return expected, got, py_args, c_args

    def check(self, func: str, *args, rtol=0.0, check_dtype=True):
        """Assert that both sides return the same value (and dtype), raise the same exception
        type, and leave the array and list arguments equal. Returns the compiled result."""
        expected, got, py_args, c_args = self.run(func, *args)
        call = f"{func}{_show_args(args)}"
        if expected[0] == "raise":
            assert got[0] == "raise", (
                f"{call}: the interpreter raised {expected[1]!r}, compiled returned {got[1]!r}")
            assert type(got[1]) is type(expected[1]), (
                f"{call}: the interpreter raised {expected[1]!r}, compiled raised {got[1]!r}")
            return got[1]
        assert got[0] == "ok", f"{call}: compiled raised {got[1]!r}, expected {expected[1]!r}"
        assert_same(expected[1], got[1], rtol=rtol, check_dtype=check_dtype, what=call)
        for k, (a, b) in enumerate(zip(py_args, c_args)):
            if isinstance(a, (np.ndarray, list)):
                assert_same(a, b, rtol=rtol, what=f"{call}: argument {k} after the call")
        return got[1]


def copy_args(args):
    """Copies of `args`; arrays that share memory share it in the copies as they did (a test of
    `f(a, a)` or `f(a, a[::-1])` must test aliasing, not two arrays)."""
    arrays = [k for k, a in enumerate(args) if isinstance(a, np.ndarray) and a.size]
    bounds = {k: np.lib.array_utils.byte_bounds(args[k]) for k in arrays}
    components = []          # [[low, high, [indices]]], by overlapping bytes
    for k in sorted(arrays, key=lambda k: bounds[k]):
        low, high = bounds[k]
        if components and low < components[-1][1]:
            components[-1][1] = max(components[-1][1], high)
            components[-1][2].append(k)
        else:
            components.append([low, high, [k]])
    copies = {}
    for low, high, members in components:
        buffer = np.empty(high - low, np.uint8)
        for k in members:
            a = args[k]
            offset = a.__array_interface__["data"][0] - low
            view = np.ndarray(a.shape, a.dtype, buffer=buffer, offset=offset, strides=a.strides)
            view[...] = a
            view.flags.writeable = a.flags.writeable
            copies[k] = view
    return tuple(copies[k] if k in copies else copy_view(a) if isinstance(a, np.ndarray)
                 else copy.deepcopy(a) if isinstance(a, list) else copy.copy(a)
                 for k, a in enumerate(args))


def copy_view(a: np.ndarray) -> np.ndarray:
    """A copy of `a` with the same strides (in a new buffer spanning the same bytes): the
    compiled code must see the layout the test chose (deepcopy would make a compact array)."""
    if a.size == 0:
        view = a.copy()
    else:
        low, high = np.lib.array_utils.byte_bounds(a)
        buffer = np.empty(high - low, np.uint8)
        offset = a.__array_interface__["data"][0] - low
        view = np.ndarray(a.shape, a.dtype, buffer=buffer, offset=offset, strides=a.strides)
        view[...] = a
    view.flags.writeable = a.flags.writeable
    return view


def _outcome(f, args):
    try:
        return ("ok", f(*args))
    except Exception as e:      # the comparison is the test
        return ("raise", e)


def _show_args(args):
    parts = []
    for a in args:
        if isinstance(a, np.ndarray):
            parts.append(f"ndarray({a.dtype}, shape={a.shape}, strides={a.strides})")
        else:
            parts.append(f"{type(a).__name__}({a!r})")
    return "(" + ", ".join(parts) + ")"


def scalar_dtype(x):
    """The NumPy dtype a scalar result has (Python bool/int/float map to bool/int64/float64)."""
    return np.asarray(x).dtype


def _same_float(a: float, b: float, rtol: float) -> bool:
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    if rtol and math.isfinite(a):
        return math.isclose(a, b, rel_tol=rtol, abs_tol=rtol)
    return a == b and math.copysign(1, a) == math.copysign(1, b)


def assert_same(expected, got, rtol=0.0, check_dtype=True, what="result"):
    """Equal values (NaN equals NaN, 0.0 and -0.0 differ unless rtol > 0). With `check_dtype`,
    a scalar result has the dtype the interpreter's NumPy scalar has; Python scalars from the
    interpreter only fix the kind (bool, int, float). Tuples and lists compare item by item."""
    if isinstance(expected, (tuple, list)):
        kind = type(expected).__name__
        assert type(got) is type(expected) and len(got) == len(expected), (
            f"{what}: expected a {kind} of {len(expected)}, got {got!r}")
        for k, (x, y) in enumerate(zip(expected, got)):
            assert_same(x, y, rtol, check_dtype, f"{what}: item {k}")
        return
    if isinstance(expected, np.ndarray):
        assert isinstance(got, np.ndarray), f"{what}: expected an array, got {got!r}"
        assert got.dtype == expected.dtype, f"{what}: dtype {got.dtype} != {expected.dtype}"
        assert got.shape == expected.shape, f"{what}: shape {got.shape} != {expected.shape}"
        if expected.dtype.kind == "c":
            assert_same(expected.real, got.real, rtol, check_dtype, f"{what} (real parts)")
            assert_same(expected.imag, got.imag, rtol, check_dtype, f"{what} (imaginary parts)")
            return
        if expected.dtype.kind == "f":
            ok = (np.isclose(got, expected, rtol=rtol, atol=rtol, equal_nan=True) if rtol else
                  (got == expected) & (np.signbit(got) == np.signbit(expected))
                  | (np.isnan(got) & np.isnan(expected)))
            assert np.all(ok), f"{what}: arrays differ\nexpected {expected}\ngot      {got}"
        else:
            assert np.array_equal(got, expected), (
                f"{what}: arrays differ\nexpected {expected}\ngot      {got}")
        return
    if expected is None:
        assert got is None, f"{what}: expected None, got {got!r}"
        return
    assert np.isscalar(got), f"{what}: expected a scalar, got {got!r}"
    if check_dtype:
        if isinstance(expected, np.generic):
            assert scalar_dtype(got) == expected.dtype, (
                f"{what}: result dtype {scalar_dtype(got)} != the interpreter's {expected.dtype}")
        else:
            assert scalar_dtype(got).kind == scalar_dtype(expected).kind, (
                f"{what}: result {got!r} is not of the kind of the interpreter's {expected!r}")
    if scalar_dtype(expected).kind == "c" or scalar_dtype(got).kind == "c":
        assert _same_float(float(expected.real), float(got.real), rtol) and _same_float(
            float(expected.imag), float(got.imag), rtol), f"{what}: {got!r} != {expected!r}"
    elif scalar_dtype(expected).kind == "f" or scalar_dtype(got).kind == "f":
        assert _same_float(float(expected), float(got), rtol), f"{what}: {got!r} != {expected!r}"
    else:
        assert int(got) == int(expected), f"{what}: {got!r} != {expected!r}"


def load_kernel_pair(name: str, out_dir: Path) -> KernelPair:
    so = build_kernel_module(name, out_dir)
    compiled = _load(name, so)
    interpreted = _load(f"interpreted_{name}", KERNELS / f"{name}.py")
    return KernelPair(name, compiled, interpreted)


def ensure_cache_dir():
    """`make test` sets UNPY_CACHE_DIR to the repository's .unpy-cache; do the same when pytest
    runs on its own, so that test builds never land in the user's home cache."""
    os.environ.setdefault("UNPY_CACHE_DIR", str(REPO / ".unpy-cache"))


def assert_ran_on(pair, func, device):
    """Every nest of `func`'s last call ran where `device` says ('gpu': on an OpenCL device;
    else on OpenMP): tests/differential/conftest.py's `device` fixture."""
    import unpython
    report = unpython.explain(getattr(pair.compiled, func))
    where = [n.ran_on for n in report.nests]
    assert where and all(w.startswith("opencl:") if device == "gpu" else w == "openmp"
                         for w in where), str(report)
