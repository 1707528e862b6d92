"""np.random's draws compiled code makes without Python (tests/kernels/native_draws.py, built
with --fastmath) against the interpreter: from the same seed, the same values bit for bit and
the generator left in the very same state (np.random.get_state(): the MT19937 key and position,
the cached second Gaussian), an exception raised in the middle of the call included; the
generator's lock given back; other threads' draws neither lost nor repeated; no deadlock with a
team of threads whose iterations draw through Python."""
import threading
from unittest import mock

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from diffcheck import assert_same, copy_args

NATIVE = ["random", "random_sample", "ranf", "sample", "rand", "standard_normal", "randn",
          "normal", "uniform", "standard_exponential", "exponential", "randint"]


def seeded_run(f, args, seed):
    """f(*args) from np.random.seed(seed): (the outcome, the generator's state after it, the
    next draw)."""
    np.random.seed(seed)
    try:
        outcome = ("ok", f(*args))
    except Exception as exc:        # noqa: BLE001 (compared with the interpreter's)
        outcome = ("raise", type(exc), str(exc))
    return outcome, np.random.get_state(), np.random.random()


def assert_same_state(expected, got, what):
    assert expected[0] == got[0] and expected[2:] == got[2:], what
    assert np.array_equal(expected[1], got[1]), what


def same_draws(kernels, name, *args, seed=3, same_message=False):
    """The interpreter's and the compiled call's outcomes (an exception's type; its message
    too where `same_message`: one NumPy raised) and generator states after them."""
    expected = seeded_run(getattr(kernels.interpreted, name), copy_args(args), seed)
    got = seeded_run(getattr(kernels.compiled, name), copy_args(args), seed)
    assert got[0][0] == expected[0][0], (name, expected[0], got[0])
    if expected[0][0] == "ok":
        assert_same(expected[0][1], got[0][1], what=name)
    else:
        assert got[0][1:1 + same_message + 1] == expected[0][1:1 + same_message + 1], (
            name, expected[0], got[0])
    assert_same_state(expected[1], got[1], f"{name}: the generator's state after the call")
    assert got[2] == expected[2]
    return got[0]


def lock_is_free():
    """Whether another thread can take np.random's lock now (a lock this thread held would
    let this thread take it again: an RLock)."""
    lock = np.random.mtrand._rand._bit_generator.lock
    taken = []

    def take():
        taken.append(lock.acquire(blocking=False))
        if taken[0]:
            lock.release()
    t = threading.Thread(target=take)
    t.start()
    t.join()
    return taken[0]


def in_thread(f, *args, timeout=120):
    """f(*args) on another thread, failing where it has not returned within `timeout` s (a
    deadlock)."""
    result = []
    t = threading.Thread(target=lambda: result.append(f(*args)), daemon=True)
    t.start()
    t.join(timeout)
    assert not t.is_alive(), f"{f.__name__} did not return in {timeout} s"
    return result[0]


def test_the_functions_are_native(native_draws_kernels, python_calls_kernels):
    """Every function of NATIVE passed the setup's check against NumPy (a fast-math build and
    the default one): none fell back to Python."""
    assert native_draws_kernels.compiled.__unpy_native_draws__() == NATIVE
    assert python_calls_kernels.compiled.__unpy_native_draws__() == NATIVE


@given(n=st.integers(0, 25), seed=st.integers(0, 2**32 - 1))
def test_every_native_draw(native_draws_kernels, n, seed):
    same_draws(native_draws_kernels, "every_native_draw", n, seed=seed)
    assert lock_is_free()


@given(n=st.integers(0, 9), seed=st.integers(0, 2**32 - 1), inner=st.integers(0, 2**32 - 1))
def test_seed_inside_the_call(native_draws_kernels, n, seed, inner):
    same_draws(native_draws_kernels, "seeded_inside", inner, n, seed=seed)


@given(n=st.integers(0, 30), seed=st.integers(0, 10**6))
def test_native_and_python_draws_share_the_generator(native_draws_kernels, n, seed):
    """randn natively, standard_cauchy and standard_t through Python: one cached Gaussian."""
    same_draws(native_draws_kernels, "native_and_through_python", n, seed=seed)
    assert lock_is_free()


@given(n=st.integers(0, 12), seed=st.integers(0, 10**6))
def test_an_exception_midway_leaves_the_generator_where_python_does(native_draws_kernels, n,
                                                                    seed):
    outcome = same_draws(native_draws_kernels, "raises_midway", n, seed=seed)
    assert outcome[1] is IndexError
    assert lock_is_free()


@pytest.mark.parametrize("low, high, scale", [
    (0.0, 1.0, 1.0), (-2.5, 4.0, 0.0), (3.0, 3.0, 2.0), (5.0, -5.0, 1e300),
    (-np.inf, 1.0, 1.0), (0.0, np.inf, 1.0), (np.nan, 1.0, 1.0), (-1e308, 1e308, 1.0),
    (0.0, 1.0, -1.0), (0.0, 1.0, -0.0), (0.0, 1.0, np.nan), (0.0, 1.0, -np.nan),
    (0.0, 1.0, np.inf), (0.0, 1.0, -np.inf)])
def test_parameters_numpy_raises_on(native_draws_kernels, low, high, scale):
    """OverflowError for an infinite range, ValueError for a scale with its sign bit set (-0.0
    too, NaN not): NumPy's own function raises, nothing drawn."""
    for seed in (0, 7):
        same_draws(native_draws_kernels, "uniform_normal_exponential", low, high, scale,
                   seed=seed, same_message=True)
    assert lock_is_free()


