"""Calls through Python in compiled code (tests/kernels/python_calls.py) against the
interpreter: from the same seed of np.random's and Python's random module's generators, the
same values, dtypes and exceptions, and the generators left in the same state (the next draw
after the call is the same); time's clocks."""
import random

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from diffcheck import assert_same, copy_args


def seeded_run(f, args, seed):
    """f(*args) with both generators seeded, then the next draw of each: the generators' state
    after the call."""
    np.random.seed(seed)
    random.seed(seed)
    try:
        outcome = ("ok", f(*args))
    except Exception as exc:        # noqa: BLE001 (compared with the interpreter's)
        outcome = ("raise", type(exc))
    return outcome, np.random.random(), random.random(), args


def same_draws(kernels, name, *args, seed=3, rtol=0.0):
    expected = seeded_run(getattr(kernels.interpreted, name), copy_args(args), seed)
    got = seeded_run(getattr(kernels.compiled, name), copy_args(args), seed)
    assert got[0][0] == expected[0][0], (name, expected[0], got[0])
    if expected[0][0] == "ok":
        assert_same(expected[0][1], got[0][1], rtol=rtol, what=name)
    else:
        assert got[0][1] is expected[0][1]
    assert got[1:3] == expected[1:3], f"{name}: the generators' state after the call differs"
    for a, b in zip(expected[3], got[3]):
        if isinstance(a, np.ndarray):
            assert_same(a, b, what=f"{name}: an argument after the call")


@given(n=st.integers(1, 300), seed=st.integers(0, 2**32 - 1))
def test_scalar_draws_in_a_loop(python_calls_kernels, n, seed):
    same_draws(python_calls_kernels, "monte_carlo_pi", n, seed=seed)


@pytest.mark.parametrize("n, seed", [(1, 0), (1000, 5)])
def test_ranf_and_sample_are_random_sample(python_calls_kernels, n, seed):
    same_draws(python_calls_kernels, "calc_pi_ranf", n, seed=seed)


@given(n=st.integers(0, 7), m=st.integers(0, 7), seed=st.integers(0, 1000))
def test_arrays_of_draws(python_calls_kernels, n, m, seed):
    same_draws(python_calls_kernels, "seeded_fields", seed, n, m)
    same_draws(python_calls_kernels, "integer_draws", seed, n * m)


@given(n=st.integers(1, 12), seed=st.integers(0, 1000))
def test_shuffles_permutations_and_choices(python_calls_kernels, n, seed):
    x = np.random.default_rng(seed).random(n)
    same_draws(python_calls_kernels, "shuffled", x, seed)
    same_draws(python_calls_kernels, "shuffled", x[::-2].copy() if n > 1 else x, seed)


def test_a_choice_of_an_empty_array_raises_as_numpy(python_calls_kernels):
    same_draws(python_calls_kernels, "shuffled", np.zeros(0), 1)


@given(n=st.integers(0, 40), seed=st.integers(0, 1000))
def test_python_random_module(python_calls_kernels, n, seed):
    same_draws(python_calls_kernels, "python_random", seed, n)


@pytest.mark.parametrize("low, high", [(0, 10), (-5, -4), (3, 3), (4, 2)])
def test_draw_errors_as_numpy(python_calls_kernels, low, high):
    same_draws(python_calls_kernels, "draw_between", low, high)


@given(n=st.integers(0, 30), p=st.floats(0, 1), seed=st.integers(0, 1000))
def test_draws_only_where_python_evaluates_them(python_calls_kernels, n, p, seed):
    x = np.random.default_rng(seed).random(n)
    same_draws(python_calls_kernels, "random_walk", x, p, seed=seed)


@pytest.mark.parametrize("n", [-1, 0, 1, 2, 5])
def test_operands_python_does_not_evaluate_do_not_raise(python_calls_kernels, n):
    same_draws(python_calls_kernels, "largest_of_first", np.array([0.9, 0.2, 0.7, 0.4, 0.8]), n)


def test_draws_before_a_prange(python_calls_kernels):
    same_draws(python_calls_kernels, "noisy_smoothing", np.arange(12.0).reshape(3, 4), 0.1)


@pytest.mark.parametrize("args", [(-0.4, 0.6, 12), (-0.4, 0.6, 9, 1.2, 100.0, 50), (0.3, 0.0, 0)])
def test_clocks_and_a_whole_float_default_for_an_int(python_calls_kernels, args):
    """Pythran's julia as written: `cutoff=1e6` for an int parameter is the int 1000000;
    `time()` and `time.perf_counter()` are Python's clocks."""
    expected = python_calls_kernels.interpreted.timed_julia(*args)
    got = python_calls_kernels.compiled.timed_julia(*args)
    assert_same(expected[0], got[0], what="timed_julia")
    assert isinstance(got[1], float) and 0.0 <= got[1] < 60.0


@given(n=st.integers(0, 6), rows=st.integers(1, 4), seed=st.integers(0, 1000))
def test_one_draw_per_evaluation_in_array_statements(python_calls_kernels, n, rows, seed):
    a = np.random.default_rng(seed).random((rows, 3))
    # (NumPy's sums go in another order: rtol; the draws themselves are exact)
    same_draws(python_calls_kernels, "draws_in_array_statements", n, a, seed=seed, rtol=1e-12)


@pytest.mark.parametrize("k", [0, 1, 31, 63, -1])
def test_random_bits(python_calls_kernels, k):
    same_draws(python_calls_kernels, "random_bits", k)


def test_random_bits_beyond_an_int64_raise_overflow(python_calls_kernels):
    import random
    random.seed(3)
    assert random.getrandbits(64) >= 2**63      # (the draw the compiled call makes below)
    random.seed(3)
    with pytest.raises(OverflowError):
        python_calls_kernels.compiled.random_bits(64)
