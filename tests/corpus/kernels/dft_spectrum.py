"""The power spectrum of a Hann-windowed signal by a direct DFT (no FFT), in float32 input: the
window by np.cos of np.arange, each frequency bin the sum of the signal times cos and sin, the
one-sided power in dB with np.log10 and a floor."""
import numpy as np

import unpython
from unpython import prange


@unpython.gpu
@unpython.type('ndarray[float32, 1]', 'ndarray[float64, 1]')
def power_spectrum_db(x):
    n = x.shape[0]
    t = np.arange(n)
    window = 0.5 - 0.5 * np.cos(2 * np.pi * t / (n - 1))
    xw = x * window
    n_bins = n // 2 + 1
    power = np.empty(n_bins)
    for k in prange(n_bins):
        re = np.sum(xw * np.cos(2 * np.pi * k * t / n))
        im = -np.sum(xw * np.sin(2 * np.pi * k * t / n))
        power[k] = (re * re + im * im) / np.sum(window ** 2)
    return 10.0 * np.log10(np.maximum(power, 1e-12))


def inputs(rng, scale=1):
    n = 256 * scale
    t = np.arange(n)
    x = np.sin(2 * np.pi * 20 * t / n) + 0.1 * rng.standard_normal(n)
    return (x.astype(np.float32),)


LARGE = 17
FUNCTION = "power_spectrum_db"