INT64 = st.integers(-2**63, 2**63 - 1)


@given(low=INT64, high=INT64, n=st.integers(0, 5), seed=st.integers(0, 10**6))
def test_randint_bounds(native_draws_kernels, low, high, n, seed):
    same_draws(native_draws_kernels, "randint_between", low, high, n, seed=seed)


@given(low=st.integers(-100, 100), width=st.integers(-2, 2**34), n=st.integers(0, 40),
       seed=st.integers(0, 10**6))
def test_randint_small_and_32_bit_ranges(native_draws_kernels, low, width, n, seed):
    same_draws(native_draws_kernels, "randint_between", low, low + width, n, seed=seed)


@pytest.mark.parametrize("low, high", [(0, 1), (0, 2**32), (0, 2**32 + 1), (-2**63, 2**63 - 1),
                                       (2**63 - 2, 2**63 - 1), (5, 5), (6, 5)])
def test_randint_edges(native_draws_kernels, low, high):
    for seed in range(4):
        same_draws(native_draws_kernels, "randint_between", low, high, 7, seed=seed,
                   same_message=True)


def test_calls_of_one_draw(native_draws_kernels):
    """Calls of one draw each, between Python's own draws: one stream."""
    for f in (native_draws_kernels.interpreted, native_draws_kernels.compiled):
        np.random.seed(11)
        values = []
        for i in range(50):
            values.append(f.one_draw(i))
            values.append(np.random.randn())
            values.append(f.shifted_gauss(1.0))
        values.append(np.random.get_state())
        if f is native_draws_kernels.interpreted:
            expected = values
    assert values[:-1] == expected[:-1]
    assert_same_state(expected[-1], values[-1], "after the calls")


def test_print_between_draws(native_draws_kernels, capsys):
    """print goes through Python (the lock given back first), the draws after it go on."""
    same_draws(native_draws_kernels, "printed_between", 4, seed=5)
    out = capsys.readouterr().out
    assert out == "".join(f"draw {i}\n" for i in range(4)) * 2
    assert lock_is_free()


def test_a_replaced_function_is_called(native_draws_kernels):
    """np.random.random replaced (unittest.mock): compiled code calls the replacement, as the
    interpreter does; native again once it is back."""
    compiled = native_draws_kernels.compiled
    with mock.patch("numpy.random.random", return_value=0.25):
        assert compiled.one_draw(0) == 0.25
        assert list(compiled.uniform_stream(3)) == [0.25] * 3
    same_draws(native_draws_kernels, "uniform_stream", 5)


def test_a_team_of_threads_that_draws_through_python(native_draws_kernels):
    """Native draws, then a prange whose iterations call a function that draws (its threads
    draw through Python, in any order), then more native draws: the team does not wait for
    the lock the caller held, and the generator ends where the interpreter leaves it."""
    compiled = native_draws_kernels.compiled
    n = 50_000
    compiled.__unpy_fake_load__((8, 8, 1, 1))        # a quiet machine: the whole team
    try:
        expected = seeded_run(native_draws_kernels.interpreted.draws_around_a_team, (n,), 9)
        got = in_thread(seeded_run, compiled.draws_around_a_team, (n,), 9)
        assert compiled.__unpy_last_team__() > 1
    finally:
        compiled.__unpy_fake_load__(None)
    assert got[0][0] == "ok"
    assert got[0][1][0] == expected[0][1][0] and got[0][1][-1] == expected[0][1][-1]
    np.testing.assert_array_equal(got[0][1][1:-1], np.arange(n, dtype=float))
    assert_same_state(expected[1], got[1], "after the team's draws")
    assert lock_is_free()


def test_other_threads_draws_are_neither_lost_nor_repeated(native_draws_kernels):
    """Compiled calls drawing natively on one thread, np.random.random() on another: every
    draw of the stream once, the generator at the end of all of them."""
    compiled = native_draws_kernels.compiled
    calls, per_call, python_draws = 200, 500, 20_000
    np.random.seed(123)
    stream = np.random.random(calls * per_call + python_draws)
    end = np.random.get_state()
    np.random.seed(123)
    drawn = []

    def python_side():
        values = [np.random.random() for _ in range(python_draws)]
        drawn.append(np.array(values))

    other = threading.Thread(target=python_side)
    other.start()
    for _ in range(calls):
        drawn.append(compiled.uniform_stream(per_call))
    other.join(120)
    assert not other.is_alive()
    np.testing.assert_array_equal(np.sort(np.concatenate(drawn)), np.sort(stream))
    assert_same_state(end, np.random.get_state(), "after both threads")
    assert lock_is_free()


def test_an_exception_of_the_first_call_of_a_process(native_draws_kernels):
    """A draw that raises (NumPy's ValueError, through Python) in the first call a process
    makes, whose local arrays die as the exception goes out: the ValueError, not a SystemError
    (the first array's death looked up the residency counters, an import that dropped it)."""
    import subprocess
    import sys
    script = (f"import importlib.util\n"
              f"spec = importlib.util.spec_from_file_location('native_draws', "
              f"{native_draws_kernels.compiled.__file__!r})\n"
              f"m = importlib.util.module_from_spec(spec)\n"
              f"spec.loader.exec_module(m)\n"
              f"try:\n"
              f"    m.randint_between(5, 3, 2)\n"
              f"except Exception as e:\n"
              f"    print(type(e).__name__, e)\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=300)
    assert done.stdout.strip() == "ValueError low >= high", done.stdout + done.stderr
