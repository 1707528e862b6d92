"""One function compiled for several signatures on the GPU path (tests/kernels/signatures.py):
each signature's nests run through OpenCL on the tested device and match the interpreter, the
GPU decisions are each signature's own, and `unpython.explain` reports the signature Python
called last. The OpenMP side: tests/differential/test_signatures.py."""
import numpy as np
import pytest

RNG = np.random.default_rng(18)


def rand(*shape, dtype=np.float64):
    if np.dtype(dtype).kind == "f":
        return (RNG.random(shape) - 0.3).astype(dtype)
    return RNG.integers(-9, 9, shape).astype(dtype)


def tolerance(dtype):
    """float32 kernels may contract a*b + c on the device (one rounding less)."""
    return 1e-6 if dtype == np.float32 else 1e-12


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_two_decorators_on_the_device(signatures_gpu, dtype):
    got, report = signatures_gpu.check("scaled", rand(300, dtype=dtype), 1.5,
                                       rtol=tolerance(dtype))
    assert got.dtype == dtype
    assert report.signature.startswith(f"(ndarray[{np.dtype(dtype)}, 1]"), str(report)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_list_of_signatures_on_the_device(signatures_gpu, dtype):
    signatures_gpu.check("add_into", rand(20, 30, dtype=dtype), rand(20, 30, dtype=dtype),
                         rtol=tolerance(dtype))


@pytest.mark.parametrize("shape", [(300,), (20, 30)])
def test_ndim_1_and_2_on_the_device(signatures_gpu, shape):
    _, report = signatures_gpu.check("summed", rand(*shape), rtol=1e-12)
    assert report.signature == f"(ndarray[float64, {len(shape)}]) -> float64"
    signatures_gpu.check("doubled_in_place", rand(*shape))


@pytest.mark.parametrize("dtype", [np.float32, np.int64])
def test_helper_with_two_signatures_in_a_gpu_function(signatures_gpu, dtype):
    """The nest calls the helper signature of its own dtype; it runs where the JIT can run it
    (a kernel that cannot call a compiled function leaves the nest to OpenMP)."""
    signatures_gpu.check("doubled", rand(50, dtype=dtype), np.zeros(50, dtype), ran_on=None)


def test_each_signature_decides_for_itself(signatures_gpu):
    """The GPU reports are per signature: the float64 call's nest and the float32 call's nest
    are two nests, and explain shows the one of the signature called last."""
    import unpython
    compiled = signatures_gpu.compiled
    compiled.scaled(rand(100), 2.0)
    first = unpython.explain(compiled.scaled)
    compiled.scaled(rand(100, dtype=np.float32), 2.0)
    second = unpython.explain(compiled.scaled)
    assert first.signature != second.signature
    assert first.nests[0] is not second.nests[0]
    for report in (first, second):
        assert report.nests[0].ran_on.startswith("opencl:"), str(report)


def test_gpu_devices_option_reaches_every_signature(signatures_gpu, device_env):
    """`@unpython.gpu(devices=...)` is keyed by the Python name: each signature's nests find
    it."""
    import unpython
    from jitgpu.hook import device_spec
    device_env.delenv("UNPY_DEVICE")
    device_env.setitem(unpython._devices, ("signatures", "scaled"), "cpu")
    assert device_spec("signatures", "scaled_sig1") == "cpu"
    assert device_spec("signatures", "scaled_sig2") == "cpu"


def test_a_signature_compiled_weak_alone_on_the_device(signatures_gpu):
    """`normalised(x32, eps)` is float32 only for a Python float `eps` (NEP 50), which the
    signature compiled weak alone takes; its nests run on the device."""
    got, _ = signatures_gpu.check("normalised", rand(40, 30, dtype=np.float32), 1e-5,
                                  rtol=1e-5)
    assert got.dtype == np.float32
