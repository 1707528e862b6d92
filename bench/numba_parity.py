"""Issue 22's target: unpy's OpenMP build at least as fast as `numba.njit(parallel=True)` on
every compiled function of examples/ and tests/kernels, Numba compiling the same source.

    .venv/bin/python bench/numba_parity.py [--quick] [--kernels prange,arith.add_i64,'loops.*']
        [--limit S] [--workers N] [--out bench/results/numba-parity-<cores>core.md]

On the 16-core host: `python3 bench/numba_parity.py --quick --out $OUT/numba-parity.md` (more
than 9 minutes from a cold build cache on the H200 host, 2026-11-28: 87 s of builds, 166 s of
checks, then the timing; more without --quick). Writes the table (.md) and its rows (.json
beside it), also every 50 functions, so a run cut short leaves what it timed. On the accelerator machine, with the wheels of
shared/tools/device-wheels.sh installed as bench/numpy_expr.py says, `export UNPY_CACHE_DIR`
to a folder that outlives the command to keep the builds of one run for the next.

Every function decorated with @unpython.type in tests/kernels/*.py and examples/*.py is one
row (its first signature). Columns:

- unpy: the file built by `unpy build` (default flags; bench/build/numba_parity/), OpenMP path
  (UNPY_DEVICE=none);
- Numba: the very same Python function under `numba.njit(parallel=True)`, its module's
  globals with `prange` bound to `numba.prange` and every function of the module (its callees)
  bound to its own Numba twin: no second copy of any source (as bench/numba_kernels.py).

Inputs. An example with a `_harness.Case` for the function uses the case's own arguments;
otherwise the arguments are made from the signature: every dimension of every array is one
length n (1-D arrays of n, 2-D n x n, ...), floats uniform in [0.1, 0.9) (complex: both
parts), ints in [1, 10) (safe as divisors and small indices), bools half true; float, complex
and bool scalars are 0.75, 0.5+0.25j and True. Int scalars are often sizes, step counts or
indices: the candidates are n for all of them, then 1, then 3, then n for the first and 1 for
the others; the first candidate the interpreter runs without raising at the small size (and
with no int beyond int64) is kept, and an int that was n grows with n. A function with a list
parameter is skipped; one the interpreter raises on at every candidate is skipped with its
error.

Method. (1) unpy builds every file (from the build cache when it is there). (2) In worker
processes, two threads each: for each function, the interpreter, unpy and Numba run at the small
size (1-D 1000, 2-D 30x30, 3-D 12^3, scalar sizes 100; an example's "tiny" size) on private
copies of the arguments, and unpy's and Numba's return values and array arguments are compared
with the interpreter's (the reference): rtol 1e-9 (float32 and complex64: 1e-3) relative to the
largest reference value, as bench/cpu.py. Numba compiles there, into an on-disk cache of this
run only, so that compilations run side by side. A Numba compile error is "Numba: no" in the
table. A process that crashes, or whose checks of one function pass 120 s, is reported on the
function and step it was at, and the rest go on. (3) In this process, one function at a time:
the size grows from the small one (x4 in elements per step) until one unpy call takes at least 5
ms, or an array reaches the cap (4M elements with --quick, 16M) or the time limit would be
passed; then unpy and Numba (its code loaded from the cache) each get a first call there, their
results compared with each other (a size-dependent difference is reported: the interpreter is
too slow to judge there), untimed warm-up calls (at least one, and 0.05 s / 0.2 s), and the
median of at least 3 / 7 timed calls and of at least 0.05 s / 0.25 s of them (1000 at most),
each column timed on its own, as bench/numpy_expr.py does (interleaved calls of two thread pools
slow each other down). Arrays the function writes are restored before every call, untimed.
--limit caps each function's timing, in seconds (default 3 with --quick, 8): a call slower than
half of it is timed once. Threads are left at their defaults (all cores, both sides) unless
OMP_NUM_THREADS / NUMBA_NUM_THREADS say otherwise.

On a busy machine the two sides do not get the same threads: unpy's OpenMP team shrinks to the
CPUs it finds idle at each nest (nest_team in unpy/cpp_emit/unpy_runtime.hpp; not for a float
reduction), Numba's does not; the table's header gives the load average before and after.

A function whose one unpy call stays under 50 us at the largest size tried is marked "call":
its time is mostly the cost of a call from Python (scalar arithmetic, a few elements).
"""
from __future__ import annotations

import argparse
import datetime
import fnmatch
import importlib.util
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
import types
import warnings
import zlib
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Optional

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
BENCH_DIR = ROOT / "bench"
EXAMPLES_DIR = ROOT / "examples"
KERNELS_DIR = ROOT / "tests" / "kernels"
BUILD_DIR = BENCH_DIR / "build" / "numba_parity"
for _path in (ROOT, EXAMPLES_DIR, BENCH_DIR):
    if str(_path) not in sys.path:
        sys.path.insert(0, str(_path))

