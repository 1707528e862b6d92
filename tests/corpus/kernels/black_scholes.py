"""Black-Scholes European call and put prices on arrays of options, with the normal CDF as the
Abramowitz & Stegun polynomial (26.2.17) in a second compiled function, np.where for the sign."""
import numpy as np

import unpython


@unpython.gpu
@unpython.type('ndarray[float64, 1]', 'ndarray[float64, 1]')
def cnd(x):
    k = 1.0 / (1.0 + 0.2316419 * np.abs(x))
    poly = k * (0.319381530 + k * (-0.356563782 + k * (1.781477937 + k * (-1.821255978
                                                                           + k * 1.330274429))))
    cdf = 1.0 - np.exp(-0.5 * x * x) / np.sqrt(2.0 * np.pi) * poly
    return np.where(x < 0.0, 1.0 - cdf, cdf)


@unpython.gpu
@unpython.type('ndarray[float64, 1]', 'ndarray[float64, 1]', 'ndarray[float64, 1]', 'float64',
               'float64', 'ndarray[float64, 1]', 'ndarray[float64, 1]', None)
def black_scholes(price, strike, t, rate, vol, call, put):
    sig_sqrt_t = vol * np.sqrt(t)
    d1 = (np.log(price / strike) + (rate + 0.5 * vol * vol) * t) / sig_sqrt_t
    d2 = d1 - sig_sqrt_t
    discount = strike * np.exp(-rate * t)
    nd1 = cnd(d1)
    nd2 = cnd(d2)
    call[:] = price * nd1 - discount * nd2
    put[:] = discount * (1.0 - nd2) - price * (1.0 - nd1)


def inputs(rng, scale=1):
    n = 2000 * scale
    return (rng.uniform(5.0, 30.0, n), rng.uniform(1.0, 100.0, n), rng.uniform(0.25, 10.0, n),
            0.02, 0.30, np.zeros(n), np.zeros(n))


LARGE = 3300
FUNCTION = "black_scholes"
