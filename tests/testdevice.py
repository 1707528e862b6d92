"""The OpenCL device the GPU-path tests run on, named by `UNPY_TEST_DEVICE`, an `UNPY_DEVICE`
spec: `cpu` by default (the first CPU device whose probe passes: PoCL's, else Intel's, else any
other), `gpu` on a machine with one, or `none` to skip the GPU-path tests. No test names a
device: a machine whose PoCL cannot build runs them on the CPU device that can."""
import os

import pytest

SPEC = os.environ.get("UNPY_TEST_DEVICE", "").strip().lower() or "cpu"


def tested_device():
    """The device the GPU-path tests run on. Skips when `UNPY_TEST_DEVICE=none`; fails, loudly,
    when there is no working device: the GPU path is never silently untested."""
    if SPEC == "none":
        pytest.skip("UNPY_TEST_DEVICE=none: the GPU-path tests are switched off")
    from gpurts import device_selection
    selection = device_selection(SPEC)
    if selection.device is None:
        pytest.fail(f"no working OpenCL device for UNPY_TEST_DEVICE={SPEC}: {selection.reason}"
                    " (UNPY_TEST_DEVICE=none skips the GPU-path tests)", pytrace=False)
    return selection.device


def header() -> str:
    """The line `pytest` prints at its start: where the GPU path is tested."""
    if SPEC == "none":
        return "GPU path: not tested (UNPY_TEST_DEVICE=none)"
    from gpurts import device_selection
    selection = device_selection(SPEC)
    if selection.device is None:
        return (f"GPU path: NO WORKING OPENCL DEVICE for UNPY_TEST_DEVICE={SPEC}: "
                f"{selection.reason}; the GPU-path tests will fail")
    d = selection.device
    return (f"GPU path tested on {d.name} ({d.platform_name}, driver {d.driver_version}), "
            f"UNPY_TEST_DEVICE={SPEC}")
