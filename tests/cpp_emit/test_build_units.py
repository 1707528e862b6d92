"""A large module compiles as several translation units in parallel, a small one as one
(unpy/cpp_emit/module.py, emit_units; unpy/cpp_emit/build.py, compile_cpp): a function stays in
one unit with the functions it calls, the glue beside the smallest group, the linked module
gives the interpreter's results, two split modules with functions of the same names load side
by side, each unit's object is kept in the cache (a changed function recompiles its unit and
the glue's only), and a failing unit stops the others."""
import importlib.util
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

import irtools
from unpy.cpp_emit import build as build_module
from unpy.cpp_emit import module as module_module
from unpy.cpp_emit.module import UNIT_LINES, emit_module, emit_units, kernel_unit_count

SOURCE = '''
import numpy as np
import unpython
from unpython import prange


@unpython.type('float64', 'float64')
def half(x):
    return x * 0.5


@unpython.type('ndarray[float64, 1]', 'float64')
def halved_total(a):
    s = 0.0
    for i in prange(a.shape[0]):
        s += half(a[i]) * a[i]
    return s


@unpython.type('ndarray[float64, 2]', 'ndarray[float64, 2]', None)
def smooth(a, out):
    for i in prange(1, a.shape[0] - 1):
        for j in range(1, a.shape[1] - 1):
            out[i, j] = 0.25 * (a[i - 1, j] + a[i + 1, j] + a[i, j - 1] + a[i, j + 1]) / 3.0


@unpython.type('int64', 'int64')
@unpython.type('float64', 'float64')
def poly(x):
    return x * x * 3 - x + 7


@unpython.type('int64', 'int64')
def collatz_steps(n):
    steps = 0
    while n != 1:
        n = n // 2 if n % 2 == 0 else 3 * n + 1
        steps += 1
    return steps
'''


def defined(unit: str, names) -> set:
    """The names of the compiled functions (of `names`) whose dispatcher `unit` defines."""
    return {line.split("(")[0].split()[-1] for line in unit.splitlines()
            if line.startswith("static ") and line.endswith(") {")} & set(names)


def test_kernel_unit_count():
    assert kernel_unit_count(2 * UNIT_LINES - 1, 16) == 0      # one unit
    assert kernel_unit_count(100 * UNIT_LINES, 1) == 0
    assert kernel_unit_count(2 * UNIT_LINES, 2) == 2
    assert kernel_unit_count(5 * UNIT_LINES, 2) == 2       # at most one per job
    assert kernel_unit_count(3 * UNIT_LINES, 16) == 3


def test_a_caller_shares_its_unit_with_its_callees():
    module = irtools.typed(SOURCE.split("from unpython import prange\n", 1)[1])
    units = emit_units(module, SOURCE, units=3)
    assert len(units) == 3
    glue, *others = units
    assert "PyInit_unit()" in glue and '#include "unpy_glue.hpp"' in glue
    assert not any("PyInit_" in unit or "unpy_glue.hpp" in unit for unit in others)
    names = [defined(unit, [f.name for f in module.functions]) for unit in units]
    assert sorted(n for unit in names for n in unit) == sorted(f.name for f in module.functions)
    assert any({"halved_total", "half"} <= unit for unit in names)
    # Each function stays static in its unit; the glue calls those of other units through
    # their units' external entries (unpy_exported), which it declares.
    for f in module.functions:
        assert f"static PyObject* py_{f.name}(" in glue
        if f.name in names[0]:
            continue
        assert f"using unpy_exported::{f.name};" in glue
        assert re.search(rf"^\w[\w:<>, ]* {f.name}\(.*\);$", glue, re.M), f.name
        assert sum(bool(re.search(rf"^\w[\w:<>, ]* {f.name}\(.*\) {{ return "
                                  rf"unpy_module::{f.name}\(", unit, re.M))
                   for unit in others) == 1, f.name


def test_one_unit_under_two():
    module = irtools.typed(SOURCE.split("from unpython import prange\n", 1)[1])
    one = [emit_module(module, SOURCE)]
    assert emit_units(module, SOURCE, units=1) == emit_units(module, SOURCE, units=0) == one
    assert emit_units(module, SOURCE, jobs=16) == one       # small


