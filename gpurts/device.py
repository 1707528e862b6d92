"""Device discovery and the `Device` object, which owns every resource made for one OpenCL
device: its context, its profiling queue, its buffer pool, its pinned staging pool, its kernel
cache and its calibration (`gpurts.calibration`: launch latency, bandwidths, throughputs).
Each is made on first use and reused for the process.

A device is chosen only after its probe (`gpurts.probe`: build and run a small kernel) passes;
a device whose probe fails is passed over, its reason logged once (a warning when this process
probed it, an info line when the disk cache remembered it) and kept for `device_report()`.

Several devices at once (`devices_selection`, SPEC section 6): a list of specs (`gpu0,gpu1,openmp`)
or `all` (every working GPU and the OpenMP code). A device named twice in a list is opened twice,
each time with its own context and queue (`Device.copy`), so that one CPU device can stand for
two in tests."""
from __future__ import annotations

import logging
import re
import threading
from typing import NamedTuple

from unpy.settings import current as current_settings
from unpy.settings import report_once

from . import opencl
from .opencl import load_opencl, platforms
from .probe import probe_device

log = logging.getLogger("gpurts")


def device_kind(cl_device) -> str:
    """'gpu', 'cpu', or 'other': a device that says it is both a CPU and a GPU (Oclgrind's
    simulator says it is every type) or neither is chosen only by name."""
    cl, _ = load_opencl()
    is_gpu, is_cpu = (bool(cl_device.type & t) for t in (cl.device_type.GPU, cl.device_type.CPU))
    return "gpu" if is_gpu and not is_cpu else "cpu" if is_cpu and not is_gpu else "other"


class Device:
    """One OpenCL device and the resources unpy made for it (one owner for each)."""

    def __init__(self, cl_device, ordinal: int = 0, copy: int = 0):
        cl, _ = load_opencl()
        self.cl_device = cl_device
        self.ordinal = ordinal      # devices of the same name listed before this one
        self.copy = copy            # 0, or k: the k-th extra context opened on this device
        self.name = cl_device.name.strip()
        # How reports name the device: `report.nests[k].ran_on` (SPEC section 5); a second
        # device of the same name, or a second context of one, is told apart by a suffix.
        # (An attribute, not a property: every call names its device several times.)
        self.label = (f"opencl:{self.name}" + (f" #{ordinal + 1}" if ordinal else "")
                      + (f" (context {copy + 1})" if copy else ""))
        self.platform_name = cl_device.platform.name.strip()
        self.driver_version = cl_device.driver_version.strip()
        self.is_gpu = device_kind(cl_device) == "gpu"
        self.has_fp64 = ("cl_khr_fp64" in cl_device.extensions.split()
                         or bool(cl_device.double_fp_config))
        # Whether float32 `/` and sqrt can be built correctly rounded (OpenCL allows 2.5 and 3
        # ulp otherwise): -cl-fp32-correctly-rounded-divide-sqrt (jitgpu.offload.build_options).
        self.fp32_correctly_rounded = bool(
            cl_device.single_fp_config & cl.device_fp_config.CORRECTLY_ROUNDED_DIVIDE_SQRT)
        self.global_mem_size = cl_device.global_mem_size
        self.max_alloc = cl_device.max_mem_alloc_size
        self.max_work_group_size = cl_device.max_work_group_size
        self.local_mem_size = cl_device.local_mem_size
        self._lock = threading.RLock()
        self._made: dict[str, object] = {}

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
    def side_transfers(self):
        """The device's copies on two more in-order profiling queues of its context, one for
        copies in and one for copies back: a run whose tiles' copies overlap the other tiles'
        kernels (`gpurts.executor`, `plan.overlap`) uses them beside `queue`."""
        from .transfer import Transfers
        cl, _ = load_opencl()
        return self._once("side_transfers", lambda: tuple(Transfers(self, cl.CommandQueue(
            self.context, self.cl_device,
            properties=cl.command_queue_properties.PROFILING_ENABLE)) for _ in range(2)))

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
    def build_aside(self):
        """The child process that builds programs off the calls' path (`gpurts.build_aside`),
        or None where builds need not leave this process: a CPU device's builds take the same
        cores wherever they run, and its driver does not hold launches up meanwhile."""
        if not self.is_gpu:
            return None
        from .build_aside import BuildAside
        return self._once("build_aside", lambda: BuildAside(self))

    @property
    def kernel_cache(self):
        from .kernel_cache import KernelCache
        return self._once("kernel_cache", lambda: KernelCache(self))

    def calibration(self):
        """The figures the profitability estimate uses (`gpurts.calibration.Calibration`),
        measured once per machine and device; None where they could not be measured, or with
        UNPY_CALIBRATE=0 (the tests' setting: their decisions must not follow the host's load)."""
        if not current_settings().calibrate:
            return None
        from .calibration import calibration
        return self._once("calibration", lambda: calibration(self))

    def pins_from(self) -> int | None:
        """Bytes from which an array's copies go straight from its pinned memory
        (`gpurts.pins.PIN_MIN_BYTES`); None where copies for this device never pin (`UNPY_PIN`),
        all of them staged."""
        from .pins import PIN_MIN_BYTES, pinning_on
        return PIN_MIN_BYTES if pinning_on(self) else None

    def measured_bandwidth(self) -> tuple[float, float]:
        """(host-to-device, device-to-host) bytes per second through pinned memory: the
        calibration's, else measured once per process."""
        from .bandwidth import measure_bandwidth

        def measured():
            found = self.calibration()
            return (found.h2d, found.d2h) if found is not None else measure_bandwidth(self)
        return self._once("bandwidth", measured)


