"""Two processes building the same module compile it once (unpy/build_lock.py): the second
waits for the first, says so, and takes the module from the build cache."""
import json
import os
import subprocess
import sys
import textwrap
import threading

import diffcheck
from unpy.build_lock import build_lock
from unpy.cpp_emit.build import extension_suffix

MODULE = '''
import unpython
from unpython import prange


@unpython.type('ndarray[float64, 1]', 'float64')
def total(a):
    s = 0.0
    for i in prange(a.shape[0]):
        s += a[i]
    return s
'''

BUILD = """
    import json, sys
    from unpy.build_lock import one_build_at_a_time
    from unpy.cpp_emit import build
    said = []
    def progress(message):
        said.append(message)
        print(message, flush=True)
    result = one_build_at_a_time(build.build)(sys.argv[1], progress=progress)
    print(json.dumps({"cached": result.cached, "said": said}))
    """


def test_concurrent_builds_of_one_module_compile_once(tmp_path, monkeypatch):
    source = tmp_path / "locked.py"
    source.write_text(MODULE)
    env = {k: v for k, v in os.environ.items() if k != "UNPY_DISABLE"}
    env.update(UNPY_CACHE_DIR=str(tmp_path / "cache"), PYTHONPATH=str(diffcheck.REPO))
    monkeypatch.setenv("UNPY_CACHE_DIR", env["UNPY_CACHE_DIR"])
    procs = []
    # This process holds the lock until both builders are waiting for it: no timing involved.
    with build_lock(str(source)):
        for _ in range(2):
            procs.append(subprocess.Popen(
                [sys.executable, "-c", textwrap.dedent(BUILD), str(source)], env=env,
                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True))
        for p in procs:
            first = p.stdout.readline()       # the builder's first message: it waits
            assert "waiting for another build of this module" in first, p.stderr.read()
    results = []
    for p in procs:
        out, err = p.communicate(timeout=300)
        assert p.returncode == 0, err
        results.append(json.loads(out.strip().splitlines()[-1]))
    assert sorted(r["cached"] for r in results) == [False, True]     # one compiled
    assert all(r["said"][0].startswith("waiting for another build") for r in results)
    assert (tmp_path / f"locked{extension_suffix()}").exists()


def test_a_build_inside_a_build_of_the_same_module_does_not_wait_for_itself(tmp_path,
                                                                               monkeypatch):
    monkeypatch.setenv("UNPY_CACHE_DIR", str(tmp_path / "cache"))
    source = str(tmp_path / "m.py")
    inner = []

    def nested():
        with build_lock(source):
            with build_lock(source):
                inner.append(True)
    thread = threading.Thread(target=nested, daemon=True)
    thread.start()
    thread.join(60)         # a thread waiting for its own lock would never end
    assert inner == [True]
