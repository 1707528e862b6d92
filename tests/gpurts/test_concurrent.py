"""Several devices at once (gpurts/device.py `devices_selection`): lists of specs, and a device
named twice opened with a context and queue of its own. (ConcurrentRun, gpurts/concurrent.py,
runs plans made by jitgpu: tests/jitgpu/test_split_run.py.)"""
import pytest

from gpurts import devices_selection


@pytest.fixture(scope="module")
def two(device, device_spec):
    chosen = devices_selection(f"{device_spec},{device_spec},openmp")
    assert chosen.reason is None and chosen.openmp
    return chosen.devices


def test_a_device_named_twice_is_two_devices(two, device):
    first, second = two
    assert first is device and second.cl_device == device.cl_device
    assert second.label == f"{device.label} (context 2)"
    assert second.context is not first.context and second.queue is not first.queue
    assert devices_selection("openmp").devices == () and devices_selection("openmp").openmp


def test_a_missing_device_is_left_out_with_why(device_spec):
    chosen = devices_selection(f"{device_spec},no-such-device")
    assert len(chosen.devices) == 1 and "no-such-device" in chosen.reason
    assert devices_selection("gpu7").devices == () or devices_selection("gpu7").reason is None
