"""Removing a quadratic trend from each row of a set of time series: np.polyfit on a
np.linspace time axis, the fitted trend by np.polyval, subtracted row by row; the residuals
and the fitted coefficients returned."""
import numpy as np

import unpython


@unpython.gpu
@unpython.type('ndarray[float64, 2]', 'int64', ('ndarray[float64, 2]', 'ndarray[float64, 2]'))
def polyfit_detrend(series, degree):
    n_series, n = series.shape
    t = np.linspace(0.0, 1.0, n)
    coeffs = np.empty((n_series, degree + 1))
    detrended = np.empty_like(series)
    for i in range(n_series):
        p = np.polyfit(t, series[i], degree)
        coeffs[i] = p
        detrended[i] = series[i] - np.polyval(p, t)
    return detrended, coeffs


def inputs(rng, scale=1):
    n_series, n = 20 * scale, 200
    t = np.linspace(0.0, 1.0, n)
    trend = 3.0 * t**2 - t + rng.random((n_series, 1))
    return trend + 0.1 * rng.standard_normal((n_series, n)), 2


LARGE = 100
FUNCTION = "polyfit_detrend"
