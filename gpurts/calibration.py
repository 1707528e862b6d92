"""The machine's figures for the profitability estimate (issue 20 item 4), measured once per
machine and device and kept beside the device's probe result, in place of constants fitted to
one H100 (jitgpu/plan.py says how the estimate uses them, jitgpu/decide.py how far it trusts
them):

- `launch_s`: a 4-byte write, the launch of a kernel over no elements and a 4-byte read,
  waited for (host clock, through pyopencl): the fixed cost of a call on the device;
- `enqueue_s`: LAUNCHES_IN_A_ROW launches of that kernel enqueued back to back and waited for
  once, per launch: what a nest launched again within a call costs where nothing waits for it
  (jitgpu/relaunch.py; a time loop's steps);
- `h2d`, `d2h`: copies of LINK_BYTES between pinned host memory and the device (event times);
- `device_bytes_per_s`: a kernel that writes 8 bytes per element over GPU_STREAM_BYTES (a GPU)
  or CPU_STREAM_BYTES (event time);
- `host_bytes_per_s`: `c = a + b` over float32 arrays of HOST_STREAM_BYTES_PER_CORE per core,
  NumPy in one thread per core (its loops release the GIL), as a memory-bound OpenMP loop runs,
  12 bytes an element read or written (the estimate's `touched` counts them alike). Version 1
  took 2 MiB a thread in two passes and counted 8 bytes: the threads' start-up dominated (H100
  host, 16 cores: 14.8 GB/s measured where an axpy's OpenMP loop ran 137 GB/s, and the estimate
  put memory-bound nests on the device 2.6x slower);
- `memcpy_bytes_per_s`: one core copying STAGE_BYTES into pinned memory, as staging a copy
  of a small array does before its DMA.

Each figure is the fastest of its rounds after a warm-up (a busy spell of a shared machine
slows a measurement, never speeds it); `spread`, the largest ratio of a figure's median round to
its fastest, says how noisy the machine was, and widens the margin by which the estimate
decides. Measured in this process the first time a device's facts are read (so never with
`UNPY_DEVICE=none`), about 0.1-0.3 s on PoCL with 2 cores, and kept in
`$UNPY_CACHE_DIR/probes/<the probe's key>.calibration.json` with the machine it was measured on
(host name, processor, cores): another machine sharing the cache measures its own. A
calibration that fails is not kept, and the estimate falls back to the constants.
"""
from __future__ import annotations

import json
import logging
import os
import platform
import statistics
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass

import numpy as np

from .opencl import load_opencl
from .timing import elapsed

# The user's log (UNPY_LOG=info shows what was measured, once per machine).
log = logging.getLogger("unpy")

CALIBRATION_VERSION = 3      # 3: enqueue_s
LINK_BYTES = 16 << 20
# Bytes written by the device's stream: past a GPU's cache (an H100's L2 is 50 MB); a CPU
# device's shares the host's memory.
GPU_STREAM_BYTES = 128 << 20
CPU_STREAM_BYTES = 8 << 20
HOST_STREAM_BYTES_PER_CORE = 8 << 20   # per array and core of the host's loop
STAGE_BYTES = 1 << 20         # staged copies are those of arrays under gpurts.pins.PIN_MIN_BYTES
ROUNDS = 4
LAUNCH_ROUNDS = 20
LAUNCHES_IN_A_ROW = 32

