"""A 'same' 2-D convolution (a correlation, as image filters apply it) with the borders
replicated by np.pad(mode='edge'): the padded image's shifted slices weighted by each kernel
coefficient and summed."""
import numpy as np

import unpython


@unpython.gpu
@unpython.type('ndarray[float64, 2]', 'ndarray[float64, 2]', 'ndarray[float64, 2]')
def conv2d_same(img, kernel):
    kh, kw = kernel.shape
    ph, pw = kh // 2, kw // 2
    padded = np.pad(img, ((ph, ph), (pw, pw)), mode='edge')
    h, w = img.shape
    out = np.zeros_like(img)
    for di in range(kh):
        for dj in range(kw):
            out += kernel[di, dj] * padded[di:di + h, dj:dj + w]
    return out


def inputs(rng, scale=1):
    g = np.exp(-0.5 * (np.arange(-2, 3) / 1.2) ** 2)
    k = np.outer(g, g)
    return rng.random((64 * scale, 80 * scale)), k / k.sum()


LARGE = 20
FUNCTION = "conv2d_same"
