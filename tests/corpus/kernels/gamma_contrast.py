"""Gamma correction and contrast stretch of an 8-bit RGB image: to float in [0, 1], the power
law, a stretch between the 2nd and 98th percentiles with np.clip, a contrast gain around mid
grey, back to uint8 by rounding and astype."""
import numpy as np

import unpython


@unpython.gpu
@unpython.type('ndarray[uint8, 3]', 'float64', 'float64', 'ndarray[uint8, 3]')
def gamma_contrast(img, gamma, gain):
    f = img.astype(np.float64) / 255.0
    f = f ** gamma
    lo, hi = np.percentile(f, 2), np.percentile(f, 98)
    f = np.clip((f - lo) / (hi - lo), 0.0, 1.0)
    f = np.clip(0.5 + gain * (f - 0.5), 0, 1)
    return (f * 255 + 0.5).astype(np.uint8)


def inputs(rng, scale=1):
    h, w = 60 * scale, 80 * scale
    base = np.linspace(40, 200, w)[None, :, None] + rng.normal(0, 10, (h, w, 3))
    return np.clip(base, 0, 255).astype(np.uint8), 0.8, 1.3


LARGE = 25
FUNCTION = "gamma_contrast"
