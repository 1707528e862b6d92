"""Control flow of compiled functions (SPEC section 3): range with 1-3 arguments and any step,
while, break, continue, if/elif/else, the loop variable after the loop. Reference: the
interpreter (tests/differential/test_loops.py)."""
import numpy as np
import unpython


@unpython.type('int64', 'int64')
def range1(n):
    s = 0
    for i in range(n):
        s = s * 3 + i
    return s


@unpython.type('int64', 'int64', 'int64')
def range2(a, b):
    s = 0
    for i in range(a, b):
        s = s * 3 + i
    return s


@unpython.type('int64', 'int64', 'int64', 'int64')
def range3(a, b, step):
    s = 0
    for i in range(a, b, step):
        s = s * 7 + i
    return s


@unpython.type('int64', 'int64', 'int64', 'int64')
def range_count(a, b, step):
    count = 0
    for i in range(a, b, step):
        count += 1
    return count


@unpython.type('int64', 'int64', 'int64')
def range_negative_step(a, b):
    s = 0
    for i in range(a, b, -1):
        s = (s * 5 + i % 1000) % 1000003
    return s


@unpython.type('int64', 'int64', 'int64')
def range_step_2(a, b):
    count = 0
    for i in range(a, b, 2):
        count += 1
    return count * 10 + i % 10


@unpython.type('int64', 'int64', 'int64')
def range_step_minus3(a, b):
    s = 0
    for i in range(a, b, -3):
        s = (s * 5 + i % 1000) % 1000003
    return s


@unpython.type('int64', 'int64')
def loop_var_after_loop(n):
    i = -100
    for i in range(n):
        pass
    return i


@unpython.type('int64', 'int64', 'int64', 'int64')
def loop_var_after_stepped_loop(a, b, step):
    i = -100
    for i in range(a, b, step):
        pass
    return i


@unpython.type('int64', 'int64')
def loop_var_after_break(n):
    for i in range(100):
        if i * i >= n:
            break
    return i


@unpython.type('int64', 'int64')
def reassign_loop_var(n):
    # Assigning the loop variable does not change the iteration (range is evaluated once).
    s = 0
    for i in range(n):
        s += i
        i = i * 10
        s += i
    return s


@unpython.type('int64', 'int64')
def range_evaluated_once(n):
    count = 0
    for i in range(n):
        n = n - 1
        count += 1
    return count * 100 + n


@unpython.type('int64', 'int64')
def while_loop(n):
    s = 0
    i = 0
    while i < n:
        s += i * i
        i += 1
    return s


@unpython.type('int64', 'int64')
def while_break_continue(n):
    s = 0
    i = 0
    while True:
        i += 1
        if i > n:
            break
        if i % 3 == 0:
            continue
        s += i
    return s


@unpython.type('int64', 'int64')
def for_break_continue(n):
    s = 0
    for i in range(n):
        if i % 2 == 1:
            continue
        if i > 20:
            break
        s += i
    return s


@unpython.type('int64', 'int64', 'int64')
def nested_break(n, m):
    # `break` leaves the innermost loop only.
    s = 0
    for i in range(n):
        for j in range(m):
            if j > i:
                break
            s += 10 * i + j
    return s


@unpython.type('int64', 'int64')
def elif_chain(x):
    if x < -10:
        r = 1
    elif x < 0:
        r = 2
    elif x == 0:
        r = 3
    elif x < 10:
        r = 4
    else:
        r = 5
    return r


@unpython.type('float64', 'int64')
def if_float_truth(x):
    # A float is true when it is non-zero (nan is true).
    if x:
        return 1
    return 0


@unpython.type('int64', 'int64')
def while_int_truth(n):
    k = 0
    if n < 0:
        n = -n
    while n:
        n = n // 2
        k += 1
    return k


@unpython.type('int64', 'int64')
def early_return(n):
    for i in range(n):
        for j in range(n):
            if i * j == 12:
                return i * 100 + j
    return -1


@unpython.type('int64', 'int64')
def nested_triangle(n):
    s = 0
    for i in range(n):
        for j in range(i, n):
            for k in range(j, i - 1, -1):
                s += i * 100 + j * 10 + k
    return s


@unpython.type('int64', 'int64')
def pass_statement(n):
    if n > 0:
        pass
    else:
        n = -n
    return n


@unpython.type('int64', 'int64', 'int64')
def swap_tuple(a, b):
    a, b = b, a
    return a * 10 + b


@unpython.type('float64', 'float64')
def newton_sqrt(x):
    """The docstring of a compiled function is allowed."""
    guess = x
    if x <= 0.0:
        return 0.0
    while abs(guess * guess - x) > 1e-12 * x:
        guess = 0.5 * (guess + x / guess)
    return guess


@unpython.type('int64', 'int64', 'int64')
def variable_step_loop(n, step):
    s = 0
    for i in range(n, -n, step):
        s = s * 3 + i
    return s


@unpython.type('int64', 'int64')
def bool_local(n):
    found = False
    for i in range(n):
        if i == 7:
            found = True
    if found:
        return 1
    return 0


@unpython.locals(acc='float32')
@unpython.type('int64', 'float32')
def declared_local(n):
    acc = np.float32(0.0)       # the interpreter needs the float32 too; 0.0 would do when compiled
    for i in range(n):
        acc += 0.1
    return acc


@unpython.type('int64', 'int64')
def augmented_ops(n):
    x = n
    x += 3
    x -= 1
    x *= 7
    x //= 2
    x %= 1000
    x **= 2
    x |= 5
    x &= 1023
    x ^= 17
    x <<= 2
    x >>= 1
    return x


@unpython.type('int64', 'float64')
def int_then_float_local(n):
    x = 1.0
    x = n       # int into a float variable widens
    return x / 2