class DeviceSelection(NamedTuple):
    device: Device | None
    reason: str | None    # why there is no device; None when there is one


class DeviceStatus(NamedTuple):
    """One OpenCL device as `unpy devices` lists it."""
    platform: str
    name: str
    kind: str             # 'gpu', 'cpu' or 'other' (see `device_kind`)
    driver_version: str
    works: bool           # its probe passed
    reason: str | None    # why it does not work


_lock = threading.RLock()
_selections: dict[str, DeviceSelection] = {}
_devices: dict[tuple, Device] = {}   # (cl device pointer, copy) -> its one Device
_reported: set[int] = set()        # cl device pointers whose failed probe was logged


def _device_for(cl_device, copy: int = 0) -> Device:
    key = (cl_device.int_ptr, copy)
    if key not in _devices:
        _devices[key] = Device(cl_device, _ordinal(cl_device), copy)
    return _devices[key]


def _ordinal(cl_device) -> int:
    """How many devices of the same name the loader lists before `cl_device`."""
    try:
        listed = [d for _, devs in _listed() for d in devs]
    except LookupError:
        return 0
    same = [d.int_ptr for d in listed if d.name.strip() == cl_device.name.strip()]
    return same.index(cl_device.int_ptr) if cl_device.int_ptr in same else 0


def _listed():
    """[(platform, [cl devices])] the loader lists, or raises the reason there are none."""
    plats, reason = platforms()
    if not plats:
        raise LookupError(reason)
    found = []
    for plat in plats:
        try:
            found.append((plat, plat.get_devices()))
        except Exception:  # a platform without devices answers DEVICE_NOT_FOUND
            found.append((plat, []))
    return found


def _describe(found) -> str:
    return "; ".join(f"{p.name.strip()}: {', '.join(d.name.strip() for d in devs) or 'no devices'}"
                     for p, devs in found) or "none"


def _name(cl_device) -> str:
    return f"{cl_device.name.strip()} ({cl_device.platform.name.strip()})"


def _is_pocl(cl_device) -> bool:
    return "portable computing language" in cl_device.platform.name.lower()


def _candidates(spec: str, found) -> tuple[list, str]:
    """The devices `spec` may choose, in the order tried, and what they are called."""
    devices = [dev for _, devs in found for dev in devs]
    numbered = re.fullmatch(r"gpu(\d+)", spec)
    if numbered:      # the n-th GPU the loader lists (gpu0, gpu1, ...)
        gpus = [d for d in devices if device_kind(d) == "gpu"]
        k = int(numbered.group(1))
        return gpus[k:k + 1], f"OpenCL GPU number {k}"
    if spec == "gpu":
        return [d for d in devices if device_kind(d) == "gpu"], "OpenCL GPU"
    if spec == "pocl":
        return [d for d in devices if device_kind(d) == "cpu" and _is_pocl(d)], "PoCL CPU device"
    if spec == "cpu":
        cpus = [d for d in devices if device_kind(d) == "cpu"]
        intel = [d for d in cpus if "intel" in d.platform.name.lower()]
        pocl = [d for d in cpus if _is_pocl(d)]
        return pocl + intel + [d for d in cpus if d not in pocl + intel], "OpenCL CPU device"
    return [d for d in devices if spec in d.platform.name.lower() or spec in d.name.lower()], \
        f"OpenCL device matching UNPY_DEVICE={spec!r}"


