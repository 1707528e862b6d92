"""Building, loading and comparing the GPU-path kernel modules (tests/jitgpu/conftest.py makes
the fixtures): each module of tests/jitgpu is built once per session (and per pytest-xdist
worker, through the build cache), loaded compiled and interpreted, and a call of both is compared
with the interpreter as the reference."""
from __future__ import annotations

import copy
import fcntl
import importlib.util
import sys
import warnings
from dataclasses import dataclass
from pathlib import Path

import numpy as np

import diffcheck

HERE = Path(__file__).resolve().parent
# module -> built with --boundscheck
MODULES = {"gpu_kernels": False, "gpu_checked": True, "resident_kernels": False,
           "numpy_exprs": False, "complex_numbers": False, "signatures": False,
           "time_loops": False}


def module_path(name: str) -> Path:
    """A module of tests/jitgpu, or of tests/kernels (shared with the OpenMP tests)."""
    here = HERE / f"{name}.py"
    return here if here.exists() else diffcheck.KERNELS / f"{name}.py"


def _lock_file(name: str):
    from unpy.cpp_emit.build import cache_dir
    locks = cache_dir().parent / "test-locks"
    locks.mkdir(parents=True, exist_ok=True)
    return open(locks / f"jitgpu-{name}.lock", "w")


def build_module(name: str, out_dir: Path) -> Path:
    """Build tests/jitgpu/<name>.py into out_dir; while another worker builds it, build the other
    module meanwhile (both then come from the build cache)."""
    from unpy.cpp_emit.build import BuildOptions, build

    def do_build(module, where):
        return build(str(module_path(module)), str(where),
                     BuildOptions(boundscheck=MODULES[module])).output

    lock = _lock_file(name)
    try:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            for other in MODULES:
                if other == name:
                    continue
                other_lock = _lock_file(other)
                try:
                    fcntl.flock(other_lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    do_build(other, out_dir / "scratch")
                except BlockingIOError:
                    pass
                finally:
                    other_lock.close()
            fcntl.flock(lock, fcntl.LOCK_EX)
        return do_build(name, out_dir)
    finally:
        lock.close()


def load_module(module_name: str, path: Path):
    spec = importlib.util.spec_from_file_location(module_name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module      # explain() finds a compiled module by its name
    spec.loader.exec_module(module)
    return module


class _Bytes:
    """Bytes [lo, hi) of memory that `keep` holds, as an array interface."""

    def __init__(self, keep, lo, hi):
        self.keep = keep
        self.__array_interface__ = {"version": 3, "shape": (hi - lo,), "typestr": "|u1",
                                    "data": (lo, True)}


def clone_args(args):
    """(copies of `args`, the copied buffers). Unlike copy.deepcopy, which makes each array
    contiguous, every array keeps its layout (offset, strides of any sign, zero strides, order,
    read-only flag), and arrays that view one buffer view one copy of it. Each buffer comes as
    an array of the dtype of its first view where that fits (to compare what a call left
    outside the views too), else as bytes."""
    from unpy.host_memory import memory_root
    buffers, out = {}, []
    for a in args:
        if not isinstance(a, np.ndarray):
            out.append(copy.deepcopy(a))
            continue
        root = memory_root(a)
        lo, hi = np.lib.array_utils.byte_bounds(root)
        if id(root) not in buffers:
            buffers[id(root)] = (lo, np.asarray(_Bytes(root, lo, hi)).copy())
        start, buffer = buffers[id(root)]
        view = np.ndarray(a.shape, a.dtype, buffer, a.__array_interface__["data"][0] - start,
                          a.strides)
        view.flags.writeable = a.flags.writeable
        out.append(view)
    whole = []
    for a in args:
        if isinstance(a, np.ndarray) and id(memory_root(a)) in buffers:
            lo, buffer = buffers.pop(id(memory_root(a)))
            fits = (buffer.size % a.itemsize == 0
                    and (a.__array_interface__["data"][0] - lo) % a.itemsize == 0)
            whole.append(buffer.view(a.dtype) if fits else buffer)
    return out, whole


@dataclass
class Outcome:
    value: object = None
    error: BaseException | None = None


def _call(f, args) -> Outcome:
    try:
        return Outcome(f(*args))
    except Exception as e:      # the comparison is the test
        return Outcome(error=e)


@dataclass
class GpuPair:
    """A kernel module twice: compiled (through jitgpu) and interpreted (the reference)."""
    compiled: object
    interpreted: object

    def explain(self, func: str):
        import unpython
        return unpython.explain(getattr(self.compiled, func))

    def run(self, func: str, make):
        """Call `func` of both modules on fresh arguments: `make()` returns (args, observed),
        the arguments and the arrays whose contents the call may change (views of one buffer
        stay views of one buffer). Returns ((interpreter outcome, observed), (compiled ...))."""
        sides = []
        for module in (self.interpreted, self.compiled):
            args, observed = make()
            with warnings.catch_warnings(), np.errstate(all="ignore"):
                warnings.simplefilter("ignore")
                outcome = _call(getattr(module, func), args)
            sides.append((outcome, observed))
        return sides

    def check(self, func: str, *args, rtol: float = 0.0, ran_on: str | None = "opencl:",
              reason: str | None = None):
        """Compare `func(*args)` compiled and interpreted (on copies of `args`); every nest must
        have run on `ran_on` ('opencl:' a device, 'openmp' the fallback; None: no check), with
        `reason` in its reason. Returns (compiled result or the exception it raised, report)."""
        def make():
            fresh, buffers = clone_args(args)
            return fresh, [a for a in fresh if isinstance(a, np.ndarray)] + buffers
        return self.check_fresh(func, make, rtol=rtol, ran_on=ran_on, reason=reason)

    def check_fresh(self, func: str, make, rtol: float = 0.0, ran_on: str | None = "opencl:",
                    reason: str | None = None):
        """`check` with arguments from `make()` (see `run`)."""
        (expected, py_arrays), (got, c_arrays) = self.run(func, make)
        report = self.explain(func)
        what = f"{func}: {report}"
        if expected.error is not None:
            assert got.error is not None, (
                f"{what}\nthe interpreter raised {expected.error!r}, compiled returned "
                f"{got.value!r}")
            assert type(got.error) is type(expected.error), (
                f"{what}\nthe interpreter raised {expected.error!r}, compiled raised "
                f"{got.error!r}")
        else:
            assert got.error is None, (
                f"{what}\ncompiled raised {got.error!r}, expected {expected.value!r}")
            diffcheck.assert_same(expected.value, got.value, rtol=rtol, what=what)
            for k, (a, b) in enumerate(zip(py_arrays, c_arrays)):
                diffcheck.assert_same(a, b, rtol=rtol, what=f"{what}\narray {k} after the call")
        assert_ran(report, ran_on, reason)
        return (got.value if got.error is None else got.error), report


def assert_ran(report, ran_on: str | None, reason: str | None = None):
    """Every nest of the report ran on `ran_on` (a prefix), with `reason` in its reason; but
    a nest never called (the other version of an array statement whose lengths may differ at
    run time, unpy/typeinfer/lower_arrays.py), where another nest ran."""
    assert report.compiled and report.gpu, str(report)
    assert ran_on is None or not report.nests or any(
        nest.ran_on is not None for nest in report.nests), str(report)
    for nest in report.nests:
        if nest.ran_on is None and (nest.reason == "not called yet" or
                                    nest.reason.startswith("not needed by these calls")):
            continue
        if ran_on is not None:
            assert nest.ran_on is not None and nest.ran_on.startswith(ran_on), str(report)
        if reason is not None:
            assert reason in nest.reason, str(report)
