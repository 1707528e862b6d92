"""The NumPy corpus: kernels written the way NumPy users write them (tests/corpus/kernels/*.py,
one module each), and which of them unpy compiles and runs like the interpreter.

    .venv/bin/python tests/corpus/corpus.py [KERNEL ...] [--no-build] [--write-pending] [-v]

prints, per kernel, whether it compiles (else the first line of the error), whether the compiled
function matches the interpreter with OpenMP (`UNPY_DEVICE=none`) and on the GPU path forced onto
the tested OpenCL device (`UNPY_DEVICE=$UNPY_TEST_DEVICE`, `cpu` by default, `UNPY_FORCE_GPU=1`;
the table says how many of its nests ran there), and the totals. `--no-build` stops after
compiling (no g++); `--write-pending` rewrites tests/corpus/pending.txt from what fails
(tests/corpus/test_corpus.py keeps that list true); `-v` prints whole errors and mismatches.

A kernel module has `import numpy as np`, `import unpython` (and `from unpython import prange`,
`import math` where used), one or two decorated functions, and, undecorated, `inputs(rng,
scale=1)` (the arguments of one call; a larger `scale` grows the problem), `LARGE` (the scale of
bench/corpus_decisions.py's large size) and `FUNCTION` (the function to call). "Compiles" means
the typed IR and the C++ of the module are made without an error: no g++, a fraction of a second
for the whole corpus. The compiling kernels are then built together: concatenated into ONE
generated module (their imports merged, `inputs`/`LARGE`/`FUNCTION` left out: names must be
unique across the corpus), since a module costs g++ about six seconds before its first function;
those in pending.txt in another. Both come from the build cache when neither the kernels nor unpy
changed.

The interpreter (the kernel's .py) is the reference; results and the array arguments after the
call are compared within rtol (and atol) 1e-9 for float64 and 1e-4 for float32 and complex64,
exactly for integers and booleans.
"""
from __future__ import annotations

import argparse
import ast
import contextlib
import fcntl
import hashlib
import os
import re
import sys
import tempfile
import traceback
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
TESTS = HERE.parent
# Run as a script, the repository (unpy, jitgpu, gpurts: the editable install's finder comes
# after the folders of tests/, which would be namespace packages of those names) and tests/
# (diffcheck, testdevice: shared with the other tests) go on the path, as pytest puts them.
for folder in (TESTS, TESTS.parent):
    if str(folder) not in sys.path:
        sys.path.insert(0, str(folder))

import diffcheck    # noqa: E402
import testdevice   # noqa: E402

KERNELS = HERE / "kernels"
PENDING = HERE / "pending.txt"
MODULE = "unpy_corpus"              # the generated module of the kernels not pending
SEED = 20261125
# Names a kernel module defines for the harness only: never compiled, never concatenated.
# `inputs(rng, scale=1)`: the arguments of one call, larger with `scale` (bench/corpus_decisions.py
# calls it with `LARGE`, the scale of its "large" size).
HARNESS_NAMES = ("inputs", "FUNCTION", "LARGE")
MODES = ("openmp", "gpu")
# Each mode's switches (read by the compiled module at every call).
MODE_ENV = {"openmp": {"UNPY_DEVICE": "none", "UNPY_FORCE_GPU": None},
            "gpu": {"UNPY_DEVICE": testdevice.SPEC, "UNPY_FORCE_GPU": "1"}}
# Switches that would change what a mode runs: unset for the call unless the mode sets them.
OTHER_SWITCHES = ("UNPY_DISABLE", "UNPY_GPU_MEM_LIMIT", "UNPY_GPU_OPT", "UNPY_GPU_SEARCH")


