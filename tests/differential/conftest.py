"""Fixtures of the differential tests that run a kernel on both paths."""
import pytest

import testdevice


@pytest.fixture(params=["openmp", "gpu"])
def device(request, monkeypatch):
    """The OpenMP path (no device), or the GPU path forced onto the tested device."""
    if request.param == "gpu":
        monkeypatch.setenv("UNPY_DEVICE", testdevice.SPEC)
        monkeypatch.setenv("UNPY_FORCE_GPU", "1")
        testdevice.tested_device()
    else:
        monkeypatch.setenv("UNPY_DEVICE", "none")
    return request.param

