"""Black-Scholes with the exact normal CDF through math.erf: d1 and d2 as array expressions,
then a prange over the elements for erf (NumPy has no erf), as a Numba user writes it."""
import math

import numpy as np

import unpython
from unpython import prange


@unpython.gpu
@unpython.type('ndarray[float64, 1]', 'ndarray[float64, 1]', 'ndarray[float64, 1]', 'float64',
               'float64', 'ndarray[float64, 1]', 'ndarray[float64, 1]', None)
def black_scholes_erf(price, strike, t, rate, vol, call, put):
    sig_sqrt_t = vol * np.sqrt(t)
    d1 = (np.log(price / strike) + (rate + 0.5 * vol * vol) * t) / sig_sqrt_t
    d2 = d1 - sig_sqrt_t
    nd1 = np.empty_like(d1)
    nd2 = np.empty_like(d2)
    for i in prange(d1.shape[0]):
        nd1[i] = 0.5 * (1.0 + math.erf(d1[i] / math.sqrt(2.0)))
        nd2[i] = 0.5 * (1.0 + math.erf(d2[i] / math.sqrt(2.0)))
    discount = strike * np.exp(-rate * t)
    call[:] = price * nd1 - discount * nd2
    put[:] = discount * (1.0 - nd2) - price * (1.0 - nd1)


def inputs(rng, scale=1):
    n = 2000 * scale
    return (rng.uniform(5.0, 30.0, n), rng.uniform(1.0, 100.0, n), rng.uniform(0.25, 10.0, n),
            0.02, 0.30, np.zeros(n), np.zeros(n))


LARGE = 2000
FUNCTION = "black_scholes_erf"
