"""The kernel cache: memory and disk hits, entries rebuilt when corrupt, build errors."""
import os

import numpy as np
import pytest

from gpurts import BuildError, build_kernel
from gpurts.kernel_cache import MAGIC, cache_dir

SOURCE = """
__kernel void scale(__global double *a, const double f) {
    a[get_global_id(0)] *= f * FACTOR;
}
"""


def run_scale(device, kernel, n=64):
    from gpurts.opencl import load_opencl
    cl, _ = load_opencl()
    data = np.arange(n, dtype=np.float64)
    buffer = device.pool.allocate(data.nbytes)
    device.transfers.to_device(data, buffer)
    kernel.set_args(buffer, np.float64(3.0))
    cl.enqueue_nd_range_kernel(device.queue, kernel, (n,), None)
    out = np.empty_like(data)
    device.transfers.from_device(buffer, out)
    return out / data.clip(1)


def entry_path(device, options):
    return os.path.join(cache_dir(), device.kernel_cache.key(SOURCE, options) + ".clbin")


def test_miss_then_memory_then_disk(device, cache_dir):
    options = ["-DFACTOR=2.0", "-cl-mad-enable"]
    stats = device.kernel_cache.stats
    builds, disk_hits, memory_hits = stats.builds, stats.disk_hits, stats.memory_hits
    kernel, hit, seconds = build_kernel(device, SOURCE, "scale", options)
    assert not hit and seconds > 0 and stats.builds == builds + 1
    assert os.path.getsize(entry_path(device, options)) > len(MAGIC)
    again, hit, _ = build_kernel(device, SOURCE, "scale", options)
    assert hit and stats.memory_hits == memory_hits + 1 and again is not kernel
    device.kernel_cache.clear_memory()
    loaded, hit, _ = build_kernel(device, SOURCE, "scale", options)
    assert hit and stats.disk_hits == disk_hits + 1
    assert np.all(run_scale(device, loaded)[1:] == 6.0)


def test_other_options_other_entry(device, cache_dir):
    assert entry_path(device, ["-DFACTOR=1.0"]) != entry_path(device, ["-DFACTOR=2.0"])
    _, hit, _ = build_kernel(device, SOURCE, "scale", ["-DFACTOR=5.0"])
    assert not hit


def test_second_process_loads_from_disk(device, device_spec, cache_dir, run_python):
    build_kernel(device, SOURCE, "scale", ["-DFACTOR=4.0"])
    done = run_python(f"""
from gpurts import select_device, build_kernel
d = select_device({device_spec!r})
print(build_kernel(d, {SOURCE!r}, 'scale', ['-DFACTOR=4.0']).cache_hit, d.kernel_cache.stats)
""", UNPY_CACHE_DIR=str(cache_dir))
    assert done.stdout.startswith("True CacheStats(memory_hits=0, disk_hits=1, builds=0")


@pytest.mark.parametrize("damage", ["garbage", "truncated", "valid frame, bad binary"])
def test_damaged_entry_is_rebuilt(device, cache_dir, damage):
    import hashlib
    options = ["-DFACTOR=7.0", f"-DDAMAGE={len(damage)}"]
    build_kernel(device, SOURCE, "scale", options)
    path = entry_path(device, options)
    data = open(path, "rb").read()
    bad = {"garbage": os.urandom(len(data)),
           "truncated": data[:len(data) // 2],
           "valid frame, bad binary": MAGIC + hashlib.sha256(b"nonsense").digest() + b"nonsense",
           }[damage]
    open(path, "wb").write(bad)
    device.kernel_cache.clear_memory()
    stats = device.kernel_cache.stats
    builds, rejected = stats.builds, stats.rejected_entries
    kernel, hit, _ = build_kernel(device, SOURCE, "scale", options)
    assert not hit and stats.builds == builds + 1 and stats.rejected_entries == rejected + 1
    rewritten = open(path, "rb").read()
    assert rewritten.startswith(MAGIC) and rewritten != bad
    assert np.all(run_scale(device, kernel)[1:] == 21.0)


def test_build_error_carries_the_log_and_is_remembered(device, cache_dir):
    source = "__kernel void k(__global int *a) { a[0] = not_declared; }"
    with pytest.raises(BuildError) as failure:
        build_kernel(device, source, "k")
    assert "not_declared" in failure.value.log and "build failed" in str(failure.value)
    builds = device.kernel_cache.stats.builds
    with pytest.raises(BuildError, match="not_declared"):
        build_kernel(device, source, "k")
    assert device.kernel_cache.stats.builds == builds   # not compiled again


def test_missing_kernel_name_is_a_build_error(device, cache_dir):
    with pytest.raises(BuildError, match="no kernel 'nope'"):
        build_kernel(device, SOURCE, "nope", ["-DFACTOR=1.0"])


def test_unwritable_cache_is_not_fatal(device, tmp_path, monkeypatch):
    blocked = tmp_path / "file"
    blocked.write_text("a file where the cache folder should be")
    monkeypatch.setenv("UNPY_CACHE_DIR", str(blocked))
    _, hit, _ = build_kernel(device, SOURCE, "scale", ["-DFACTOR=9.0"])
    assert not hit


def test_failed_builds_leave_nothing_for_the_garbage_collector(device_spec, cache_dir,
                                                               run_python):
    """A failed build releases its program (and all it holds) before BuildError reaches the
    caller, so no garbage collection at some unrelated later point finalises driver objects of a
    failed build (issue 6: a segfault in an xdist worker, in the collector, after failed
    builds). Many failed builds with collections in between end in a clean exit."""
    done = run_python(f"""
import gc
from gpurts import select_device, build_kernel, BuildError
d = select_device({device_spec!r})
gc.collect()
gc.set_debug(gc.DEBUG_SAVEALL)
failures = 0
for i in range(25):
    for source, name, options in [
            ('__kernel void k(__global int *a) {{ a[0] = %d + ; }}' % i, 'k', []),
            ('__kernel void k(__global int *a) {{ a[0] = %d; }}' % i, 'k', ['-no-such-option']),
            ('__kernel void k(__global int *a) {{ a[0] = 1; }}', 'no_such_kernel', [])]:
        try:
            build_kernel(d, source, name, options)
        except BuildError:
            failures += 1
    d.kernel_cache.clear_memory()
    gc.collect()
left = sorted({{type(o).__name__ for o in gc.garbage if 'pyopencl' in type(o).__module__}})
print(failures, 'failed; left for the collector:', left)
""", UNPY_CACHE_DIR=str(cache_dir))
    assert "75 failed; left for the collector: []" in done.stdout, done.stdout
