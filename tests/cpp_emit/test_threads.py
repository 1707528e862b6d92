"""OpenMP on a busy machine: each parallel nest's team is chosen from the CPUs free now
(unpy::team_size, fed synthetic loads through the module's __unpy_fake_load__ seam), and
unpy bounds how long OpenMP's idle threads spin unless the user said how they wait.
Nothing here depends on the host's timing or load."""
import json
import os
import re
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import diffcheck

KERNELS = '''
import numpy as np
import unpython
from unpython import prange


@unpython.type('ndarray[float64, 1]', None)
def scale(a):
    for i in prange(a.shape[0]):
        a[i] = a[i] * 0.5 + 1.0


@unpython.type('ndarray[float64, 1]', 'float64')
def float_sum(a):
    s = 0.0
    for i in prange(a.shape[0]):
        s += a[i] * 0.1
    return s


@unpython.type('ndarray[int64, 1]', 'int64')
def int_sum(b):
    s = 0
    for i in prange(b.shape[0]):
        s += b[i] * 3
    return s


@unpython.type('ndarray[float64, 2]', 'ndarray[float64, 2]', 'ndarray[float64, 2]')
def product(a, b):
    return a @ b
'''

# What every fresh interpreter runs first: the compiled module and the interpreter's.
PRELUDE = """
import importlib.util, json, numpy as np
import threads_kernels as compiled
spec = importlib.util.spec_from_file_location("interpreted", "kernels_src/threads_kernels.py")
interpreted = importlib.util.module_from_spec(spec)
spec.loader.exec_module(interpreted)
"""


@pytest.fixture(scope="module")
def kernels_dir(tmp_path_factory):
    out = tmp_path_factory.mktemp("threads")
    source = out / "kernels_src" / "threads_kernels.py"
    source.parent.mkdir()
    source.write_text(KERNELS)
    from unpy.cpp_emit.build import build
    with diffcheck.build_lock("threads"):
        build(str(source), str(out))
    return out


def run(folder, code, prelude=PRELUDE, **env_changes):
    """`prelude` + `code` in a fresh interpreter (OpenMP reads its environment once) with the
    OMP_* and GOMP_* variables of `env_changes` only; it prints one JSON value, returned."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("OMP_", "GOMP_")) and k != "UNPY_DISABLE"}
    env.update(PYTHONPATH=f"{folder}{os.pathsep}{diffcheck.REPO}", UNPY_DEVICE="none",
               **env_changes)
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(prelude) + textwrap.dedent(code)],
                          cwd=folder, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1]), done.stderr


# (cpus in the mask, CPUs online, runnable tasks of the machine, ours of them, limit) -> team
TEAM_SIZES = [
    ((2, 2, 1, 1, 2), 2),       # quiet: the caller alone runs
    ((2, 2, 2, 1, 2), 1),       # one busy process beside us
    ((2, 2, 2, 2, 2), 2),       # ... or our own thread still spinning after a loop
    ((2, 2, 9, 1, 2), 1),       # everything busy: still the caller's thread
    ((16, 16, 1, 1, 4), 4),     # OMP_NUM_THREADS=4 caps a quiet 16-core machine
    ((16, 16, 6, 2, 16), 12),   # 4 other tasks
    ((4, 16, 13, 1, 16), 4),    # a 4-CPU mask: others run on the machine's other CPUs
    ((4, 16, 15, 1, 16), 2),
    ((2, 2, 0, 3, 2), 2),       # a reading taken while our threads went to sleep
    ((8, 8, 1, 1, 1), 1),
]


def test_team_size_choice(kernels_dir):
    """The pure choice, through a compiled module's copy of the runtime."""
    got, _ = run(kernels_dir, f"""
        print(json.dumps([compiled.__unpy_team_size__(*inputs) for inputs, _ in {TEAM_SIZES!r}]))
        """)
    assert got == [team for _, team in TEAM_SIZES]


