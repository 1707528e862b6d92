"""Issue 18's speed targets for NumPy array expressions compiled by unpy, and issue 22's for
loops written in the order users write them (the last six kernels: the `unpy loops` column
against NumPy's BLAS and against Numba on the same loops).

Sixteen kernels, each written twice in bench/numpy_expr/: `<kernel>_expr.py` in NumPy array
expressions (slices, broadcasting, reductions with axis=, np.where, masks, @) and
`<kernel>_loops.py` as explicit prange loops computing the same thing. Columns:

- NumPy: the _expr.py function run by the interpreter (plain NumPy; gemm and gemv call BLAS);
- unpy expr / unpy loops: both modules compiled by unpy, OpenMP path (UNPY_DEVICE=none);
  target (a): unpy expr within 1.2x of unpy loops;
- Numba expr: the same _expr.py function body under `@numba.njit(parallel=True)` (Numba's
  decorator replaces unpython's); target (b). Numba loops: the _loops.py body likewise, with
  unpython.prange replaced by numba.prange, for reference;
- target (c): unpy expr against NumPy on gemm and gemv (`@` against NumPy's `a @ b`);
- with --gpu (target (d)): unpy GPU auto (UNPY_DEVICE=<device>, unpy's own decision per nest),
  unpy GPU forced (UNPY_FORCE_GPU=1), unpy loops GPU forced, each a whole call from NumPy
  arrays, and CuPy e2e: the same _expr.py body with `np` bound to cupy, timed whole
  (cupy.asarray of every input array, cupy.empty for the arrays only written, the call, .get()
  of every output). Columns without an OpenCL GPU or without CuPy are left out with the reason
  in the notes.

Method: each file is compiled by unpy on its own (a compile error is that kernel's, reported
exactly, and the kernel is left out of that column); the files that compile are built with
unpy.cpp_emit.build.build once, as two modules (the _expr.py functions, the _loops.py functions;
bench/numpy_expr/build/), g++ running on both at once; builds are cached (UNPY_CACHE_DIR), so a
second run only copies them. For each kernel the NumPy result is the reference; each column's
first call (from the same inputs, outputs set to NaN first, in-place inputs restored before
every call, inputs shared and read-only, untimed) is checked against it, and a column that
differs or raises is reported and not timed. Then untimed warm-up calls (at least one, and at
least 0.2 s), then the median of at least --repeat timed calls and of at least --min-time
seconds of them. Each column is timed on its own, NumPy first: interleaved calls of unpy's
OpenMP code, Numba and OpenBLAS slowed each other down (each pool's threads spin after a call).
NumPy's OpenBLAS is given back the thread count it started with before the NumPy column where
unpy's @ left it lower (a note says so). The 1-minute load average before and after the run is
in the table's header: on a shared machine, other work distorts parallel timings.

    python bench/numpy_expr.py                  # the small set: seconds on a 2-core machine
    python bench/numpy_expr.py --large --gpu    # 4-64M-element arrays, gemm n=2048, GPU columns
        [--repeat N] [--min-time S] [--only axpy,gemm] [--out DIR] [--tag NAME] [--device SPEC]

Results: <out>/numpy_expr-<tag>.md (table), .png (chart, when matplotlib imports) and .json
(rows; a later run with the same tag replaces the rows of the kernels it ran and keeps the
others, so a long run can be split with --only; `--redraw <the .json>` rewrites the .md and
.png from it). <tag> defaults to <small|large>-<cores>core[-<GPU name>]. Each row records the
unpy sources it ran (a hash, and the git commit where there is one).

On the accelerator machine (the device tool: Python 3.12, NumPy 2, Numba and CuPy installed, no
package index), with the wheels of shared/tools/device-wheels.sh carried in .device-wheels:
    python3 -m pip install --no-index --no-deps --target /tmp/site .device-wheels/*.whl
    export PYTHONPATH=/tmp/site:$PWD
    python3 bench/numpy_expr.py --gpu --out $OUT              # about 2 min on an H100 host
    python3 bench/numpy_expr.py --large --gpu --out $OUT      # about 5 min

Self-contained: run from a checkout of the repository (the repository root goes on sys.path);
needs NumPy, g++ with OpenMP and unpy's dependencies (gast, pybind11; with --gpu pyopencl,
pulp, highspy; on the accelerator machine from the wheels of shared/tools/device-wheels.sh,
installed with pip --no-index --target and put on PYTHONPATH). Numba, CuPy and matplotlib are
optional: their columns or the chart are left out, with the reason, when they do not import.
--device names the OpenCL device of the GPU columns (default: UNPY_DEVICE, else `gpu`);
`--gpu --device cpu` is a smoke test of the GPU columns on a CPU OpenCL device (PoCL).
"""
from __future__ import annotations

import argparse
import datetime
import functools
import hashlib
import importlib.util
import json
import os
import platform
import statistics
import subprocess
import sys
import sysconfig
import time
import types
import warnings
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Optional

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
KERNEL_DIR = ROOT / "bench" / "numpy_expr"
BUILD_DIR = KERNEL_DIR / "build"
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

SEED = 0
WARMUP_SECONDS = 0.2
SETTLE_SECONDS = 10.0   # at most, untimed calls while unpy's GPU tuning search goes on
SWITCHES = ("UNPY_DEVICE", "UNPY_FORCE_GPU", "UNPY_GPU_OPT", "UNPY_DISABLE")
TARGET = 1.2            # issue 18, (a): array expressions within 1.2x of the loops

NUMPY, EXPR, LOOPS, NUMBA, NUMBA_LOOPS = ("NumPy", "unpy expr", "unpy loops", "Numba expr",
                                          "Numba loops")
GPU_AUTO, GPU_FORCED, GPU_LOOPS, CUPY = ("unpy GPU auto", "unpy GPU forced",
                                         "unpy loops GPU forced", "CuPy e2e")
CPU_COLUMNS = [NUMPY, EXPR, LOOPS, NUMBA, NUMBA_LOOPS]
GPU_COLUMNS = [GPU_AUTO, GPU_FORCED, GPU_LOOPS, CUPY]


# --- the kernels: inputs, outputs and sizes --------------------------------------------------