from numpy_expr import cpu_model, load_average, unpy_revision, versions, why  # noqa: E402
from unpy import ir  # noqa: E402
from unpy.cpp_emit.build import BuildOptions, build  # noqa: E402
from unpy.frontend.discover import discover  # noqa: E402
from unpy.typeinfer.types import parse_type  # noqa: E402

SEED = 0
SMALL = {0: 100, 1: 256, 2: 30, 3: 12, 4: 6}   # n by the highest array rank, for the check
TARGET_SECONDS = 5e-3        # the size grows until one unpy call takes this long
MEMORY_BUDGET = min(16 << 30, os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") // 4)
CALL_SECONDS = 50e-6         # below this, a call is mostly the cost of calling from Python
FLOAT, COMPLEX, BOOL = 0.75, 0.5 + 0.25j, True
WORKER_THREADS = "2"         # OpenMP and Numba threads of each checking process
INTERPRETER_LIMIT = 10.0     # seconds of one interpreter call at the small size
CHECK_LIMIT = 60.0           # seconds of unpy's call, and of Numba's compilation and call
PROCESS_LIMIT = 4 * INTERPRETER_LIMIT + 3 * CHECK_LIMIT    # a function's checks, at most


class Overtime(Exception):
    pass


# --- the functions and their inputs -----------------------------------------------------------

@dataclass(frozen=True)
class Target:
    """One decorated function: where it is, and its parameter types as written."""
    path: str
    name: str
    line: int
    types: tuple            # the parameter type strings of its first signature
    gpu: bool = False       # decorated @unpython.gpu too

    @property
    def stem(self):
        return Path(self.path).stem

    @property
    def label(self):
        return f"{self.stem}.{self.name}"


def source_files() -> list:
    return sorted(KERNELS_DIR.glob("*.py")) + sorted(
        p for p in EXAMPLES_DIR.glob("*.py") if not p.name.startswith("_"))


def find_targets(patterns: list) -> list:
    """The decorated functions of the source files whose 'file.function' label, file or function
    name matches one of `patterns` (fnmatch; none: all), as unpy's front end reads them."""
    targets = []
    for path in source_files():
        for found in discover(str(path), path.read_text()).functions:
            target = Target(str(path), found.node.name, found.node.lineno,
                            tuple(found.signatures[0].types[:-1]), found.gpu)
            if not patterns or any(fnmatch.fnmatch(name, p) for p in patterns
                                   for name in (target.label, target.stem, target.name)):
                targets.append(target)
    return targets


def parameter_types(target: Target) -> list:
    return [parse_type(t) for t in target.types]


def unmakeable(target: Target) -> Optional[str]:
    """Why no arguments can be made for `target`, or None."""
    for text, t in zip(target.types, parameter_types(target)):
        if not isinstance(t, (ir.Scalar, ir.Array, ir.DtypeType)):
            return f"a parameter of type {text}"
    return None


def example_case(target: Target):
    """The example's `_harness.Case` of the function, or None."""
    if Path(target.path).parent != EXAMPLES_DIR:
        return None
    module = interpreted(target.path)
    return next((c for c in getattr(module, "CASES", []) if c.func == target.name), None)


def int_choices(count: int) -> list:
    """Candidates for a function's int scalars, in order: 'n' grows with the size."""
    choices = [("n",) * count, (1,) * count, (3,) * count, ("n",) + (1,) * (count - 1)]
    return list(dict.fromkeys(choices)) if count else [()]


@dataclass(frozen=True)
class Inputs:
    """How the arguments of one function are made at any size n: from its example's Case, or
    from its signature with `ints` (one choice of int_choices) for its int scalars."""
    target: Target
    ints: tuple = ()

    @property
    def rank(self):
        return max([t.ndim for t in parameter_types(self.target) if isinstance(t, ir.Array)],
                   default=0)

    @property
    def small(self):
        case = example_case(self.target)
        return case_size(case, "tiny") if case else SMALL[min(self.rank, 4)]

    def grown(self, n):
        """The next size of the ladder: x4 elements (x2 per dimension for 2-D and more)."""
        return n * (4 if self.rank <= 1 else 2)

    def elements(self, n):
        """The elements of the largest array at size n."""
        return n ** max(self.rank, 1)

    def make(self, n) -> list:
        rng = np.random.default_rng([SEED, zlib.crc32(self.target.label.encode())])
        case = example_case(self.target)
        if case:
            return list(case.make_args(n, case.dtype, rng))
        ints = iter(self.ints)
        args = []
        for t in parameter_types(self.target):
            if isinstance(t, ir.Array):
                args.append(random_array(rng, np.dtype(t.dtype), (n,) * t.ndim))
            elif isinstance(t, ir.DtypeType):
                args.append(getattr(np, t.dtype))
            else:
                args.append(scalar(t.dtype, ints, n))
        return args

    def describe(self, n) -> str:
        if example_case(self.target):
            return f"n={n:,}"
        ranks = sorted({t.ndim for t in parameter_types(self.target) if isinstance(t, ir.Array)})
        said = ["×".join([f"{n:,}"] * rank) for rank in ranks]
        if "n" in self.ints:
            said.append(f"int n={n:,}")
        return ", ".join(said) or "scalars"


def case_size(case, name):
    size = interpreted(str(EXAMPLES_DIR / f"{case.kernel}.py")).SIZES[name]
    return size[0] if isinstance(size, tuple) else size


def random_array(rng, dtype, shape):
    if dtype.kind == "b":
        return rng.random(shape) < 0.5
    if dtype.kind in "iu":
        return rng.integers(1, 10, shape).astype(dtype)
    if dtype.kind == "c":
        return (rng.uniform(0.1, 0.9, shape) + 1j * rng.uniform(0.1, 0.9, shape)).astype(dtype)
    return rng.uniform(0.1, 0.9, shape).astype(dtype)


def scalar(dtype, ints, n):
    kind = np.dtype(dtype).kind
    if kind in "iu":
        value = next(ints)
        value = min(n, np.iinfo(dtype).max) if value == "n" else value
    else:
        value = {"b": BOOL, "f": FLOAT, "c": COMPLEX}[kind]
    # Python's own types where they are the dtype; NumPy scalars for the others (float32 ...)
    return value if dtype in ("int64", "float64", "bool", "complex128") else np.dtype(dtype).type(
        value)


def candidate_inputs(target: Target) -> list:
    if example_case(target):
        return [Inputs(target)]
    count = sum(isinstance(t, ir.Scalar) and np.dtype(t.dtype).kind in "iu"
                for t in parameter_types(target))
    return [Inputs(target, ints) for ints in int_choices(count)]


# --- the three ways to run a function ---------------------------------------------------------

_modules = {}


def interpreted(path: str):
    """The source file run by the interpreter (its decorators bind nothing)."""
    key = ("interpreted", path)
    if key not in _modules:
        _modules[key] = load_module(f"_parity_py_{Path(path).stem}", path)
    return _modules[key]


def compiled(path: str, built: str):
    """The module built by unpy, loaded from `built` under the file's own name."""
    key = ("compiled", path)
    if key not in _modules:
        _modules[key] = load_module(Path(path).stem, built)
    return _modules[key]


def numba_twins(path: str):
    """A module (in sys.modules: Numba's cache finds a function's globals by module name) with
    the file's globals, `prange` bound to numba.prange and each function of the file bound to
    its `numba.njit(parallel=True, cache=True)` twin, compiled at its first call."""
    key = ("numba", path)
    if key in _modules:
        return _modules[key]
    import numba
    source = interpreted(path)
    twins = types.ModuleType(f"_parity_numba_{Path(path).stem}")
    sys.modules[twins.__name__] = twins
    skip = ("__name__", "__spec__", "__loader__", "__file__", "__cached__")
    twins.__dict__.update({k: v for k, v in vars(source).items() if k not in skip})
    twins.prange = numba.prange
    for name, value in vars(source).items():
        if isinstance(value, types.FunctionType) and value.__code__.co_filename == path:
            twin = types.FunctionType(value.__code__, twins.__dict__, name, value.__defaults__,
                                      value.__closure__)
            setattr(twins, name, numba.njit(parallel=True, cache=True)(twin))
    _modules[key] = twins
    return twins


def load_module(name: str, path: str):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module      # unpython.explain and Numba's cache find it by name
    spec.loader.exec_module(module)
    return module


def copies(args):
    return [a.copy() if isinstance(a, np.ndarray) else a for a in args]


@dataclass
class Outcome:
    """One call: what it returned and its arguments afterwards, or what it raised."""
    value: object = None
    args: list = None
    error: Optional[BaseException] = None
    seconds: float = 0.0


def run_once(func, args) -> Outcome:
    mine = copies(args)
    start = time.perf_counter()
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            value = func(*mine)
    except Overtime:
        raise
    except Exception as error:
        return Outcome(error=error, seconds=time.perf_counter() - start)
    return Outcome(value, mine, seconds=time.perf_counter() - start)


def difference(got, want, rtol) -> Optional[str]:
    """None when `got` equals `want` (floats within rtol of the largest |want|), else how not."""
    if isinstance(want, (tuple, list)):
        if not isinstance(got, (tuple, list)) or len(got) != len(want):
            return f"{type(got).__name__} {got!r:.60}, not a {type(want).__name__} of {len(want)}"
        found = [difference(g, w, rtol) for g, w in zip(got, want)]
        return next((f"item {k}: {d}" for k, d in enumerate(found) if d), None)
    if want is None or got is None:
        return None if got is want else f"{got!r:.60}, expected {want!r:.60}"
    g, w = np.asarray(got), np.asarray(want)
    if g.shape != w.shape:
        return f"shape {g.shape}, expected {w.shape}"
    if g.dtype.kind in "fc" or w.dtype.kind in "fc":
        g, w = g.astype(np.complex128), w.astype(np.complex128)
        finite = np.abs(w[np.isfinite(w)])
        scale = float(finite.max(initial=0.0))
        close = np.isclose(g, w, rtol=rtol, atol=rtol * scale, equal_nan=True)
    else:
        close = g == w
    if np.all(close):
        return None
    if w.ndim == 0:
        return f"{got!r:.40}, expected {want!r:.40}"
    bad = int(np.size(close) - np.count_nonzero(close))
    worst = float(np.nanmax(np.abs(g - w)[~close])) if g.dtype.kind == "c" else float("nan")
    return (f"{bad:,} of {w.size:,} elements differ"
            + (f" (max |error| {worst:.3g}, max |reference| {scale:.3g})"
               if g.dtype.kind == "c" else ""))


def agrees(verdict: str) -> bool:
    """A check's verdict: 'ok', 'ok (not compared: ...)', else how the results differ."""
    return verdict.startswith("ok")


def result_difference(got: Outcome, want: Outcome, rtol) -> Optional[str]:
    """How `got` differs from `want`: the return value, then each array argument."""
    if got.error is not None:
        return f"raised {why(got.error)}"
    found = difference(got.value, want.value, rtol)
    if found:
        return f"return value: {found}"
    for k, (g, w) in enumerate(zip(got.args, want.args)):
        if isinstance(w, np.ndarray):
            found = difference(g, w, rtol)
            if found:
                return f"argument {k} afterwards: {found}"
    return None


def tolerance(args, value) -> float:
    """1e-3 where float32 or complex64 is involved, else 1e-9 (bench/cpu.py's)."""
    def leaves(v):
        return [x for item in v for x in leaves(item)] if isinstance(v, (tuple, list)) else [v]
    single = any(np.asarray(v).dtype in (np.float32, np.complex64)
                 for v in leaves(list(args) + [value]) if not isinstance(v, type))
    return 1e-3 if single else 1e-9


def too_big(value) -> bool:
    """Python ints beyond int64 (also in an array of objects): compiled code wraps them."""
    if isinstance(value, (tuple, list)):
        return any(too_big(v) for v in value)
    if isinstance(value, np.ndarray):
        return value.dtype == object
    return isinstance(value, int) and not -2**63 <= value < 2**63


# --- step 2: the checks at the small size, in worker processes -------------------------------

@dataclass
class Checked:
    """What the checks at the small size found for one function."""
    label: str
    skipped: str = ""               # why it is not timed at all
    ints: tuple = ()                # the int candidate kept
    written: list = field(default_factory=list)  # indexes of the array arguments it writes
    unpy: str = "ok"                # 'ok', or how it differs from the interpreter
    numba: str = "ok"               # 'ok', 'no: <compile error>', or how it differs
    numba_first: float = float("nan")   # seconds of Numba's first call (compilation)
    seconds: float = 0.0            # of the checks


def worker_environment(cache_dir: str) -> dict:
    return dict(os.environ, OMP_NUM_THREADS=WORKER_THREADS, NUMBA_NUM_THREADS=WORKER_THREADS,
                NUMBA_CACHE_DIR=cache_dir, UNPY_DEVICE="none", PYTHONUNBUFFERED="1")


def check_in_processes(targets: list, built: dict, workers: int, cache_dir: str) -> dict:
    """{label: Checked} of every target, checked in `workers` processes at once, 8 functions
    to a process."""
    found = {}
    with ThreadPoolExecutor(workers) as pool:
        for part in pool.map(lambda part: check_in_process(part, built, cache_dir),
                             [targets[k:k + 8] for k in range(0, len(targets), 8)]):
            found.update((c.label, c) for c in part)
    return found


def check_in_process(targets: list, built: dict, cache_dir: str) -> list:
    """Checked of each target, from a process of this script (`--check-worker`), which says
    each step it starts and each result, a line each, in a file. A process that dies (a crash
    in compiled code) or hangs past the time limit is reported on the function and step it
    was at, and the functions after it go on in a new process."""
    done = []
    while len(done) < len(targets):
        rest = targets[len(done):]
        job = json.dumps({"targets": [asdict(t) for t in rest],
                          "built": {t.path: asdict(built[t.path]) for t in rest}})
        with tempfile.NamedTemporaryFile("r", suffix=".jsonl") as said:
            try:
                ended = subprocess.run([sys.executable, __file__, "--check-worker", said.name],
                                       input=job, env=worker_environment(cache_dir), text=True,
                                       capture_output=True,
                                       timeout=PROCESS_LIMIT * len(rest) + 60)
                how = f"exit status {ended.returncode}" if ended.returncode >= 0 else \
                    f"signal {signal.Signals(-ended.returncode).name}"
            except subprocess.TimeoutExpired:
                how = "no answer in time"
            lines = [json.loads(line) for line in said.read().splitlines()]
        done += [Checked(**line["checked"]) for line in lines if "checked" in line]
        if len(done) < len(targets):
            steps = [line["step"] for line in lines if "step" in line]
            target = targets[len(done)]
            done.append(Checked(target.label, skipped=f"the checking process died in "
                                f"{steps[-1] if steps else 'its start'} ({how})"))
    return done


def check_worker(said_path: str):
    """--check-worker: check the targets of the job on stdin, saying each step and result."""
    job = json.loads(sys.stdin.read())
    built = {path: Built(**b) for path, b in job["built"].items()}
    signal.signal(signal.SIGALRM, on_overtime)
    with open(said_path, "w") as said:
        for target in (Target(**dict(t, types=tuple(t["types"]))) for t in job["targets"]):
            def say(step):
                said.write(json.dumps({"step": f"{target.label}: {step}"}) + "\n")
                said.flush()
            started = time.perf_counter()
            try:
                checked = check(target, built[target.path], say)
            except Overtime:
                checked = Checked(target.label, skipped=f"a call or compilation over "
                                  f"{CHECK_LIMIT:.0f} s at the small size")
            except Exception as error:      # this benchmark's own failure: the others go on
                checked = Checked(target.label, skipped=f"the benchmark failed: {why(error)}")
            checked.seconds = time.perf_counter() - started
            said.write(json.dumps({"checked": asdict(checked)}) + "\n")
            said.flush()


def on_overtime(signum, frame):
    raise Overtime()


def check(target: Target, built: Built, say=lambda step: None) -> Checked:
    """The interpreter, unpy and Numba at the small size, compared; `say(step)` before each
    call."""
    if built.error:
        return Checked(target.label, skipped=f"unpy did not build the file: {built.error}")
    reason = unmakeable(target)
    if reason:
        return Checked(target.label, skipped=reason)
    function = getattr(interpreted(target.path), target.name)
    for inputs in candidate_inputs(target):
        args = inputs.make(inputs.small)
        say(f"the interpreter's call, ints {inputs.ints}")
        want = interpreter_call(function, args)
        if want.error is None:
            break
    if want.error is not None:
        return Checked(target.label, skipped=f"the interpreter raises: {why(want.error)}")
    written = [k for k, (a, b) in enumerate(zip(args, want.args))
               if isinstance(a, np.ndarray) and not np.array_equal(a, b, equal_nan=True)]
    result = Checked(target.label, ints=inputs.ints, written=written)
    # Random numbers or the clock: a second call of the interpreter differs from the first.
    rtol = tolerance(args, want.value)
    again = interpreter_call(function, args)
    unlike = result_difference(again, want, rtol)

    def verdict(got):
        found = result_difference(got, want, rtol)
        if found and unlike and got.error is None:
            return "ok (not compared: two calls of the interpreter differ)"
        return found or "ok"
    say("unpy's call")
    with time_limit(CHECK_LIMIT):
        result.unpy = verdict(run_once(getattr(compiled(target.path, built.output), target.name),
                                       args))
    twin = getattr(numba_twins(target.path), target.name)
    say("Numba's compilation and call")
    with time_limit(CHECK_LIMIT):
        got = run_once(twin, args)
    result.numba_first = got.seconds
    if got.error is not None and not twin.overloads:   # it raised before it had compiled
        result.numba = f"no: {why(got.error)}"
    else:
        result.numba = verdict(got)
    return result


def interpreter_call(function, args) -> Outcome:
    """The interpreter's call, as an error where it raises, passes INTERPRETER_LIMIT or
    returns ints beyond int64 (compiled code wraps them)."""
    try:
        with time_limit(INTERPRETER_LIMIT):
            want = run_once(function, args)
    except Overtime:
        return Outcome(error=TimeoutError(f"over {INTERPRETER_LIMIT:g} s"))
    if want.error is None and too_big(want.value):
        want.error = OverflowError("the result holds ints beyond int64")
    return want


@contextmanager
def time_limit(seconds):
    """Overtime raised in this (main) thread after `seconds`."""
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)


