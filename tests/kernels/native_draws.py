"""np.random's draws that compiled code makes without Python (typeinfer/python_calls.NATIVE:
NumPy's legacy generator drawn natively), beside those it still makes through Python, and what
happens around them: np.random.seed inside the call, an exception in the middle, Python code
between two draws, a team of threads after them. Built with --fastmath (tests/diffcheck.py
FASTMATH): the draws stay NumPy's bit for bit whatever the flags. Reference: the same functions
under the interpreter, from the same seed (tests/differential/test_native_draws.py)."""
import numpy as np
import unpython
from numpy.random import randn
from unpython import prange


@unpython.type('int64', 'ndarray[float64, 1]')
def every_native_draw(n):
    # each function NATIVE has, as a scalar and as an array; the draws themselves returned (no
    # arithmetic on them: the module is built with fast-math)
    out = np.empty(20 * n + 60)
    k = 0
    for i in range(n):
        out[k] = np.random.random()
        out[k + 1] = np.random.random_sample()
        out[k + 2] = np.random.ranf()
        out[k + 3] = np.random.sample()
        out[k + 4] = np.random.rand()
        out[k + 5] = np.random.standard_normal()
        out[k + 6] = np.random.randn()
        out[k + 7] = np.random.normal()
        out[k + 8] = np.random.normal(2.5, 0.5)
        out[k + 9] = np.random.normal(scale=3.0, loc=-1.0)
        out[k + 10] = np.random.uniform()
        out[k + 11] = np.random.uniform(-3.0, 7.0)
        out[k + 12] = np.random.uniform(high=i + 1)
        out[k + 13] = np.random.standard_exponential()
        out[k + 14] = np.random.exponential()
        out[k + 15] = np.random.exponential(0.25)
        out[k + 16] = np.random.randint(10)
        out[k + 17] = np.random.randint(-5, 1 + i)
        out[k + 18] = np.random.randint(0, 2 ** 40)
        out[k + 19] = randn()
        k += 20
    m = 5
    out[k:k + m] = np.random.random(m)
    out[k + m:k + 2 * m] = np.random.rand(m)
    out[k + 2 * m:k + 4 * m] = np.random.randn(2, m).ravel()
    out[k + 4 * m:k + 5 * m] = np.random.standard_normal(m)
    out[k + 5 * m:k + 6 * m] = np.random.normal(1.0, 2.0, size=m)
    out[k + 6 * m:k + 7 * m] = np.random.uniform(-1.0, 1.0, m)
    out[k + 7 * m:k + 8 * m] = np.random.exponential(2.0, m)
    out[k + 8 * m:k + 9 * m] = np.random.standard_exponential(m)
    out[k + 9 * m:k + 10 * m] = np.random.randint(3, 1000, m)
    out[k + 10 * m:k + 12 * m] = np.random.ranf((2, m)).ravel()
    return out


@unpython.type('int64', 'int64', 'ndarray[float64, 1]')
def seeded_inside(seed, n):
    # np.random.seed (through Python) between native draws
    out = np.empty(3 * n)
    for i in range(n):
        out[i] = np.random.standard_normal()
    np.random.seed(seed)
    for i in range(n):
        out[n + i] = np.random.standard_normal()
        out[2 * n + i] = np.random.random()
    return out


@unpython.type('int64', 'ndarray[float64, 1]')
def native_and_through_python(n):
    # native draws between draws NumPy's functions make through Python; standard_cauchy and
    # standard_t draw Gaussians through the same cached second one as randn
    out = np.empty(6 * n)
    for i in range(n):
        out[6 * i] = np.random.randn()
        out[6 * i + 1] = np.random.standard_cauchy()
        out[6 * i + 2] = np.random.poisson(3.5)
        out[6 * i + 3] = np.random.normal(0.0, 2.0)
        out[6 * i + 4] = np.random.standard_t(4.0)
        out[6 * i + 5] = np.random.randint(0, 7 + i)
    return out


@unpython.type('int64', 'ndarray[float64, 1]')
def raises_midway(n):
    # IndexError at the last iteration, after its draws: the draws made stay made
    out = np.empty(n)
    for i in range(n + 1):
        g = np.random.randn()
        out[i] = g + np.random.random()
    return out


@unpython.type('float64', 'float64', 'float64', 'tuple[float64, float64, float64]')
def uniform_normal_exponential(low, high, scale):
    # parameters NumPy raises on (an infinite range, a negative scale, -0.0) raise as NumPy's;
    # NaN draws as NumPy does
    return np.random.uniform(low, high), np.random.normal(1.0, scale), np.random.exponential(scale)


@unpython.type('int64', 'int64', 'int64', 'ndarray[int64, 1]')
def randint_between(low, high, n):
    out = np.empty(n + 1, np.int64)
    out[:n] = np.random.randint(low, high, size=n)
    out[n] = np.random.randint(low, high)
    return out


@unpython.type('int64', 'float64')
def one_draw(i):
    return np.random.random()


@unpython.type('float64', 'float64')
def shifted_gauss(x):
    return x + np.random.randn()


@unpython.type('int64', 'ndarray[float64, 1]')
def printed_between(n):
    out = np.empty(2 * n)
    for i in range(n):
        out[2 * i] = np.random.random()
        print("draw", i)
        out[2 * i + 1] = np.random.randn()
    return out


@unpython.type('int64', 'ndarray[float64, 1]')
def draws_around_a_team(n):
    # draws before and after a parallel nest whose iterations each call a function that draws
    # (through Python: the team's threads take them in any order)
    out = np.empty(n + 2)
    out[0] = np.random.random()
    for i in prange(n):
        out[i + 1] = shifted_gauss(0.0) * 0.0 + i
    out[n + 1] = np.random.random()
    return out


@unpython.type('int64', 'ndarray[float64, 1]')
def uniform_stream(n):
    out = np.empty(n)
    for i in range(n):
        out[i] = np.random.random()
    return out
