"""The compiled module is a drop-in replacement of the .py (SPEC section 1): imported in a fresh
interpreter, its non-compiled code runs as in the .py; UNPY_DISABLE=1 gives the pure .py
behaviour; unpython.explain reports how each loop nest ran."""
import json
import os
import shutil
import subprocess
import sys
import textwrap

import pytest

import diffcheck

REPO = diffcheck.REPO


@pytest.fixture(scope="module")
def dropin_dir(tmp_path_factory):
    """A folder with the compiled dropin module and, beside it, dropin.py: CPython must pick the
    extension module."""
    out = tmp_path_factory.mktemp("dropin")
    from unpy.cpp_emit.build import build
    with diffcheck.build_lock("dropin"):
        build(str(diffcheck.KERNELS / "dropin.py"), str(out))
    shutil.copy(diffcheck.KERNELS / "dropin.py", out / "dropin.py")
    return out


def run_python(folder, code, **env):
    """Run `code` in a fresh interpreter with `folder` first on sys.path; it prints one JSON
    value, returned decoded."""
    full_env = {k: v for k, v in os.environ.items() if k != "UNPY_DISABLE"}
    full_env.update(PYTHONPATH=f"{folder}{os.pathsep}{REPO}", UNPY_DEVICE="none", **env)
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], cwd=folder, env=full_env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


IMPORT = """
    import json, sys
    import numpy as np
    import unpython
    import dropin
    a = np.arange(4.0)
    dropin.scale(a, 2.0)
    print(json.dumps({
        "file": dropin.__file__,
        "total_kind": type(dropin.total).__name__,
        "scale_kind": type(dropin.scale).__name__,
        "compiled": [hasattr(f, "__unpy_compiled__") for f in (dropin.total, dropin.scale)],
        "log": dropin.LOG,
        "at_import": dropin.AT_IMPORT,
        "scale": dropin.SCALE, "names": dropin.NAMES,
        "class_result": dropin.Accumulator().add(np.ones(3)).add(np.ones(2)).sum,
        "undecorated": dropin.undecorated(5),
        "no_loops": dropin.no_loops(21),
        "scaled": a.tolist(),
        "name": dropin.__name__, "doc": dropin.__doc__.split(":")[0],
        "undecorated_kind": type(dropin.undecorated).__name__,
        "class_module": dropin.Accumulator.__module__,
    }))
    """


def test_compiled_import_runs_the_module_code(dropin_dir):
    got = run_python(dropin_dir, IMPORT)
    assert got["file"].endswith(".so") and os.path.dirname(got["file"]) == str(dropin_dir)
    assert got["compiled"] == [True, True]
    assert got["log"] == [got["total_kind"]]          # compiled at import; __main__ guard not run
    assert got["at_import"] == 10.0
    assert (got["scale"], got["names"]) == (3, ["total", "scale"])
    assert got["class_result"] == 5.0
    assert got["undecorated"] == 15.0 and got["undecorated_kind"] == "function"
    assert got["no_loops"] == 42
    assert got["scaled"] == [0.0, 2.0, 4.0, 6.0]
    assert got["name"] == "dropin" and got["class_module"] == "dropin"


def test_disabled_import_is_the_pure_python_module(dropin_dir):
    got = run_python(dropin_dir, IMPORT, UNPY_DISABLE="1")
    assert got["file"].endswith(".so")             # the same extension module file ...
    assert got["compiled"] == [False, False]       # ... but .py
    assert got["log"] == ["function"]
    assert got["at_import"] == 10.0 and got["class_result"] == 5.0
    assert got["undecorated"] == 15.0 and got["scaled"] == [0.0, 2.0, 4.0, 6.0]


def test_interpreter_gives_the_same_results(dropin_dir):
    """The .py itself (no extension module on the path) agrees with the compiled import."""
    plain = dropin_dir.parent / "plain"
    plain.mkdir(exist_ok=True)
    shutil.copy(dropin_dir / "dropin.py", plain / "dropin.py")
    interpreted = run_python(plain, IMPORT)
    compiled = run_python(dropin_dir, IMPORT)
    assert interpreted["file"].endswith("dropin.py")
    for key in ("at_import", "class_result", "undecorated", "no_loops", "scaled", "scale"):
        assert interpreted[key] == compiled[key], key


def test_main_guard_runs_when_executed_as_a_script(dropin_dir):
    done = subprocess.run([sys.executable, str(diffcheck.KERNELS / "dropin.py")],
                          env=dict(os.environ, PYTHONPATH=str(REPO)), capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 1 and "the __main__ guard ran" in done.stderr


EXPLAIN = """
    import json
    import numpy as np
    import unpython
    import dropin
    before = unpython.explain(dropin.scale)
    dropin.scale(np.ones(8), 3.0)
    after = unpython.explain(dropin.scale)
    cpu = unpython.explain(dropin.total)
    dropin.total(np.ones(3))
    py = unpython.explain(dropin.undecorated)
    print(json.dumps({
        "before": [before.compiled, before.gpu, [n.ran_on for n in before.nests], str(before)],
        "after": [after.compiled, after.gpu, [n.ran_on for n in after.nests],
                  [n.reason for n in after.nests], str(after)],
        "cpu": [cpu.compiled, cpu.gpu, [n.ran_on for n in cpu.nests],
                [n.reason for n in cpu.nests], str(cpu)],
        "no_loops": len(unpython.explain(dropin.no_loops).nests),
        "py": [py.compiled, str(py)],
    }))
    """


def test_explain_reports_each_nest(dropin_dir):
    got = run_python(dropin_dir, EXPLAIN)
    compiled, gpu, ran_on, text = got["before"]
    assert (compiled, gpu, ran_on) == (True, True, [None])
    assert "not run yet" in text or "not called yet" in text
    compiled, gpu, ran_on, reasons, text = got["after"]
    assert (compiled, gpu, ran_on) == (True, True, ["openmp"])
    assert "device" in reasons[0].lower()                  # UNPY_DEVICE=none: no device
    assert text.startswith("scale: compiled @gpu function, 1 prange nest(s)")
    assert "nest 0: openmp" in text
    compiled, gpu, ran_on, reasons, text = got["cpu"]
    assert (compiled, gpu, ran_on) == (True, False, ["openmp"])
    assert "not marked @unpython.gpu" in reasons[0]
    assert text.startswith("total: compiled function, 1 prange nest(s)")
    assert got["no_loops"] == 0
    compiled, text = got["py"]
    assert compiled is False and "not compiled" in text


def test_explain_in_the_interpreter(dropin_dir):
    got = run_python(dropin_dir, EXPLAIN, UNPY_DISABLE="1")
    assert got["after"][0] is False and "not compiled" in got["after"][4]
