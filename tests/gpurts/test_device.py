"""Device selection by spec, the Device's facts, and one context and queue per device."""
import pytest

from gpurts import Device, device_selection, select_device


def test_pocl_and_cpu_pick_the_pocl_cpu_device(pocl):
    assert isinstance(pocl, Device)
    assert pocl.platform_name == "Portable Computing Language"
    assert not pocl.is_gpu and pocl.has_fp64
    assert select_device("cpu") is pocl
    assert select_device("POCL") is pocl


@pytest.mark.parametrize("spec", ["portable", "PORTABLE computing"])
def test_substring_of_platform_or_device_name(pocl, spec):
    assert select_device(spec) is pocl


def test_substring_of_the_test_device_name(device):
    assert select_device(device.name[1:-1].upper()) is device


def test_none_and_unmatched_spec_give_a_reason(device):
    selection = device_selection("none")
    assert selection.device is None and "none" in selection.reason
    selection = device_selection("no-such-device-xyz")
    assert selection.device is None
    assert "no-such-device-xyz" in selection.reason and device.platform_name in selection.reason


def test_default_spec_comes_from_environment(device, device_spec, monkeypatch):
    monkeypatch.setenv("UNPY_DEVICE", device_spec)
    assert select_device() is device
    monkeypatch.delenv("UNPY_DEVICE")
    gpu = device_selection()
    assert gpu == device_selection("gpu")
    if gpu.device is None:
        assert gpu.reason.startswith("no OpenCL GPU found")
    else:
        assert gpu.device.is_gpu


def test_selection_is_cached(device):
    assert device_selection("no-such-device-xyz") is device_selection("no-such-device-xyz")


def test_device_facts(device):
    assert device.label == f"opencl:{device.name}"
    assert 0 < device.max_alloc <= device.global_mem_size
    assert device.max_work_group_size >= 1 and device.local_mem_size > 0


def test_one_context_and_profiling_queue_per_device(device):
    from gpurts.opencl import load_opencl
    cl, _ = load_opencl()
    assert device.context is device.context
    assert device.queue is device.queue
    assert device.queue.properties & cl.command_queue_properties.PROFILING_ENABLE
    assert device.pool is device.pool and device.transfers is device.transfers


def test_missing_pyopencl_is_a_reason_not_an_error(run_python):
    done = run_python("""
import sys
sys.modules['pyopencl'] = None   # what a failed import looks like
from gpurts import device_selection
s = device_selection('pocl')
print(s.device, '|', s.reason)
""")
    assert done.stdout.startswith("None | pyopencl cannot be imported")


def test_loader_without_platforms_is_a_reason_not_an_error(run_python, tmp_path):
    """The real -1001 PLATFORM_NOT_FOUND_KHR: the loader sees no vendor file at all."""
    done = run_python(f"""
import os
from gpurts.opencl import load_opencl
load_opencl()
os.environ['PYOPENCL_HOME'] = {str(tmp_path)!r}   # hide pip's PoCL from the loader
from gpurts import device_selection
s = device_selection('gpu')
print(s.device, '|', s.reason)
""", OCL_ICD_VENDORS=str(tmp_path))
    assert done.stdout.startswith("None | no OpenCL platform found")
