"""Device discovery and the `Device` object, which owns every resource made for one OpenCL
device: its context, its profiling queue, its buffer pool, its pinned staging pool, its kernel
cache and its measured bandwidth. Each is made on first use and reused for the process."""
from __future__ import annotations

import os
import threading
from typing import NamedTuple

from . import opencl
from .opencl import load_opencl, platforms


class Device:
    """One OpenCL device and the resources unpy made for it (one owner for each)."""

    def __init__(self, cl_device):
        cl, _ = load_opencl()
        self.cl_device = cl_device
        self.name = cl_device.name.strip()
        self.platform_name = cl_device.platform.name.strip()
        self.driver_version = cl_device.driver_version.strip()
        self.is_gpu = bool(cl_device.type & cl.device_type.GPU)
        self.has_fp64 = ("cl_khr_fp64" in cl_device.extensions.split()
                         or bool(cl_device.double_fp_config))
        self.global_mem_size = cl_device.global_mem_size
        self.max_alloc = cl_device.max_mem_alloc_size
        self.max_work_group_size = cl_device.max_work_group_size
        self.local_mem_size = cl_device.local_mem_size
        self._lock = threading.RLock()
        self._made: dict[str, object] = {}

    @property
    def label(self) -> str:
        """How reports name the device: `report.nests[k].ran_on` (SPEC section 5)."""
        return f"opencl:{self.name}"

    def __repr__(self):
        return f"<gpurts.Device {self.name!r} on {self.platform_name!r}>"

    def _once(self, what: str, make):
        with self._lock:
            if what not in self._made:
                self._made[what] = make()
            return self._made[what]

    @property
    def context(self):
        cl, _ = load_opencl()
        return self._once("context", lambda: cl.Context([self.cl_device]))

    @property
    def queue(self):
        """The device's in-order queue, with profiling on (event times feed `Timings`)."""
        cl, _ = load_opencl()
        return self._once("queue", lambda: cl.CommandQueue(
            self.context, self.cl_device,
            properties=cl.command_queue_properties.PROFILING_ENABLE))

    @property
    def pool(self):
        from .pool import BufferPool
        return self._once("pool", lambda: BufferPool(self))

    @property
    def pinned(self):
        from .staging import PinnedPool
        return self._once("pinned", lambda: PinnedPool(self))

    @property
    def transfers(self):
        from .transfer import Transfers
        return self._once("transfers", lambda: Transfers(self))

    @property
    def kernel_cache(self):
        from .kernel_cache import KernelCache
        return self._once("kernel_cache", lambda: KernelCache(self))

    def measured_bandwidth(self) -> tuple[float, float]:
        """(host-to-device, device-to-host) bytes per second through pinned memory, measured
        once per process."""
        from .bandwidth import measure_bandwidth
        return self._once("bandwidth", lambda: measure_bandwidth(self))


class DeviceSelection(NamedTuple):
    device: Device | None
    reason: str | None    # why there is no device; None when there is one


_lock = threading.Lock()
_selections: dict[str, DeviceSelection] = {}
_devices: dict[int, Device] = {}   # cl device pointer -> its one Device


def _device_for(cl_device) -> Device:
    key = cl_device.int_ptr
    if key not in _devices:
        _devices[key] = Device(cl_device)
    return _devices[key]


def _describe(found) -> str:
    return "; ".join(f"{p.name.strip()}: {', '.join(d.name.strip() for d in devs) or 'no devices'}"
                     for p, devs in found) or "none"


def _choose(spec: str) -> DeviceSelection:
    if spec == "none":
        return DeviceSelection(None, "UNPY_DEVICE=none: OpenCL is switched off")
    plats, reason = platforms()
    if not plats:
        return DeviceSelection(None, reason)
    cl, _ = load_opencl()
    found = []
    for plat in plats:
        try:
            found.append((plat, plat.get_devices()))
        except Exception:  # a platform without devices answers DEVICE_NOT_FOUND
            found.append((plat, []))
    if spec == "gpu":
        for _, devs in found:
            for dev in devs:
                if dev.type & cl.device_type.GPU:
                    return DeviceSelection(_device_for(dev), None)
        fix = f"; {opencl.icd_fix_note}" if opencl.icd_fix_note else ""
        return DeviceSelection(None, f"no OpenCL GPU found (platforms: {_describe(found)}){fix}")
    if spec in ("cpu", "pocl"):
        pocl_first = sorted(found, key=lambda pd: "portable computing language"
                            not in pd[0].name.lower())
        for _, devs in pocl_first:
            for dev in devs:
                if dev.type & cl.device_type.CPU:
                    return DeviceSelection(_device_for(dev), None)
        return DeviceSelection(None, f"no OpenCL CPU device found (platforms: {_describe(found)})")
    for plat, devs in found:
        for dev in devs:
            if spec in plat.name.lower() or spec in dev.name.lower():
                return DeviceSelection(_device_for(dev), None)
    return DeviceSelection(None, f"no OpenCL device matches UNPY_DEVICE={spec!r} "
                                 f"(platforms: {_describe(found)})")


def device_selection(spec: str | None = None) -> DeviceSelection:
    """The device for `spec` (default: `UNPY_DEVICE`, unset meaning 'gpu') and, when there is
    none, why. Specs: 'gpu' the first GPU of any platform; 'cpu' or 'pocl' a CPU device, PoCL's
    first; 'none'; anything else the first device whose platform or device name contains it
    (case-insensitive). Never raises; cached per spec for the process."""
    if spec is None:
        spec = os.environ.get("UNPY_DEVICE", "")
    spec = spec.strip().lower() or "gpu"
    with _lock:
        if spec not in _selections:
            try:
                _selections[spec] = _choose(spec)
            except Exception as e:  # a driver that fails a device query: no device, with why
                _selections[spec] = DeviceSelection(
                    None, f"OpenCL device query failed ({type(e).__name__}: {e})")
        return _selections[spec]


def select_device(spec: str | None = None) -> Device | None:
    """`device_selection(spec).device`."""
    return device_selection(spec).device
