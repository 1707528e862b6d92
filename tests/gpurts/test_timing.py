"""Profiling times of events, and Timings that collect them without waiting."""
import numpy as np

from gpurts import Timings, build_kernel, elapsed


def test_elapsed_and_kernel_timing(device, cache_dir):
    kernel = build_kernel(device, "__kernel void k(__global int *a) { a[get_global_id(0)] += 1; }",
                          "k").kernel
    buffer = device.pool.allocate(4096)
    up = device.transfers.to_device(np.zeros(1024, np.int32), buffer)
    run = kernel(device.queue, (1024,), None, buffer)
    timings = Timings()
    timings.record("h2d", up, 4096)
    timings.record("kernel", run)
    assert elapsed(up) > 0 and timings.kernel_seconds == elapsed(run) > 0
    assert timings.h2d_bytes == 4096 and timings.d2h_bytes == 0


def test_settle_reads_times_and_drops_events(device, cache_dir):
    buffer = device.pool.allocate(4096)
    timings = Timings()
    timings.record("h2d", device.transfers.to_device(np.zeros(1024, np.int32), buffer), 4096)
    device.queue.finish()
    before = timings.h2d_seconds
    timings.settle()
    assert timings._events["h2d"] == [] and timings.h2d_seconds == before > 0
