"""Calls through Python as published code makes them: random numbers from np.random's
functions and Python's random module, seeded inside or before the call, and time's clocks.
Reference: the same functions under the interpreter, from the same seed
(tests/differential/test_python_calls.py)."""
import random
import time
from time import time as now

import numpy as np
import unpython
from numpy.random import standard_normal
from unpython import prange


@unpython.type('int64', 'float64')
def monte_carlo_pi(n):
    # Numba's classic example, as a serial loop (a prange's iterations would draw in any order)
    inside = 0
    for i in range(n):
        x = np.random.random()
        y = np.random.random()
        if x * x + y * y < 1.0:
            inside += 1
    return 4.0 * inside / n


@unpython.type('int64', 'int64', 'int64', 'ndarray[float64, 2]')
def seeded_fields(seed, n, m):
    np.random.seed(seed)
    u = np.random.rand(n, m)
    v = 0.5 * np.random.randn(n, m) - u
    w = np.random.uniform(-1.0, 2.0, size=(n, m))
    z = np.random.normal(3.0, scale=0.5, size=(n, m))
    return u + v * w - z + np.random.standard_normal((n, m)) + standard_normal((n, m))


@unpython.type('int64', 'float64')
def calc_pi_ranf(n_samples):
    # dsysoev/fun-with-python's Numba example: ranf and sample, NumPy's names of random_sample
    x = np.random.ranf(n_samples)
    y = np.random.sample(n_samples)
    return 4 * np.sum(x ** 2 + y ** 2 < 1) / n_samples + np.random.ranf() * 0.0


@unpython.type('int64', 'int64', 'ndarray[int64, 1]')
def integer_draws(seed, n):
    np.random.seed(seed)
    a = np.random.randint(0, 10, size=n)
    b = np.random.randint(5, size=n)
    c = np.random.poisson(2.5, n)
    d = np.random.binomial(7, 0.3, size=n)
    k = np.random.randint(1, 4)
    return a + b * 10 + c * 100 + d * 1000 + k


@unpython.type('ndarray[float64, 1]', 'int64', 'ndarray[float64, 1]')
def shuffled(x, seed):
    np.random.seed(seed)
    y = x.copy()
    np.random.shuffle(y)
    p = np.random.permutation(x.shape[0])
    q = np.random.permutation(x)
    picked = np.random.choice(x, size=3)
    return y + x[p] + q + picked[0] + np.random.choice(5)


@unpython.type('int64', 'int64', 'float64')
def python_random(seed, n):
    random.seed(seed)
    total = 0.0
    for i in range(n):
        total += random.random() + random.uniform(1.0, 2.0) + random.gauss(0.0, 1.0)
        total += random.randint(1, 6) + random.randrange(10) + random.expovariate(2.0)
        total += random.getrandbits(8) + (random.getrandbits(63) & 7)
    return total


@unpython.type('ndarray[float64, 1]', 'float64', 'ndarray[float64, 1]')
def random_walk(x, p):
    # a draw in a later operand of `and` and in a conditional expression runs only where
    # Python evaluates it (the generator's stream stays the interpreter's)
    out = np.empty_like(x)
    for i in range(x.shape[0]):
        step = np.random.normal() if x[i] > 0.5 else 0.0
        if x[i] < p and np.random.random() < 0.5:
            step += 1.0
        out[i] = step
    return out


@unpython.type('ndarray[float64, 2]', 'float64', 'ndarray[float64, 2]')
def noisy_smoothing(a, sigma):
    # draws before a prange that reads them: the parallel nest stays parallel
    noise = sigma * np.random.standard_normal(a.shape)
    out = np.empty_like(a)
    for i in prange(a.shape[0]):
        for j in range(a.shape[1]):
            out[i, j] = a[i, j] + noise[i, j]
    return out


@unpython.type('int64', 'int64', 'int64')
def draw_between(low, high):
    return np.random.randint(low, high)        # ValueError where high <= low, as NumPy's


# --- operands Python may not evaluate ---------------------------------------------------------

@unpython.type('ndarray[float64, 1]', 'int64', 'float64')
def largest_of_first(a, n):
    # a[:0].max() raises ValueError: only evaluated where n > 0, as in Python
    top = a[:n].max() if n > 0 else -1.0
    if n > 0 and a[:n].min() < 0.5:
        top += 1.0
    if n <= 0 or a[:n].sum() > 1.0:
        top += 10.0
    return top


# --- clocks (Pythran's julia, as written: a float default for an int parameter) -------------

@unpython.type('float64', 'float64', 'float64', 'float64', 'float64', 'float64', 'int64')
def escape_count(zr, zi, cr, ci, lim, cutoff):
    count = 0
    while ((zr * zr + zi * zi) < (lim * lim)) and count < cutoff:
        zr, zi = zr * zr - zi * zi + cr, 2 * zr * zi + ci
        count += 1
    return count


@unpython.type('float64', 'float64', 'int64', 'float64', 'float64', 'int64',
               'tuple[ndarray[uint32, 2], float64]')
def timed_julia(cr, ci, n, bound=1.5, lim=1000., cutoff=1e6):
    julia = np.empty((n, n), np.uint32)
    grid_x = np.linspace(-bound, bound, n)
    t0 = now()
    started = time.perf_counter()
    for i, x in enumerate(grid_x):
        for j, y in enumerate(grid_x):
            julia[i, j] = escape_count(x, y, cr, ci, lim, cutoff)
    assert time.perf_counter() >= started
    return julia, now() - t0


@unpython.type('int64', 'ndarray[float64, 2]', 'float64')
def draws_in_array_statements(n, a):
    # one draw per evaluation: inside a reduction along an axis, and in a mask (whose
    # selected elements are counted, then copied: two scans of one expression)
    s = np.sum(np.random.rand(n)) + np.sum(a + np.random.random(), axis=1).max()
    return s + a[a > np.random.random()].sum()


@unpython.type('int64', 'int64')
def random_bits(k):
    return random.getrandbits(k)      # OverflowError past 63 bits (an int64), ValueError below 0
