"""The build driver: typed IR -> C++ translation units -> g++ (in parallel) -> one extension
module, with a build cache.

A build is keyed by the source text, the unpy sources, the flags, the Python version and the
compiler; a cached build is copied into place, and the copy is atomic (a failed or interrupted
build never leaves a half-written module). A large module compiles as several translation
units (module.emit_units: the glue, and the compiled functions in groups), as many at once as
there are CPUs; a small one as one unit. No unit includes pybind11: the runtime's part that
talks to Python (unpy_python.cpp, 10 s of g++ on the 2-core machine) is compiled once per set
of flags and linked into every module, and the headers each unit starts with are precompiled
once per set of flags. Each object is kept in the cache by its text, so an edit
recompiles the units it changed.
"""
from __future__ import annotations

import functools
import hashlib
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import unpy
from unpy.atomic_write import write_atomically
from unpy.build_lock import one_build_at_a_time
from unpy.cpp_emit.module import emit_module, emit_units
from unpy.loopopt import blocked_nests
from unpy.loopopt.cost import CpuModel
from unpy.pipeline import compile_to_ir
from unpy.settings import current as current_settings

RUNTIME_DIR = Path(__file__).parent
CXX = os.environ.get("CXX", "g++")


@dataclass
class BuildOptions:
    """The switches of a build. Indices: by default those unpy/loopopt/index_proof does not
    prove in range are checked; `boundscheck` checks every index, `unchecked` none. `model`:
    the loop optimisations' facts of the building machine, read once per build (part of the
    build key, as every option: tests build with small blocks and strips)."""
    boundscheck: bool = False
    portable: bool = False
    fastmath: bool = False
    unchecked: bool = False
    model: CpuModel = field(default_factory=CpuModel.for_machine)

    def __post_init__(self):
        if self.boundscheck and self.unchecked:
            raise ValueError("--boundscheck and --unchecked exclude each other")

    @property
    def checks(self) -> str:
        """Which indices the build checks (unpy.loopopt.CHECKS)."""
        return "all" if self.boundscheck else "none" if self.unchecked else "unproved"

    def flags(self):
        # -fno-math-errno: unpy checks math domain errors itself (so sqrt can vectorise);
        # -fwrapv: integer overflow wraps, as SPEC section 3 says.
        flags = ["-O3", "-fopenmp", "-std=c++17", "-fPIC", "-shared", "-fvisibility=hidden",
                 "-fwrapv", "-fno-math-errno"]
        if not self.portable:
            flags.append("-march=native")
        flags += ["-ffast-math", "-ffp-contract=fast"] if self.fastmath else ["-ffp-contract=off"]
        return flags

    def unit_flags(self):
        """The flags of one translation unit (module.emit_units), compiled with -c and linked
        with -shared: all of flags(), the glue's unit too (-O1 took 3 s off the glue of
        tests/kernels/loops.py, but made a call with array arguments about 3 % slower)."""
        return [f for f in self.flags() if f != "-shared"] + ["-c"]


@dataclass
class BuildResult:
    output: Path
    functions: list
    cached: bool
    up_to_date: bool
    seconds: float
    cpp: str = ""
    notes: list = field(default_factory=list)


def cache_dir() -> Path:
    return Path(current_settings().cache_root) / "build"


def writable_cache_dir() -> Path:
    """The build cache, made if missing; an OSError naming UNPY_CACHE_DIR when it cannot be
    written (before a build spends seconds in g++)."""
    folder = cache_dir()
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=folder):
            pass
    except OSError as e:
        chosen = current_settings().cache_dir
        where = f"UNPY_CACHE_DIR={chosen}" if chosen else f"the build cache {folder.parent}"
        raise OSError(f"{where} cannot hold the build cache ({e.strerror or e}); set "
                      "UNPY_CACHE_DIR to a folder you can write") from None
    return folder