@dataclass(frozen=True)
class Kernel:
    """One kernel: `make(size, rng)` gives the call's arguments; `outputs`: the indexes of the
    arguments checked after the call; `inout`: those that are also inputs (restored from a copy
    before every call); `sizes`: {'small': size, 'large': size}; `describe(size)`: for the
    table."""
    name: str
    make: Callable
    outputs: tuple
    sizes: dict
    describe: Callable
    inout: tuple = ()
    rtol: float = 1e-9


def _axpy(n, rng):
    return 1.5, rng.random(n) + 0.5, rng.random(n), np.empty(n)


def _jacobi(size, rng):
    n, steps = size
    return steps, rng.random((n, n)), rng.random((n, n))


def _softmax(shape, rng):
    return rng.standard_normal(shape) * 3.0, np.empty(shape)


def _pairwise(size, rng):
    n, m, d = size
    return rng.random((n, d)), rng.random((m, d)), np.empty((n, m))


def _standardise(shape, rng):
    return rng.standard_normal(shape) * 2.0 + 1.0, np.empty(shape)


def _black_scholes(n, rng):
    return (rng.uniform(5.0, 30.0, n), rng.uniform(1.0, 100.0, n), rng.uniform(0.25, 10.0, n),
            0.02, 0.30, np.empty(n), np.empty(n))


def _gemm(n, rng):
    return 1.5, rng.random((n, n)), rng.random((n, n)), 1.2, rng.random((n, n))


def _gemv(shape, rng):
    m, n = shape
    return 1.5, rng.random((m, n)), rng.random(n), -0.5, rng.random(m), np.empty(m)


def _row_sums(shape, rng):
    return rng.random(shape), np.empty(shape[0])


def _clip(n, rng):
    return rng.standard_normal(n), -1.0, 1.0


def _product(n, rng):
    return rng.random((n, n)), rng.random((n, n)), np.empty((n, n))


def _two_products(n, rng):
    return rng.random((n, n)), rng.random((n, n)), rng.random((n, n)), np.empty((n, n))


def _covariance(shape, rng):
    return rng.random(shape), np.empty((shape[1], shape[1]))


def _syrk(n, rng):
    return 1.5, rng.random((n, n)), 1.2, rng.random((n, n))


def _three_products(n, rng):
    return tuple(rng.random((n, n)) for _ in range(4)) + (np.empty((n, n)),)


def _gram(shape, rng):
    return rng.random(shape), np.empty((shape[1], shape[1]))


def _syr2k(n, rng):
    return 1.5, rng.random((n, n)), rng.random((n, n)), 1.2, rng.random((n, n))


def _square(n, rng):
    return rng.random((n, n)), np.empty((n, n))


def _elements(n):
    return f"n={n:,}"


def _shape(shape):
    return "×".join(f"{k:,}" for k in shape)


KERNELS = [
    Kernel("axpy", _axpy, (3,), {"small": 2_000_000, "large": 64 * 2**20}, _elements),
    Kernel("jacobi", _jacobi, (1, 2), {"small": (512, 10), "large": (4096, 10)},
           lambda s: f"{s[0]:,}², {s[1]} steps of 2 sweeps", inout=(1, 2)),
    Kernel("softmax", _softmax, (1,), {"small": (1000, 1000), "large": (8192, 2048)}, _shape),
    Kernel("pairwise", _pairwise, (2,), {"small": (1000, 1000, 3), "large": (4096, 4096, 3)},
           lambda s: f"{s[0]:,}×{s[1]:,} points, d={s[2]}"),
    Kernel("standardise", _standardise, (1,), {"small": (2000, 500), "large": (16384, 1024)},
           _shape),
    Kernel("black_scholes", _black_scholes, (5, 6), {"small": 1_000_000, "large": 16 * 2**20},
           _elements),
    Kernel("gemm", _gemm, (4,), {"small": 384, "large": 2048}, lambda n: f"n={n}", inout=(4,)),
    Kernel("gemv", _gemv, (5,), {"small": (2000, 2000), "large": (8192, 8192)}, _shape),
    Kernel("row_sums", _row_sums, (1,), {"small": (2000, 1000), "large": (8192, 4096)}, _shape),
    Kernel("clip", _clip, (0,), {"small": 2_000_000, "large": 64 * 2**20}, _elements,
           inout=(0,)),
    # Issue 22: loops in the order users write them (dot products) against NumPy's BLAS.
    Kernel("matmul_dot", _product, (2,), {"small": 512, "large": 2048}, lambda n: f"n={n}"),
    Kernel("textbook_gemm", _gemm, (4,), {"small": 512, "large": 2048}, lambda n: f"n={n}",
           inout=(4,)),
    Kernel("two_mm", _two_products, (3,), {"small": 384, "large": 1536}, lambda n: f"n={n}"),
    Kernel("covariance", _covariance, (1,), {"small": (1000, 400), "large": (4000, 1600)},
           _shape),
    Kernel("syrk_tri", _syrk, (3,), {"small": 512, "large": 2048}, lambda n: f"n={n}",
           inout=(3,)),
    Kernel("three_mm", _three_products, (4,), {"small": 384, "large": 1536},
           lambda n: f"n={n}"),
    Kernel("gram", _gram, (1,), {"small": (1000, 400), "large": (4000, 1600)}, _shape),
    Kernel("syr2k_tri", _syr2k, (4,), {"small": 512, "large": 2048}, lambda n: f"n={n}",
           inout=(4,)),
    Kernel("transpose_add", _square, (1,), {"small": 2048, "large": 8192}, lambda n: f"n={n}"),
]
BY_NAME = {k.name: k for k in KERNELS}
ISSUE_22 = ("matmul_dot", "textbook_gemm", "two_mm", "three_mm", "covariance", "gram",
            "syrk_tri", "syr2k_tri", "transpose_add")


# --- loading the modules ----------------------------------------------------------------------

def why(error: BaseException, lines: int = 1) -> str:
    """The error's type and first `lines` lines (terminal colour codes, as Numba's, removed)."""
    import re
    text = [t.strip() for t in re.sub(r"\x1b\[[0-9;]*m", "", str(error)).strip().splitlines()
            if t.strip()] or [""]
    # Numba names the signature it has no implementation for on a line of its own, further down.
    signature = [t for t in text[lines:] if t.startswith(">>>")][:1]
    return f"{type(error).__name__}: " + " / ".join(text[:lines] + signature)