# --- step 3: the timings, one function at a time ----------------------------------------------

@dataclass
class Timing:
    first: float                    # seconds of the first call at the size
    median: float                   # of the timed calls
    calls: int


@dataclass
class Timer:
    repeat: int
    min_seconds: float
    warmup: float
    limit: float

    def time(self, func, args, written) -> Timing:
        """Each call on `args`, the arrays of `written` restored from a copy before it."""
        work = copies(args)

        def call():
            for k in written:
                np.copyto(work[k], args[k])
            start = time.perf_counter()
            func(*work)
            return time.perf_counter() - start

        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            first = call()
            if first > self.limit / 2:
                return Timing(first, first, 1)
            started = time.perf_counter()
            while True:
                call()
                if time.perf_counter() - started >= self.warmup:
                    break
            times, started = [], time.perf_counter()
            while len(times) < 1000 and (len(times) < self.repeat or sum(times) < self.min_seconds):
                times.append(call())
                if time.perf_counter() - started > self.limit / 2:
                    break
        return Timing(first, statistics.median(times), len(times))


@dataclass
class Row:
    label: str
    path: str
    line: int
    size: str = ""
    n: int = 0
    skipped: str = ""
    unpy: Optional[dict] = None     # Timing as a dict
    numba: Optional[dict] = None
    unpy_check: str = "ok"
    numba_check: str = "ok"
    numba_compile: float = float("nan")
    check_seconds: float = 0.0
    note: str = ""
    call_bound: bool = False

    @property
    def ratio(self):
        if self.unpy and self.numba:
            return self.numba["median"] / self.unpy["median"]
        return None