@functools.lru_cache(maxsize=None)
def _unpy_fingerprint() -> str:
    h = hashlib.sha256(unpy.__version__.encode())
    pkg = Path(unpy.__file__).parent
    for path in sorted(pkg.rglob("*")):
        if path.suffix in (".py", ".hpp", ".cpp"):
            h.update(path.read_bytes())
    return h.hexdigest()


@functools.lru_cache(maxsize=None)
def _compiler_version() -> str:
    try:
        return subprocess.run([CXX, "--version"], capture_output=True, text=True).stdout
    except OSError:
        return ""


def build_key(source: str, options: BuildOptions, path: str) -> str:
    h = hashlib.sha256()
    # Every option: --boundscheck and --unchecked change the generated C++, not the
    # compiler flags.
    for part in (source, os.path.abspath(path), _unpy_fingerprint(), repr(options),
                 " ".join(options.flags()), sys.version, _compiler_version()):
        h.update(part.encode())
        h.update(b"\0")
    return h.hexdigest()[:32]


def extension_suffix() -> str:
    return sysconfig.get_config_var("EXT_SUFFIX")


def build_jobs() -> int:
    """How many g++ run at once: the CPUs this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


def _includes() -> list:
    import pybind11
    return [f"-I{pybind11.get_include()}", f"-I{sysconfig.get_paths()['include']}",
            f"-I{RUNTIME_DIR}"]


@functools.lru_cache(maxsize=None)
def _runtime_fingerprint() -> str:
    """What a unit's object depends on besides its text and flags: the runtime's files, the
    include folders (pybind11's and Python's, by path) and the compiler."""
    h = hashlib.sha256(_compiler_version().encode())
    for path in sorted(RUNTIME_DIR.glob("*.hpp")):
        h.update(path.name.encode() + b"\0" + path.read_bytes())
    h.update(" ".join(_includes()).encode())
    return h.hexdigest()


def object_path(text: str, flags: list) -> Path:
    """Where the object of a translation unit with this text and these flags is kept: a
    function changed recompiles only its unit (and the glue, which holds the source)."""
    h = hashlib.sha256(_runtime_fingerprint().encode())
    for part in (text, " ".join(flags)):
        h.update(part.encode() + b"\0")
    return cache_dir() / "objects" / f"{h.hexdigest()[:32]}.o"


# The runtime's Python-facing part, compiled once per set of flags and linked into every
# module (its units include neither pybind11 nor Python's headers but the glue's C API).
RUNTIME_SOURCE = RUNTIME_DIR / "unpy_python.cpp"

# The headers a unit starts with (module._preamble), precompiled once per set of flags: parsing
# them cost each unit about 0.7 s of the 2-core machine's g++.
PRECOMPILED_HEADERS = ("unpy_runtime.hpp", "unpy_glue.hpp")


def precompiled_headers(flags: list, work_dir: Path):
    """(the folder of the precompiled headers for these flags, the commands that make those
    missing). g++ looks for `<header>.gch` in each folder of the search path before the
    header, and uses it only where it was made with the same flags; else it reads the header."""
    h = hashlib.sha256(_runtime_fingerprint().encode() + " ".join(flags).encode())
    folder = cache_dir() / "pch" / h.hexdigest()[:32]
    commands = []
    for name in PRECOMPILED_HEADERS:
        cached = folder / f"{name}.gch"
        if not cached.exists():
            tmp = work_dir / f"{name}.gch"
            commands.append(([CXX, *flags, "-x", "c++-header", *_includes(),
                              str(RUNTIME_DIR / name), "-o", str(tmp)], tmp, cached))
    return folder, commands


def compile_cpp(unit_paths: list, so_path: Path, options: BuildOptions, progress=None):
    """Compile the translation units (module.emit_units) and, the first time for these flags,
    the runtime (RUNTIME_SOURCE), with up to build_jobs() g++ at once, each object kept in the
    cache, and link them into `so_path`."""
    flags = options.unit_flags()
    work_dir = Path(so_path).parent
    headers, header_commands = precompiled_headers(flags, work_dir)

    def compiled(k, cpp_path, includes):
        """(the object kept in the cache, the command that makes it, or None if it is there)"""
        cached = object_path(Path(cpp_path).read_text(), flags)
        tmp = work_dir / f"unit{k}.o"
        return cached, None if cached.exists() else (
            [CXX, *flags, *includes, str(cpp_path), "-o", str(tmp)], tmp, cached)
    units = [compiled(k, path, [f"-I{headers}", *_includes()])
             for k, path in enumerate(unit_paths)]
    runtime = compiled(len(units), RUNTIME_SOURCE, _includes())
    unchanged = sum(command is None for _, command in units)
    if progress and unchanged:
        progress(f"{unchanged} of {len(units)} units unchanged (from the build cache)")
    if progress and runtime[1]:
        progress("compiling unpy's runtime for these flags (once: kept in the build cache) ...")
    objects = [cached for cached, _ in units + [runtime]]
    # The runtime first: it is the longest (about 10 s), the units take the other CPUs.
    commands = [command for _, command in [runtime] + units if command]
    if header_commands and any(command for _, command in units):
        if progress:
            progress("precompiling unpy's headers for these flags (once: kept in the build "
                     "cache) ...")
        try:
            _run_all(header_commands)
        except RuntimeError as error:   # only slower: the units read the headers themselves
            if progress:
                progress(f"the headers were not precompiled ({str(error).splitlines()[0]})")
    _run_all(commands, progress)
    # -z initfirst: the module's constructors run before those of the libraries its import
    # loads, so that unpy::bound_spinning sets GOMP_SPINCOUNT before libgomp reads it.
    _run([CXX, "-shared", "-fopenmp", "-Wl,-z,initfirst", *map(str, objects), "-o",
          str(so_path)])


def _run_all(commands: list, progress=None):
    """Run (command, object, cached object) with up to build_jobs() at once, each object
    copied into the cache when its command succeeds; on the first failure or an exception
    (Ctrl-C) the others are killed."""
    started, pending, running = time.perf_counter(), list(commands), []
    try:
        while pending or running:
            while pending and len(running) < build_jobs():
                cmd, tmp, cached = pending.pop(0)
                # stderr into a file: a pipe that fills up (a long error) would stop g++.
                stderr = tempfile.TemporaryFile(mode="w+")
                proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=stderr)
                running.append((proc, stderr, cmd, tmp, cached))
            done = next((r for r in running if r[0].poll() is not None), None)
            if done is None:
                time.sleep(0.02)
                continue
            running.remove(done)
            proc, stderr, cmd, tmp, cached = done
            stderr.seek(0)
            message = stderr.read()
            stderr.close()
            _check(cmd, proc.returncode, message)
            cached.parent.mkdir(parents=True, exist_ok=True)
            _atomic_copy(tmp, cached)
            finished = len(commands) - len(pending) - len(running)
            if progress and len(commands) > 2 and time.perf_counter() - started > 2:
                progress(f"compiled {finished} of {len(commands)} units "
                         f"({time.perf_counter() - started:.0f} s)")
    finally:
        for proc, stderr, *_ in running:
            proc.kill()
            proc.wait()
            stderr.close()


def _run(cmd: list):
    result = subprocess.run(cmd, capture_output=True, text=True)
    _check(cmd, result.returncode, result.stderr)


def _check(cmd: list, returncode: int, stderr: str):
    if returncode != 0:
        raise RuntimeError(f"the C++ compiler failed (this is a bug in unpy, please report "
                           f"it):\n{' '.join(cmd)}\n{stderr[-4000:]}")


def _atomic_copy(src: Path, dest: Path):
    dest.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=dest.parent, prefix=f".{dest.name}.", suffix=".tmp")
    os.close(fd)
    try:
        shutil.copyfile(src, tmp)
        os.chmod(tmp, 0o755)
        os.replace(tmp, dest)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def _same_file_content(a: Path, b: Path) -> bool:
    if not b.exists() or a.stat().st_size != b.stat().st_size:
        return False
    return a.read_bytes() == b.read_bytes()


def load(path: str):
    """(absolute path, source, typed IR module) of a Python file; raises CompileError."""
    path = os.path.abspath(path)
    source = Path(path).read_text()
    return path, source, compile_to_ir(path, source)


def generate(path: str, options: BuildOptions):
    """(typed IR module, C++ text) for a Python file; raises CompileError."""
    _, source, module = load(path)
    return module, emit_module(module, source, options.checks, options.fastmath, options.model)


@one_build_at_a_time
def build(path: str, out_dir: str | None = None, options: BuildOptions | None = None,
          emit_cpp: bool = False, progress=None) -> BuildResult:
    """Build `path` into `<out_dir>/<name><EXT_SUFFIX>`; raises CompileError for bad code."""
    options = options or BuildOptions()
    started = time.perf_counter()
    cache = writable_cache_dir()
    path = os.path.abspath(path)
    source = Path(path).read_text()
    name = os.path.splitext(os.path.basename(path))[0]
    out = Path(out_dir or os.path.dirname(path)) / f"{name}{extension_suffix()}"
    cached = cache / build_key(source, options, path) / out.name
    # The names of the compiled functions, kept beside the cached module: a cached build
    # needs no typed IR (the corpus's module takes 30 s of the 2-core machine to type).
    listed = cached.with_name("functions.txt")
    if cached.exists() and listed.exists() and not emit_cpp:
        return BuildResult(out, listed.read_text().split(), True, _copy_if_changed(cached, out),
                           time.perf_counter() - started)
    module = compile_to_ir(path, source)
    if not module.functions:
        # An extension module would shadow the .py and gain nothing.
        return BuildResult(out, [], False, False, time.perf_counter() - started,
                           notes=["no @unpython.type functions: nothing to compile"])
    cpp = ""
    if emit_cpp:
        cpp = emit_module(module, source, options.checks, options.fastmath, options.model)
        out.parent.mkdir(parents=True, exist_ok=True)
        (out.parent / f"{name}.cpp").write_text(cpp)
    functions = list(dict.fromkeys(f.python_name for f in module.functions))
    was_cached = cached.exists()
    if not was_cached:
        _compile(module, source, options, cached, functions, progress)
    write_atomically(str(listed), " ".join(functions).encode())
    up_to_date = was_cached and _copy_if_changed(cached, out)
    if not was_cached:
        _atomic_copy(cached, out)
    return BuildResult(out, functions, was_cached, up_to_date, time.perf_counter() - started,
                       cpp)


def _compile(module, source, options, cached: Path, functions, progress):
    """The module's C++ units compiled and linked into `cached`."""
    units = emit_units(module, source, options.checks, options.fastmath, build_jobs(),
                       model=options.model)
    if progress:
        blocked = blocked_nests(module.functions, options.checks, options.model)
        also = f", {blocked} prange nest(s) register-blocked (unpy show prints them)" \
            if blocked else ""
        parts = f", {len(units)} units, {min(build_jobs(), len(units))} at a time" \
            if len(units) > 1 else ""
        progress(f"compiling C++ for {len(functions)} function(s){also} with {CXX} -O3{parts} ...")
    with tempfile.TemporaryDirectory(prefix="unpy-build-") as tmp:
        unit_paths = [Path(tmp) / f"{module.name}_{i}.cpp" for i in range(len(units))]
        for unit_path, text in zip(unit_paths, units):
            unit_path.write_text(text)
        so_tmp = Path(tmp) / cached.name
        compile_cpp(unit_paths, so_tmp, options, progress)
        cached.parent.mkdir(parents=True, exist_ok=True)
        _atomic_copy(so_tmp, cached)


def _copy_if_changed(cached: Path, out: Path) -> bool:
    """Copy the cached module to `out` unless it is there already; whether it was."""
    up_to_date = _same_file_content(cached, out)
    if not up_to_date:
        _atomic_copy(cached, out)
    return up_to_date
