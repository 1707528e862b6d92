"""Random differential testing (issue 19 item 7): programs from tests/fuzz/generate.py, each
run by the interpreter (the reference), by its compiled OpenMP function, and by its compiled
`@unpython.gpu` twin on the OpenCL device the GPU-path tests use (UNPY_FORCE_GPU=1,
UNPY_DEVICE=$UNPY_TEST_DEVICE or `cpu`).

Per batch of programs:
1. each program alone: the interpreter runs it (a program that raises or warns there is a bug of
   the generator: 'invalid', left out), then unpy translates it to C++ without compiling
   (`unpy.cpp_emit.build.generate`): a CompileError with a location is a refusal, anything else
   an internal error (a finding);
2. the accepted programs go into one module, built once with g++ (a failing g++ is a finding;
   the batch is then halved until the failing programs are found);
3. every program runs three ways on fresh copies of the same arguments; the results and every
   array argument (and the buffer a strided argument views) are compared.

Equality: integers and bools exactly, and the dtype of every result as the interpreter gives
it. Floats within a tolerance relative to the largest magnitude of the compared value (at least
1): 1e-9 for float64 and complex128, 1e-4 for float32. The reasons: a `prange` reduction and
an atomic update add in another order than the interpreter (docs/supported.md), NumPy's
`np.sum` adds pairwise, NumPy's float64 sin/cos/tanh/exp/log1p are its own SIMD code, not
glibc's, and OpenCL kernels may contract a*b+c into an fma (SPEC section 4). The generator
feeds comparisons, floors and `//`/`%` only with float values that every path computes the
same, so these tolerances cannot turn into different branches.

Opt-in long run:  python -m tests.fuzz.run --count 2000 --seed 0 [--jobs 2]
(or UNPY_FUZZ_PROGRAMS=2000 python -m tests.fuzz.run); each batch runs in a subprocess, so that
a crash (a signal) is reported against the program that was running.
"""
from __future__ import annotations

import argparse
import collections
import importlib.util
import json
import math
import os
import subprocess
import sys
import tempfile
import time
import traceback
import warnings
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
TESTS = HERE.parent
REPO = TESTS.parent
for p in (str(HERE), str(TESTS), str(REPO)):
    if p not in sys.path:
        sys.path.insert(0, p)

import generate  # noqa: E402

RTOL = {"float64": 1e-9, "complex128": 1e-9, "float32": 1e-4, "complex64": 1e-4}


@dataclass
class Finding:
    seed: int
    kind: str          # mismatch, compiled-raised, internal-error, gxx-failed, crash
    variant: str       # openmp, gpu, compile, build
    message: str
    source: str = ""
    args: str = ""


@dataclass
class BatchResult:
    seeds: list = field(default_factory=list)
    generated: int = 0
    invalid: list = field(default_factory=list)      # (seed, why): generator bugs
    refused: list = field(default_factory=list)      # (seed, message)
    compiled: int = 0
    compared: int = 0
    gpu_nests: collections.Counter = field(default_factory=collections.Counter)
    findings: list = field(default_factory=list)
    build_seconds: float = 0.0
    run_seconds: float = 0.0

    def merge(self, other: "BatchResult"):
        self.seeds += other.seeds
        self.generated += other.generated
        self.invalid += other.invalid
        self.refused += other.refused
        self.compiled += other.compiled
        self.compared += other.compared
        self.gpu_nests.update(other.gpu_nests)
        self.findings += other.findings
        self.build_seconds += other.build_seconds
        self.run_seconds += other.run_seconds

    def to_json(self):
        d = asdict(self)
        d["gpu_nests"] = dict(self.gpu_nests)
        return d

    @staticmethod
    def from_json(d):
        r = BatchResult(**{k: v for k, v in d.items() if k not in ("findings", "gpu_nests")})
        r.findings = [Finding(**f) for f in d["findings"]]
        r.gpu_nests = collections.Counter(d["gpu_nests"])
        return r