@dataclass
class Kernel:
    """One kernel module of the corpus."""
    name: str                   # the module's file name without .py
    path: Path
    source: str
    function: str               # FUNCTION
    _module: object = field(default=None, repr=False)

    @property
    def interpreted(self):
        """The module run by the interpreter (the reference)."""
        if self._module is None:
            self._module = diffcheck._load(f"corpus_{self.name}", self.path)
        return self._module

    def arguments(self, scale: int = 1) -> tuple:
        """The arguments of one call: at scale 1 the tested size, at LARGE the benchmark's."""
        return tuple(self.interpreted.inputs(np.random.default_rng(SEED), scale))


def load_kernels(names=None) -> list[Kernel]:
    """The corpus's kernels (all, or those named), sorted by name."""
    paths = sorted(KERNELS.glob("*.py"))
    found = {p.stem: p for p in paths}
    if names:
        unknown = [n for n in names if n not in found]
        if unknown:
            raise SystemExit(f"no kernel named {', '.join(unknown)} in {KERNELS}")
        paths = [found[n] for n in names]
    kernels = []
    for p in paths:
        source = p.read_text()
        kernels.append(Kernel(p.stem, p, source, _function_name(p, source)))
    return kernels


def _function_name(path: Path, source: str) -> str:
    for node in ast.parse(source).body:
        if isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == "FUNCTION" for t in node.targets):
            return ast.literal_eval(node.value)
    raise ValueError(f"{path}: no FUNCTION = '<name of the function to call>'")


# -- compiling --------------------------------------------------------------------------------

def compile_error(kernel: Kernel) -> str | None:
    """None when the kernel's typed IR and C++ are made; else the error: `line:col: message`
    for a CompileError, `internal error ...` for any other exception (a bug: SPEC section 3
    wants a compile error, never a traceback)."""
    from unpy.cpp_emit.module import emit_module
    from unpy.errors import CompileError
    from unpy.pipeline import compile_to_ir
    stage = "the typed IR"
    try:
        module = compile_to_ir(str(kernel.path), kernel.source)
        stage = "the C++ emission"
        emit_module(module, kernel.source)
    except CompileError as e:
        return f"{e.line}:{e.col + 1}: {e.message}"
    except Exception as e:      # the table shows it; the test fails unless pending says it
        where = traceback.extract_tb(e.__traceback__)[-1]
        first = (str(e).splitlines() or [""])[0]
        return (f"internal error in {stage}: {type(e).__name__}: {first} "
                f"[{Path(where.filename).name}:{where.lineno}]")
    return None


def first_line(error: str) -> str:
    return error.splitlines()[0] if error else ""


