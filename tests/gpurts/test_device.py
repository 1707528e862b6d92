"""Device selection by spec (only devices whose probe passes), the Device's facts, one context
and queue per device, and `unpy devices`."""
import os
import sys

import pytest

from gpurts import Device, device_report, device_selection, select_device
from gpurts.device import device_kind
from gpurts.opencl import platforms
from gpurts.probe import probe_device


def listed_devices():
    plats, _ = platforms()
    return [dev for plat in plats for dev in plat.get_devices()]


def test_cpu_picks_the_first_working_cpu_device_pocl_first():
    """'cpu': PoCL's CPU device when its probe passes, else Intel's, else any other CPU device;
    'pocl': PoCL's only, and only when its probe passes."""
    cpus = [d for d in listed_devices() if device_kind(d) == "cpu"]
    working = [d for d in cpus if probe_device(d).works]
    pocl = [d for d in working if d.platform.name == "Portable Computing Language"]
    intel = [d for d in working if "intel" in d.platform.name.lower()]
    expected = (pocl + intel + working)[0] if working else None
    cpu = select_device("cpu")
    assert (cpu and cpu.cl_device) == expected
    assert (select_device("POCL") and select_device("pocl").cl_device) == (pocl or [None])[0]
    if cpu is not None:
        assert isinstance(cpu, Device) and not cpu.is_gpu


def test_probe_failure_passes_over_the_device(device, run_python, tmp_path):
    """A PoCL that cannot build (as on a Zen 5 with PoCL 3.0): 'cpu' takes the next CPU device,
    'pocl' has none and says why; the reason is logged once, and kept on disk for the next
    process, which does not probe again."""
    if not any(d.platform.name == "Portable Computing Language" for d in listed_devices()):
        pytest.skip("no PoCL platform")
    code = """
import logging
logging.basicConfig(level=logging.INFO, format='LOG %(message)s')
from gpurts import device_selection
cpu, pocl = device_selection('cpu'), device_selection('pocl')
device_selection('pocl'), device_selection('portable')
print('cpu:', cpu.device and cpu.device.platform_name)
print('pocl:', pocl.reason)
"""
    env = dict(UNPY_PROBE_FAIL="pocl", UNPY_CACHE_DIR=str(tmp_path))
    first, second = run_python(code, **env), run_python(code, **env)
    assert "pocl: no working PoCL CPU device (" in first.stdout
    assert "fails its probe: error:" in first.stdout
    assert "cpu: Portable Computing Language" not in first.stdout
    failed = [l for l in first.stderr.splitlines() if "fails its probe, not used" in l]
    assert len(failed) == 1, first.stderr
    assert first.stdout == second.stdout
    assert "fails its probe, not used" in second.stderr   # said again, from the disk cache
    assert os.listdir(tmp_path / "probes")


def test_intel_cpu_runtime_is_used_when_pocl_fails(device, run_python, tmp_path):
    """Intel's CPU runtime from pip (the test extra) is registered with the loader and chosen for
    'cpu' when PoCL's probe fails; a kernel built through the kernel cache runs correctly on it."""
    from gpurts.icd import find_intel_cpu_library
    if find_intel_cpu_library(sys.prefix) is None:
        pytest.skip("intel-opencl-rt is not installed in this environment")
    done = run_python("""
import numpy as np
from gpurts import select_device, build_kernel
from gpurts.opencl import load_opencl
cl, _ = load_opencl()
d = select_device('cpu')
print(d.platform_name)
k = build_kernel(d, '__kernel void sq(__global double *a) { size_t i = get_global_id(0); '
                    'a[i] = a[i] * a[i]; }', 'sq').kernel
x = np.arange(100.0)
buf = d.pool.allocate(x.nbytes)
d.transfers.to_device(x, buf)
k.set_args(buf)
cl.enqueue_nd_range_kernel(d.queue, k, (100,), None)
out = np.empty_like(x)
d.transfers.from_device(buf, out)
print(bool(np.array_equal(out, x * x)))
""", UNPY_PROBE_FAIL="pocl", UNPY_CACHE_DIR=str(tmp_path))
    assert done.stdout.split("\n")[:2] == ["Intel(R) OpenCL", "True"], done.stdout