def seconds_of(func, args) -> float:
    start = time.perf_counter()
    func(*args)
    return time.perf_counter() - start


def pick_size(func, inputs: Inputs, cap, limit) -> tuple:
    """(n, seconds of one call, note): the size grows from the small one until a call of `func`
    takes TARGET_SECONDS, an array would pass `cap` elements, the next call would pass the
    limit (assuming a call's time grows at most with the square of the elements) or its memory
    (this call's times this call's over the last one's) would pass MEMORY_BUDGET."""
    n, previous, previous_seconds, memory = inputs.small, None, None, None
    while True:
        args = inputs.make(n)
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            try:
                added, before = peak_memory(lambda: func(*copies(args)))  # pages the arrays in
                seconds = min(seconds_of(func, copies(args)) for _ in range(2))
            except Exception as error:
                return previous, previous_seconds, f"unpy raised at n={n:,} ({why(error)})"
        previous, previous_seconds = n, seconds
        bigger = inputs.grown(n)
        growth = inputs.elements(bigger) / inputs.elements(n)
        needs = added * added / max(memory or added, 1) + before
        if (seconds >= TARGET_SECONDS or inputs.elements(bigger) > cap
                or seconds * growth ** 2 > limit / 4 or needs > MEMORY_BUDGET):
            return n, seconds, ""
        n, memory = bigger, added