def load_source(name: str, path: Path):
    """The module at `path` run by the interpreter, as `name` (decorators bind nothing)."""
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def combined_source(stems: list) -> str:
    """One module of the functions of bench/numpy_expr/<stem>.py for every stem: the files'
    import lines once, then each file's code (g++ spends about six seconds on a module before
    its first function, so ten kernels build in a third of the time of ten modules)."""
    imports, parts = [], []
    for stem in stems:
        code = []
        for line in (KERNEL_DIR / f"{stem}.py").read_text().splitlines():
            if line.startswith(("import ", "from ")):
                if line not in imports:
                    imports.append(line)
            else:
                code.append(line)
        parts.append(f"# --- bench/numpy_expr/{stem}.py\n" + "\n".join(code))
    return "\n".join(imports) + "\n\n" + "\n\n".join(parts) + "\n"


def build_modules(stems: list, fastmath: bool = False) -> dict:
    """{stem: the module holding its compiled function, or the exact error (str)} for
    bench/numpy_expr/<stem>.py. Each file is compiled by unpy on its own first (its errors are
    its own); those that compile are built together, one module of the _expr.py files and one of
    the _loops.py files (bench/numpy_expr/build/nx_kernels_<part>.py), in parallel; where g++
    fails on a combined module, each of its files is built on its own. The build cache makes a
    rebuild a copy. `fastmath`: built as `unpy build --fastmath` does."""
    try:
        from unpy.cpp_emit.build import BuildOptions, build, load
    except Exception as error:  # unpy's dependencies missing
        return {stem: f"unpy does not import ({why(error)})" for stem in stems}
    started = time.perf_counter()
    modules, groups = {}, {}
    for stem in stems:
        try:
            load(str(KERNEL_DIR / f"{stem}.py"))
        except Exception as error:
            modules[stem] = f"{type(error).__name__}: {str(error).strip()}"
            print(f"  {stem}: unpy FAILED: {modules[stem]}", flush=True)
            continue
        groups.setdefault(stem.rsplit("_", 1)[1], []).append(stem)
    BUILD_DIR.mkdir(parents=True, exist_ok=True)

    def build_one(path: Path):
        try:
            return build(str(path), str(BUILD_DIR), BuildOptions(fastmath=fastmath))
        except Exception as error:
            return f"{type(error).__name__}: {str(error).strip()}"

    def import_built(result, name):
        try:
            spec = importlib.util.spec_from_file_location(name, result.output)
            module = importlib.util.module_from_spec(spec)
            sys.modules[name] = module      # unpython.explain finds a module by its name
            spec.loader.exec_module(module)
            return module
        except Exception as error:
            return f"the built module does not import ({why(error, 3)})"

    def build_group(part):
        path = BUILD_DIR / f"nx_kernels_{part}.py"
        source = combined_source(groups[part])
        if not path.exists() or path.read_text() != source:
            path.write_text(source)
        result = build_one(path)
        if not isinstance(result, str):
            module = import_built(result, path.stem)
            return {stem: module for stem in groups[part]}, int(not result.cached)
        print(f"  the combined {part} module failed ({result.splitlines()[0]}): "
              "building its files one by one", flush=True)
        found, compiled = {}, 0
        for stem in groups[part]:
            one = build_one(KERNEL_DIR / f"{stem}.py")
            found[stem] = one if isinstance(one, str) else import_built(one, stem)
            compiled += not isinstance(one, str) and not one.cached
        return found, compiled

    # sysconfig fills its variables lazily, and not safely from two threads at once (a build
    # of one thread got EXT_SUFFIX None): fill them here first.
    sysconfig.get_config_vars()
    with ThreadPoolExecutor(max_workers=2) as pool:
        done = list(pool.map(build_group, list(groups)))
    compiled = 0
    for found, count in done:
        modules.update(found)
        compiled += count
    for stem, module in modules.items():
        if isinstance(module, str) and stem in groups.get(stem.rsplit("_", 1)[1], ()):
            print(f"  {stem}: unpy FAILED: {module}", flush=True)
    print(f"unpy: {len(stems)} files, {sum(not isinstance(m, str) for m in modules.values())} "
          f"built ({compiled} modules compiled by g++, the others from the cache) in "
          f"{time.perf_counter() - started:.1f} s", flush=True)
    return modules


# --- measuring ---------------------------------------------------------------------------------

@dataclass(frozen=True)
class Timing:
    repeat: int             # timed calls at least
    min_seconds: float      # and more until they take this long (1000 calls at most)


@dataclass
class Result:
    first: Optional[float] = None       # seconds of the first (checked) call
    median: Optional[float] = None      # median seconds of the timed calls
    ok: bool = False
    reason: str = ""                    # why there is no time
    where: str = ""                     # unpy GPU columns: where the nests of the last call ran
    note: str = ""

    def as_dict(self):
        return dict(self.__dict__)


@dataclass
class Runner:
    """A column's way of computing a kernel: `call()` runs it once (after restoring in-place
    inputs) and returns its seconds; `outputs()` the arrays to check; `where()` (unpy) where
    its nests ran; `settle()` untimed calls after the first while unpy's GPU tuning goes on."""
    call: Callable[[], float]
    outputs: Callable[[], list]
    where: Optional[Callable[[], str]] = None
    settle: Optional[Callable[[], None]] = None
    on_device: bool = False             # a forced GPU column


def host_caller(kernel, func, args, before=None):
    """(call, outputs) of `func` on `args` with private copies of its outputs: those only
    written are set to NaN before the first call, the in-place ones restored before every call;
    the inputs are shared by every column (the same memory: copies of their own made the same
    code differ by up to 1.5x on a 16-core machine) and read-only. `before()` runs untimed
    before each call (the column's UNPY_* switches)."""
    work = list(args)
    for k in kernel.outputs:
        work[k] = args[k].copy()
        if k not in kernel.inout:
            work[k].fill(np.nan)

    def call():
        for k in kernel.inout:
            np.copyto(work[k], args[k])
        if before:
            before()
        start = time.perf_counter()
        func(*work)
        return time.perf_counter() - start
    return call, lambda: [work[k] for k in kernel.outputs]


