"""Histogram equalisation of an 8-bit image: the histogram counted in a loop, its cumulative
sum by np.cumsum, the lookup table scaled from the CDF and applied with the image as an index
array."""
import numpy as np

import unpython

LEVELS = 256


@unpython.gpu
@unpython.type('ndarray[uint8, 2]', 'ndarray[uint8, 2]')
def hist_equalize(img):
    hist = np.zeros(LEVELS, dtype=np.int64)
    for v in img.ravel():
        hist[v] += 1
    cdf = np.cumsum(hist)
    cdf_min = cdf[cdf > 0].min()
    lut = np.round((cdf - cdf_min) / (img.size - cdf_min) * (LEVELS - 1))
    lut = np.clip(lut, 0, LEVELS - 1).astype(np.uint8)
    return lut[img]


def inputs(rng, scale=1):
    return ((rng.beta(2.0, 5.0, (30 * scale, 40 * scale)) * 180).astype(np.uint8),)


LARGE = 200
FUNCTION = "hist_equalize"
