"""The detector can fail: kernels with a deliberate out-of-bounds access, read of unwritten memory
or data race, run on Oclgrind through pyopencl directly, are reported and recognised; ordinary
stderr text is not."""
import os

import numpy as np
import pytest

from oclgrind import invalid_accesses, oclgrind_reports

pytestmark = pytest.mark.memcheck

SOURCE = """
__kernel void shifted(__global double *a, long write_shift, long read_shift) {
    long i = get_global_id(0);
    a[i + write_shift] = 2.0 * a[i + read_shift];
}
__kernel void all_to_one(__global double *a) {
    a[0] = (double)get_global_id(0);
}
"""


def run_kernel(device, name, n, *scalars):
    """`name` over n work-items on an n-element buffer; returns the buffer's contents."""
    from gpurts.opencl import load_opencl
    cl, _ = load_opencl()
    program = cl.Program(device.context, SOURCE).build()
    a = np.arange(n, dtype=np.float64)
    buf = cl.Buffer(device.context, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR,
                    hostbuf=a)
    getattr(program, name)(device.queue, (n,), (1,), buf, *scalars)
    cl.enqueue_copy(device.queue, a, buf)
    device.queue.finish()
    return a


@pytest.mark.parametrize("shifts, kind", [((1, 0), "write"), ((0, -1), "read")])
def test_out_of_bounds_access_is_reported(memcheck, shifts, kind):
    """a[i + s] = 2 * a[i + t] over every i of an 8-element buffer: one work-item leaves it."""
    shifts = [np.int64(s) for s in shifts]
    memcheck.reports()
    run_kernel(memcheck.device, "shifted", 8, *shifts)
    reports = memcheck.reports()
    assert len(invalid_accesses(reports)) == 1, reports
    assert reports[0].startswith(f"Invalid {kind} of size 8 at global memory address")
    assert "Kernel: shifted" in reports[0]
    with pytest.raises(AssertionError, match="1 invalid accesses"):
        run_kernel(memcheck.device, "shifted", 8, *shifts)
        memcheck.assert_clean("shifted")


def test_in_bounds_access_is_clean(memcheck):
    memcheck.reports()
    assert run_kernel(memcheck.device, "shifted", 8, np.int64(0), np.int64(0)).tolist() == [
        2.0 * i for i in range(8)]
    memcheck.assert_clean("shifted by 0")


def test_read_of_unwritten_memory_is_reported(memcheck):
    """A device buffer of which the host wrote half: the copies of the other half are reported."""
    from gpurts.opencl import load_opencl
    cl, _ = load_opencl()
    memcheck.reports()
    ctx, queue = memcheck.device.context, memcheck.device.queue
    src, dst = (cl.Buffer(ctx, cl.mem_flags.READ_WRITE, 64) for _ in range(2))
    cl.enqueue_copy(queue, src, np.ones(4))
    program = cl.Program(ctx, "__kernel void copy(__global double *a, __global double *b) "
                              "{ size_t i = get_global_id(0); b[i] = a[i]; }").build()
    program.copy(queue, (8,), (1,), src, dst)
    queue.finish()
    reports = memcheck.reports()
    assert len(reports) == 4 and all(r.startswith("Uninitialized value") for r in reports), reports


@pytest.mark.skipif(os.environ.get("OCLGRIND_DATA_RACES") != "1",
                    reason="the data-race detector is off (OCLGRIND_DATA_RACES=1 turns it on)")
def test_data_race_is_reported(memcheck):
    memcheck.reports()
    run_kernel(memcheck.device, "all_to_one", 4)
    reports = memcheck.reports()
    assert reports and all("data race" in r for r in reports), reports
    assert not invalid_accesses(reports)


def test_other_stderr_text_is_not_a_report():
    text = ("unpy: matmul nest 0: ran on opencl:Oclgrind Simulator\n\n"
            "Traceback (most recent call last):\n  File \"x.py\", line 1\n\n")
    assert oclgrind_reports(text) == []
    api = ("\nOclgrind - OpenCL runtime error detected\n\tFunction: clEnqueueReadBuffer\n"
           "\tError:    CL_INVALID_VALUE\n")
    assert oclgrind_reports(text + api) == [api.strip("\n")]
