"""The debug mode is faithful (issue 19): where the interpreter raises UnboundLocalError (a local
read on a path that did not assign it) or ZeroDivisionError (a Python float divided by zero),
compiled code raises it too, with OpenMP and on the GPU path; where it does not raise, compiled
code returns what it returns. tests/kernels/faithful.py holds the kernels; docs/guide.md lists
what still differs."""
import numpy as np
import pytest

import diffcheck
import testdevice
import unpython
from unpy import ir
from unpy.pipeline import compile_to_ir
from unpy.typeinfer.reductions import walk_stmts

RNG = np.random.default_rng(19)


@pytest.fixture(scope="module")
def faithful(tmp_path_factory):
    return diffcheck.load_kernel_pair("faithful", tmp_path_factory.mktemp("build-faithful"))


def raises_alike(pair, func, *args):
    """Both raise, the same exception type and message."""
    expected, got, _, _ = pair.run(func, *args)
    assert expected[0] == "raise" and got[0] == "raise", (expected, got)
    assert type(got[1]) is type(expected[1]) and str(got[1]) == str(expected[1]), (expected, got)


@pytest.mark.parametrize("func, args_raising, args_not", [
    ("assigned_on_one_branch", [(0,), (-3,)], [(1,)]),
    ("loop_variable_after_the_loop", [(0,), (-1,)], [(1,), (5,)]),
    ("read_under_and", [(1, 0.0), (3, 9.0)], [(0, 1.0), (4, 1.0), (5, 3.0)]),
    ("read_in_a_conditional_expression", [(3,), (5,)], [(1,), (6,)]),
    ("read_in_a_chain", [(0, 1.0)], [(0, -1.0), (2, 1.0), (2, 3.0)]),
    ("read_in_a_while_test", [(0,), (3,)], [(4,), (9,)]),
    ("reduction_of_an_unassigned", [(1,), (10,)], [(0,), (11,)]),
])
def test_unbound_local(faithful, func, args_raising, args_not):
    for args in args_raising:
        raises_alike(faithful, func, *args)
    for args in args_not:
        faithful.check(func, *args)


def test_unbound_after_a_loop_of_no_iterations(faithful):
    raises_alike(faithful, "first_assigned_in_a_loop", np.zeros(0))
    faithful.check("first_assigned_in_a_loop", RNG.random(7))
    raises_alike(faithful, "prange_variable_after_the_loop", np.zeros(0))
    faithful.check("prange_variable_after_the_loop", RNG.random(9))


def test_unbound_inside_a_prange(faithful):
    raises_alike(faithful, "read_inside_a_prange", RNG.random(50), 0)
    faithful.check("read_inside_a_prange", np.zeros(0), 0)     # no iteration reads it
    faithful.check("read_inside_a_prange", RNG.random(50), 1)


@pytest.mark.parametrize("func", ["true_divide", "floor_divide", "remainder", "power"])
def test_python_floats_divided_by_zero(faithful, func):
    raises_alike(faithful, func, 1.5, 0.0) if func != "power" else \
        raises_alike(faithful, func, 0.0, -2.0)
    for x, y in [(1.5, -0.0), (-7.25, 2.0), (0.0, 0.0), (3.0, 0.5)]:
        if func == "power" and x == 0.0 and y < 0:
            continue
        faithful.check(func, x, y) if y != 0.0 or func == "power" else None
    # NumPy floats give inf or nan (with a warning), in both
    for x, y in [(np.float64(1.5), np.float64(0.0)), (np.float64(0.0), np.float64(-1.0)),
                 (1.5, np.float64(0.0)), (np.float64(-2.0), 0.0)]:
        faithful.check(func, x, y)


def test_python_scalar_divisions(faithful):
    raises_alike(faithful, "per_element", np.zeros(0))
    faithful.check("per_element", RNG.random(4))
    raises_alike(faithful, "complex_divide", np.zeros(0))
    faithful.check("complex_divide", np.zeros(3))
    raises_alike(faithful, "python_sum_divided", np.zeros(3))
    faithful.check("python_sum_divided", np.zeros(5))
    raises_alike(faithful, "divide_in_a_prange", RNG.random(40))
    faithful.check("divide_in_a_prange", np.zeros(0))
    faithful.check("never_zero_divisor", RNG.random(10), 0.0)


@pytest.mark.parametrize("func", ["mean", "mean_sequential"])
def test_a_sum_that_stays_a_python_float(faithful, func):
    """`s = 0.0` then `s += a[i]`: a NumPy float64 after one iteration, a Python float when
    the loop ran none, and only then does `s / n` raise."""
    raises_alike(faithful, func, np.zeros(0))
    faithful.check(func, RNG.random(33), rtol=1e-14)
    faithful.check(func, np.zeros(1))


