"""Host-device bandwidth through pinned memory, for the profitability decision where the
machine's calibration (gpurts/calibration.py, which measures it once per machine) could not be
made: measured once per device per process (`Device.measured_bandwidth`) with a few copies of
32 MiB, a few ms on a GPU."""
from __future__ import annotations

from .opencl import load_opencl
from .timing import elapsed

MEASURE_BYTES = 32 << 20
REPEATS = 3


def measure_bandwidth(device, nbytes: int = MEASURE_BYTES) -> tuple[float, float]:
    """(host-to-device, device-to-host) bytes per second: the best of a few pinned copies of
    `nbytes` (at most half of one allocation), after one warm-up copy each way."""
    nbytes = max(4096, min(nbytes, device.max_alloc // 2))
    buffer = device.pool.allocate(nbytes)
    host = device.transfers.staging(nbytes)
    queue = device.queue
    cl, _ = load_opencl()
    best = {"h2d": float("inf"), "d2h": float("inf")}
    for round_ in range(REPEATS + 1):
        # Straight through pyopencl: a measurement is no transfer of the program's data, so it
        # stays out of the byte counters.
        up = cl.enqueue_copy(queue, buffer, host, is_blocking=False)
        down = cl.enqueue_copy(queue, host, buffer, is_blocking=True)
        if round_:
            best["h2d"] = min(best["h2d"], elapsed(up))
            best["d2h"] = min(best["d2h"], elapsed(down))
    buffer.release()
    return nbytes / max(best["h2d"], 1e-9), nbytes / max(best["d2h"], 1e-9)