def mismatch(got: list, want: list, rtol: float) -> Optional[str]:
    """None when every output agrees with NumPy's within rtol (relative to the largest reference
    value, for sums with cancellation), else how far off the worst is."""
    for k, (g, w) in enumerate(zip(got, want)):
        scale = float(np.abs(w).max(initial=0.0))
        if g.shape != w.shape:
            return f"output {k}: shape {g.shape}, NumPy's {w.shape}"
        if not np.allclose(g, w, rtol=rtol, atol=rtol * scale):
            bad = ~np.isclose(g, w, rtol=rtol, atol=rtol * scale)
            err = np.nanmax(np.abs(g - w) / max(scale, 1e-300)) if np.isfinite(g).all() \
                else float("nan")
            return (f"output {k}: {int(bad.sum()):,} of {w.size:,} elements differ "
                    f"(max |error| / max |NumPy| = {err:.3g}; NaN: {int(np.isnan(g).sum()):,})")
    return None


def first_call(runner: Runner, want, rtol) -> Result:
    try:
        first = runner.call()
    except Exception as error:
        return Result(reason=why(error, 3))
    result = Result(first=first, where=runner.where() if runner.where else "")
    if runner.on_device and not result.where.startswith("GPU"):
        result.reason = f"ran on {result.where}"
        return result
    off = mismatch(runner.outputs(), want, rtol)
    if off:
        result.reason = f"WRONG result: {off}"
        return result
    if runner.settle:
        runner.settle()
    result.ok = True
    return result


def measure_group(runners: dict, want, rtol, timing) -> dict:
    """{column: Result}: each runner's first call, checked; then the ones that passed warm up and
    are timed in rounds, one call of each per round, `timing.repeat` rounds at least and more
    (1000 at most) until each has run `timing.min_seconds`. The benchmark passes one runner at a
    time: calls of unpy's OpenMP code, Numba's threads and OpenBLAS (NumPy's @, Numba's np.dot)
    in turn slowed each other down up to 50-fold on a 16-core machine, each pool's threads
    spinning while the next one ran; the warm-up (at least 0.2 s) lets the last one's stop."""
    results = {column: first_call(runner, want, rtol) for column, runner in runners.items()}
    live = {c: r for c, r in runners.items() if results[c].ok}
    times = {c: [] for c in live}
    started, rounds = time.perf_counter(), 0
    while live and (rounds < 1 or time.perf_counter() - started < WARMUP_SECONDS):
        for runner in live.values():
            runner.call()
        rounds += 1
    rounds = 0
    while live and (rounds < timing.repeat or rounds < 1000 and min(
            sum(t) for t in times.values()) < timing.min_seconds):
        for column, runner in live.items():
            times[column].append(runner.call())
        rounds += 1
    for column, runner in live.items():
        result = results[column]
        result.median = statistics.median(times[column])
        if runner.where:
            result.where = runner.where()
            if runner.on_device and not result.where.startswith("GPU"):
                result.ok, result.reason = False, f"a timed call ran on {result.where}"
    return results


# --- the columns ---------------------------------------------------------------------------------

def set_switches(settings: dict):
    for name in SWITCHES:
        os.environ.pop(name, None)
    os.environ.update(settings)


def where_nests(func) -> str:
    """'GPU k/n' (k of the n nests of the last call ran on the OpenCL device) or 'OpenMP'."""
    import unpython
    nests = [n for n in unpython.explain(func).nests if n.ran_on]
    on_gpu = sum(n.ran_on.startswith("opencl") for n in nests)
    return f"GPU {on_gpu}/{len(nests)}" if on_gpu else "OpenMP"


def nest_reasons(func, limit: int = 160) -> str:
    """Where the nests of the last call ran and why: the first nest's reason in full (cut at
    `limit` characters), the others counted."""
    import unpython
    nests = [n for n in unpython.explain(func).nests if n.ran_on]
    if not nests:
        return ""
    first = nests[0].reason if len(nests[0].reason) <= limit else nests[0].reason[:limit] + "..."
    where = {}
    for n in nests:
        place = "the device" if n.ran_on.startswith("opencl") else n.ran_on
        where[place] = where.get(place, 0) + 1
    return (f"{len(nests)} nest(s): " + ", ".join(f"{k} on {w}" for w, k in where.items())
            + f"; nest {nests[0].nest_id}: {first}")


def settle_search(call, func):
    """Untimed calls while unpy's GPU tuning search (jitgpu/search.py) times its candidates, as
    bench/gpu.py does, so that the timed calls run the kernel it chose."""
    try:
        import unpython
        from jitgpu import search
    except Exception:
        return
    deadline = time.perf_counter() + SETTLE_SECONDS
    while (any(search.PENDING in n.reason for n in unpython.explain(func).nests if n.ran_on)
           and time.perf_counter() < deadline):
        search.settle(max(deadline - time.perf_counter(), 0.0))
        call()


def unpy_runner(kernel, func, args, settings, on_device=False, gpu=False):
    call, outputs = host_caller(kernel, func, args, before=lambda: set_switches(settings))
    runner = Runner(call, outputs, on_device=on_device)
    if gpu:
        runner.where = lambda: where_nests(func)
        runner.settle = lambda: settle_search(call, func)
    return runner


def numba_function(func, loops: bool):
    """`func` (run by the interpreter) under @numba.njit(parallel=True); for a loops module,
    with unpython.prange replaced by numba.prange."""
    import numba
    if loops:
        func = types.FunctionType(func.__code__, dict(func.__globals__, prange=numba.prange),
                                  func.__name__, func.__defaults__, func.__closure__)
    return numba.njit(parallel=True)(func)


def cupy_runner(kernel, func, args, cupy):
    """The same function body with `np` bound to cupy; timed whole: cupy.asarray of every input
    array (in-place ones included), cupy.empty for the arrays that are only written, the call,
    .get() of every output into the host arrays."""
    on_cupy = types.FunctionType(func.__code__, dict(func.__globals__, np=cupy), func.__name__,
                                 func.__defaults__, func.__closure__)
    host = list(args)       # the inputs shared, as in host_caller
    written = [k for k in kernel.outputs if k not in kernel.inout]
    for k in kernel.outputs:
        host[k] = args[k].copy()
    for k in written:
        host[k].fill(np.nan)

    def call():
        for k in kernel.inout:
            np.copyto(host[k], args[k])
        start = time.perf_counter()
        device = [(cupy.empty(a.shape, a.dtype) if k in written else cupy.asarray(a))
                  if isinstance(a, np.ndarray) else a for k, a in enumerate(host)]
        on_cupy(*device)
        for k in kernel.outputs:
            device[k].get(out=host[k])
        cupy.cuda.get_current_stream().synchronize()
        return time.perf_counter() - start
    return Runner(call, lambda: [host[k] for k in kernel.outputs])


