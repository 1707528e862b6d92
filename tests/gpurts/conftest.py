"""Fixtures for the gpurts tests: they run on a real OpenCL device, no mocks: the one
`UNPY_TEST_DEVICE` names (tests/testdevice.py: the probed CPU device by default)."""
import os
import subprocess
import sys
from pathlib import Path

import pytest

import testdevice

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def device_spec() -> str:
    """The `UNPY_DEVICE` spec of the device the tests run on."""
    return testdevice.SPEC


@pytest.fixture(scope="session")
def device():
    """The device the tests run on."""
    return testdevice.tested_device()


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("UNPY_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache"


def _run_python(code: str, **env) -> subprocess.CompletedProcess:
    full_env = {k: v for k, v in os.environ.items() if k != "OCL_ICD_VENDORS"}
    full_env.update(env, PYTHONPATH=os.pathsep.join(
        [str(REPO), *filter(None, [os.environ.get("PYTHONPATH")])]))
    done = subprocess.run([sys.executable, "-c", code], cwd=REPO, env=full_env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done


@pytest.fixture
def run_python():
    """Run code in a fresh interpreter (so a fresh OpenCL loader) at the repo root, with extra
    environment variables; returns the finished process, failing the test on a non-zero exit."""
    return _run_python
