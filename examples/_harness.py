"""What the six example kernels share: their test cases, checking, timing and the `main` of each.

An example module defines its kernel functions, `CASES` (one `Case` per compiled function) and
`SIZES`, and its `main(argv)` calls `main` below. `tests/test_examples.py` and `bench/cpu.py` use
the same cases, so inputs, reference results and tolerances live in one place.
"""
import argparse
import functools
import importlib
import importlib.util
import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Optional

import numpy as np

EXAMPLES_DIR = Path(__file__).resolve().parent
SEED = 0
# Untimed calls before the timed ones: other thread pools (OpenBLAS's, used by the reference
# results) keep spinning for ~0.1 s after their last call and slow a parallel kernel down
# severalfold on a small machine.
WARMUP_SECONDS = 0.2

try:
    import unpython  # noqa: F401
except ImportError:  # run from a checkout (`python examples/mmult.py`): unpython.py is one level up
    sys.path.append(str(EXAMPLES_DIR.parent))


@dataclass(frozen=True)
class Case:
    """One compiled function of an example and how to feed and check it.

    `make_args(n, dtype, rng)` returns the call's arguments, output array included (at index
    `out`); `expected(args)` returns what the output must hold afterwards, in float64, with NaN
    where it is not checked. `inout`: the output is also an input (syrk's `c`), so it is restored
    before every call.
    """
    kernel: str
    func: str
    dtype: type
    make_args: Callable
    expected: Callable
    out: int
    inout: bool = False

    @property
    def precision(self):
        return "f32" if self.dtype == np.float32 else "f64"

    @property
    def label(self):
        return f"{self.kernel} {self.precision}"

    @property
    def rtol(self):
        # Loose enough for a float32 reduction of 65536 terms in any order, tight enough to catch
        # any wrong index (those give errors of order one).
        return 1e-3 if self.dtype == np.float32 else 1e-9

    def args(self, n):
        return self.make_args(n, self.dtype, np.random.default_rng(SEED))


@dataclass(frozen=True)
class Measurement:
    first: float                 # seconds of the first call (the warm-up); NaN if it raised
    median: Optional[float]      # median seconds of the timed calls after it; None if none
    ok: bool                     # the first call returned and its result matched the reference
    error: Optional[str] = None  # what the first call raised, if it did

    @property
    def best(self):
        return self.first if self.median is None else self.median

    @property
    def verdict(self):
        return "ok" if self.ok else f"FAILED ({self.error})" if self.error else "FAILED"


@functools.cache
def interpreted(kernel):
    """The example module `kernel` run from its .py source, whether or not a build exists.

    It is loaded under another name, so the decorators find no compiled function to bind."""
    path = EXAMPLES_DIR / f"{kernel}.py"
    name = f"_interpreted_{kernel}"
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def is_compiled(module):
    return not module.__file__.endswith(".py")


def matches(got, want, rtol):
    """`got` agrees with `want` where `want` is not NaN, relative to the largest reference value
    (a sum with cancellation may be small where its terms are not)."""
    checked = ~np.isnan(want)
    scale = np.abs(want[checked]).max(initial=0.0)
    return np.allclose(got[checked], want[checked], rtol=rtol, atol=rtol * scale)


def timed_caller(case, func, args):
    """(call, output): `call()` runs `func` on a private copy of the output array of `args` and
    returns its seconds; `output` is that copy. The copy is restored before every call when the
    output is also an input, and `args` stay untouched, so a function that writes nothing cannot
    pass on the result of an earlier one."""
    work = list(args)
    work[case.out] = args[case.out].copy()

    def call():
        if case.inout:
            np.copyto(work[case.out], args[case.out])
        start = time.perf_counter()
        func(*work)
        return time.perf_counter() - start

    return call, work[case.out]