def test_nests_take_the_free_cpus_and_keep_their_results(kernels_dir):
    """With OMP_NUM_THREADS=3 and synthetic loads: a large nest runs on the CPUs free (capped
    by 3), a small one on the caller's thread, a float reduction and a BLAS product (whose
    results depend on how the threads split them) on all 3 whatever the load; every result is
    the interpreter's, and the same under every load."""
    got, _ = run(kernels_dir, """
        rng = np.random.default_rng(1)
        big = rng.random(200_000)
        small = rng.random(8)
        ints = rng.integers(-1000, 1000, 200_000)
        a, b = rng.random((67, 45)), rng.random((45, 71))
        out = {}
        for load in [(8, 8, 1, 1), (8, 8, 7, 1), (8, 8, 30, 1), (2, 2, 1, 1)]:
            compiled.__unpy_fake_load__(load)
            row = {}
            for name, arg in [("scale", big), ("scale_small", small)]:
                x, y = arg.copy(), arg.copy()
                compiled.scale(x)
                row[name] = compiled.__unpy_last_team__()
                interpreted.scale(y)
                row[name + " equal"] = bool(np.array_equal(x, y))
                row[name + " bits"] = x.tobytes().hex()[:4096]
            s = compiled.float_sum(big)
            row["float_sum"] = compiled.__unpy_last_team__()
            row["float_sum value"] = s.hex()
            row["float_sum close"] = bool(np.isclose(s, interpreted.float_sum(big), rtol=1e-12))
            i = compiled.int_sum(ints)
            row["int_sum"] = compiled.__unpy_last_team__()
            row["int_sum equal"] = bool(i == interpreted.int_sum(ints))
            p = compiled.product(a, b)
            row["product"] = compiled.__unpy_last_team__()
            row["product close"] = bool(np.allclose(p, interpreted.product(a, b), rtol=1e-12))
            row["product bits"] = p.tobytes().hex()
            out[str(load)] = row
        compiled.__unpy_fake_load__(None)
        compiled.scale(big.copy())
        out["machine"] = compiled.__unpy_last_team__()
        print(json.dumps(out))
        """, OMP_NUM_THREADS="3")
    teams = {load: (row["scale"], row["scale_small"], row["float_sum"], row["int_sum"],
                    row["product"]) for load, row in got.items() if load != "machine"}
    assert teams == {"(8, 8, 1, 1)": (3, 1, 3, 3, 3), "(8, 8, 7, 1)": (2, 1, 3, 2, 3),
                     "(8, 8, 30, 1)": (1, 1, 3, 1, 3), "(2, 2, 1, 1)": (2, 1, 3, 2, 3)}
    assert 1 <= got["machine"] <= 3
    rows = [row for load, row in got.items() if load != "machine"]
    for row in rows:
        assert row["scale equal"] and row["scale_small equal"] and row["int_sum equal"]
        assert row["product close"] and row["float_sum close"]
    for key in ("scale bits", "scale_small bits", "float_sum value", "product bits"):
        assert len({row[key] for row in rows}) == 1, f"{key} depends on the team"


SPIN = """
import ctypes, logging, sys
logging.basicConfig(level=logging.DEBUG, stream=sys.stderr)
if LOAD_LIBGOMP_FIRST:
    ctypes.CDLL("libgomp.so.1")
import threads_kernels as compiled
libc = ctypes.CDLL(None)
libc.getenv.restype = ctypes.c_char_p
ctypes.CDLL("libgomp.so.1").omp_display_env(1)     # libgomp's view, on stderr
sys.stderr.flush()
value = libc.getenv(b"GOMP_SPINCOUNT")
print(json.dumps([compiled.__unpy_spin__, value and value.decode()]))
"""


@pytest.mark.parametrize("env, first, state, spincount", [
    ({}, False, "bounded", "1000"),
    ({"GOMP_SPINCOUNT": "1000"}, False, "bounded", "1000"),      # unpy's own bound, kept
    ({"OMP_WAIT_POLICY": "passive"}, False, "user", None),
    ({"OMP_NUM_THREADS": "2"}, False, "user", None),
    ({"GOMP_SPINCOUNT": "77"}, False, "user", "77"),
    ({}, True, "too late", None),                                # libgomp loaded before
])
def test_idle_threads_spin_briefly_unless_the_user_says(kernels_dir, env, first, state,
                                                        spincount):
    (got, value), stderr = run(kernels_dir, f"LOAD_LIBGOMP_FIRST = {first}\n" + SPIN,
                               prelude="import json\n", **env)
    assert got == state
    assert value == (spincount if state != "too late" else None)
    if state == "bounded":
        assert "GOMP_SPINCOUNT = '1000'" in stderr
    assert ("libgomp was loaded before this module" in stderr) == (state == "too late")


def test_only_float_reductions_keep_the_whole_team():
    """The generated C++: a nest that reduces floats asks for the whole team (`true`), one
    that reduces integers for the CPUs free."""
    from unpy.cpp_emit.module import emit_module
    import irtools
    body = """
        @unpython.type('ndarray[float64, 1]', 'ndarray[int64, 1]', 'float64')
        def f(a, b):
            s = 0.0
            for i in prange(a.shape[0]):
                s += a[i]
            t = 0
            for i in prange(b.shape[0]):
                t += b[i]
            return s + t
        """
    cpp = emit_module(irtools.typed(body), irtools.source(body), "unproved")
    teams = re.findall(r"unpy::nest_team\(.* >= 32768(, true)?\);", cpp)
    assert teams == [", true", ""]


def test_a_second_module_finds_the_bound_in_force(kernels_dir, tmp_path):
    """A module imported after another one loaded libgomp with the bound set: bounded too (a
    copy of the module under another path is another object to the loader)."""
    import shutil
    first = next(kernels_dir.glob("threads_kernels.*.so"))
    (tmp_path / "copy").mkdir()
    second = shutil.copy(first, tmp_path / "copy" / first.name)
    (got, value), stderr = run(kernels_dir, f"""
        import importlib.util
        import threads_kernels as first
        spec = importlib.util.spec_from_file_location("threads_kernels", {str(second)!r})
        second = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(second)
        print(json.dumps([[first.__unpy_spin__, second.__unpy_spin__], None]))
        """, prelude="import json\n")
    assert got == ["bounded", "bounded"]