# --- comparing ---------------------------------------------------------------------------

def _scalar_dtype(x):
    return np.asarray(x).dtype


def _close(expected, got, dtype) -> bool:
    """Arrays (or scalars as 0-d arrays) of one dtype, equal within its tolerance."""
    e = np.asarray(expected)
    g = np.asarray(got)
    if e.dtype.kind == "c":
        return _close(e.real, g.real, dtype) and _close(e.imag, g.imag, dtype)
    if e.dtype.kind != "f":
        return bool(np.array_equal(e, g))
    rtol = RTOL.get(np.dtype(dtype).name, 1e-9)
    finite = np.isfinite(e)
    scale = max(1.0, float(np.max(np.abs(e[finite]))) if finite.any() else 1.0)
    with np.errstate(all="ignore"):
        ok = (np.abs(g.astype(np.float64) - e.astype(np.float64)) <= rtol * scale) | (
            (e == g) | (np.isnan(e) & np.isnan(g)))
    return bool(np.all(ok))


def difference(expected, got, what="result") -> str | None:
    """Why `got` is not `expected` (None: equal), with the rules of the module docstring."""
    if isinstance(expected, tuple):
        if not isinstance(got, tuple) or len(got) != len(expected):
            return f"{what}: expected a tuple of {len(expected)}, got {got!r}"
        for k, (x, y) in enumerate(zip(expected, got)):
            d = difference(x, y, f"{what}[{k}]")
            if d:
                return d
        return None
    if isinstance(expected, np.ndarray):
        if not isinstance(got, np.ndarray):
            return f"{what}: expected an array, got {got!r}"
        if got.dtype != expected.dtype:
            return f"{what}: dtype {got.dtype} != the interpreter's {expected.dtype}"
        if got.shape != expected.shape:
            return f"{what}: shape {got.shape} != the interpreter's {expected.shape}"
        if not _close(expected, got, expected.dtype):
            return f"{what}: values differ\n  interpreter {expected!r}\n  compiled    {got!r}"
        return None
    if expected is None:
        return None if got is None else f"{what}: expected None, got {got!r}"
    if not np.isscalar(got):
        return f"{what}: expected a scalar, got {got!r}"
    de, dg = _scalar_dtype(expected), _scalar_dtype(got)
    if isinstance(expected, np.generic):
        if dg != de:
            return f"{what}: dtype {dg} != the interpreter's {de} ({got!r} vs {expected!r})"
    elif dg.kind != de.kind and not (de.kind == "i" and dg.kind == "u"):
        return f"{what}: {got!r} is not of the kind of the interpreter's {expected!r}"
    if not _close(expected, got, de if de.kind in "fc" else dg):
        return f"{what}: interpreter {expected!r}, compiled {got!r}"
    return None


def observed(args) -> list:
    """The arrays a call may change: the array arguments and the buffers strided ones view."""
    out, seen = [], set()
    for a in args:
        if not isinstance(a, np.ndarray):
            continue
        for x in (a, a.base):
            if isinstance(x, np.ndarray) and id(x) not in seen:
                seen.add(id(x))
                out.append(x)
    return out


def call(f, args):
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        try:
            return ("ok", f(*args))
        except Exception as e:      # the comparison is the test
            return ("raise", e)


def describe_args(args) -> str:
    parts = []
    for a in args:
        if isinstance(a, np.ndarray):
            parts.append(f"ndarray({a.dtype}, shape={a.shape}, strides={a.strides}, "
                         f"writeable={a.flags.writeable}, values={a.tolist()!r})")
        else:
            parts.append(f"{type(a).__name__}({a!r})")
    return "[" + ", ".join(parts) + "]"


# --- modules -----------------------------------------------------------------------------