def measure_all(case, funcs, args, want, repeat, min_seconds=0.0):
    """{name: Measurement} of several functions computing `case`: each is called once and checked
    against `want`, then those that passed are warmed up for WARMUP_SECONDS (unless `repeat` is
    0) and timed in rounds, one call of each per round, so that a slow spell of a shared machine
    hits them all alike. Rounds go on until there are `repeat` of them and the slowest function
    has run `min_seconds` (1000 rounds at most)."""
    callers, results, times = {}, {}, {}
    for name, func in funcs.items():
        call, output = timed_caller(case, func, args)
        try:
            first = call()
        except Exception as error:  # reported in the Measurement, not fatal to the others
            results[name] = Measurement(float("nan"), None, False, f"{type(error).__name__}: "
                                        + (str(error).strip().splitlines() or [""])[0])
            continue
        results[name] = Measurement(first, None, matches(output, want, case.rtol))
        if results[name].ok:
            callers[name], times[name] = call, []
    start = time.perf_counter()
    while callers and repeat and time.perf_counter() - start < WARMUP_SECONDS:
        for call in callers.values():
            call()
    rounds = 0
    while callers and (rounds < repeat
                       or max(sum(t) for t in times.values()) < min_seconds and rounds < 1000):
        for name, call in callers.items():
            times[name].append(call())
        rounds += 1
    for name, t in times.items():
        if t:
            results[name] = Measurement(results[name].first, statistics.median(t), True)
    return results


def measure(case, func, args, want, repeat, min_seconds=0.0):
    """The Measurement of one function (see `measure_all`)."""
    return measure_all(case, {func: func}, args, want, repeat, min_seconds)[func]


def seconds(t):
    if np.isnan(t):
        return "—"
    if t >= 1:
        return f"{t:.2f} s"
    if t >= 1e-3:
        return f"{t * 1e3:.2f} ms"
    return f"{t * 1e6:.1f} us"


def speedup(slow, fast):
    ratio = slow / fast
    return f"{ratio:.0f}x" if ratio >= 10 else f"{ratio:.1f}x"


def main(argv, cases, sizes):
    """Run each case under the interpreter at the small size and check it against NumPy; then,
    if the module is built, run the compiled function at that size and at `--n`."""
    kernel = cases[0].kernel
    parser = argparse.ArgumentParser(
        prog=f"{kernel}.py", description=f"Run and check the {kernel} example.")
    parser.add_argument("--n", type=int, default=sizes["dev"][0],
                        help="problem size for the compiled run (default: %(default)s)")
    parser.add_argument("--repeat", type=int, default=5,
                        help="timed calls after the warm-up (default: %(default)s)")
    options = parser.parse_args(argv)

    python_module = interpreted(kernel)
    module = importlib.import_module(kernel)
    compiled = is_compiled(module)
    all_ok = True
    for case in cases:
        args = case.args(sizes["small"])
        want = case.expected(args)
        interp = measure(case, getattr(python_module, case.func), args, want, repeat=0)
        line = f"{case.label} n={sizes['small']}: interpreter {seconds(interp.first)}"
        results = {"interpreter": interp}
        if compiled:
            comp = measure(case, getattr(module, case.func), args, want, options.repeat)
            results["compiled"] = comp
            line += f", compiled {seconds(comp.best)}"
            if comp.ok:
                line += f" ({speedup(interp.first, comp.best)})"
        ok = all(r.ok for r in results.values())
        print(f"{line}, check " + ("ok" if ok else ", ".join(
            f"{name} {r.verdict}" for name, r in results.items())))
        all_ok &= ok

        if compiled:
            args = case.args(options.n)
            comp = measure(case, getattr(module, case.func), args, case.expected(args),
                           options.repeat)
            print(f"{case.label} n={options.n}: compiled {seconds(comp.best)} "
                  f"(first call {seconds(comp.first)}), check {comp.verdict}")
            all_ok &= comp.ok
    if not compiled:
        print(f"not compiled: run `unpy build examples/{kernel}.py`")
    return 0 if all_ok else 1