def peak_memory(call) -> tuple:
    """(bytes the peak resident memory of `call()` passed the resident memory before it, that
    memory); (0, 0) where Linux's /proc/self/clear_refs cannot reset the peak."""
    def status(key):
        with open("/proc/self/status") as f:
            return next(int(line.split()[1]) * 1024 for line in f if line.startswith(key))
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        before = status("VmRSS:")
    except OSError:
        call()
        return 0, 0
    call()
    return max(status("VmHWM:") - before, 0), before


def measure(target: Target, checked: Checked, built: Built, timer: Timer, cap) -> Row:
    row = Row(target.label, target.path, target.line, unpy_check=checked.unpy,
              numba_check=checked.numba, numba_compile=checked.numba_first,
              check_seconds=checked.seconds, skipped=checked.skipped)
    if row.skipped or not agrees(checked.unpy):
        return row
    inputs = Inputs(target, tuple(checked.ints))
    unpy_func = getattr(compiled(target.path, built.output), target.name)
    n, seconds, row.note = pick_size(unpy_func, inputs, cap, timer.limit)
    if n is None:
        row.skipped = row.note
        return row
    row.n, row.size = n, inputs.describe(n)
    row.call_bound = seconds < CALL_SECONDS
    args = inputs.make(n)
    row.unpy = asdict(timer.time(unpy_func, args, checked.written))
    if agrees(checked.numba):
        numba_func = getattr(numba_twins(target.path), target.name)
        ours, theirs = run_once(unpy_func, args), run_once(numba_func, args)
        if theirs.error is None:
            differs = checked.unpy == "ok" and result_difference(ours, theirs,
                                                                  tolerance(args, ours.value))
            if differs:
                row.note = "; ".join(filter(None, [row.note, f"unpy and Numba differ at this "
                                                   f"size: unpy's {differs}"]))
            row.numba = asdict(timer.time(numba_func, args, checked.written))
        else:
            row.numba_check = f"raised at n={n:,}: {why(theirs.error)}"
    return row