def test_gpu_spec_takes_only_working_gpus():
    gpu = select_device("gpu")
    gpus = [d for d in listed_devices() if device_kind(d) == "gpu"]
    assert (gpu and gpu.cl_device) == next((d for d in gpus if probe_device(d).works), None)


def test_a_simulator_is_neither_cpu_nor_gpu():
    """Oclgrind's device says it is of every type: chosen only by name."""
    simulators = [d for d in listed_devices() if "oclgrind" in d.platform.name.lower()]
    if not simulators:
        pytest.skip("no Oclgrind platform")
    assert device_kind(simulators[0]) == "other"
    assert select_device("cpu").cl_device != simulators[0]


def test_crashing_probe_is_a_reason(device, tmp_path, monkeypatch):
    """A driver that crashes the probe's child process: a reason, never the caller's crash."""
    from gpurts import probe
    crasher = tmp_path / "crash"
    crasher.write_text("#!/bin/sh\nkill -SEGV $$\n")
    crasher.chmod(0o755)
    monkeypatch.setattr(probe.sys, "executable", str(crasher))
    result, keep = probe._probe_in_child(device.cl_device)
    assert result == (False, "the driver crashed during the probe (SIGSEGV)", True) and keep


def test_device_report_lists_every_device(device):
    report = device_report()
    assert report.reason is None
    assert len(report.devices) == len(listed_devices())
    mine = [d for d in report.devices if d.name == device.name
            and d.platform == device.platform_name]
    assert mine and mine[0].works and mine[0].reason is None
    assert f"{device.name} on {device.platform_name}" in str(report)
    assert "UNPY_DEVICE=cpu: " in str(report)


def test_unpy_devices_command(device, run_python, tmp_path):
    done = run_python("import sys; from unpy.cli import main; sys.exit(main(['devices']))",
                      UNPY_PROBE_FAIL="pocl", UNPY_CACHE_DIR=str(tmp_path))
    assert done.stdout.startswith("OpenCL devices (each probed: build and run a small kernel):")
    assert ": works" in done.stdout and "UNPY_DEVICE=gpu (the default): " in done.stdout
    if "Portable Computing Language" in done.stdout:
        assert "Portable Computing Language (driver" in done.stdout
        assert "does not work: error:" in done.stdout
    assert "fails its probe, not used" not in done.stderr   # the table says it, once


def test_substring_of_the_test_device_name(device):
    assert select_device(device.name[1:-1].upper()) is device
    assert select_device(device.platform_name.upper()) is device


def test_none_and_unmatched_spec_give_a_reason(device):
    selection = device_selection("none")
    assert selection.device is None and "none" in selection.reason
    selection = device_selection("no-such-device-xyz")
    assert selection.device is None
    assert "no-such-device-xyz" in selection.reason and device.platform_name in selection.reason


def test_a_spec_no_device_matches_is_reported_once(device, monkeypatch, unpy_warnings):
    """UNPY_DEVICE=nonsense keeps its reason for explain, and says so once (a warning of the
    'unpy' logger) instead of leaving the user to wonder why nothing runs on the device."""
    monkeypatch.setenv("UNPY_DEVICE", "nonsense-of-the-report-test")
    for _ in range(2):
        selection = device_selection()
        assert selection.device is None
        assert "matches UNPY_DEVICE='nonsense-of-the-report-test'" in selection.reason
    messages = unpy_warnings
    assert len(messages) == 1
    assert messages[0].startswith("no OpenCL device matches "
                                  "UNPY_DEVICE='nonsense-of-the-report-test'")
    assert "the choices: gpu, gpuN, cpu, pocl, none" in messages[0]


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
s = device_selection('cpu')
print(s.device, '|', s.reason)
""")
    assert done.stdout.startswith("None | pyopencl cannot be imported")


def test_loader_without_platforms_is_a_reason_not_an_error(run_python, tmp_path):
    """The real -1001 PLATFORM_NOT_FOUND_KHR: the loader sees no vendor file at all."""
    done = run_python(f"""
import os
from gpurts.opencl import load_opencl
load_opencl()
os.environ['PYOPENCL_HOME'] = {str(tmp_path)!r}   # hide pip's drivers from the loader
from gpurts import device_selection
s = device_selection('gpu')
print(s.device, '|', s.reason)
""", OCL_ICD_VENDORS=str(tmp_path))
    assert done.stdout.startswith("None | no OpenCL platform found")