@dataclass(frozen=True)
class Calibration:
    """A device's and its host's measured figures (see the module docstring)."""
    launch_s: float
    h2d: float                      # bytes per second
    d2h: float
    device_bytes_per_s: float
    host_bytes_per_s: float
    memcpy_bytes_per_s: float
    cores: int
    enqueue_s: float = 0.0          # a launch among others in a row (0: not measured)
    spread: float = 1.0             # the worst median / fastest of the figures' rounds
    measured_s: float = 0.0         # what the calibration cost

    @property
    def staging_slowdown(self) -> float:
        """A staged copy's time over the pinned DMA's: the memcpy into staging, then the DMA
        (one small chunk: they do not overlap)."""
        return 1.0 + min(self.h2d, self.d2h) / self.memcpy_bytes_per_s

    def __str__(self):
        in_a_row = f" ({self.enqueue_s * 1e3:.3f} ms in a row)" if self.enqueue_s else ""
        return (f"launch {self.launch_s * 1e3:.3f} ms{in_a_row}, link {self.h2d / 1e9:.1f}/"
                f"{self.d2h / 1e9:.1f} GB/s, device memory {self.device_bytes_per_s / 1e9:.0f} "
                f"GB/s, host memory {self.host_bytes_per_s / 1e9:.1f} GB/s on {self.cores} "
                f"cores, staging {self.staging_slowdown:.1f}x, spread {self.spread:.2f}")


@dataclass(frozen=True)
class Figure:
    """One measured figure: its fastest round and its median round, in seconds."""
    fastest: float
    median: float

    @property
    def spread(self) -> float:
        return self.median / max(self.fastest, 1e-12)


def timed(run, rounds: int) -> Figure:
    """The seconds `run()` answers (or takes, when it answers None) over `rounds` rounds after
    one not counted."""
    times = []
    for round_ in range(rounds + 1):
        started = time.perf_counter()
        seconds = run()
        if round_:
            times.append(time.perf_counter() - started if seconds is None else seconds)
    return Figure(min(times), statistics.median(times))


