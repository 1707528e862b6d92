"""math.sqrt of a value never negative loses its domain check (unpy/typeinfer/never_negative.py):
which calls the pass rewrites to the unchecked np.sqrt, and the compiled results of
tests/kernels/never_negative.py against the interpreter's, on the CPU and on the GPU path."""
import math

import numpy as np
import pytest

import diffcheck
import irtools
import testdevice
from unpy import ir
from unpy.typeinfer.reductions import walk_exprs


@pytest.fixture(scope="module")
def kernels(tmp_path_factory):
    """tests/kernels/never_negative.py, compiled and interpreted."""
    return diffcheck.load_kernel_pair("never_negative", tmp_path_factory.mktemp("build"))


def sqrt_calls(body, name="f"):
    """The func of every sqrt call of function `name`, in order ('math.sqrt' keeps its check)."""
    fn = next(f for f in irtools.typed(body).functions if f.name == name)
    return [e.func for e in walk_exprs(fn.body)
            if isinstance(e, ir.Call) and e.func.endswith(".sqrt")]


# --- which calls are rewritten --------------------------------------------------------------

def test_sum_of_squares_through_locals_is_unchecked():
    assert sqrt_calls("""
        @unpython.type('ndarray[float64,1]', 'float64', 'float64')
        def f(x, p):
            s = 0.0
            for i in range(x.shape[0]):
                d = x[i] - p
                s += math.sqrt(d * d + x[i] * x[i])
            return math.sqrt(s)
        """) == ["np.sqrt", "np.sqrt"]


def test_never_negative_forms():
    assert sqrt_calls("""
        @unpython.type('float64', 'float32', 'bool', 'float64')
        def f(a, b, c):
            t = -0.0 if c else a ** 2
            u = np.float32(b * b)
            v = max(abs(a), math.exp(a)) * math.hypot(a, 1.0) + 2
            w = (a - 1.0) * (a - 1.0)
            return (math.sqrt(t) + math.sqrt(u) + math.sqrt(v) + math.sqrt(w)
                    + math.sqrt(math.sqrt(a * a) + np.sqrt(a)) + math.sqrt(math.fabs(a)))
        """) == ["np.sqrt"] * 8


@pytest.mark.parametrize("argument", [
    "a - b",            # subtraction
    "a",                # a parameter
    "a / b",            # 1 / -0.0 is -inf
    "a * b",            # different operands
    "a ** 3",           # odd exponent
    "-(a * a)",
    "float(n * n)",     # integer arithmetic wraps
    "x[n] * x[n + 1]",
])
def test_maybe_negative_arguments_keep_the_check(argument):
    assert sqrt_calls(f"""
        @unpython.type('float64', 'float64', 'int64', 'ndarray[float64,1]', 'float64')
        def f(a, b, n, x):
            return math.sqrt({argument})
        """) == ["math.sqrt"]


def test_a_local_once_assigned_a_maybe_negative_value_keeps_the_check():
    assert sqrt_calls("""
        @unpython.type('float64', 'float64')
        def f(a):
            t = a * a
            u = t
            if a > 1.0:
                t = t - 2.0
            return math.sqrt(t) + math.sqrt(u)
        """) == ["math.sqrt", "math.sqrt"]      # u is t, which may be negative


def test_fixed_point_keeps_locals_that_feed_each_other():
    assert sqrt_calls("""
        @unpython.type('int64', 'float64')
        def f(n):
            s = 0.0
            t = 1.0
            for i in range(n):
                s = s + t
                t = s * t
            return math.sqrt(s) + math.sqrt(t)
        """) == ["np.sqrt", "np.sqrt"]


def test_an_integer_local_is_not_trusted():
    assert sqrt_calls("""
        @unpython.type('int64', 'float64')
        def f(n):
            k = n * n
            return math.sqrt(k)
        """) == ["math.sqrt"]


