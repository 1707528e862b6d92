"""Bilinear resize of a grey image to a new shape: for each output pixel (a prange over rows)
the source coordinates, the four neighbours by int() of the floor, clamped with min, and the
weights."""
import math

import numpy as np

import unpython
from unpython import prange


@unpython.gpu
@unpython.type('ndarray[float64, 2]', 'int64', 'int64', 'ndarray[float64, 2]')
def bilinear_resize(img, new_h, new_w):
    h, w = img.shape
    out = np.empty((new_h, new_w))
    sy = (h - 1) / (new_h - 1)
    sx = (w - 1) / (new_w - 1)
    for i in prange(new_h):
        y = i * sy
        y0 = int(math.floor(y))
        y1 = min(y0 + 1, h - 1)
        fy = y - y0
        for j in range(new_w):
            x = j * sx
            x0 = int(math.floor(x))
            x1 = min(x0 + 1, w - 1)
            fx = x - x0
            top = img[y0, x0] * (1 - fx) + img[y0, x1] * fx
            bottom = img[y1, x0] * (1 - fx) + img[y1, x1] * fx
            out[i, j] = top * (1 - fy) + bottom * fy
    return out


def inputs(rng, scale=1):
    return rng.random((20 * scale, 30 * scale)), 33 * scale, 47 * scale


LARGE = 180
FUNCTION = "bilinear_resize"
