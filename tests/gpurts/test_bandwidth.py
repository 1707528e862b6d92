"""Bandwidth through pinned memory: measured once per device, and plausible."""


def test_bandwidth_measured_once(device):
    h2d, d2h = device.measured_bandwidth()
    assert h2d > 1e8 and d2h > 1e8   # PoCL copies memory; anything slower is broken
    assert device.measured_bandwidth() is device.measured_bandwidth()