# --- the GPU path ------------------------------------------------------------------------------

@pytest.fixture
def gpu_env(monkeypatch):
    monkeypatch.setenv("UNPY_DEVICE", testdevice.SPEC)
    monkeypatch.setenv("UNPY_FORCE_GPU", "1")
    monkeypatch.delenv("UNPY_DISABLE", raising=False)
    testdevice.tested_device()


def ran_on(pair, func):
    report = unpython.explain(getattr(pair.compiled, func))
    assert report.gpu and report.nests, str(report)
    return [nest.ran_on for nest in report.nests]


def test_gpu_unbound_read_inside_a_nest(faithful, gpu_env):
    faithful.check("gpu_read_inside_a_prange", RNG.random(5000), 3)
    assert all(r.startswith("opencl:") for r in ran_on(faithful, "gpu_read_inside_a_prange"))
    # the kernel sets its error flag, the OpenMP code runs the nest and raises
    raises_alike(faithful, "gpu_read_inside_a_prange", RNG.random(5000), 0)


def test_gpu_python_float_divided_by_zero(faithful, gpu_env):
    raises_alike(faithful, "gpu_divide_in_a_prange", RNG.random(5000))
    faithful.check("gpu_divide_in_a_prange", np.zeros(0))
    raises_alike(faithful, "gpu_mean", np.zeros(0))
    faithful.check("gpu_mean", RNG.random(5000), rtol=1e-12)
    assert all(r.startswith("opencl:") for r in ran_on(faithful, "gpu_mean"))


# --- no cost where a check cannot fire --------------------------------------------------------

NO_CHECKS = '''
import numpy as np
import unpython
from unpython import prange


@unpython.type('int64', 'float64')
def both_branches(n):
    if n > 0:
        x = 1.0
    else:
        x = 2.0
    return x


@unpython.type('int64', 'int64')
def loop_of_constant_trips(n):
    for k in range(3):
        x = n + k
    return x + k


@unpython.type('int64', 'int64')
def until_break(n):
    while True:
        x = n
        if x > 0:
            break
        n += 1
    return x


@unpython.type('int64', 'int64')
def returns_early(n):
    if n > 0:
        y = n
    else:
        return 0
    return y


@unpython.type('ndarray[float64, 1]', 'float64', 'float64')
def numpy_values(a, x):
    s = a[0] / x
    for i in range(a.shape[0]):
        a[i] = a[i] / (1.0 + x * x) + 1.0 / (i + 1.0) + s / len(a)
    return s


@unpython.type('ndarray[float64, 2]', 'ndarray[float64, 2]', None)
def private_sum(a, out):
    for i in prange(a.shape[0]):
        for j in range(a.shape[1]):
            s = 0.0
            for k in range(j):
                s += a[i, k]
            out[i, j] = s / (a.shape[1] - 1)
'''


def test_nothing_added_where_no_check_can_fire(tmp_path):
    """Locals assigned on every path, divisors that are NumPy values or proven nonzero, a
    prange's sums: the typed IR has no flag and no check."""
    path = tmp_path / "nochecks.py"
    path.write_text(NO_CHECKS)
    module = compile_to_ir(str(path), NO_CHECKS)
    assert len(module.functions) == 6
    for fn in module.functions:
        text = ir.format_function(fn)
        assert "raise" not in text and "__assigned" not in text and "__python" not in text, text


def test_gpu_check_hoisted_out_of_the_nest(faithful, gpu_env):
    a = RNG.random((40, 30))
    faithful.check("gpu_step", a, 0.5, 0.25)
    assert all(r.startswith("opencl:") for r in ran_on(faithful, "gpu_step"))
    raises_alike(faithful, "gpu_step", a, 0.0, 0.25)
    faithful.check("gpu_step", np.zeros((0, 3)), 0.0, 0.25)     # no iteration divides
    faithful.check("gpu_step", a, np.float64(0.0), np.float64(0.25))   # NumPy's: inf


def test_checks_of_invariant_divisors_leave_the_loops():
    path = diffcheck.KERNELS / "faithful.py"
    module = compile_to_ir(str(path), path.read_text())
    step = {fn.name: fn for fn in module.functions}["gpu_step_weak"]
    loops = [s for s in walk_stmts(step.body) if isinstance(s, ir.For)]
    assert loops and not any(isinstance(s, ir.Raise)
                             for loop in loops for s in walk_stmts(loop.body))
    assert any(isinstance(s, ir.Raise) for s in walk_stmts(step.body))
