"""unpy/settings.py: every UNPY_* switch of the call path parsed in one place, into one frozen
value per set of raw values; a value a switch does not accept (or an UNPY_* variable that is no
switch) is reported once through the 'unpy' logger, and the default used. Each test uses values
of its own: a report is made once per process."""
import dataclasses
import json
import logging
import os
import subprocess
import sys

import pytest

from unpy import settings
from unpy.settings import DEFAULT_OPT, NAMES, Settings, current

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@pytest.fixture(autouse=True)
def clean_env(monkeypatch):
    for name in NAMES:
        monkeypatch.delenv(name, raising=False)
    return monkeypatch


@pytest.fixture
def reports(unpy_warnings):
    return unpy_warnings


def test_defaults_when_nothing_is_set():
    got = current()
    assert got == Settings()
    assert (got.device, got.force_gpu, got.gpu_opt, got.gpu_search, got.gpu_mem_limit) == \
        ("", False, DEFAULT_OPT, "", None)
    assert (got.resident, got.pin, got.replay, got.replay_pin_bytes, got.log_level) == \
        (True, "auto", True, None, logging.WARNING)
    assert not got.disable and not got.switched_off
    assert got.cache_root == os.path.join(os.path.expanduser("~"), ".cache", "unpy")


@pytest.mark.parametrize("name, raw, field, value", [
    ("UNPY_DEVICE", " PoCL ", "device", "pocl"),
    ("UNPY_DEVICE", "gpu0,gpu1,openmp", "device", "gpu0,gpu1,openmp"),
    ("UNPY_FORCE_GPU", "1", "force_gpu", True),
    ("UNPY_FORCE_GPU", "0", "force_gpu", False),
    ("UNPY_GPU_OPT", " ALL ", "gpu_opt", "all"),
    ("UNPY_GPU_OPT", "none", "gpu_opt", "none"),
    ("UNPY_GPU_SEARCH", "0", "gpu_search", "0"),
    ("UNPY_GPU_SEARCH", "1", "gpu_search", "1"),
    ("UNPY_GPU_SEARCH", "auto", "gpu_search", ""),
    ("UNPY_GPU_MEM_LIMIT", "4000", "gpu_mem_limit", 4000),
    ("UNPY_GPU_MEM_LIMIT", "0", "gpu_mem_limit", 0),
    ("UNPY_RESIDENT", "0", "resident", False),
    ("UNPY_PIN", "1", "pin", "1"),
    ("UNPY_PIN", "AUTO", "pin", "auto"),
    ("UNPY_REPLAY", "0", "replay", False),
    ("UNPY_REPLAY_PIN_BYTES", "4096", "replay_pin_bytes", 4096),
    ("UNPY_LOG", "INFO", "log_level", logging.INFO),
    ("UNPY_DISABLE", "1", "disable", True),
    ("UNPY_CACHE_DIR", "/tmp/somewhere", "cache_dir", "/tmp/somewhere"),
    ("UNPY_PROBE_FAIL", "pthread", "probe_fail", "pthread"),
])
def test_each_switch_is_parsed(clean_env, reports, name, raw, field, value):
    clean_env.setenv(name, raw)
    assert getattr(current(), field) == value
    assert reports == []


def test_device_none_switches_off(clean_env):
    clean_env.setenv("UNPY_DEVICE", " None")
    assert current().switched_off


def test_cache_dir_is_the_cache_root(clean_env, tmp_path):
    clean_env.setenv("UNPY_CACHE_DIR", str(tmp_path))
    assert current().cache_root == str(tmp_path)


