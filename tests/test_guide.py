"""docs/guide.md is run as a user would run it: its ```python blocks that start with a file
name comment (`# stats.py`) are written into a fresh folder, its ```console blocks run there
command by command (`$ ...`) and must print what the guide shows, and its ```pycon blocks run
as doctests in a fresh interpreter there. `...` in a console block stands for any text; a
block after `<!-- guide-test: needs an OpenCL device -->` runs only where the GPU-path tests
run (UNPY_TEST_DEVICE)."""
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import diffcheck
import testdevice

GUIDE = diffcheck.REPO / "docs" / "guide.md"
NEEDS_DEVICE = "<!-- guide-test: needs an OpenCL device -->"
FENCE = re.compile(r"^```(\w*)\n(.*?)^```\n", re.S | re.M)


def blocks():
    """[(language, text, needs a device)] of the guide's fenced blocks, in order."""
    text = GUIDE.read_text()
    found = []
    for m in FENCE.finditer(text):
        before = text[:m.start()]
        marker = before.rfind(NEEDS_DEVICE)
        needs = marker >= 0 and "```" not in before[marker:]
        found.append((m.group(1), m.group(2), needs))
    return found


def expected_pattern(expected: str) -> re.Pattern:
    """A console block's output as a regex: `...` any text, trailing spaces ignored."""
    parts = [re.escape(p) for p in expected.rstrip().split("...")]
    return re.compile(".*?".join(parts), re.S)


def console_steps(text):
    """[(command, expected output)] of a console block."""
    steps = []
    for line in text.splitlines():
        if line.startswith("$ "):
            steps.append([line[2:], []])
        elif steps:
            steps[-1][1].append(line)
    return [(command, "\n".join(out)) for command, out in steps]


def user_env(folder):
    # A user's environment, but for the cache and the constants of the GPU estimate (the
    # guide's decisions must not follow this machine's load: tests/conftest.py).
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("UNPY_") or k in ("UNPY_CACHE_DIR", "UNPY_CALIBRATE")}
    # `unpy` and `python` as a user's virtual environment has them; unpy from this checkout.
    bin_dir = str(Path(sys.executable).parent)
    env["PATH"] = f"{bin_dir}{os.pathsep}{env.get('PATH', '')}"
    env["PYTHONPATH"] = os.pathsep.join([str(folder), str(diffcheck.REPO)])
    env.pop("PYTHONSTARTUP", None)
    return env


def run_console(folder, command, env):
    command = re.sub(r"(^|[\s=])unpy ", rf"\1{sys.executable} -m unpy.cli ", command)
    command = re.sub(r"(^|\s)python ", rf"\1{sys.executable} ", command)
    done = subprocess.run(["bash", "-c", command], cwd=folder, env=env, capture_output=True,
                          text=True, timeout=600)
    return (done.stdout + done.stderr).replace(str(folder), "<folder>")


def test_the_guide_runs_as_printed(tmp_path):
    device = testdevice.SPEC != "none"
    env = user_env(tmp_path)
    ran = {"python": 0, "console": 0, "pycon": 0}
    for language, text, needs_device in blocks():
        if needs_device and not device:
            continue
        if language == "python":
            first = text.splitlines()[0]
            name = re.fullmatch(r"# (\w+\.py)", first)
            if name:
                (tmp_path / name.group(1)).write_text(text)
                ran["python"] += 1
        elif language == "console":
            for command, expected in console_steps(text):
                got = run_console(tmp_path, command, env)
                assert expected_pattern(expected).fullmatch(got.rstrip()), (
                    f"$ {command}\n--- the guide shows:\n{expected}\n--- it printed:\n{got}")
                ran["console"] += 1
        elif language == "pycon":
            doctest_file = tmp_path / f"pycon{ran['pycon']}.txt"
            doctest_file.write_text(text)
            done = subprocess.run([sys.executable, "-m", "doctest", "-o", "ELLIPSIS",
                                   doctest_file.name], cwd=tmp_path, env=env,
                                  capture_output=True, text=True, timeout=300)
            assert done.returncode == 0, f"{text}\n--- doctest says:\n{done.stdout}{done.stderr}"
            ran["pycon"] += 1
    # Every kind of block was met (a guide that lost its examples would pass silently).
    assert ran["python"] >= 4 and ran["pycon"] >= 2 and ran["console"] >= 6, ran


@pytest.mark.parametrize("expected, got, match", [
    ("a ... b", "a xyz b", True),
    ("a ... b", "a xyz c", False),
    ("line 1\n...\nline 3", "line 1\nline 2\nline 3", True),
])
def test_console_output_matching(expected, got, match):
    assert bool(expected_pattern(expected).fullmatch(got)) == match