# --- the table ---------------------------------------------------------------------------------

def ms(seconds) -> str:
    value = seconds * 1e3
    return f"{value:.0f}" if value >= 100 else f"{value:.3g}"


def numba_cell(row: Row) -> str:
    if row.numba:
        return ms(row.numba["median"])
    if row.numba_check.startswith("no:"):
        return "no"
    return "WRONG" if not agrees(row.numba_check) else "raised"


def write_markdown(path: Path, rows: list, header: dict):
    timed = [r for r in rows if r.unpy]
    lines = [f"# unpy against Numba parallel=True on the same source (issue 22): "
             f"{header['tag']}", "",
             f"- machine: {header['cpu']}, os.cpu_count() = {header['cores']}; threads: "
             f"{header['threads']}; 1-minute load average: {header['load']}",
             f"- date: {header['date']}; {header['method']}",
             "- versions: " + ", ".join(f"{k} {v}" for k, v in header["versions"].items()),
             f"- unpy: {header['unpy']}; `unpy build` with default flags, OpenMP path "
             "(UNPY_DEVICE=none)",
             "- Numba: the same function, njit(parallel=True), prange = numba.prange, the "
             "module's other functions as Numba twins",
             "- times in ms, median of one call; Numba/unpy > 1: unpy faster; size: the "
             "arrays' shapes (every dimension one n) and the ints that grow with n; "
             "call: one unpy call under 50 us (mostly the cost of a call)",
             "", "## Summary", ""] + summary(rows) + [
             "", "## Times", "",
             "| function | size | unpy ms | Numba ms | Numba/unpy |",
             "|---|---|---:|---:|---:|"]
    for r in timed:
        ratio = f"{r.ratio:.2f}" if r.ratio is not None else "—"
        size = r.size + (" (call)" if r.call_bound else "")
        lines.append(f"| {r.label} | {size} | {ms(r.unpy['median'])} | {numba_cell(r)} | "
                     f"{ratio} |")
    lines += ["", "## Not timed, Numba without a time, notes", ""] + notes(rows)
    path.write_text("\n".join(lines) + "\n")