def test_array_squares_are_not_trusted_when_a_compiled_call_may_write_the_array():
    calls = sqrt_calls("""
        @unpython.type('ndarray[float64,1]', 'float64')
        def bump(x):
            x[0] -= 1.0
            return 0.0

        @unpython.type('ndarray[float64,1]', 'float64', 'float64')
        def f(x, a):
            return math.sqrt(x[0] * x[0] + bump(x)) + math.sqrt(a * a)
        """)
    assert calls == ["math.sqrt", "np.sqrt"]


# --- compiled results against the interpreter --------------------------------------------

SPECIAL = [0.0, -0.0, 0.5, -0.5, 3.0, -7.25, 1e-200, 1e200, np.inf, -np.inf, np.nan]


def test_differential_sum_of_squares(kernels):
    rng = np.random.default_rng(1)
    for n in (0, 1, 7, 100):
        x, y = rng.standard_normal(n), rng.standard_normal(n)
        kernels.check("distance_sum", x, y)
        kernels.check("prange_root_sum", x, rtol=1e-12)     # parallel sums differ in order
        kernels.check("pair_distances", x, y, np.zeros(n))
    special = np.array(SPECIAL)
    kernels.check("distance_sum", special, special[::-1].copy())
    kernels.check("prange_root_sum", special)
    kernels.check("pair_distances", special, special[::-1].copy(), np.zeros(len(special)))


def test_differential_special_values(kernels):
    for a in SPECIAL:
        # A NumPy float: Python's float ** raises OverflowError where NumPy's gives inf.
        kernels.check("root_of_square", np.float64(a))
        with np.errstate(over="ignore"):
            kernels.check("root_of_f32_square", np.float32(a))
        for b in SPECIAL:
            kernels.check("root_of_calls", a, b)
    assert math.copysign(1.0, kernels.compiled.root_of_square(np.float64(-0.0))) == -1.0


def test_a_negative_argument_still_raises(kernels):
    for name, args in (("root_of_difference", (1.0, 2.0)), ("root_after_reassignment", (0.5,))):
        with pytest.raises(ValueError, match="math domain error"):
            getattr(kernels.compiled, name)(*args)
        kernels.check(name, *args)
    kernels.check("root_of_difference", 2.0, 1.0)
    kernels.check("root_after_reassignment", 3.0)


# --- the GPU path on the tested OpenCL device ------------------------------------------------

@pytest.fixture
def on_device(monkeypatch):
    testdevice.tested_device()
    for name in ("UNPY_DISABLE", "UNPY_GPU_OPT", "UNPY_GPU_SEARCH", "UNPY_GPU_MEM_LIMIT"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("UNPY_DEVICE", testdevice.SPEC)
    monkeypatch.setenv("UNPY_FORCE_GPU", "1")


def gpu_source(kernels, name):
    import unpython
    report = unpython.explain(getattr(kernels.compiled, name))
    assert report.nests and all(n.ran_on and n.ran_on.startswith("opencl:")
                                for n in report.nests), str(report)
    source = report.nests[0].source
    return source[source.index("__kernel"):]      # the kernel itself, not the helpers before it


def test_gpu_sum_of_squares_is_unchecked(kernels, on_device):
    rng = np.random.default_rng(2)
    x, y, z = rng.random((3, 300))
    x[5], y[7] = np.nan, -0.0
    kernels.check("gpu_distances", x, y, z, np.zeros(300), rtol=1e-12)
    source = gpu_source(kernels, "gpu_distances")
    assert "sqrt(" in source and "unpy_math_sqrt(" not in source


def test_gpu_maybe_negative_keeps_the_check(kernels, on_device):
    x, y = np.arange(64.0), np.arange(64.0)[::-1].copy()
    kernels.check("gpu_root_of_difference", x, x * 0.5, np.zeros(64))
    assert "unpy_math_sqrt(" in gpu_source(kernels, "gpu_root_of_difference")
    with pytest.raises(ValueError, match="math domain error"):
        kernels.compiled.gpu_root_of_difference(x, y, np.zeros(64))
    kernels.check("gpu_root_of_difference", x, y, np.zeros(64))