def gpu_setup(device_spec: str):
    """(OpenCL device name or None, why not; cupy module or None, why not)."""
    opencl, opencl_reason = None, ""
    try:
        from gpurts.device import device_selection
        selection = device_selection(device_spec)
        if selection.device is None:
            opencl_reason = f"no OpenCL device for UNPY_DEVICE={device_spec}: {selection.reason}"
        else:
            opencl = selection.device.cl_device.name.strip()
    except Exception as error:
        opencl_reason = f"unpy's OpenCL runtime does not load ({why(error)})"
    cupy, cupy_reason = None, ""
    try:
        import cupy as cp
        if cp.cuda.runtime.getDeviceCount() < 1:
            raise RuntimeError("no CUDA device")
        cupy = cp
    except Exception as error:
        cupy_reason = f"CuPy unusable ({why(error)})"
    return opencl, opencl_reason, cupy, cupy_reason


class OpenBlasThreads:
    """The thread count of NumPy's OpenBLAS (the scipy-openblas of NumPy's wheels, reached
    through ctypes), so that the NumPy column runs with the count the process started with:
    unpy's `@` (commit 76dfbf7, the BLAS call) left it at 1 for the rest of the process, and
    NumPy's own a @ b ran 2x slower after it on 2 cores (n=1024), 4x on 16 (n=2048)."""

    def __init__(self):
        self.get = self.set = None
        self.start = None
        try:
            import ctypes
            import glob
            folder = Path(np.__file__).resolve().parent.parent / "numpy.libs"
            for path in sorted(glob.glob(str(folder / "libscipy_openblas*.so*"))):
                lib = ctypes.CDLL(path, mode=os.RTLD_NOLOAD | os.RTLD_NOW)  # NumPy's own copy
                for stem in ("scipy_openblas_", "openblas_"):
                    for suffix in ("64_", ""):
                        get = getattr(lib, f"{stem}get_num_threads{suffix}", None)
                        put = getattr(lib, f"{stem}set_num_threads{suffix}", None)
                        if get is not None and put is not None and self.get is None:
                            self.get, self.set = get, put
            if self.get is not None:
                self.start = int(self.get())
        except Exception:   # another BLAS, or none found: nothing to watch
            self.get = None

    def restore(self) -> str:
        """'' when the count is the starting one (or unknown); else set it back and say so."""
        if self.get is None:
            return ""
        now = int(self.get())
        if now == self.start:
            return ""
        self.set(self.start)
        return (f"NumPy's OpenBLAS had {now} thread(s), not the {self.start} it started with "
                "(left so by unpy's @): set back before the NumPy column")


BLAS = OpenBlasThreads()


# --- one kernel ---------------------------------------------------------------------------------

def run_kernel(kernel, size, modules, numba_reason, gpu, timing) -> dict:
    """The row of `kernel` at `size`: {column: Result as a dict}."""
    started = time.perf_counter()
    args = kernel.make(size, np.random.default_rng(SEED))
    for k, arg in enumerate(args):
        if isinstance(arg, np.ndarray) and k not in kernel.outputs:
            arg.flags.writeable = False     # a column that writes an input raises
    interp_expr = load_source(f"{kernel.name}_expr__numpy", KERNEL_DIR / f"{kernel.name}_expr.py")
    interp_loops = load_source(f"{kernel.name}_loops__numpy",
                               KERNEL_DIR / f"{kernel.name}_loops.py")
    py_expr = getattr(interp_expr, kernel.name)
    py_loops = getattr(interp_loops, kernel.name)

    # The reference: NumPy running the _expr.py function.
    blas_note = BLAS.restore()
    ref_call, ref_out = host_caller(kernel, py_expr, args)
    ref_first = ref_call()
    want = [w.copy() for w in ref_out()]
    row = {"kernel": kernel.name, "size": kernel.describe(size),
           "date": datetime.date.today().isoformat(), "unpy": unpy_revision(), "columns": {}}
    columns = row["columns"]

    compiled = {}
    for part in ("expr", "loops"):
        module = modules.get(f"{kernel.name}_{part}")
        compiled[part] = getattr(module, kernel.name) if not isinstance(module, str) else module

    # CPU columns, each timed on its own (see measure_group), NumPy first.
    call, outputs = host_caller(kernel, py_expr, args)
    runners, missing = {NUMPY: Runner(call, outputs)}, {}
    for column, part in ((EXPR, "expr"), (LOOPS, "loops")):
        if isinstance(compiled[part], str):
            missing[column] = f"unpy: {compiled[part]}"
        else:
            runners[column] = unpy_runner(kernel, compiled[part], args, {"UNPY_DEVICE": "none"})
    for column, func, loops in ((NUMBA, py_expr, False), (NUMBA_LOOPS, py_loops, True)):
        if numba_reason:
            missing[column] = numba_reason
            continue
        call, outputs = host_caller(kernel, numba_function(func, loops), args)
        runners[column] = Runner(call, outputs)
    results = {c: Result(reason=r) for c, r in missing.items()}
    for column, runner in runners.items():
        results.update(measure_group({column: runner}, want, kernel.rtol, timing))
    results[NUMPY].first = ref_first
    results[NUMPY].note = blas_note

    if gpu is not None:
        device_spec, opencl, opencl_reason, cupy, cupy_reason = gpu
        for column, part, force in ((GPU_AUTO, "expr", False), (GPU_FORCED, "expr", True),
                                    (GPU_LOOPS, "loops", True)):
            if isinstance(compiled[part], str):
                results[column] = Result(reason=f"unpy: {compiled[part]}")
                continue
            if opencl is None:
                results[column] = Result(reason=opencl_reason)
                continue
            settings = {"UNPY_DEVICE": device_spec, **({"UNPY_FORCE_GPU": "1"} if force else {})}
            runner = unpy_runner(kernel, compiled[part], args, settings, on_device=force,
                                 gpu=True)
            results.update(measure_group({column: runner}, want, kernel.rtol, timing))
            if not results[column].ok or column == GPU_AUTO:
                results[column].note = nest_reasons(compiled[part])
        if cupy is None:
            results[CUPY] = Result(reason=cupy_reason)
        else:
            try:
                runner = cupy_runner(kernel, py_expr, args, cupy)
                results.update(measure_group({CUPY: runner}, want, kernel.rtol, timing))
            except Exception as error:
                results[CUPY] = Result(reason=why(error, 3))
            cupy.get_default_memory_pool().free_all_blocks()
        set_switches({})

    order = CPU_COLUMNS + (GPU_COLUMNS if gpu is not None else [])
    for column in order:
        columns[column] = results[column].as_dict()
    print(f"{kernel.name} {row['size']} ({time.perf_counter() - started:.1f} s): " + ", ".join(
        f"{c} {ms(results[c].median) if results[c].ok else '—'}" for c in order), flush=True)
    for column in order:
        if not results[column].ok:
            print(f"    {column}: {results[column].reason}", flush=True)
    return row