def load(path: Path, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def build_on_3_cpus(mp, path: Path, out: Path, ran: list):
    """build(path, out) as on a 3-CPU machine, split as a large module (3 units), the number of
    the module's units compiled appended to `ran` (the runtime and its precompiled headers,
    made once, not counted)."""
    run_all = build_module._run_all
    mp.setattr(build_module, "build_jobs", lambda: 3)
    mp.setattr(module_module, "UNIT_LINES", 10)
    runtime = str(build_module.RUNTIME_SOURCE)

    def counted(commands, progress=None):
        units = sum(runtime not in command and "c++-header" not in command
                    for command, _, _ in commands)
        if units or not commands:
            ran.append(units)
        return run_all(commands, progress)
    mp.setattr(build_module, "_run_all", counted)
    return build_module.build(str(path), str(out))


@pytest.fixture(scope="module")
def split(tmp_path_factory):
    """SOURCE built as 3 units, with the number of units each build compiled; also the
    interpreted module."""
    folder = tmp_path_factory.mktemp("units")
    (folder / "units.py").write_text(SOURCE)
    ran = []
    with pytest.MonkeyPatch.context() as mp:
        result = build_on_3_cpus(mp, folder / "units.py", folder / "out", ran)
    sys.path.insert(0, str(folder))
    try:
        interpreted = load(folder / "units.py", "units_interpreted")
    finally:
        sys.path.remove(str(folder))
    return folder, result, load(result.output, "units"), interpreted, ran


def test_split_module_gives_the_interpreter_s_results(split):
    _, result, compiled, interpreted, ran = split
    assert ran == [3]
    rng = np.random.default_rng(7)
    a = rng.random(1000)
    assert compiled.halved_total(a) == interpreted.halved_total(a)
    grid = rng.random((40, 30))
    out_c, out_i = np.zeros_like(grid), np.zeros_like(grid)
    compiled.smooth(grid, out_c)
    interpreted.smooth(grid, out_i)
    assert np.array_equal(out_c, out_i)
    for x in (3, -2, 2.5):
        assert compiled.poly(x) == interpreted.poly(x) and \
            type(compiled.poly(x)) is type(interpreted.poly(x))
    assert compiled.collatz_steps(27) == interpreted.collatz_steps(27) == 111


def test_two_split_modules_with_the_same_function_names_load_side_by_side(split, tmp_path,
                                                                           monkeypatch):
    """The functions lose `static` across units, but stay hidden: another module's `half`
    does not replace this one's."""
    _, _, compiled, _, _ = split
    (tmp_path / "units2.py").write_text(SOURCE.replace("return x * 0.5", "return x * 0.25"))
    built = build_on_3_cpus(monkeypatch, tmp_path / "units2.py", tmp_path, [])
    other = load(built.output, "units2")
    a = np.arange(4.0)
    assert compiled.halved_total(a) == 7.0 and other.halved_total(a) == 3.5
    assert compiled.half(1.0) == 0.5 and other.half(1.0) == 0.25


def test_a_changed_function_recompiles_its_unit_and_the_glue(split, monkeypatch):
    """(The source edited in place: each unit names its file.)"""
    folder, _, _, _, ran = split
    module = irtools.typed(SOURCE.split("from unpython import prange\n", 1)[1])
    units = emit_units(module, SOURCE, units=3)
    with_glue = "collatz_steps" in defined(units[0], ["collatz_steps"])
    (folder / "units.py").write_text(SOURCE.replace("steps += 1", "steps += 2"))
    ran = []
    result = build_on_3_cpus(monkeypatch, folder / "units.py", folder / "changed", ran)
    assert ran == [1 if with_glue else 2]
    # In a fresh interpreter: this one holds the first build's `units`.
    check = subprocess.run([sys.executable, "-c", "import units; print(units.collatz_steps(27))"],
                           cwd=result.output.parent, capture_output=True, text=True, timeout=60,
                           env=dict(os.environ, PYTHONPATH=str(Path(__file__).parents[2])))
    assert check.stdout.split() == ["222"], check.stderr


def test_object_path_depends_on_text_flags_and_runtime(tmp_path, monkeypatch):
    flags = build_module.BuildOptions().unit_flags()
    path = build_module.object_path("int x;", flags)
    assert path == build_module.object_path("int x;", flags)
    assert path != build_module.object_path("int y;", flags)
    assert path != build_module.object_path("int x;", build_module.BuildOptions(
        fastmath=True).unit_flags())
    runtime = tmp_path / "runtime"
    runtime.mkdir()
    header = (build_module.RUNTIME_DIR / "unpy_runtime.hpp").read_text()
    (runtime / "unpy_runtime.hpp").write_text(header + "\n// changed\n")
    monkeypatch.setattr(build_module, "RUNTIME_DIR", runtime)
    build_module._runtime_fingerprint.cache_clear()
    try:
        assert path != build_module.object_path("int x;", flags)
    finally:
        monkeypatch.undo()
        build_module._runtime_fingerprint.cache_clear()


def test_the_runtime_compiles_once_per_set_of_flags(tmp_path, monkeypatch):
    """In an empty cache, the first build compiles the runtime's Python-facing part beside the
    module and precompiles the two headers units start with (before the units); a build of
    another module finds them in the cache (other flags: another object,
    test_object_path_depends_on_text_flags_and_runtime)."""
    monkeypatch.setenv("UNPY_CACHE_DIR", str(tmp_path / "cache"))
    runtime, run_all, compiled = str(build_module.RUNTIME_SOURCE), build_module._run_all, []

    def counted(commands, progress=None):
        compiled.append((sum(runtime in command for command, _, _ in commands),
                         sum("c++-header" in command for command, _, _ in commands)))
        return run_all(commands, progress)
    monkeypatch.setattr(build_module, "_run_all", counted)
    for k in range(2):
        path = tmp_path / f"tiny{k}.py"
        path.write_text(f"import unpython\n\n\n@unpython.type('int64', 'int64')\n"
                        f"def tiny{k}(x):\n    return x + {k}\n")
        built = build_module.build(str(path), str(tmp_path))
        assert load(built.output, f"tiny{k}").__dict__[f"tiny{k}"](1) == 1 + k
    headers = len(build_module.PRECOMPILED_HEADERS)
    assert compiled == [(0, headers), (1, 0), (0, 0)]
    assert len(list((tmp_path / "cache" / "build" / "pch").glob("*/*.gch"))) == headers


def test_the_runtime_is_in_the_package_data():
    """Every file of the runtime that a build includes or compiles is installed with unpy."""
    import tomllib
    root = Path(__file__).resolve().parents[2]
    patterns = tomllib.loads((root / "pyproject.toml").read_text())["tool"]["setuptools"][
        "package-data"]["unpy.cpp_emit"]
    files = [p for p in build_module.RUNTIME_DIR.iterdir() if p.suffix in (".hpp", ".cpp")]
    assert build_module.RUNTIME_SOURCE in files
    assert all(any(f.match(pattern) for pattern in patterns) for f in files), files


def test_unit_flags_are_the_module_s_flags_but_shared():
    options = build_module.BuildOptions(fastmath=True)
    flags = options.unit_flags()
    assert "-c" in flags and "-shared" not in flags
    assert set(flags) == set(options.flags()) - {"-shared"} | {"-c"}


def test_a_failing_unit_stops_the_others(tmp_path, monkeypatch):
    monkeypatch.setattr(build_module, "build_jobs", lambda: 2)
    started = time.perf_counter()
    commands = [(["sleep", "30"], tmp_path / "a.o", tmp_path / "cache" / "a.o"),
                (["sh", "-c", "echo broken >&2; exit 3"], tmp_path / "b.o",
                 tmp_path / "cache" / "b.o")]
    with pytest.raises(RuntimeError, match=r"the C\+\+ compiler failed[^$]*broken"):
        build_module._run_all(commands)
    assert time.perf_counter() - started < 10
    assert not (tmp_path / "cache").exists()


def test_a_build_goes_on_where_the_headers_do_not_precompile(tmp_path, monkeypatch):
    """Precompiling the headers only saves time: a compiler that fails at it (here a command
    that cannot run) leaves the units to read the headers themselves."""
    monkeypatch.setenv("UNPY_CACHE_DIR", str(tmp_path / "cache"))
    precompiled = build_module.precompiled_headers

    def broken(flags, work_dir):
        folder, commands = precompiled(flags, work_dir)
        return folder, [(["false", *cmd[1:]], tmp, cached) for cmd, tmp, cached in commands]
    monkeypatch.setattr(build_module, "precompiled_headers", broken)
    path = tmp_path / "tiny.py"
    path.write_text("import unpython\n\n\n@unpython.type('int64', 'int64')\n"
                    "def tiny(x):\n    return x + 7\n")
    said = []
    built = build_module.build(str(path), str(tmp_path), progress=said.append)
    assert load(built.output, "tiny").tiny(1) == 8
    assert any("not precompiled" in line for line in said), said
    assert not list((tmp_path / "cache" / "build" / "pch").glob("*/*.gch"))