def _works(cl_device) -> str | None:
    """None when the device passes its probe, else why not (logged once per process)."""
    result = probe_device(cl_device)
    if not result.works and cl_device.int_ptr not in _reported:
        _reported.add(cl_device.int_ptr)
        log.log(logging.WARNING if result.fresh else logging.INFO,
                "gpurts: %s fails its probe, not used: %s", _name(cl_device), result.reason)
    return result.reason


def _choose(spec: str) -> DeviceSelection:
    if spec == "none":
        return DeviceSelection(None, "UNPY_DEVICE=none: OpenCL is switched off")
    try:
        found = _listed()
    except LookupError as e:
        return DeviceSelection(None, str(e))
    candidates, what = _candidates(spec, found)
    failures = []
    for dev in candidates:
        reason = _works(dev)
        if reason is None:
            return DeviceSelection(_device_for(dev), None)
        failures.append(f"{_name(dev)} fails its probe: {reason}")
    if failures:
        return DeviceSelection(None, f"no working {what} ({'; '.join(failures)})")
    if spec == "gpu":
        fix = f"; {opencl.icd_fix_note}" if opencl.icd_fix_note else ""
        return DeviceSelection(None, f"no OpenCL GPU found (platforms: {_describe(found)}){fix}")
    if spec in ("cpu", "pocl") or re.fullmatch(r"gpu\d+", spec):
        return DeviceSelection(None, f"no {what} found (platforms: {_describe(found)})")
    reason = f"no OpenCL device matches UNPY_DEVICE={spec!r} (platforms: {_describe(found)})"
    # A misspelt choice would otherwise only show in explain: say it once.
    report_once("UNPY_DEVICE", spec, f"{reason}; the choices: gpu, gpuN, cpu, pocl, none, "
                "openmp, all, a comma-separated list of them, or part of a platform's or device's "
                "name: running on OpenMP")
    return DeviceSelection(None, reason)


def device_selection(spec: str | None = None) -> DeviceSelection:
    """The device for `spec` (default: `UNPY_DEVICE`, unset meaning 'gpu') and, when there is
    none, why. Specs: 'gpu' the first GPU of any platform; 'cpu' a CPU device, PoCL's first, then
    Intel's, then any other; 'pocl' PoCL's CPU device; 'none'; anything else the first device
    whose platform or device name contains it (case-insensitive). Only a device whose probe
    passes is chosen. Never raises; cached per spec for the process."""
    if spec is None:
        spec = current_settings().device
    spec = spec.strip().lower() or "gpu"
    if is_list_spec(spec):      # a list: its first device
        several = devices_selection(spec)
        if several.devices:
            return DeviceSelection(several.devices[0], None)
        return DeviceSelection(None, several.reason or f"UNPY_DEVICE={spec} names no OpenCL "
                                                       "device")
    with _lock:
        if spec not in _selections:
            try:
                _selections[spec] = _choose(spec)
            except Exception as e:  # a driver that fails a device query: no device, with why
                _selections[spec] = DeviceSelection(
                    None, f"OpenCL device query failed ({type(e).__name__}: {e})")
        return _selections[spec]


OPENMP = "openmp"      # the OpenMP code of the nest, as a participant of a list


class DevicesSelection(NamedTuple):
    """What a list spec chooses: its OpenCL devices, in the order named (labels unique), and
    whether the OpenMP code takes part; `reason` says why a named device is missing."""
    devices: tuple
    openmp: bool
    reason: str | None


def is_list_spec(spec: str) -> bool:
    """Whether an `UNPY_DEVICE` spec names several participants: a list, or `all`."""
    spec = spec.strip().lower()
    return "," in spec or spec == "all" or spec in (OPENMP, "host")


def selection_for(spec: str) -> DeviceSelection | DevicesSelection:
    """What `spec` chooses: the participants of a list spec (`is_list_spec`), else its one
    device (the hook asks once a call)."""
    return devices_selection(spec) if is_list_spec(spec) else device_selection(spec)