def load_module(name: str, path: Path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def interpreter_check(prog, workdir: Path) -> str | None:
    """Why the interpreter does not run the program cleanly (None: it does)."""
    path = workdir / f"alone_{prog.name}.py"
    path.write_text(prog.module_source())
    try:
        module = load_module(f"interp_alone_{prog.name}", path)
        # integer overflow wraps, as the compiled code's does (SPEC section 3); any other
        # warning (a division by zero, an invalid value) is a generator bug
        with warnings.catch_warnings(), np.errstate(all="raise", over="ignore"):
            warnings.simplefilter("error")
            warnings.filterwarnings("ignore", "overflow encountered", RuntimeWarning)
            getattr(module, prog.name)(*prog.make_args())
    except Exception as e:
        return f"{type(e).__name__}: {e}"
    finally:
        sys.modules.pop(f"interp_alone_{prog.name}", None)
    return None


def compile_check(prog, workdir: Path):
    """('ok' | 'refused' | 'internal', message) of translating the program alone to C++."""
    from unpy.cpp_emit.build import BuildOptions, generate as emit
    from unpy.errors import CompileError
    path = workdir / f"alone_{prog.name}.py"
    path.write_text(prog.module_source())
    try:
        emit(str(path), BuildOptions())
    except CompileError as e:
        if e.line > 0 and e.message:
            return "refused", e.message
        return "internal", f"a CompileError without a location: {e!r}"
    except Exception:
        return "internal", traceback.format_exc()
    return "ok", ""


def build_module(progs, workdir: Path, name: str):
    """Build one module of `progs`. Returns (compiled module, interpreted module, seconds),
    or raises."""
    from unpy.cpp_emit.build import BuildOptions, build
    path = workdir / f"{name}.py"
    path.write_text(generate.HEADER + "\n\n" + "\n\n".join(p.source() for p in progs) + "\n")
    started = time.perf_counter()
    so = build(str(path), str(workdir / "build"), BuildOptions()).output
    seconds = time.perf_counter() - started
    return load_module(name, so), load_module(f"interp_{name}", path), seconds


def find_build_failures(progs, workdir: Path, name: str, result: BatchResult) -> list:
    """Build `progs`; where the build fails, halve until the programs that fail alone are
    found (findings). Returns [(progs, compiled, interpreted)] of the parts that built."""
    try:
        compiled, interp, seconds = build_module(progs, workdir, name)
        result.build_seconds += seconds
        return [(progs, compiled, interp)]
    except Exception as e:
        from unpy.errors import CompileError
        if len(progs) == 1:
            kind = "internal-error" if isinstance(e, CompileError) else "gxx-failed"
            msg = str(e) if isinstance(e, CompileError) else "".join(
                traceback.format_exception_only(e))[-3000:]
            result.findings.append(Finding(progs[0].seed, kind, "build", msg,
                                           progs[0].module_source()))
            return []
        half = len(progs) // 2
        return (find_build_failures(progs[:half], workdir, f"{name}a", result)
                + find_build_failures(progs[half:], workdir, f"{name}b", result))


def gpu_places(f) -> list:
    import unpython
    try:
        report = unpython.explain(f)
        return [(n.ran_on or "none").split(":")[0] for n in report.nests]
    except Exception:
        return ["explain-failed"]


def compare_program(prog, compiled, interp, result: BatchResult, progress=None):
    if progress:
        progress(prog.seed)
    args = prog.make_args()
    expected = call(getattr(interp, prog.name), args)
    exp_arrays = observed(args)
    if expected[0] == "raise":
        result.invalid.append((prog.seed, f"interpreter raised {expected[1]!r}"))
        return
    result.compared += 1
    for variant, fname in (("openmp", prog.name), ("gpu", prog.name + "_gpu")):
        args = prog.make_args()
        got = call(getattr(compiled, fname), args)
        if variant == "gpu":
            result.gpu_nests.update(gpu_places(getattr(compiled, fname)))
        if got[0] == "raise":
            result.findings.append(Finding(
                prog.seed, "compiled-raised", variant,
                "".join(traceback.format_exception_only(got[1])).strip()
                + f"\n  interpreter result {expected[1]!r}",
                prog.module_source(), describe_args(prog.make_args())))
            continue
        why = difference(expected[1], got[1])
        if why is None:
            for k, (a, b) in enumerate(zip(exp_arrays, observed(args))):
                why = difference(a, b, f"array argument/buffer {k} after the call")
                if why:
                    break
        if why:
            result.findings.append(Finding(prog.seed, "mismatch", variant, why,
                                           prog.module_source(),
                                           describe_args(prog.make_args())))


def run_batch(seeds, workdir: Path, features=None, name="fuzzmod", skip=(),
              progress=None) -> BatchResult:
    """Generate, check, build once and compare the programs of `seeds`."""
    os.environ.setdefault("UNPY_DEVICE", os.environ.get("UNPY_TEST_DEVICE", "cpu") or "cpu")
    os.environ["UNPY_FORCE_GPU"] = "1"
    result = BatchResult(seeds=list(seeds))
    workdir.mkdir(parents=True, exist_ok=True)
    accepted = []
    for seed in seeds:
        prog = generate.generate(seed, features)
        result.generated += 1
        why = interpreter_check(prog, workdir)
        if why:
            result.invalid.append((seed, why))
            continue
        status, msg = compile_check(prog, workdir)
        if status == "refused":
            result.refused.append((seed, msg))
        elif status == "internal":
            result.findings.append(Finding(seed, "internal-error", "compile", msg,
                                           prog.module_source()))
        else:
            accepted.append(prog)
    if not accepted:
        return result
    started = time.perf_counter()
    parts = find_build_failures(accepted, workdir, name, result)
    for progs, compiled, interp in parts:
        result.compiled += len(progs)
        for prog in progs:
            if prog.seed in skip:
                continue
            compare_program(prog, compiled, interp, result, progress)
    result.run_seconds = time.perf_counter() - started - result.build_seconds
    return result


# --- the long run ------------------------------------------------------------------------

def _child(args):
    """One batch in this process (run by the parent in a subprocess)."""
    seeds = list(range(args.batch_start, args.batch_start + args.batch_count))
    workdir = Path(args.workdir)
    current = workdir / "current"
    skip = set(json.loads(args.skip)) if args.skip else set()

    def progress(seed):
        current.write_text(str(seed))
    features = set(args.features.split(",")) if args.features else None
    result = run_batch(seeds, workdir, features, f"fuzz_{args.batch_start}_{len(skip)}", skip,
                       progress)
    current.unlink(missing_ok=True)
    (workdir / "result.json").write_text(json.dumps(result.to_json()))


def run_isolated(start, count, root: Path, features) -> BatchResult:
    """A batch in a subprocess; a program that kills it is a 'crash' finding, and the batch
    goes on without it (its module comes from the build cache)."""
    workdir = root / f"batch{start}"
    workdir.mkdir(parents=True, exist_ok=True)
    skip = []
    crashes = []
    while True:
        cmd = [sys.executable, str(Path(__file__)), "--child", "--batch-start", str(start),
               "--batch-count", str(count), "--workdir", str(workdir),
               "--skip", json.dumps(skip)]
        if features:
            cmd += ["--features", ",".join(sorted(features))]
        (workdir / "result.json").unlink(missing_ok=True)
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode == 0 and (workdir / "result.json").exists():
            result = BatchResult.from_json(json.loads((workdir / "result.json").read_text()))
            result.findings += crashes
            return result
        current = workdir / "current"
        if current.exists():
            seed = int(current.read_text())
            prog = generate.generate(seed, features)
            crashes.append(Finding(seed, "crash", "run", f"the process died (exit "
                                   f"{proc.returncode}): {proc.stderr[-2000:]}",
                                   prog.module_source(), describe_args(prog.make_args())))
            skip.append(seed)
            current.unlink()
            continue
        result = BatchResult(seeds=list(range(start, start + count)), generated=count)
        result.findings.append(Finding(start, "crash", "batch",
                                       f"the batch process failed (exit {proc.returncode}):\n"
                                       f"{proc.stderr[-3000:]}"))
        return _with(result, crashes)


def _with(result, crashes):
    result.findings += crashes
    return result


def summary(result: BatchResult, seconds: float) -> str:
    lines = [f"programs generated: {result.generated}",
             f"invalid (generator bugs, left out): {len(result.invalid)}",
             f"refused (compile errors with a location): {len(result.refused)}",
             f"compiled: {result.compiled}",
             f"compared three ways: {result.compared}",
             f"GPU-variant nests ran on: {dict(result.gpu_nests)}",
             f"findings: {len(result.findings)} "
             f"({dict(collections.Counter(f.kind + '/' + f.variant for f in result.findings))})",
             f"time: {seconds:.0f} s (g++ {result.build_seconds:.0f} s, "
             f"calls {result.run_seconds:.0f} s)"]
    if result.refused:
        lines.append("refusals, grouped:")
        groups = collections.Counter(_group(m) for _, m in result.refused)
        for msg, n in groups.most_common():
            seeds = [s for s, m in result.refused if _group(m) == msg][:5]
            lines.append(f"  {n:5d}  {msg}   (seeds {seeds})")
    if result.invalid:
        lines.append("invalid programs (generator bugs):")
        for s, why in result.invalid[:20]:
            lines.append(f"  seed {s}: {why[:200]}")
    if result.findings:
        lines.append("findings:")
        for f in result.findings:
            first = f.message.strip().splitlines()[0] if f.message.strip() else ""
            lines.append(f"  seed {f.seed} [{f.kind}/{f.variant}] {first[:300]}")
    return "\n".join(lines)


def _group(message: str) -> str:
    """A refusal message without the names and numbers of one program."""
    import re
    m = message.splitlines()[0]
    m = re.sub(r"'[^']*'", "'…'", m)
    m = re.sub(r"\b\d+\b", "N", m)
    return m[:160]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--count", type=int, default=int(os.environ.get("UNPY_FUZZ_PROGRAMS", 200)))
    ap.add_argument("--seed", type=int, default=0, help="the first seed")
    ap.add_argument("--batch", type=int, default=40, help="programs per built module")
    ap.add_argument("--jobs", type=int, default=1, help="batches at once")
    ap.add_argument("--features", default="", help="comma-separated features (generate.FEATURES)")
    ap.add_argument("--workdir", default="")
    ap.add_argument("--report", default="", help="write the findings (JSON) here")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--batch-start", type=int, help=argparse.SUPPRESS)
    ap.add_argument("--batch-count", type=int, help=argparse.SUPPRESS)
    ap.add_argument("--skip", default="", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    os.environ.setdefault("UNPY_CACHE_DIR", str(REPO / ".unpy-cache"))
    if args.child:
        return _child(args)
    features = set(args.features.split(",")) if args.features else None
    root = Path(args.workdir or tempfile.mkdtemp(prefix="unpy-fuzz-"))
    starts = list(range(args.seed, args.seed + args.count, args.batch))
    total = BatchResult()
    t0 = time.perf_counter()
    from concurrent.futures import ThreadPoolExecutor
    with ThreadPoolExecutor(args.jobs) as pool:
        futures = [pool.submit(run_isolated, s, min(args.batch, args.seed + args.count - s),
                               root, features) for s in starts]
        for k, fut in enumerate(futures):
            r = fut.result()
            total.merge(r)
            print(f"batch {k + 1}/{len(futures)}: {r.compared} compared, {len(r.refused)} "
                  f"refused, {len(r.findings)} findings "
                  f"({time.perf_counter() - t0:.0f} s)", flush=True)
    print(summary(total, time.perf_counter() - t0))
    if args.report:
        Path(args.report).write_text(json.dumps(total.to_json(), indent=1))
        print(f"findings written to {args.report}")
    return 1 if total.findings else 0


if __name__ == "__main__":
    sys.exit(main())
