"""The machine's figures for the profitability estimate (gpurts/calibration.py): measured on
the tested device, plausible, kept beside the probe's result and read back instead of measured
again, measured again on another machine, and not kept when they could not be measured. No
test judges the figures' values beyond their being positive and self-consistent."""
import dataclasses
import json
import os

import pytest

from gpurts import calibration
from gpurts.calibration import Calibration
from gpurts.probe import cache_key


@pytest.fixture
def fresh(cache_dir):
    calibration.forget()
    yield cache_dir
    calibration.forget()


def _path(cache_dir, device):
    return cache_dir / "probes" / (cache_key(device.cl_device) + ".calibration.json")


def test_measured_once_and_kept_beside_the_probe(device, fresh, monkeypatch):
    found = calibration.calibration(device)
    assert found is not None
    for figure in ("launch_s", "enqueue_s", "h2d", "d2h", "device_bytes_per_s",
                   "host_bytes_per_s", "memcpy_bytes_per_s", "measured_s"):
        assert getattr(found, figure) > 0, figure
    assert found.enqueue_s <= found.launch_s     # (one launch in a row waits for nothing)
    assert found.spread >= 1.0 and found.cores == (os.cpu_count() or 1)
    assert found.staging_slowdown > 1.0
    entry = json.loads(_path(fresh, device).read_text())
    assert entry["machine"] == calibration.machine()
    assert calibration.calibration(device) is found          # this process: kept

    def measure(device):
        raise AssertionError("measured again")
    monkeypatch.setattr(calibration, "measure", measure)
    calibration.forget()
    assert calibration.calibration(device) == found          # the next process: from disk


def test_another_machine_measures_its_own(device, fresh):
    found = calibration.calibration(device)
    path = _path(fresh, device)
    entry = json.loads(path.read_text())
    assert calibration.read(str(path)) == found
    for changed in ({"machine": {**entry["machine"], "node": "elsewhere"}},
                    {"version": calibration.CALIBRATION_VERSION + 1}):
        path.write_text(json.dumps({**entry, **changed}))
        assert calibration.read(str(path)) is None
    path.write_text("{not json")
    assert calibration.read(str(path)) is None


def test_a_failed_calibration_is_not_kept(device, fresh, monkeypatch):
    def measure(device):
        raise RuntimeError("the driver refused")
    monkeypatch.setattr(calibration, "measure", measure)
    assert calibration.calibration(device) is None
    assert not _path(fresh, device).exists()


def test_staging_is_the_memcpy_then_the_dma():
    c = Calibration(launch_s=1e-5, h2d=50e9, d2h=40e9, device_bytes_per_s=1e12,
                    host_bytes_per_s=1e11, memcpy_bytes_per_s=20e9, cores=8)
    assert c.staging_slowdown == pytest.approx(1 + 40e9 / 20e9)
    assert "launch 0.010 ms, link 50.0/40.0 GB/s" in str(c) and "on 8 cores" in str(c)
    c = dataclasses.replace(c, enqueue_s=2e-6)
    assert "launch 0.010 ms (0.002 ms in a row), link" in str(c)