# --- the table and the chart ------------------------------------------------------------------

def ms(seconds):
    if seconds is None:
        return "—"
    value = seconds * 1e3
    return f"{value:.0f}" if value >= 100 else f"{value:.3g}"


def cell(row, column, first=False):
    result = row["columns"].get(column)
    if result is None:
        return ""
    if not result["ok"]:
        return "WRONG" if result["reason"].startswith("WRONG") else "—"
    text = ms(result["first"] if first else result["median"])
    if result["where"] and not first and column in (GPU_AUTO, GPU_FORCED, GPU_LOOPS):
        text += f" ({result['where']})"
    return text


def ratio_value(row, top, bottom):
    a, b = row["columns"].get(top), row["columns"].get(bottom)
    if not (a and b and a["ok"] and b["ok"]):
        return None
    return a["median"] / b["median"]


def ratio(row, top, bottom, mark=False):
    value = ratio_value(row, top, bottom)
    if value is None:
        return "—"
    return f"{value:.2f}" + ((" ✓" if value <= TARGET else " ✗") if mark else "")


CPU_RATIOS = [(EXPR, LOOPS, "expr/loops (a)", True), (NUMBA, EXPR, "Numba/unpy (b)", False),
              (NUMPY, EXPR, "NumPy/unpy (c)", False)]
GPU_RATIOS = [(CUPY, GPU_FORCED, "CuPy/forced (d)", False),
              (CUPY, GPU_AUTO, "CuPy/auto (d)", False),
              (EXPR, GPU_FORCED, "OpenMP/forced", False)]


def write_markdown(path, rows, header):
    has_gpu = any(GPU_FORCED in r["columns"] for r in rows)
    columns = CPU_COLUMNS + (GPU_COLUMNS if has_gpu else [])
    ratios = CPU_RATIOS + (GPU_RATIOS if has_gpu else [])
    lines = [f"# NumPy array expressions (issue 18): {header['tag']}", "",
             f"- machine: {header['cpu']}, os.cpu_count() = {header['cores']}; OpenMP and Numba "
             f"threads: {header['threads']}; 1-minute load average of the last run: "
             f"{header.get('load', '?')}",
             f"- dates: {', '.join(sorted({r['date'] for r in rows}))}; sizes: {header['set']} "
             f"set; median of at least {header['repeat']} timed calls (and of at least "
             f"{header.get('min_seconds', 0):g} s of them) after a checked first call and "
             f"{WARMUP_SECONDS:g} s of warm-up; times in ms of a whole call",
             "- versions: " + ", ".join(f"{k} {v}" for k, v in header["versions"].items()),
             "- unpy: " + revisions(rows)
             + ("; built with --fastmath (FMA contraction, reassociation)"
                if header.get("fastmath") else "")]
    if has_gpu:
        lines.append(f"- GPU: OpenCL device {header['opencl']} (UNPY_DEVICE={header['device']});"
                     f" CUDA device (CuPy): {header['cuda']}")
    lines += [
        "- NumPy: the _expr.py function under the interpreter; unpy expr / loops: "
        "bench/numpy_expr/<kernel>_expr.py / _loops.py compiled by unpy, OpenMP path "
        "(UNPY_DEVICE=none); Numba expr / loops: the same function bodies under "
        "@numba.njit(parallel=True) (prange = numba.prange in the loops)",
        f"- ratios: expr/loops ≤ {TARGET} is target (a) (✓/✗); Numba/unpy and NumPy/unpy "
        "> 1: unpy expr faster" + ("; CuPy/forced, CuPy/auto > 1: unpy on the GPU faster; "
                                    "OpenMP/forced > 1: the GPU faster than unpy's OpenMP"
                                    if has_gpu else ""),
    ]
    if has_gpu:
        lines.append("- GPU columns are whole calls from NumPy arrays, transfers included: unpy "
                     "GPU auto (unpy's own decision; where the nests of the last call ran in "
                     "brackets), unpy GPU forced / unpy loops GPU forced (UNPY_FORCE_GPU=1), "
                     "CuPy e2e (the _expr.py body with np = cupy: cupy.asarray of every input "
                     "array, cupy.empty for the arrays only written, the call, .get() of the "
                     "outputs)")
    lines += ["", "## Median times (ms)", "",
              "| kernel | size | " + " | ".join(columns) + " | "
              + " | ".join(t for _, _, t, _ in ratios) + " |",
              "|---|---|" + "---:|" * (len(columns) + len(ratios))]
    for r in rows:
        lines.append(f"| {r['kernel']} | {r['size']} | "
                     + " | ".join(cell(r, c) for c in columns) + " | "
                     + " | ".join(ratio(r, a, b, mark) for a, b, _, mark in ratios) + " |")
    lines += ["", "## First calls (ms: checked against NumPy; Numba's compilation, unpy's "
              "OpenCL build and CuPy's kernel compilation included)", "",
              "| kernel | size | " + " | ".join(columns) + " |",
              "|---|---|" + "---:|" * len(columns)]
    for r in rows:
        lines.append(f"| {r['kernel']} | {r['size']} | "
                     + " | ".join(cell(r, c, first=True) for c in columns) + " |")
    lines += ["", "## Summary", ""] + summary(rows, has_gpu)
    lines += ["", "## Notes (columns without a time, and where unpy's GPU nests ran)", ""]
    lines += notes(rows, columns)
    path.write_text("\n".join(lines) + "\n")


def revisions(rows) -> str:
    """The unpy revision of the rows (the rows of each, when they differ)."""
    found = {}
    for r in rows:
        found.setdefault(r.get("unpy", "not recorded"), []).append(r["kernel"])
    if len(found) == 1:
        return next(iter(found))
    return "; ".join(f"{rev} ({', '.join(kernels)})" for rev, kernels in found.items())