def measure(device) -> Calibration:
    """Measure `device` and its host now (raises what OpenCL raises). The device's kernels are
    the probe's (`gpurts.probe`), whose build the driver has seen: launched over no elements it
    is the empty kernel, over many a stream that writes 8 bytes per element."""
    from .kernel_cache import build_kernel
    from .probe import PROBE_SOURCE
    cl, _ = load_opencl()
    started = time.perf_counter()
    queue, context = device.queue, device.context
    kernel = build_kernel(device, PROBE_SOURCE, "unpy_probe").kernel
    flags = cl.mem_flags
    n = max(1024, min(GPU_STREAM_BYTES if device.is_gpu else CPU_STREAM_BYTES,
                      device.max_alloc // 2) // 8)
    ints, floats = (cl.Buffer(context, flags.WRITE_ONLY, 4 * n) for _ in range(2))
    word = np.zeros(1, np.int32)

    def launch():
        cl.enqueue_copy(queue, ints, word, is_blocking=False)
        cl.enqueue_nd_range_kernel(queue, kernel, (1,), None)
        cl.enqueue_copy(queue, word, ints, is_blocking=True)

    def in_a_row():
        for _ in range(LAUNCHES_IN_A_ROW):
            cl.enqueue_nd_range_kernel(queue, kernel, (1,), None)
        queue.finish()

    figures = {}
    kernel.set_args(ints, floats, np.int32(0))
    figures["launch"] = timed(launch, LAUNCH_ROUNDS)
    figures["enqueue"] = timed(in_a_row, ROUNDS)
    kernel.set_args(ints, floats, np.int32(n))
    figures["device"] = timed(lambda: elapsed(cl.enqueue_nd_range_kernel(queue, kernel, (n,),
                                                                         None)), ROUNDS)
    ints.release()
    floats.release()
    link = max(4096, min(LINK_BYTES, device.max_alloc // 2))
    buffer = cl.Buffer(context, flags.READ_WRITE, link)
    pinned = device.transfers.staging(link)
    figures["h2d"] = timed(lambda: elapsed(cl.enqueue_copy(queue, buffer, pinned,
                                                           is_blocking=False)), ROUNDS)
    figures["d2h"] = timed(lambda: elapsed(cl.enqueue_copy(queue, pinned, buffer,
                                                           is_blocking=True)), ROUNDS)
    buffer.release()
    stage = min(STAGE_BYTES, link)
    small = np.ones(stage, np.uint8)
    figures["memcpy"] = timed(lambda: np.copyto(pinned[:stage], small), ROUNDS)
    cores = os.cpu_count() or 1
    n = cores * HOST_STREAM_BYTES_PER_CORE // 4
    figures["host"] = host_stream(cores, n)
    return Calibration(
        launch_s=figures["launch"].fastest,
        enqueue_s=min(figures["enqueue"].fastest / LAUNCHES_IN_A_ROW, figures["launch"].fastest),
        h2d=link / figures["h2d"].fastest, d2h=link / figures["d2h"].fastest,
        device_bytes_per_s=8 * n / figures["device"].fastest,
        host_bytes_per_s=12 * n / figures["host"].fastest,
        memcpy_bytes_per_s=stage / figures["memcpy"].fastest,
        cores=cores, spread=max(f.spread for f in figures.values()),
        measured_s=time.perf_counter() - started)


def host_stream(cores: int, n: int) -> Figure:
    """`c = a + b` over `n` float32 elements, in one chunk per core on as many threads."""
    a, b, c = (np.full(n, v, np.float32) for v in (1, 2, 0))     # (pages touched now)
    edges = np.linspace(0, n, cores + 1).astype(int)
    chunks = list(zip(edges[:-1], edges[1:]))

    def chunk(bounds):
        lo, hi = bounds
        np.add(a[lo:hi], b[lo:hi], out=c[lo:hi])

    with ThreadPoolExecutor(cores) as pool:
        def run():
            for _ in pool.map(chunk, chunks):
                pass
        return timed(run, ROUNDS)


# --- once per machine and device -------------------------------------------------------------

_lock = threading.Lock()
_kept: dict[str, Calibration | None] = {}     # cache path -> the calibration (None: failed)


def calibration(device) -> Calibration | None:
    """`device`'s calibration: from this process, from the disk entry made on this machine, or
    measured now and kept; None when it could not be measured (logged once)."""
    from .probe import cache_key
    from unpy.settings import current as current_settings
    path = os.path.join(current_settings().cache_root, "probes",
                        cache_key(device.cl_device) + ".calibration.json")
    with _lock:
        if path in _kept:
            return _kept[path]
        found = read(path)
        if found is None:
            try:
                found = measure(device)
            except Exception as e:     # a driver's error: the estimate keeps its constants
                log.info("%s not calibrated (%s: %s): the estimate uses its constants",
                         device.label, type(e).__name__, e)
            else:
                log.info("calibrated %s in %.0f ms (once per machine, kept in %s): %s",
                         device.label, found.measured_s * 1e3, path, found)
                write(path, found)
        _kept[path] = found
        return found


def machine() -> dict:
    """What tells this machine from another that shares the cache folder."""
    model = ""
    try:
        with open("/proc/cpuinfo") as f:
            model = next((line.split(":", 1)[1].strip() for line in f
                          if line.startswith("model name")), "")
    except OSError:
        pass
    return {"node": platform.node(), "processor": model or platform.processor(),
            "cores": os.cpu_count() or 1}


def read(path: str) -> Calibration | None:
    """The entry at `path` when it was measured on this machine by this version, else None."""
    try:
        with open(path) as f:
            entry = json.load(f)
        if entry["version"] != CALIBRATION_VERSION or entry["machine"] != machine():
            return None
        return Calibration(**entry["figures"])
    except (OSError, ValueError, KeyError, TypeError):
        return None


def write(path: str, found: Calibration) -> None:
    """Keep `found` at `path` (atomically); a cache that cannot be written is skipped."""
    from .kernel_cache import write_atomically
    entry = {"version": CALIBRATION_VERSION, "machine": machine(), "figures": asdict(found)}
    try:
        write_atomically(path, json.dumps(entry, indent=1).encode())
    except OSError:
        pass


def forget() -> None:
    """Forget the calibrations read or measured by this process (tests); the disk stays."""
    with _lock:
        _kept.clear()