def summary(rows: list) -> list:
    timed = [r for r in rows if r.unpy]
    both = [r for r in timed if r.ratio is not None]
    slower = sorted((r for r in both if r.ratio < 1), key=lambda r: r.ratio)
    kernels = [r for r in both if not r.call_bound]
    out = [f"- {len(rows)} functions: {len(timed)} timed by unpy, {len(both)} by both; "
           f"{len(rows) - len(timed)} not timed (below)",
           f"- unpy slower than Numba (Numba/unpy < 1): {len(slower)} of {len(both)} "
           f"({sum(r.ratio < 1 for r in kernels)} of the {len(kernels)} that are not call-bound)"]
    if both:
        ratios = np.array([r.ratio for r in both])
        out.append(f"- Numba/unpy: geometric mean {np.exp(np.log(ratios).mean()):.2f}, median "
                   f"{np.median(ratios):.2f}, worst {ratios.min():.2f}")
    out += [f"  - {r.label} {r.ratio:.2f} (unpy {ms(r.unpy['median'])} ms, Numba "
            f"{ms(r.numba['median'])} ms, {r.size}{', call' if r.call_bound else ''})"
            for r in slower]
    no = [r for r in timed if r.numba_check.startswith("no:")]
    other = [r for r in timed if not r.numba and not r.numba_check.startswith("no:")]
    out.append(f"- Numba did not compile: {len(no)}; Numba compiled but raised or differs from "
               f"the interpreter: {len(other)}")
    wrong = [r for r in rows if not agrees(r.unpy_check)]
    out.append(f"- unpy differs from the interpreter: {len(wrong)}"
               + (": " + ", ".join(r.label for r in wrong) if wrong else ""))
    differ = [r for r in rows if "differ at this size" in r.note]
    out.append(f"- unpy and Numba differ at the timed size: {len(differ)}"
               + (": " + ", ".join(r.label for r in differ) if differ else ""))
    skipped = {}
    for r in rows:
        if r.skipped:
            skipped.setdefault(reason_kind(r.skipped), []).append(r.label)
    for kind, labels in skipped.items():
        out.append(f"- skipped, {kind}: {len(labels)}")
    return out


def reason_kind(reason: str) -> str:
    """A skip reason without its particulars, to count them."""
    if reason.startswith("the interpreter raises"):
        return "the interpreter raises at every candidate"
    if reason.startswith("a parameter of type"):
        return "inputs cannot be made (" + reason.split(" type ")[1].split("[")[0] + " parameter)"
    return reason.split(":")[0]


def notes(rows: list) -> list:
    lines = []
    for r in rows:
        said = [s for s in (r.skipped and f"not timed: {r.skipped}",
                            not agrees(r.unpy_check) and f"unpy differs from the interpreter: "
                                                     f"{r.unpy_check}",
                            r.unpy and r.numba_check != "ok" and f"Numba: {r.numba_check}",
                            r.unpy_check.startswith("ok (") and f"unpy: {r.unpy_check}",
                            r.note) if s]
        if said:
            lines.append(f"- {r.label} (line {r.line}): " + "; ".join(said))
    return lines or ["- none"]


# --- the run -----------------------------------------------------------------------------------

@dataclass(frozen=True)
class Built:
    """A source file built by unpy: the module's path, or why it did not build."""
    output: str = ""
    error: str = ""