def summary(rows, has_gpu) -> list:
    out = []
    pairs = [(r["kernel"], ratio_value(r, EXPR, LOOPS)) for r in rows]
    timed = [(k, v) for k, v in pairs if v is not None]
    over = [f"{k} {v:.2f}" for k, v in timed if v > TARGET]
    out.append(f"- (a) unpy expr within {TARGET}x of unpy loops: {len(timed) - len(over)} of "
               f"{len(timed)} kernels timed" + (f"; over: {', '.join(over)}" if over else "")
               + (f"; not timed: {', '.join(k for k, v in pairs if v is None)}"
                  if len(timed) < len(pairs) else ""))
    numba = [(r["kernel"], ratio_value(r, NUMBA, EXPR)) for r in rows]
    ran = [f"{k} {v:.2f}" for k, v in numba if v is not None]
    out.append(f"- (b) Numba/unpy expr on the same source: {', '.join(ran) or 'none ran'}; "
               f"Numba did not compile or run: "
               f"{', '.join(k for k, v in numba if v is None) or 'none'}")
    blas = [f"{r['kernel']} {ratio(r, NUMPY, EXPR)}" for r in rows
            if r["kernel"] in ("gemm", "gemv")]
    if blas:
        out.append(f"- (c) NumPy (BLAS) / unpy expr for @: {', '.join(blas)}")
    loops = [f"{r['kernel']} {ratio(r, LOOPS, NUMPY)}" for r in rows if r["kernel"] in ISSUE_22]
    if loops:
        out.append(f"- issue 22: unpy loops / NumPy (target 1.5): {', '.join(loops)}; Numba "
                   f"loops / unpy loops: " + ", ".join(f"{r['kernel']} {ratio(r, NUMBA_LOOPS, LOOPS)}"
                                                       for r in rows if r["kernel"] in ISSUE_22))
    if has_gpu and not any(r["columns"].get(CUPY, {}).get("ok") for r in rows):
        out.append("- (d) CuPy did not run (see the notes)")
    elif has_gpu:
        for column in (GPU_FORCED, GPU_AUTO):
            vals = [f"{r['kernel']} {ratio(r, CUPY, column)}" for r in rows]
            out.append(f"- (d) CuPy e2e / {column}: {', '.join(vals)}")
    return out


def notes(rows, columns) -> list:
    found = {}
    for r in rows:
        for column in columns:
            result = r["columns"].get(column)
            if result is None:
                continue
            if not result["ok"]:
                found.setdefault(f"{column}: {result['reason']}", []).append(r["kernel"])
            elif result["note"]:
                found.setdefault(f"{column}: {result['note']}", []).append(r["kernel"])
    lines = []
    for text, kernels in found.items():
        first, *rest = text.splitlines()
        lines.append(f"- {first} ({', '.join(kernels)})")
        if rest:    # a compile error's source line and caret, as unpy printed them
            lines += ["", "  ```", *(f"  {line}" for line in rest), "  ```"]
    return lines or ["- none"]


