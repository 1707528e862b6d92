"""Black-Scholes as one prange loop (the same computation as black_scholes_expr.py)."""
import numpy as np

import unpython
from unpython import prange


@unpython.gpu
@unpython.type('ndarray[float64, 1]', 'ndarray[float64, 1]', 'ndarray[float64, 1]', 'float64',
               'float64', 'ndarray[float64, 1]', 'ndarray[float64, 1]', None)
def black_scholes(price, strike, t, rate, vol, call, put):
    for i in prange(price.shape[0]):
        sig_sqrt_t = vol * np.sqrt(t[i])
        d1 = (np.log(price[i] / strike[i]) + (rate + 0.5 * vol * vol) * t[i]) / sig_sqrt_t
        d2 = d1 - sig_sqrt_t
        k1 = 1.0 / (1.0 + 0.2316419 * abs(d1))
        c1 = 1.0 - np.exp(-0.5 * d1 * d1) * 0.3989422804014327 * k1 * (
            0.319381530 + k1 * (-0.356563782 + k1 * (1.781477937 + k1 * (-1.821255978
                                                                         + k1 * 1.330274429))))
        nd1 = 1.0 - c1 if d1 < 0.0 else c1
        k2 = 1.0 / (1.0 + 0.2316419 * abs(d2))
        c2 = 1.0 - np.exp(-0.5 * d2 * d2) * 0.3989422804014327 * k2 * (
            0.319381530 + k2 * (-0.356563782 + k2 * (1.781477937 + k2 * (-1.821255978
                                                                         + k2 * 1.330274429))))
        nd2 = 1.0 - c2 if d2 < 0.0 else c2
        discount = strike[i] * np.exp(-rate * t[i])
        call[i] = price[i] * nd1 - discount * nd2
        put[i] = discount * (1.0 - nd2) - price[i] * (1.0 - nd1)
