"""The command line (SPEC section 4): `unpy build` (beside the .py or in -o, --emit-cpp, the build
cache: a second build does not compile again), `unpy show` (typed IR and C++), errors."""
import importlib.util
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from unpy.cli import main
from unpy.cpp_emit import build as build_module

REPO = Path(__file__).resolve().parents[1]
SOURCE = textwrap.dedent("""\
    import numpy as np
    import unpython
    from unpython import prange


    @unpython.type('ndarray[float64, 1]', 'float64')
    def total(a):
        s = 0.0
        for i in prange(a.shape[0]):
            s += a[i]
        return s
    """)
SUFFIX = build_module.extension_suffix()


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """clitool.py built once beside itself (a real compilation: the path is new); returns its
    folder and the first build's output."""
    folder = tmp_path_factory.mktemp("cli")
    (folder / "clitool.py").write_text(SOURCE)
    done = run_cli("build", str(folder / "clitool.py"))
    return folder, done


def run_cli(*args, cwd=REPO):
    return subprocess.run([sys.executable, "-m", "unpy.cli", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=300,
                          env=dict(os.environ, PYTHONPATH=str(REPO)))


def load(path: Path, name="clitool"):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_build_writes_the_module_beside_the_source(built):
    folder, done = built
    so = folder / f"clitool{SUFFIX}"
    assert done.returncode == 0, done.stderr
    assert so.exists()
    assert f"compiled total -> {so}" in done.stdout
    assert "(built in" in done.stdout or "(from the build cache)" in done.stdout
    assert load(so).total(np.arange(4.0)) == 6.0


def test_second_build_is_up_to_date_and_does_not_compile(built, monkeypatch, capsys):
    folder, _ = built
    so = folder / f"clitool{SUFFIX}"
    before = so.stat().st_mtime_ns

    def refuse(*args):
        raise AssertionError("the C++ compiler ran again")
    monkeypatch.setattr(build_module, "compile_cpp", refuse)
    monkeypatch.setattr(build_module, "compile_to_ir", refuse)    # nor types it again
    assert main(["build", str(folder / "clitool.py")]) == 0
    out = capsys.readouterr().out
    assert "(up to date)" in out and "compiled total ->" in out
    assert so.stat().st_mtime_ns == before


def test_build_into_another_folder_comes_from_the_cache(built, tmp_path, monkeypatch, capsys):
    folder, _ = built
    monkeypatch.setattr(build_module, "compile_cpp", lambda *a: pytest.fail("compiled again"))
    out = tmp_path / "elsewhere"
    assert main(["build", str(folder / "clitool.py"), "-o", str(out), "--emit-cpp"]) == 0
    assert "(from the build cache)" in capsys.readouterr().out
    assert (out / f"clitool{SUFFIX}").exists()
    cpp = (out / "clitool.cpp").read_text()
    assert "PyInit_clitool()" in cpp
    assert "#pragma omp parallel for" in cpp and "reduction(+:s)" in cpp
    assert load(out / f"clitool{SUFFIX}").total(np.ones(3)) == 3.0


def test_changed_source_is_compiled_again(built, monkeypatch, capsys):
    folder, _ = built
    changed = folder / "changed" / "clitool.py"
    changed.parent.mkdir()
    changed.write_text(SOURCE + "\n# a comment changes the source\n")
    calls = []
    monkeypatch.setattr(build_module, "compile_cpp", lambda *a: calls.append(a) or
                        (_ for _ in ()).throw(RuntimeError("stop here")))
    assert main(["build", str(changed)]) == 1
    assert len(calls) == 1
    assert "stop here" in capsys.readouterr().err
    assert not list(changed.parent.glob("*.so")), "a failed compilation left a module"


def test_build_key_depends_on_source_flags_and_path(tmp_path):
    options = build_module.BuildOptions()
    key = build_module.build_key(SOURCE, options, "a.py")
    assert key == build_module.build_key(SOURCE, build_module.BuildOptions(), "a.py")
    assert key != build_module.build_key(SOURCE + " ", options, "a.py")
    assert key != build_module.build_key(SOURCE, build_module.BuildOptions(boundscheck=True),
                                         "a.py")
    assert key != build_module.build_key(SOURCE, build_module.BuildOptions(unchecked=True),
                                         "a.py")
    assert key != build_module.build_key(SOURCE, options, "b.py")


def test_compiler_flags():
    flags = build_module.BuildOptions().flags()
    for flag in ("-O3", "-fopenmp", "-march=native", "-ffp-contract=off", "-fwrapv"):
        assert flag in flags
    assert "-ffast-math" not in flags
    assert "-march=native" not in build_module.BuildOptions(portable=True).flags()
    fast = build_module.BuildOptions(fastmath=True).flags()
    assert "-ffast-math" in fast and "-ffp-contract=off" not in fast


def test_show_prints_ir_and_cpp(built):
    folder, _ = built
    done = run_cli("show", str(folder / "clitool.py"))
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "# --- typed IR of total, with the C++ path's loop optimisations ---" in out
    assert "def total(a: ndarray[float64, 1]) -> float64:" in out
    assert "for i in prange(0, a.shape[0], 1):  # reductions: +:s" in out
    assert "// --- generated C++ ---" in out
    assert "static double total(" in out and "#pragma omp parallel for" in out


def test_show_with_boundscheck_and_unchecked(built, capsys):
    folder, _ = built
    assert main(["show", "--boundscheck", str(folder / "clitool.py")]) == 0
    assert 'at_checked<C>("a"' in capsys.readouterr().out
    # By default a[i] over range(a.shape[0]) is proved in range; --unchecked checks nothing.
    for flags in ([], ["--unchecked"]):
        assert main(["show", *flags, str(folder / "clitool.py")]) == 0
        assert "at_checked" not in capsys.readouterr().out


def test_boundscheck_and_unchecked_exclude_each_other(built, capsys):
    folder, _ = built
    with pytest.raises(SystemExit):
        main(["build", "--boundscheck", "--unchecked", str(folder / "clitool.py")])
    assert "not allowed with argument" in capsys.readouterr().err
    with pytest.raises(ValueError):
        build_module.BuildOptions(boundscheck=True, unchecked=True)


def test_missing_file_is_an_error_not_a_traceback(tmp_path, capsys):
    missing = str(tmp_path / "missing.py")
    assert main(["build", missing]) == 1
    assert main(["show", missing]) == 1
    err = capsys.readouterr().err
    assert err.count(f"unpy: {missing}: error:") == 2 and "Traceback" not in err


def test_module_without_compiled_functions_writes_nothing(tmp_path, capsys):
    path = tmp_path / "plain.py"
    path.write_text("import numpy as np\n\ndef f(x):\n    return x\n")
    assert main(["build", str(path)]) == 0
    assert "nothing to compile" in capsys.readouterr().out
    assert [p.name for p in tmp_path.iterdir()] == ["plain.py"]


def test_several_files_one_bad(built, tmp_path, capsys, monkeypatch):
    folder, _ = built
    monkeypatch.setattr(build_module, "compile_cpp", lambda *a: pytest.fail("compiled again"))
    bad = tmp_path / "bad.py"
    bad.write_text("import unpython\n\n@unpython.type('int64', 'int64')\ndef f(n):\n"
                   "    return n.x\n")
    out = tmp_path / "out"
    assert main(["build", str(bad), str(folder / "clitool.py"), "-o", str(out)]) == 1
    captured = capsys.readouterr()
    assert f"{bad}:5:12: error: attribute 'x' is not supported" in captured.err
    assert [p.name for p in out.iterdir()] == [f"clitool{SUFFIX}"]


def test_an_unusable_cache_is_named_before_any_work(built, tmp_path, capsys, monkeypatch):
    folder, _ = built
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    monkeypatch.setenv("UNPY_CACHE_DIR", str(blocker / "cache"))
    monkeypatch.setattr(build_module, "compile_cpp", lambda *a: pytest.fail("compiled"))
    assert main(["build", str(folder / "clitool.py"), "-o", str(tmp_path / "out")]) == 1
    err = capsys.readouterr().err
    assert f"UNPY_CACHE_DIR={blocker / 'cache'} cannot hold the build cache" in err
    assert "set UNPY_CACHE_DIR to a folder you can write" in err


def test_usage_errors():
    done = run_cli()
    assert done.returncode == 2 and "usage: unpy" in done.stderr
    done = run_cli("build", "--no-such-flag", "x.py")
    assert done.returncode == 2 and "Traceback" not in done.stderr


def test_one_build_reports_the_first_error_of_every_function(tmp_path, capsys):
    """Fixing several errors does not take one build each: each function's first error is
    reported, in source order, with a count."""
    from unpy.cli import main
    path = tmp_path / "several.py"
    path.write_text(
        "import numpy as np\nimport unpython\n\n"
        "@unpython.type('ndarray[float64, 1]', 'float64')\ndef f(a):\n    return np.lexsort(a)\n\n"
        "@unpython.type('float64', 'float64')\ndef g(x):\n    return x.foo\n\n"
        "@unpython.type('float64', 'float64')\ndef h(x):\n    return x * 2\n")
    assert main(["build", str(path), "-o", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert "several.py:6:12: error: call to 'numpy.lexsort'" in err
    assert "several.py:10:12: error: attribute 'foo'" in err
    assert err.rstrip().endswith("2 errors")
    assert not list(tmp_path.glob("several*.so"))