def write_chart(path, rows, header) -> str:
    """Bars of each column's time over unpy expr's, per kernel (log scale); '' or why none."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except Exception as error:
        return f"no chart: matplotlib does not import ({why(error)})"
    has_gpu = any(GPU_FORCED in r["columns"] for r in rows)
    panels = [("CPU (OpenMP, Numba, NumPy)", [c for c in CPU_COLUMNS])]
    if has_gpu:
        panels.append(("GPU, whole calls from NumPy arrays", GPU_COLUMNS))
    fig, axes = plt.subplots(len(panels), 1, figsize=(max(9, 1.4 * len(rows) + 4),
                                                      4.2 * len(panels)), squeeze=False)
    x = np.arange(len(rows))
    for ax, (title, columns) in zip(axes[:, 0], panels):
        shown = [c for c in columns if any(r["columns"].get(c, {}).get("ok") for r in rows)]
        width = 0.8 / max(len(shown), 1)
        for k, column in enumerate(shown):
            heights = [ratio_value(r, column, EXPR) for r in rows]
            ax.bar(x + (k - (len(shown) - 1) / 2) * width,
                   [np.nan if h is None else h for h in heights], width, label=column)
        ax.axhline(1.0, color="black", linewidth=0.8)
        if title.startswith("CPU"):
            ax.axhline(TARGET, color="grey", linewidth=0.8, linestyle="--",
                       label=f"{TARGET}x (target a: loops at most this faster)")
        ax.set_yscale("log")
        ax.set_xticks(x, [f"{r['kernel']}\n" + r["size"].replace(", ", "\n") for r in rows],
                      fontsize=7)
        ax.set_ylabel("time / unpy expr (OpenMP) time\n(lower is faster)")
        ax.set_title(f"{title}: {header['tag']}", fontsize=10)
        ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return ""


# --- the run ----------------------------------------------------------------------------------

def cpu_model():
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def short_name(device: str) -> str:
    """'h100' of 'NVIDIA H100 80GB HBM3' (the first model-like word), else 'gpu'."""
    import re
    found = re.search(r"\b([A-Za-z]{1,4}\d{2,4}[A-Za-z]?)\b", device or "")
    return found.group(1).lower() if found else "gpu"


def load_average() -> str:
    """The 1-minute load average (other work on a shared machine shows here), or '?'."""
    try:
        return f"{os.getloadavg()[0]:.2f}"
    except OSError:
        return "?"


@functools.lru_cache(maxsize=None)
def unpy_revision() -> str:
    """Which unpy ran: a hash of unpy's sources (unpy/, jitgpu/, gpurts/, unpython.py), and the
    checkout's commit where git knows one ('+dirty' when unpy's files differ from it; the
    accelerator machine's copy of the tree has a commit of its own, so the hash is what names
    the sources there)."""
    digest = hashlib.sha256()
    files = [p for folder in ("unpy", "jitgpu", "gpurts") for p in (ROOT / folder).rglob("*")
             if p.suffix in (".py", ".hpp", ".h", ".cpp")] + [ROOT / "unpython.py"]
    for path in sorted(f for f in files if f.is_file()):
        digest.update(path.relative_to(ROOT).as_posix().encode() + b"\0" + path.read_bytes())
    text = f"sources {digest.hexdigest()[:10]}"
    try:
        def git(*args):
            return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True,
                                  check=True, timeout=10).stdout.strip()
        commit = git("rev-parse", "--short", "HEAD")
        dirty = git("status", "--porcelain", "--", "unpy", "jitgpu", "gpurts", "unpython.py")
        text = f"{text} (git {commit}{'+dirty' if dirty else ''})"
    except Exception:       # no git, or not a checkout
        pass
    return text


def versions():
    found = {"python": platform.python_version(), "numpy": np.__version__}
    for name in ("numba", "cupy", "pyopencl"):
        module = sys.modules.get(name)
        if module is not None:
            found[name] = getattr(module, "__version__", "?")
    try:
        import unpy
        found["unpy"] = unpy.__version__
    except Exception:
        pass
    return found


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--large", action="store_true",
                        help="the large set (4-64M-element arrays, gemm n=2048)")
    parser.add_argument("--repeat", type=int, default=7,
                        help="timed calls at least (default 7)")
    parser.add_argument("--min-time", type=float, default=0.3, dest="min_seconds",
                        help="and more timed calls until they take this many seconds "
                        "(default 0.3; 1000 calls at most)")
    parser.add_argument("--only", help="comma-separated kernels: " + ",".join(BY_NAME))
    parser.add_argument("--gpu", action="store_true", help="add the GPU columns")
    parser.add_argument("--device", default=os.environ.get("UNPY_DEVICE") or "gpu",
                        help="UNPY_DEVICE of the GPU columns (default: UNPY_DEVICE, else gpu)")
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results",
                        help="results folder (default bench/results)")
    parser.add_argument("--tag", help="name in the result files (default "
                        "<small|large>-<cores>core[-<GPU>])")
    parser.add_argument("--fastmath", action="store_true",
                        help="build unpy's modules with --fastmath (floating-point contraction "
                        "and reassociation: FMA); the tag gains -fastmath")
    parser.add_argument("--no-numba", action="store_true",
                        help="leave the Numba columns out (its loops take seconds a call at the "
                        "large sizes of issue 22's products)")
    parser.add_argument("--redraw", type=Path, metavar="JSON",
                        help="only rewrite the .md and .png of a saved .json")
    options = parser.parse_args(argv)
    if options.redraw:
        saved = json.loads(options.redraw.read_text())
        write_markdown(options.redraw.with_suffix(".md"), saved["rows"], saved["header"])
        chart = write_chart(options.redraw.with_suffix(".png"), saved["rows"], saved["header"])
        print(f"rewrote {options.redraw.with_suffix('.md')}" + (f" ({chart})" if chart else
                                                                " and .png"))
        return 0
    names = [n for n in (options.only or ",".join(BY_NAME)).split(",") if n]
    unknown = [n for n in names if n not in BY_NAME]
    if unknown:
        parser.error(f"unknown kernels: {', '.join(unknown)} (known: {', '.join(BY_NAME)})")
    if options.repeat < 1:
        parser.error("--repeat must be at least 1")
    size_set = "large" if options.large else "small"
    started = time.perf_counter()
    load_before = load_average()
    warnings.filterwarnings("ignore", module="numba")
    try:
        if options.no_numba:
            raise RuntimeError("left out (--no-numba)")
        import numba  # noqa: F401
        numba_reason = ""
    except Exception as error:
        numba_reason = f"Numba {'does not import' if not options.no_numba else 'not run'} " \
                       f"({why(error)})"

    gpu, opencl, cuda = None, "none", "none"
    if options.gpu:
        opencl, opencl_reason, cupy, cupy_reason = gpu_setup(options.device)
        for reason in (opencl_reason, cupy_reason):
            if reason:
                print(f"GPU columns: {reason}", flush=True)
        if opencl is None and cupy is None:
            print("no OpenCL GPU and no CuPy: the GPU columns are skipped", flush=True)
        else:
            gpu = (options.device, opencl, opencl_reason, cupy, cupy_reason)
            if cupy is not None:
                cuda = cupy.cuda.runtime.getDeviceProperties(0)["name"].decode()
    gpu_name = opencl if opencl and opencl != "none" else cuda
    tag = options.tag or f"{size_set}-{os.cpu_count()}core" + (
        f"-{short_name(gpu_name)}" if gpu is not None else "") + (
        "-fastmath" if options.fastmath and not options.tag else "")

    threads = ", ".join(f"{k}={os.environ[k]}" for k in ("OMP_NUM_THREADS", "NUMBA_NUM_THREADS")
                        if k in os.environ) or "defaults (all cores)"
    header = {"tag": tag, "cpu": cpu_model(), "cores": os.cpu_count(), "threads": threads,
              "set": size_set, "repeat": options.repeat, "min_seconds": options.min_seconds,
              "versions": {},
              "opencl": opencl or "none", "device": options.device, "cuda": cuda, "load": "",
              "fastmath": options.fastmath}
    options.out.mkdir(parents=True, exist_ok=True)
    base = options.out / f"numpy_expr-{tag}"
    saved = json.loads(base.with_suffix(".json").read_text())["rows"] \
        if base.with_suffix(".json").exists() else []

    def save(rows) -> list:
        """The saved rows with this run's in their place, written to the .json and .md (after
        every kernel, so that a run cut short keeps what it measured)."""
        merged = {r["kernel"]: r for r in saved}
        merged.update({r["kernel"]: r for r in rows})
        rows_all = [merged[k.name] for k in KERNELS if k.name in merged]
        header["versions"] = versions()
        header["load"] = f"{load_before} before, {load_average()} after"
        base.with_suffix(".json").write_text(json.dumps({"header": header, "rows": rows_all},
                                                        indent=1) + "\n")
        write_markdown(base.with_suffix(".md"), rows_all, header)
        return rows_all

    modules = build_modules([f"{n}_{part}" for n in names for part in ("expr", "loops")],
                            options.fastmath)
    rows = []
    for name in names:
        kernel = BY_NAME[name]
        rows.append(run_kernel(kernel, kernel.sizes[size_set], modules, numba_reason, gpu,
                               Timing(options.repeat, options.min_seconds)))
        rows_all = save(rows)
    chart = write_chart(base.with_suffix(".png"), rows_all, header)
    print(f"wrote {base}.md, .json" + (f" ({chart})" if chart else " and .png")
          + f"; {time.perf_counter() - started:.0f} s in all", flush=True)
    wrong = [r["kernel"] for r in rows
             if any(c["reason"].startswith("WRONG") for c in r["columns"].values())]
    if wrong:
        print("WRONG results in: " + ", ".join(wrong))
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
