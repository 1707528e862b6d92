"""Repeated calls (issue 7 section 3): a nest refused for its inputs (the analysis, the
profitability estimate) skips the hook, and the GIL, while the same inputs and switches come
again; anything else about the call asks again. A nest that runs on the device reuses its plan,
kernels, staging and buffers."""
import numpy as np

from jitgpu import report

RNG = np.random.default_rng(11)


def _forget(gpu, func):
    report._last.pop((gpu.compiled.__name__, func), None)


def test_refused_inputs_skip_the_hook(gpu, device_env):
    device_env.delenv("UNPY_FORCE_GPU")
    x, y = RNG.random(64), RNG.random(64)
    gpu.compiled.axpy(x, y, 2.0)
    assert "not profitable" in gpu.explain("axpy").nests[0].reason
    _forget(gpu, "axpy")
    expected = y + 2.0 * x
    gpu.compiled.axpy(x, y, 2.0)                  # same inputs: the hook is not asked
    np.testing.assert_allclose(y, expected)
    assert gpu.explain("axpy").nests[0].ran_on is None
    gpu.compiled.axpy(x, y, 3.0)                  # another scalar: asked again
    assert "not profitable" in gpu.explain("axpy").nests[0].reason
    _forget(gpu, "axpy")
    gpu.compiled.axpy(x[:32], y[:32], 3.0)        # another shape: asked again
    assert "not profitable" in gpu.explain("axpy").nests[0].reason
    _forget(gpu, "axpy")
    gpu.compiled.axpy(x[:32], y[:32], 3.0)
    assert gpu.explain("axpy").nests[0].ran_on is None
    device_env.setenv("UNPY_FORCE_GPU", "1")      # another switch: asked again, and runs
    gpu.check("axpy", x[:32], y[:32], 3.0, rtol=1e-12)


def test_analysis_refusal_is_remembered_per_inputs(gpu):
    x = RNG.random(20)
    gpu.check("uses_array_helper", x, np.zeros(20), ran_on="openmp",
              reason="calls compiled function array_helper()")
    out = np.zeros(20)
    gpu.compiled.uses_array_helper(x, out)
    _forget(gpu, "uses_array_helper")
    gpu.compiled.uses_array_helper(x, out)
    assert gpu.explain("uses_array_helper").nests[0].ran_on is None
    np.testing.assert_array_equal(out, x * 2.0 + x[0])


def test_kernel_flag_is_not_remembered(gpu_checked):
    """The error flag depends on the data, not the layout: the next call asks again."""
    x = RNG.random(10)
    idx, out = np.array([0, 1, 10, 3]), np.zeros(4)
    gpu_checked.check("gather_checked", x, idx, out, ran_on="openmp",
                      reason="the kernel met a case")
    idx[2] = 2
    gpu_checked.check("gather_checked", x, idx, out)


def test_repeated_device_calls_reuse_everything(gpu, device, device_env):
    device_env.setenv("UNPY_REPLAY", "0")     # the Python path's reuse (not C++'s replay)
    x, y = RNG.random(300), RNG.random(300)
    expected = y.copy()
    for _ in range(4):
        gpu.compiled.axpy(x, y, 0.5)
        expected += 0.5 * x
    np.testing.assert_allclose(y, expected, rtol=1e-12)
    nest = gpu.explain("axpy").nests[0]
    assert nest.ran_on.startswith("opencl:")
    assert nest.timings["analysis"] == 0 and nest.timings["cache_hits"] == 1
    # The error flag is known clear after the first run: it is not copied in again.
    assert nest.timings["bytes_moved"] == 3 * 300 * 8 + 4     # and the flag read back
    assert "GB/s over the call vs a measured link peak" in nest.details["bytes"]


def test_the_objects_alive_after_a_first_preparation_are_frozen(gpu):
    """Python's full collections skip them afterwards (jitgpu/offload.py `_freeze_long_lived`:
    a 15-30 ms pause at a random later call otherwise); objects made later are collected."""
    import gc
    import weakref

    x, y = RNG.random(64), RNG.random(64)
    gpu.check("axpy", x, y, 2.0, rtol=1e-12)
    assert gc.get_freeze_count() > 0

    class Cycle:
        pass
    later = Cycle()
    later.me = later
    gone = weakref.ref(later)
    del later
    gc.collect()
    assert gone() is None
