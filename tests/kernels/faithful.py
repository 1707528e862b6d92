"""Kernels where the interpreter raises what compiled code used to compute past: a local read
on a path that did not assign it (UnboundLocalError) and a Python float divided by zero
(ZeroDivisionError). tests/differential/test_faithful.py runs them against the interpreter,
OpenMP and (the @gpu ones) the GPU path."""
import unpython
from unpython import prange


@unpython.type('int64', 'float64')
def assigned_on_one_branch(n):
    if n > 0:
        x = 1.5
    return x


@unpython.type('int64', 'int64')
def loop_variable_after_the_loop(n):
    for i in range(n):
        pass
    return i


@unpython.type('ndarray[float64, 1]', 'float64')
def first_assigned_in_a_loop(a):
    for i in range(a.shape[0]):
        last = a[i]
    return last


@unpython.type('int64', 'float64', 'float64')
def read_under_and(n, y):
    if n > 3:
        x = 2.0
    if n > 0 and x > y:
        return 1.0
    return 0.0


@unpython.type('int64', 'float64')
def read_in_a_conditional_expression(n):
    if n > 5:
        x = 3.0
    return x if n > 2 else -1.0


@unpython.type('int64', 'float64', 'bool')
def read_in_a_chain(n, y):
    if n > 1:
        x = 2.0
    return 0.0 < y < x


@unpython.type('int64', 'float64')
def read_in_a_while_test(n):
    k = 0
    while k < n:
        if k > 2:
            t = 1.0
        k += 1
    while t > 0.5 and k > 0:
        k -= 1
    return t


@unpython.type('ndarray[float64, 1]', 'int64', None)
def read_inside_a_prange(a, n):
    if n > 0:
        c = 2.0
    for i in prange(a.shape[0]):
        a[i] = a[i] * c


@unpython.type('ndarray[float64, 1]', 'int64')
def prange_variable_after_the_loop(a):
    for i in prange(a.shape[0]):
        a[i] = 1.0
    return i


@unpython.type('int64', 'float64')
def reduction_of_an_unassigned(n):
    if n > 10:
        s = 0.0
    for i in prange(n):
        s += 1.0
    return 0.0


@unpython.type('float64', 'float64', 'float64')
def true_divide(x, y):
    return x / y


@unpython.type('float64', 'float64', 'float64')
def floor_divide(x, y):
    return x // y


@unpython.type('float64', 'float64', 'float64')
def remainder(x, y):
    return x % y


@unpython.type('float64', 'float64', 'float64')
def power(x, y):
    return x ** y


@unpython.type('ndarray[float64, 1]', 'float64')
def per_element(a):
    h = 1.0 / len(a)
    return h


@unpython.type('ndarray[float64, 1]', 'float64')
def mean(a):
    s = 0.0
    for i in prange(a.shape[0]):
        s += a[i]
    return s / a.shape[0]


@unpython.type('ndarray[float64, 1]', 'float64')
def mean_sequential(a):
    s = 0.0
    for i in range(a.shape[0]):
        s += a[i]
    return s / len(a)


@unpython.type('ndarray[float64, 1]', 'float64')
def python_sum_divided(a):
    s = 0.0
    for i in range(a.shape[0]):
        s += 1.0
    return s / (len(a) - 3)


@unpython.type('ndarray[float64, 1]', None)
def divide_in_a_prange(a):
    k = a.shape[0] // 2
    for i in prange(a.shape[0]):
        a[i] = 1.0 / (i - k)


@unpython.type('ndarray[float64, 1]', 'complex128')
def complex_divide(a):
    z = 1j
    return z / a.shape[0]


@unpython.type('ndarray[float64, 1]', 'float64', None)
def never_zero_divisor(a, x):
    for i in range(a.shape[0]):
        a[i] = 1.0 / (1.0 + x * x)


@unpython.gpu
@unpython.type('ndarray[float64, 1]', 'int64', None)
def gpu_read_inside_a_prange(a, n):
    if n > 0:
        c = 2.0
    for i in prange(a.shape[0]):
        a[i] = a[i] * c


@unpython.gpu
@unpython.type('ndarray[float64, 1]', None)
def gpu_divide_in_a_prange(a):
    k = a.shape[0] // 2
    for i in prange(a.shape[0]):
        a[i] = 1.0 / (i - k)


@unpython.gpu
@unpython.type('ndarray[float64, 1]', 'float64')
def gpu_mean(a):
    s = 0.0
    for i in prange(a.shape[0]):
        s += a[i]
    return s / a.shape[0]


@unpython.gpu
@unpython.type('ndarray[float64, 2]', 'float64', 'float64', None)
def gpu_step(a, dt, dx):
    """`1.0 / dt` in a nest: checked once, before the loops, for a Python float dt."""
    for i in prange(a.shape[0]):
        for j in prange(a.shape[1]):
            a[i, j] = a[i, j] * (1.0 / dt) + dx / dt
