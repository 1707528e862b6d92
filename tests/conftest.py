"""Shared fixtures: the kernel modules of tests/kernels, each built once per test session (and
per pytest-xdist worker, through the build cache) and loaded compiled and interpreted. The
header says which OpenCL device the GPU path is tested on (tests/testdevice.py)."""
import logging
import os

import pytest
from hypothesis import settings

import diffcheck
import testdevice

# CI runs the same examples every time (a failure is reproducible); set UNPY_TEST_RANDOM=1 to
# explore new ones.
settings.register_profile("unpy", derandomize=os.environ.get("UNPY_TEST_RANDOM") != "1",
                          deadline=None)
settings.load_profile("unpy")

diffcheck.ensure_cache_dir()
# The GPU-or-OpenMP estimate uses the constants, not figures measured on this (busy) machine:
# a test's decisions must not follow the host's load (tests/jitgpu/test_decision.py and
# tests/gpurts/test_calibration.py test the calibration through seams and in a subprocess).
os.environ.setdefault("UNPY_CALIBRATE", "0")


def pytest_report_header(config):
    return testdevice.header()


def pytest_sessionstart(session):
    """`pytest -q` (make test) hides the header: say the device there all the same."""
    config = session.config
    reporter = config.pluginmanager.get_plugin("terminalreporter")
    if config.option.verbose < 0 and reporter and not hasattr(config, "workerinput"):
        reporter.write_line(testdevice.header())


@pytest.fixture
def unpy_warnings():
    """The messages the 'unpy' logger warns with during the test (it does not propagate to the
    root logger once jitgpu.hook configured it, so caplog would not see them)."""
    messages = []

    class Collect(logging.Handler):
        def emit(self, record):
            messages.append(record.getMessage())

    logger = logging.getLogger("unpy")
    handler = Collect(logging.WARNING)
    logger.addHandler(handler)
    yield messages
    logger.removeHandler(handler)


def _kernel_pair_fixture(module):
    @pytest.fixture(scope="session", name=f"{module}_kernels")
    def fixture(tmp_path_factory):
        return diffcheck.load_kernel_pair(module, tmp_path_factory.mktemp(f"build-{module}"))
    fixture.__doc__ = f"tests/kernels/{module}.py, compiled and interpreted (a KernelPair)."
    return fixture


arith_kernels = _kernel_pair_fixture("arith")
loops_kernels = _kernel_pair_fixture("loops")
arrays_kernels = _kernel_pair_fixture("arrays")
prange_kernels = _kernel_pair_fixture("prange")
mathfuncs_kernels = _kernel_pair_fixture("mathfuncs")
checked_kernels = _kernel_pair_fixture("checked")
numpy_exprs_kernels = _kernel_pair_fixture("numpy_exprs")
python_forms_kernels = _kernel_pair_fixture("python_forms")
complex_numbers_kernels = _kernel_pair_fixture("complex_numbers")
signatures_kernels = _kernel_pair_fixture("signatures")
contractions_kernels = _kernel_pair_fixture("contractions")
matmul_loops_kernels = _kernel_pair_fixture("matmul_loops")
python_calls_kernels = _kernel_pair_fixture("python_calls")
native_draws_kernels = _kernel_pair_fixture("native_draws")
