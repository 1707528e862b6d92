"""gpurts: the OpenCL runtime of unpy (SPEC sections 5, 9, 10).

Devices (`select_device`, `device_selection`, `Device`; several at once: `devices_selection`;
a device is chosen only once its probe, `gpurts.probe`, has built and run a small kernel;
`device_report` lists them all), and per
device one owner for each resource: context and profiling queue, buffer pool (`Device.pool`),
pinned staging (`Device.pinned`), transfers (`Device.transfers`), kernel cache (`build_kernel`),
bandwidth (`Device.measured_bandwidth`), the estimate's figures measured once per machine
(`Device.calibration`, `gpurts.calibration`). Event times go into `Timings`.

pyopencl must be imported through `gpurts.opencl.load_opencl()`, never directly: the OpenCL
loader reads its vendor files once, and the vendor-file fix (`gpurts.icd`) has to run
before that. Nothing here raises when OpenCL is missing: there is simply no device, with a reason.
"""
from unpy.host_memory import Box

from .boxes import box_view, gather_box, scatter_box
from .device import (Device, DeviceReport, DeviceSelection, DevicesSelection, DeviceStatus,
                     device_report, device_selection, devices_selection, select_device)
from .errors import BuildError, DeviceError
from .kernel_cache import build_kernel
from .opencl import load_opencl
from .timing import Timings, elapsed

__all__ = [
    "Box", "BuildError", "Device", "DeviceError", "DeviceReport", "DeviceSelection",
    "DevicesSelection", "DeviceStatus", "Timings", "box_view", "build_kernel", "device_report",
    "device_selection", "devices_selection", "elapsed", "gather_box", "load_opencl",
    "scatter_box", "select_device",
]
