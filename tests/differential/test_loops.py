"""Control flow, interpreter vs compiled: range with 1-3 arguments, negative and variable steps,
a zero step, the loop variable after the loop, while, break, continue, if/elif/else, early
return, augmented assignments, declared locals."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

SETTINGS = settings(max_examples=50, deadline=None)
small = st.integers(-12, 12)


def test_range_one_argument(loops_kernels):
    for n in range(-3, 15):
        loops_kernels.check("range1", n)


@SETTINGS
@given(small, small)
def test_range_two_arguments(loops_kernels, a, b):
    loops_kernels.check("range2", a, b)


@SETTINGS
@given(small, small, st.integers(-5, 5).filter(bool))
def test_range_three_arguments(loops_kernels, a, b, step):
    loops_kernels.check("range3", a, b, step)
    loops_kernels.check("loop_var_after_stepped_loop", a, b, step)


@SETTINGS
@given(small, small)
def test_range_negative_literal_steps(loops_kernels, a, b):
    loops_kernels.check("range_negative_step", a, b)
    loops_kernels.check("range_step_minus3", a, b)


@SETTINGS
@given(st.integers(0, 9), st.integers(-6, 6).filter(bool))
def test_range_variable_step(loops_kernels, n, step):
    loops_kernels.check("variable_step_loop", n, step)


def test_range_extreme_bounds(loops_kernels):
    """The trip count of a range near the int64 limits does not overflow."""
    big = 2**63 - 1
    for a, b, step in [(big - 3, big, 1), (-big - 1, -big + 2, 1), (big, big - 5, -2),
                       (-big, big, big), (big, -big - 1, -big), (0, big, 2**62)]:
        loops_kernels.check("range_count", a, b, step)
        loops_kernels.check("loop_var_after_stepped_loop", a, b, step)


def test_range_literal_steps_near_the_int64_limits(loops_kernels):
    big = 2**63 - 1
    for a, b in [(-big + 1, -big - 1), (-big + 5, -big - 1), (big, big - 7), (3, -4)]:
        loops_kernels.check("range_step_minus3", a, b)
        loops_kernels.check("range_negative_step", a, b)
    for a, b in [(big - 2, big), (big - 9, big), (-big - 1, -big + 3)]:
        loops_kernels.check("range_step_2", a, b)


def test_range_step_zero_raises(loops_kernels):
    error = loops_kernels.check("range3", 0, 10, 0)
    assert isinstance(error, ValueError) and "must not be zero" in str(error)
    assert isinstance(loops_kernels.check("variable_step_loop", 3, 0), ValueError)


def test_loop_variable_after_the_loop(loops_kernels):
    """The loop variable keeps its last value; a loop that does not run leaves it unchanged."""
    for n in (0, 1, 5):
        loops_kernels.check("loop_var_after_loop", n)
    assert loops_kernels.compiled.loop_var_after_loop(5) == 4
    assert loops_kernels.compiled.loop_var_after_loop(0) == -100
    for n in (0, 1, 10, 50, 10**4 + 1):
        loops_kernels.check("loop_var_after_break", n)


@pytest.mark.parametrize("func", ["reassign_loop_var", "range_evaluated_once", "while_loop",
                                  "while_break_continue", "for_break_continue", "elif_chain",
                                  "while_int_truth", "early_return", "nested_triangle",
                                  "pass_statement", "bool_local", "augmented_ops",
                                  "int_then_float_local", "declared_local"])
def test_one_argument_functions(loops_kernels, func):
    for n in [-20, -11, -10, -1, 0, 1, 2, 3, 7, 9, 10, 11, 25]:
        loops_kernels.check(func, n)


def test_nested_break(loops_kernels):
    for n, m in [(0, 3), (3, 0), (4, 4), (6, 2)]:
        loops_kernels.check("nested_break", n, m)


def test_float_truth(loops_kernels):
    for x in [0.0, -0.0, 1e-300, -2.0, np.inf, np.nan]:
        loops_kernels.check("if_float_truth", x)


def test_tuple_assignment_evaluates_all_values_first(loops_kernels):
    assert loops_kernels.compiled.swap_tuple(1, 2) == 21
    loops_kernels.check("swap_tuple", 5, -3)


def test_newton_iteration(loops_kernels):
    for x in [0.0, 2.0, 1e-6, 1e10, 12345.678]:
        loops_kernels.check("newton_sqrt", x)


def test_declared_local_keeps_its_type(loops_kernels):
    result = loops_kernels.compiled.declared_local(10)
    assert type(result) is np.float32