def read_pending(path: Path = PENDING) -> dict[str, str]:
    """{kernel name: an exact substring of how it fails (Status.failure)} from pending.txt
    (`name: text` lines; blank lines and lines starting with # are skipped)."""
    pending = {}
    if not path.exists():
        return pending
    for number, line in enumerate(path.read_text().splitlines(), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        name, sep, text = line.partition(": ")
        if not sep or not text.strip():
            raise ValueError(f"{path}:{number}: expected '<kernel name>: <error substring>'")
        pending[name.strip()] = text.strip()
    return pending


def pending_text(failures: dict[str, str | None]) -> str:
    """pending.txt for these failures (Status.failure): the first line of each, without the
    line:col of a compile error or the compiler's own file:line of an internal error (a kernel
    stays listed while it fails that way wherever the line is)."""
    lines = ["# Kernels of tests/corpus/kernels that do not work yet, as '<kernel>: <an exact",
             "# substring of how it fails>': its compile error, 'build: ...' when g++ fails, or",
             "# '<openmp|gpu>: ...' when its results differ from the interpreter's.",
             "# tests/corpus/test_corpus.py checks that each still fails so, and that every other",
             "# kernel compiles, builds and matches; when one works, delete its line.",
             "# Regenerate: .venv/bin/python tests/corpus/corpus.py --write-pending"]
    for name, failure in sorted(failures.items()):
        if failure is not None:
            line = re.sub(r" \[[^]]*\]$", "", first_line(failure))
            head, sep, message = line.partition(": ")
            located = sep and re.fullmatch(r"\d+:\d+", head)     # a compile error's line:col
            lines.append(f"{name}: {_gist(message if located else line)}")
    return "\n".join(lines) + "\n"


def _gist(message: str) -> str:
    """The message up to the end of its first clause (' (', '; ' or '. ' after 30 characters):
    the details after it may name lines or values."""
    cuts = [m.start() for m in re.finditer(r" \(|; |\. ", message) if m.start() >= 30]
    return message[:cuts[0]] if cuts else message


# -- the generated module ---------------------------------------------------------------------

class NameClash(ValueError):
    pass


def combined_source(kernels: list[Kernel]) -> str:
    """One module of the kernels: their imports, merged, then every other top-level statement
    (decorated functions, constants) in order; module docstrings and the harness's `inputs` and
    `FUNCTION` are left out. Raises NameClash when two kernels define the same name or bind it
    by different imports."""
    imports, body = [], []
    owner = {}      # name -> the kernel (or import statement) that binds it

    def claim(name, by, what):
        if owner.setdefault(name, by) != by:
            raise NameClash(f"{what} binds '{name}', already bound by {owner[name]}: names must "
                            f"be unique across tests/corpus/kernels")

    for k in kernels:
        tree = ast.parse(k.source)
        lines = k.source.splitlines()
        for n, node in enumerate(tree.body):
            if n == 0 and isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
                continue    # the docstring
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                text = ast.unparse(node)
                for alias in node.names:
                    claim((alias.asname or alias.name).split(".")[0], f"'{text}'", k.name)
                if text not in imports:
                    imports.append(text)
                continue
            names = _bound_names(node)
            if names & set(HARNESS_NAMES):
                continue
            for name in sorted(names):
                claim(name, f"kernel {k.name}", f"kernel {k.name}")
            first = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
            body.append(f"# {k.name}\n" + "\n".join(lines[first - 1:node.end_lineno]))
    head = '"""Generated by tests/corpus/corpus.py from kernels of tests/corpus/kernels."""'
    return "\n".join([head, *imports]) + "\n\n\n" + "\n\n\n".join(body) + "\n"


def _bound_names(node) -> set:
    if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
        return {node.name}
    targets = (node.targets if isinstance(node, ast.Assign) else
               [node.target] if isinstance(node, (ast.AnnAssign, ast.AugAssign)) else [])
    return {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}


def _work_dir() -> Path:
    """Where the generated modules live: a fixed path, for the build key (which includes it)
    to find the cached build again."""
    from unpy.cpp_emit.build import cache_dir
    return cache_dir().parent / "corpus"


@contextlib.contextmanager
def _lock(name: str):
    """One builder at a time across processes (pytest-xdist workers, a CLI run): the others
    then find the module in the build cache."""
    from unpy.cpp_emit.build import cache_dir
    locks = cache_dir().parent / "test-locks"
    locks.mkdir(parents=True, exist_ok=True)
    with open(locks / f"corpus-{name}.lock", "w") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


class BuildFailed(Exception):
    """A generated module that g++ (or the load) refused; the text is one line."""


def build_combined(kernels: list[Kernel], out_dir: Path, module: str = MODULE) -> Path:
    """Build the kernels as one generated module `module` into out_dir (from the build cache
    when it is there); returns the extension module's path. Raises BuildFailed when g++ fails,
    and remembers that under the build's key: the same module with the same unpy fails again
    at once instead of after seconds of g++."""
    from unpy.cpp_emit.build import BuildOptions, build, build_key
    source = combined_source(kernels)
    with _lock(module):
        path = _work_dir() / f"{module}.py"
        _write_if_changed(path, source)
        failed = _work_dir() / "failed" / f"{build_key(source, BuildOptions(), str(path))}.txt"
        if failed.exists():
            raise BuildFailed(failed.read_text())
        try:
            return build(str(path), str(out_dir)).output
        except RuntimeError as e:   # g++ failed (unpy's build says so by a RuntimeError)
            _write_if_changed(failed, build_failure(e))
            raise BuildFailed(failed.read_text()) from None


def _write_if_changed(path: Path, text: str):
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.exists() and path.read_text() == text:
        return
    fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
    with os.fdopen(fd, "w") as f:
        f.write(text)
    os.chmod(tmp, 0o644)
    os.replace(tmp, path)


def build_failure(e: Exception) -> str:
    """One line for a failed build: g++'s first error where g++ failed."""
    text = str(e)
    errors = [line for line in text.splitlines() if ": error: " in line]
    if errors:     # quotes as in the C locale, whatever LANG says
        return "g++: " + re.sub("[\u2018\u2019]", "'", errors[0].split(": error: ", 1)[1])
    return f"{type(e).__name__}: {first_line(text)}"


def load_compiled(so: Path, module: str = MODULE):
    return diffcheck._load(module, so)


# -- running ----------------------------------------------------------------------------------

@contextlib.contextmanager
def switches(mode: str):
    """The environment of one mode for the calls inside the block; restored after it."""
    wanted = {name: None for name in OTHER_SWITCHES} | MODE_ENV[mode]
    saved = {name: os.environ.get(name) for name in wanted}

    def put(values):
        for name, value in values.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
    put(wanted)
    try:
        yield
    finally:
        put(saved)


@dataclass
class Outcome:
    value: object = None
    error: BaseException | None = None
    args: tuple = ()            # the arguments after the call


def call(f, args) -> Outcome:
    args = diffcheck.copy_args(args)
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        try:
            return Outcome(f(*args), None, args)
        except Exception as e:      # the comparison says it
            return Outcome(None, e, args)


def rtol_of(value) -> float:
    dtype = np.asarray(value).dtype
    return 1e-4 if dtype in (np.float32, np.complex64) else 1e-9


def assert_matches(expected, got, what: str):
    """diffcheck.assert_same, each float compared within its dtype's rtol, tuples element by
    element, complex values by their real and imaginary parts."""
    if isinstance(expected, tuple):
        assert isinstance(got, tuple) and len(got) == len(expected), (
            f"{what}: expected a tuple of {len(expected)}, got {got!r}")
        for n, (e, g) in enumerate(zip(expected, got)):
            assert_matches(e, g, f"{what}[{n}]")
        return
    if expected is not None and np.asarray(expected).dtype.kind == "c":
        assert np.asarray(got).dtype == np.asarray(expected).dtype, (
            f"{what}: dtype {np.asarray(got).dtype} != {np.asarray(expected).dtype}")
        for part in ("real", "imag"):
            e, g = getattr(np.asarray(expected), part), getattr(np.asarray(got), part)
            if np.ndim(expected) == 0:
                e, g = e[()], g[()]
            diffcheck.assert_same(e, g, rtol=rtol_of(expected), what=f"{what} ({part})")
        return
    diffcheck.assert_same(expected, got, rtol=rtol_of(expected), what=what)


def mismatch(reference: Outcome, got: Outcome, what: str) -> str | None:
    """None when `got` matches the interpreter's outcome; else why not."""
    if reference.error is not None:
        return f"the interpreter raised {reference.error!r} (a broken kernel)"
    if got.error is not None:
        return f"raised {type(got.error).__name__}: {got.error}"
    try:
        assert_matches(reference.value, got.value, f"{what}: the result")
        for n, (e, g) in enumerate(zip(reference.args, got.args)):
            if isinstance(e, np.ndarray):
                assert_matches(e, g, f"{what}: argument {n} after the call")
    except AssertionError as e:
        return str(e)
    return None


def run_mode(kernel: Kernel, compiled, mode: str, args: tuple, reference: Outcome):
    """(mismatch or None, where its nests ran) of the kernel's compiled function called on
    copies of `args` in `mode`, against the interpreter's `reference` outcome."""
    import unpython
    f = getattr(compiled, kernel.function)
    with switches(mode):
        got = call(f, args)
    return mismatch(reference, got, f"{kernel.name} ({mode})"), where_ran(unpython.explain(f))


def where_ran(report) -> str:
    """'3/3 nests on the device', '0/1 nests on the device (openmp: <reason>)'..."""
    if not report.compiled:
        return "not compiled"
    if not report.nests:
        return "no prange nest"
    ran = [(n.ran_on or "not run", n.reason) for n in report.nests]
    on_device = sum(where.startswith("opencl:") for where, _ in ran)
    text = f"{on_device}/{len(ran)} nests on the device"
    others = [(where, why) for where, why in ran if not where.startswith("opencl:")]
    if others:
        text += f" ({others[0][0]}: {first_line(others[0][1])})"
    return text


# -- the survey -------------------------------------------------------------------------------

@dataclass
class Status:
    """How far one kernel gets: compiled, built, and matching the interpreter in each mode."""
    kernel: str
    compile_error: str | None = None
    build_error: str | None = None
    results: dict = field(default_factory=dict)    # mode -> mismatch or None
    where: dict = field(default_factory=dict)      # mode -> where_ran
    compiled: object = field(default=None, repr=False)     # the built module that has it

    @property
    def failure(self) -> str | None:
        """The first thing that fails, or None: the compile error; 'build: ...'; '<mode>:
        ...' for a mismatch (the text a pending.txt line holds a substring of)."""
        if self.compile_error is not None:
            return self.compile_error
        if self.build_error is not None:
            return f"build: {self.build_error}"
        for mode in MODES:
            if self.results.get(mode):
                return f"{mode}: {self.results[mode]}"
        return None

    def cell(self, mode: str) -> str:
        if self.build_error is not None:
            return "BUILD"
        if mode not in self.results:
            return "-"
        return "ok" if self.results[mode] is None else "NO"


def build_all(kernels: list[Kernel], out_dir: Path, pending=(), log=print) -> dict:
    """{kernel name: Status}: compile every kernel; build those that compile, the ones not in
    `pending` as one module, the pending ones as another (expected to fail to build, or their
    results to differ). A module that fails to build is halved until each failing kernel is
    found alone (failures are remembered, so this happens once per change of unpy).

    One module, not one per core: g++ builds the 46 kernels that compiled on 2026-11-25 in
    50 s here (2 cores), two halves at once in 56 and 60 s."""
    status = {k.name: Status(k.name, compile_error(k)) for k in kernels}
    compiling = [k for k in kernels if status[k.name].compile_error is None]
    for group, module in (([k for k in compiling if k.name not in pending], MODULE),
                          ([k for k in compiling if k.name in pending], f"{MODULE}_pending")):
        if group:
            log(f"building {len(group)} kernel(s) as one module ...")
            _build_halving(group, module, out_dir, status, log)
    return status


def _build_halving(kernels: list[Kernel], module: str, out_dir: Path, status: dict, log):
    try:
        so = build_combined(kernels, out_dir / module, module)
        try:
            compiled = load_compiled(so, module)
        except ImportError as e:    # e.g. an undefined symbol
            raise BuildFailed(f"the import failed: {first_line(str(e))}") from None
    except BuildFailed as e:
        if len(kernels) == 1:
            status[kernels[0].name].build_error = str(e)
            return
        log(f"  {module} ({len(kernels)} kernels) failed to build ({e}); halving it ...")
        half = len(kernels) // 2
        for part in (kernels[:half], kernels[half:]):
            _build_halving(part, _module_name(part), out_dir, status, log)
        return
    for k in kernels:
        status[k.name].compiled = compiled


def _module_name(kernels: list[Kernel]) -> str:
    """A module name of its own for each set of kernels (two extension modules of one name
    cannot both be loaded)."""
    if len(kernels) == 1:
        return f"{MODULE}_{kernels[0].name}"
    digest = hashlib.sha1(" ".join(k.name for k in kernels).encode()).hexdigest()[:10]
    return f"{MODULE}_{digest}"


def run_kernel(kernel: Kernel, status: Status, modes=MODES):
    """Call the built kernel in each mode and compare with the interpreter; fills `status`."""
    args = kernel.arguments()
    reference = call(getattr(kernel.interpreted, kernel.function), args)
    for mode in modes:
        status.results[mode], status.where[mode] = run_mode(kernel, status.compiled, mode, args,
                                                            reference)


def tested_modes() -> tuple:
    """Both modes, or only OpenMP where UNPY_TEST_DEVICE=none switches the GPU path off."""
    return MODES if testdevice.SPEC != "none" else ("openmp",)


def survey(kernels: list[Kernel], out_dir: Path, pending=(), log=print) -> dict:
    """{kernel name: Status} of every kernel: compiled, built, run in every tested mode."""
    statuses = build_all(kernels, out_dir, pending, log)
    for k in kernels:
        if statuses[k.name].compiled is not None:
            run_kernel(k, statuses[k.name], tested_modes())
    return statuses


# -- the table --------------------------------------------------------------------------------

def print_table(statuses: list[Status], verbose: bool):
    width = max(len(s.kernel) for s in statuses)
    limit = None if verbose else 100
    print(f"{'kernel':{width}}  {'OpenMP':6}  {'GPU':5}  compiles (else the error); build; "
          f"where the GPU path ran")
    for s in statuses:
        notes = ["yes" if s.compile_error is None else first_line(s.compile_error)[:limit]]
        if s.build_error:
            notes.append(f"build: {s.build_error[:limit]}")
        if "gpu" in s.where:
            notes.append(f"GPU path: {s.where['gpu']}")
        print(f"{s.kernel:{width}}  {s.cell('openmp'):6}  {s.cell('gpu'):5}  {'; '.join(notes)}")
        for mode in MODES:
            if s.results.get(mode):
                text = s.results[mode] if verbose else first_line(s.results[mode])[:limit]
                print(f"{'':{width}}    {mode}: " + text.replace("\n", "\n      "))
    n = len(statuses)
    compiles = sum(s.compile_error is None for s in statuses)
    builds = sum(s.compile_error is None and s.build_error is None for s in statuses)
    counts = {m: sum(s.results.get(m, "-") is None for s in statuses) for m in MODES}
    print(f"\n{n} kernels: {compiles} compile, {builds} build, {counts['openmp']} match the "
          f"interpreter with OpenMP, {counts['gpu']} on the GPU path (UNPY_DEVICE="
          f"{testdevice.SPEC}, UNPY_FORCE_GPU=1)")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("kernels", nargs="*", help="kernel names (default: all)")
    parser.add_argument("--no-build", action="store_true",
                        help="only compile (typed IR and C++), no g++, no runs")
    parser.add_argument("--write-pending", action="store_true",
                        help="rewrite tests/corpus/pending.txt from what fails now")
    parser.add_argument("-v", "--verbose", action="store_true",
                        help="whole error lines and every mismatch")
    args = parser.parse_args(argv)
    if args.write_pending and (args.kernels or args.no_build):
        parser.error("--write-pending rewrites the list of the whole corpus from what fails "
                     "built and run: name no kernels, no --no-build")
    diffcheck.ensure_cache_dir()
    kernels = load_kernels(args.kernels)
    combined_source(kernels)    # names unique, before anything is built
    if args.no_build:
        statuses = {k.name: Status(k.name, compile_error(k)) for k in kernels}
    else:
        print(testdevice.header())
        with tempfile.TemporaryDirectory(prefix="unpy-corpus-") as out:
            statuses = survey(kernels, Path(out), read_pending())
    if args.write_pending:
        PENDING.write_text(pending_text({n: s.failure for n, s in statuses.items()}))
        print(f"wrote {PENDING}")
    print_table(list(statuses.values()), args.verbose)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