def devices_selection(spec: str) -> DevicesSelection:
    """The participants of a list spec: comma-separated single specs (`gpu`, `gpu0`, `cpu`,
    `pocl`, a name), `openmp` (or `host`: the OpenMP code on a sub-range of the outer loop), or
    `all` (every working GPU, then the OpenMP code). A device named again gets another context
    and queue of its own. A spec that chooses nothing is left out, with its reason. Never
    raises; cached per spec."""
    spec = ",".join(t.strip() for t in spec.strip().lower().split(",") if t.strip())
    key = "list:" + spec
    with _lock:
        if key not in _selections:
            try:
                _selections[key] = _choose_list(spec)
            except Exception as e:
                _selections[key] = DevicesSelection(
                    (), False, f"OpenCL device query failed ({type(e).__name__}: {e})")
        return _selections[key]


def _choose_list(spec: str) -> DevicesSelection:
    tokens, reasons = spec.split(","), []
    if tokens == ["all"]:
        try:
            gpus = [d for _, devs in _listed() for d in devs if device_kind(d) == "gpu"]
        except LookupError:
            gpus = []
        tokens = [f"gpu{k}" for k in range(len(gpus))] + [OPENMP]
        if not gpus:
            reasons.append("all: no OpenCL GPU found")
    devices, openmp, opened = [], False, {}
    for token in tokens:
        if token in (OPENMP, "host"):
            openmp = True
            continue
        chosen = device_selection(token)
        if chosen.device is None:
            reasons.append(f"{token}: {chosen.reason}")
            continue
        cl_device = chosen.device.cl_device
        copy = opened.get(cl_device.int_ptr, -1) + 1
        opened[cl_device.int_ptr] = copy
        devices.append(_device_for(cl_device, copy))
    return DevicesSelection(tuple(devices), openmp, "; ".join(reasons) or None)


def select_device(spec: str | None = None) -> Device | None:
    """`device_selection(spec).device`."""
    return device_selection(spec).device


class DeviceReport(NamedTuple):
    """What `unpy devices` prints: every device listed, probed, and what each spec chooses."""
    devices: list[DeviceStatus]
    reason: str | None            # why no device is listed; None when some are
    chosen: dict[str, str]        # UNPY_DEVICE spec -> the device it chooses, or why none

    def __str__(self):
        lines = ["OpenCL devices (each probed: build and run a small kernel):"]
        if self.reason:
            lines.append(f"  none: {self.reason}")
        for d in self.devices:
            why = "works" if d.works else f"does not work: {d.reason}"
            only = ", chosen only by name" if d.kind == "other" and d.works else ""
            lines.append(f"  [{d.kind}] {d.name} on {d.platform} (driver {d.driver_version}): "
                         f"{why}{only}")
        lines += [f"UNPY_DEVICE={spec}: {what}" for spec, what in self.chosen.items()]
        return "\n".join(lines)


def device_report(fresh: bool = False) -> DeviceReport:
    """Every OpenCL device the loader lists, probed, and what 'gpu', 'cpu' and `UNPY_DEVICE`
    choose. `fresh` probes each device again (rewriting the disk cache) and forgets the
    selections made from older results. Never raises."""
    with _lock:
        try:
            found = _listed()
        except Exception as e:  # no platform, or a driver that fails a device query
            found, reason = [], str(e) if isinstance(e, LookupError) else \
                f"OpenCL device query failed ({type(e).__name__}: {e})"
        else:
            reason = None
        if fresh:
            _selections.clear()
        statuses = []
        for plat, devs in found:
            for dev in devs:
                try:
                    result = probe_device(dev, fresh=fresh)
                    _reported.add(dev.int_ptr)   # this report says it: no log line besides
                    statuses.append(DeviceStatus(
                        plat.name.strip(), dev.name.strip(), device_kind(dev),
                        dev.driver_version.strip(), result.works, result.reason))
                except Exception as e:
                    statuses.append(DeviceStatus(plat.name.strip(), dev.name.strip(), "other",
                                                 "?", False, f"{type(e).__name__}: {e}"))
        specs = ["gpu", "cpu"]
        current = current_settings().device
        if current and current not in specs:
            specs.append(current)
        chosen = {}
        for spec in specs:
            label = f"{spec} (the default)" if spec == "gpu" and not current else spec
            if is_list_spec(spec):      # every participant
                several = devices_selection(spec)
                names = [f"{_name(d.cl_device)} as {d.label}" for d in several.devices]
                names += ["the OpenMP code"] if several.openmp else []
                chosen[label] = ", ".join(names) + (f" (left out: {several.reason})"
                                                    if several.reason else "")
                continue
            selection = device_selection(spec)
            chosen[label] = (_name(selection.device.cl_device) if selection.device else
                             f"none ({selection.reason})")
        return DeviceReport(statuses, reason, chosen)
