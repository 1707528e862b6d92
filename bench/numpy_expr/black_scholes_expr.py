"""Black-Scholes European call and put prices, the normal CDF as the Abramowitz & Stegun
polynomial (26.2.17) with np.where for the sign."""
import numpy as np

import unpython


@unpython.gpu
@unpython.type('ndarray[float64, 1]', 'ndarray[float64, 1]', 'ndarray[float64, 1]', 'float64',
               'float64', 'ndarray[float64, 1]', 'ndarray[float64, 1]', None)
def black_scholes(price, strike, t, rate, vol, call, put):
    sig_sqrt_t = vol * np.sqrt(t)
    d1 = (np.log(price / strike) + (rate + 0.5 * vol * vol) * t) / sig_sqrt_t
    d2 = d1 - sig_sqrt_t
    k1 = 1.0 / (1.0 + 0.2316419 * np.abs(d1))
    c1 = 1.0 - np.exp(-0.5 * d1 * d1) * 0.3989422804014327 * k1 * (
        0.319381530 + k1 * (-0.356563782 + k1 * (1.781477937 + k1 * (-1.821255978
                                                                     + k1 * 1.330274429))))
    nd1 = np.where(d1 < 0.0, 1.0 - c1, c1)
    k2 = 1.0 / (1.0 + 0.2316419 * np.abs(d2))
    c2 = 1.0 - np.exp(-0.5 * d2 * d2) * 0.3989422804014327 * k2 * (
        0.319381530 + k2 * (-0.356563782 + k2 * (1.781477937 + k2 * (-1.821255978
                                                                     + k2 * 1.330274429))))
    nd2 = np.where(d2 < 0.0, 1.0 - c2, c2)
    discount = strike * np.exp(-rate * t)
    call[:] = price * nd1 - discount * nd2
    put[:] = discount * (1.0 - nd2) - price * (1.0 - nd1)