def build_all(paths: list) -> dict:
    """{path: Built}, g++ on several at once."""
    sysconfig.get_config_vars()     # filled lazily, not safely from two threads at once
    BUILD_DIR.mkdir(parents=True, exist_ok=True)

    def one(path):
        try:
            return path, Built(str(build(path, str(BUILD_DIR), BuildOptions()).output))
        except Exception as error:
            return path, Built(error=f"{type(error).__name__}: "
                               f"{(str(error).strip().splitlines() or [''])[0]}")
    with ThreadPoolExecutor(max_workers=max(1, min(4, os.cpu_count() // 4))) as pool:
        return dict(pool.map(one, paths))


def thread_counts() -> str:
    import numba
    said = [f"{k}={os.environ[k]}" for k in ("OMP_NUM_THREADS", "NUMBA_NUM_THREADS")
            if k in os.environ]
    try:
        layer = numba.threading_layer()
    except ValueError:
        layer = "not started"
    return ", ".join(said or ["defaults"]) + (f"; Numba {numba.config.NUMBA_NUM_THREADS} threads"
                                              f", threading layer {layer}")


def main(argv=None):
    if argv and argv[0] == "--check-worker":
        return check_worker(argv[1])
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kernels", default="",
                        help="comma-separated fnmatch patterns of 'file.function', file or "
                        "function names (default: all)")
    parser.add_argument("--quick", action="store_true",
                        help="3 timed calls and 0.05 s at least, arrays of 4M elements at most")
    parser.add_argument("--limit", type=float,
                        help="seconds of timing per function at most (default 8, --quick 3)")
    parser.add_argument("--workers", type=int, default=max(1, min(12, (os.cpu_count() or 2) - 2)),
                        help="processes for the checks and Numba's compilations")
    parser.add_argument("--out", type=Path,
                        help="the table (default bench/results/numba-parity-<cores>core.md); "
                        "the rows go to the .json beside it")
    options = parser.parse_args(argv)
    repeat, min_seconds, warmup, cap = (3, 0.05, 0.05, 4 * 2**20) if options.quick else (
        7, 0.25, 0.2, 16 * 2**20)
    timer = Timer(repeat, min_seconds, warmup, options.limit or (3.0 if options.quick else 8.0))
    out = options.out or BENCH_DIR / "results" / f"numba-parity-{os.cpu_count()}core.md"
    os.environ["UNPY_DEVICE"] = "none"
    cache = tempfile.mkdtemp(prefix="numba-parity-")
    os.environ["NUMBA_CACHE_DIR"] = cache   # before Numba is imported
    started, load_before = time.perf_counter(), load_average()
    try:
        targets = find_targets([p for p in options.kernels.split(",") if p])
        paths = sorted({t.path for t in targets})
        print(f"{len(targets)} functions in {len(paths)} files", flush=True)
        built = build_all(paths)
        for path, result in built.items():
            if result.error:
                print(f"  {Path(path).name}: unpy did not build: {result.error}", flush=True)
        print(f"built in {time.perf_counter() - started:.0f} s; checking at the small size "
              f"with {options.workers} processes", flush=True)
        checked = check_in_processes(targets, built, options.workers, cache)
        print(f"checked in {time.perf_counter() - started:.0f} s; timing", flush=True)
        rows = []

        def write(final: bool):
            """The table and its rows so far (a run cut short, as by a machine's time limit,
            leaves what it timed)."""
            header = {"tag": out.stem, "cpu": cpu_model(), "cores": os.cpu_count(),
                      "threads": thread_counts(), "date": datetime.date.today().isoformat(),
                      "load": f"{load_before} before, {load_average()} after",
                      "versions": versions(), "unpy": unpy_revision(),
                      "method": (f"median of at least {repeat} timed calls and {min_seconds:g} "
                                 f"s after {warmup:g} s of warm-up, each column on its own, "
                                 f"results checked against the interpreter at the small size "
                                 f"first; {time.perf_counter() - started:.0f} s in all"
                                 + ("; --quick" if options.quick else "")
                                 + ("" if final else f"; cut short: {len(rows)} of "
                                    f"{len(targets)} functions timed so far")),
                      "options": {"quick": options.quick, "limit": timer.limit, "cap": cap,
                                  "kernels": options.kernels}}
            out.parent.mkdir(parents=True, exist_ok=True)
            out.with_suffix(".json").write_text(json.dumps(
                {"header": header, "rows": [asdict(r) for r in rows]}, indent=1))
            write_markdown(out, rows, header)

        for target in targets:
            try:
                row = measure(target, checked[target.label], built[target.path], timer, cap)
            except Exception as error:  # this benchmark's own failure: the others go on
                row = Row(target.label, target.path, target.line,
                          skipped=f"the benchmark failed while timing: {why(error)}")
            rows.append(row)
            print(f"  {row.label}: " + (f"skipped ({row.skipped})" if row.skipped else
                                        f"{row.size}: unpy "
                                        + (ms(row.unpy["median"]) if row.unpy else row.unpy_check)
                                        + f" ms, Numba {numba_cell(row)}"
                                        + (f", {row.ratio:.2f}" if row.ratio else "")),
                  flush=True)
            if len(rows) % 50 == 0:
                write(final=False)
        write(final=True)
        print("\n".join(summary(rows)))
        print(f"wrote {out} and {out.with_suffix('.json').name} in "
              f"{time.perf_counter() - started:.0f} s")
    finally:
        shutil.rmtree(cache, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