@pytest.mark.parametrize("name, raw, field, message", [
    ("UNPY_GPU_OPT", "bogus", "gpu_opt",
     "UNPY_GPU_OPT='bogus' is not one of none, load, unroll, all: using all"),
    ("UNPY_FORCE_GPU", "yes", "force_gpu", "UNPY_FORCE_GPU='yes' is not one of 0, 1: using 0"),
    ("UNPY_GPU_SEARCH", "always", "gpu_search",
     "UNPY_GPU_SEARCH='always' is not one of auto, 0, 1: using auto"),
    ("UNPY_PIN", "on", "pin", "UNPY_PIN='on' is not one of auto, 0, 1: using auto"),
    ("UNPY_RESIDENT", "no", "resident", "UNPY_RESIDENT='no' is not one of 0, 1: using 1"),
    ("UNPY_REPLAY", "off", "replay", "UNPY_REPLAY='off' is not one of 0, 1: using 1"),
    ("UNPY_DISABLE", "true", "disable", "UNPY_DISABLE='true' is not one of 0, 1: using 0"),
    ("UNPY_GPU_MEM_LIMIT", "2GB", "gpu_mem_limit",
     "UNPY_GPU_MEM_LIMIT='2GB' is not a whole number of bytes: using 80 % of the device's "
     "memory"),
    ("UNPY_GPU_MEM_LIMIT", "-8", "gpu_mem_limit",
     "UNPY_GPU_MEM_LIMIT='-8' is not a whole number of bytes: using 80 % of the device's "
     "memory"),
    ("UNPY_REPLAY_PIN_BYTES", "lots", "replay_pin_bytes",
     "UNPY_REPLAY_PIN_BYTES='lots' is not a whole number of bytes: using the default"),
    ("UNPY_LOG", "loud", "log_level",
     "UNPY_LOG='loud' is not one of debug, info, warning, error, critical: using warning"),
])
def test_an_unknown_value_is_reported_once_and_the_default_used(clean_env, reports, name, raw,
                                                                field, message):
    clean_env.setenv(name, raw)
    assert getattr(current(), field) == getattr(Settings(), field)
    assert reports == [message]
    clean_env.setenv("UNPY_DEVICE", "cpu")          # another set of values, the same bad one
    current()
    assert reports == [message]


def test_a_misspelt_switch_is_reported_once(clean_env, reports):
    # Looked for when a new set of values is parsed (in a program: its first call).
    clean_env.setenv("UNPY_GPU_OTP", "none")
    clean_env.setenv("UNPY_DEVICE", "a-device-of-the-misspelt-test")
    current()
    assert len(reports) == 1 and reports[0].startswith(
        "UNPY_GPU_OTP is not a setting of unpy, ignored (the settings: UNPY_DEVICE, ")
    clean_env.setenv("UNPY_FORCE_GPU", "1")
    current()
    assert len(reports) == 1


def test_the_tests_own_variables_are_no_misspelt_switches(clean_env, reports):
    clean_env.setenv("UNPY_TEST_SOMETHING", "1")
    clean_env.setenv("UNPY_FUZZ_SOMETHING", "1")
    clean_env.setenv("UNPY_GPU_OPT", "load")        # a fresh parse
    current()
    assert reports == []


def test_one_frozen_value_per_set_of_values_parsed_once(clean_env, monkeypatch):
    parses = []
    monkeypatch.setattr(settings, "parse",
                        lambda environ, parse=settings.parse: parses.append(1) or parse(environ))
    clean_env.setenv("UNPY_GPU_OPT", "unroll")
    clean_env.setenv("UNPY_DEVICE", "a-device-of-this-test")
    first = current()
    assert current() is first and len(parses) == 1
    with pytest.raises(dataclasses.FrozenInstanceError):
        first.gpu_opt = "none"
    clean_env.setenv("UNPY_GPU_OPT", "load")         # a changed variable is seen at once
    assert current().gpu_opt == "load" and len(parses) == 2
    clean_env.setenv("UNPY_GPU_OPT", "unroll")
    assert current() is first and len(parses) == 2


def test_importable_without_the_gpu_stack():
    code = ("import json, sys; import unpy.settings as s; s.current(); "
            "print(json.dumps(sorted(sys.modules)))")
    done = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True,
                          text=True, timeout=60,
                          env={**os.environ, "PYTHONPATH": REPO})
    assert done.returncode == 0, done.stderr
    loaded = json.loads(done.stdout)
    assert not [m for m in loaded if m.split(".")[0] in
                ("numpy", "pyopencl", "gpurts", "jitgpu", "pulp", "highspy")]
