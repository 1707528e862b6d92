"""The device rounds as the interpreter does (docs/gpu.md, "Rounding"): kernels that amplify a
rounding difference (tests/jitgpu/rounding_kernels.py) give the interpreter's results bit for
bit on the tested OpenCL device (no `a * b + c` contracted into an FMA: built without the
FP_CONTRACT OFF pragma, as --fastmath builds are, PoCL's CPU device gives another escape count
for 110 of 40,000 float32 pixels, and other thresholds for half of them); correctly rounded
operations are bit-identical; the other math functions are within the OpenCL
specification's bounds (measured on PoCL: 3 ulp at most)."""
from pathlib import Path

import numpy as np
import pytest

from modulepair import gpu_pair

HERE = Path(__file__).parent
RNG = np.random.default_rng(23)


@pytest.fixture(scope="session")
def rounding(tmp_path_factory):
    """tests/jitgpu/rounding_kernels.py, compiled and interpreted."""
    return gpu_pair(HERE / "rounding_kernels.py", tmp_path_factory.mktemp("build-rounding"))


def grid(dtype):
    return np.linspace(-2.0, 0.6, 200).astype(dtype), np.linspace(-1.2, 1.2, 200).astype(dtype)


def products(n, dtype):
    """a, b and c = -(a * b) rounded: a * b + c is 0 rounded twice, not fused."""
    a, b = (RNG.uniform(-1, 1, n).astype(dtype) for _ in range(2))
    return a, b, -(a * b)


def cases():
    return [
        ("mandelbrot", (*grid(np.float64), 500, np.zeros((200, 200), np.int64))),
        ("mandelbrot_f32", (*grid(np.float32), 500, np.zeros((200, 200), np.int64))),
        ("threshold", (*products(10_000, np.float64), np.zeros(10_000, np.int64))),
        ("threshold_f32", (*products(10_000, np.float32), np.zeros(10_000, np.int64))),
        ("henon", (np.linspace(0, 0.1, 1000), np.zeros(1000), 200)),
        ("henon_f32", (np.linspace(0, 0.1, 1000, dtype=np.float32),
                       np.zeros(1000, np.float32), 200)),
        ("square_plus_f32", (*products(10_000, np.float32)[:2], np.zeros(10_000, np.float32))),
    ]


NAMES = [c[0] for c in cases()]


@pytest.mark.parametrize("case", range(len(NAMES)), ids=NAMES)
def test_amplifiers_match_the_interpreter_bit_for_bit(rounding, case):
    func, args = cases()[case]
    _, report = rounding.check(func, *args)
    assert "#pragma OPENCL FP_CONTRACT OFF" in report.nests[0].source


def test_correctly_rounded_operations_are_bit_identical(rounding):
    """+ - * / sqrt floor rint and `%` (fmod) of float64 and float32 (float32 `/` and sqrt
    built correctly rounded where the device can: jitgpu.offload.build_options)."""
    for func, dtype in (("exact_f64", np.float64), ("exact_f32", np.float32)):
        a = (RNG.standard_normal(20_000) * 10.0 ** RNG.integers(-30, 30, 20_000)).astype(dtype)
        b = (RNG.standard_normal(20_000) * 10.0 ** RNG.integers(-30, 30, 20_000)).astype(dtype)
        rounding.check(func, a, b, np.zeros((8, 20_000), dtype))


# The OpenCL specification's bounds (version 1.2, section 7.4, full profile) in ulp of the
# exact result, the same for float and double; docs/gpu.md quotes them.
OPENCL_ULPS = {"sin": 4, "cos": 4, "tan": 5, "exp": 3, "exp2": 3, "expm1": 3, "log": 3,
               "log2": 3, "log10": 3, "log1p": 2, "cbrt": 2, "arcsin": 4, "arccos": 4,
               "arctan": 5, "sinh": 4, "cosh": 4, "tanh": 5, "arctan2": 6, "power": 16,
               "hypot": 4}


def function_arguments(dtype, n=20_000):
    a = RNG.uniform(-50, 50, n).astype(dtype)
    b = RNG.uniform(-20, 20, n).astype(dtype)
    return a, b


def reference(functions, a, b, dtype):
    """Each function of functions_f64/f32 on the same (rounded) arguments, in long double,
    rounded once to `dtype`: the correctly rounded result but for rare double roundings."""
    x, y, ax = (v.astype(np.longdouble) for v in (a, b, np.abs(a)))
    args = {"arcsin": (b / dtype(100.0)).astype(np.longdouble),
            "arccos": (b / dtype(100.0)).astype(np.longdouble),
            "tanh": (b / dtype(10.0)).astype(np.longdouble)}
    out = {}
    for f in functions:
        func = getattr(np, f)
        if f in ("sin", "cos", "tan", "cbrt", "arctan"):
            out[f] = func(x)
        elif f in ("exp", "exp2", "expm1", "sinh", "cosh"):
            out[f] = func(y)
        elif f in ("log", "log2", "log10", "log1p"):
            out[f] = func(ax)
        elif f in args:
            out[f] = func(args[f])
        elif f == "power":
            out[f] = func(ax, (b / dtype(20.0)).astype(np.longdouble))
        else:
            out[f] = func(x, y)
    return {f: v.astype(dtype) for f, v in out.items()}


def ulps(x, y):
    """|x - y| in units in the last place, elementwise (finite values of one sign, near)."""
    bits = np.int64 if x.dtype == np.float64 else np.int32
    order = lambda v: np.where(v.view(bits) < 0, -(v.view(bits) & np.iinfo(bits).max),
                               v.view(bits)).astype(np.int64)
    return np.abs(order(x) - order(y))


@pytest.mark.skipif(np.finfo(np.longdouble).nmant < 60, reason="no extended long double here")
@pytest.mark.parametrize("dtype", [np.float64, np.float32], ids=["float64", "float32"])
def test_math_functions_are_within_the_opencl_bounds(rounding, dtype):
    functions = rounding.interpreted.FUNCTIONS
    func = "functions_f64" if dtype == np.float64 else "functions_f32"
    a, b = function_arguments(dtype)
    out = np.zeros((len(functions), a.size), dtype)
    with np.errstate(all="ignore"):
        getattr(rounding.compiled, func)(a, b, out)
        exact = reference(functions, a, b, dtype)
    report = rounding.explain(func)
    assert report.nests[0].ran_on.startswith("opencl:"), str(report)
    for k, f in enumerate(functions):
        worst = int(ulps(out[k], exact[f]).max())
        assert worst <= OPENCL_ULPS[f], f"{f} ({dtype.__name__}): {worst} ulp"
