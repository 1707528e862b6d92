"""A naive multi-channel 2-D convolution layer (valid padding, stride 1) as in a from-scratch
CNN: input (C, H, W), filters (K, C, R, S), a bias per filter; each output pixel the sum of
the product of a 3-D input patch with the filter, then ReLU."""
import numpy as np

import unpython
from unpython import prange


@unpython.type('ndarray[float64, 3]', 'ndarray[float64, 4]', 'ndarray[float64, 1]',
               'ndarray[float64, 3]')
@unpython.gpu
def conv2d_relu(x, filters, bias):
    c, h, w = x.shape
    k, _, r, s = filters.shape
    out_h, out_w = h - r + 1, w - s + 1
    out = np.empty((k, out_h, out_w))
    for f in prange(k):
        for i in range(out_h):
            for j in range(out_w):
                out[f, i, j] = np.sum(x[:, i:i + r, j:j + s] * filters[f]) + bias[f]
    return np.maximum(out, 0.0)


def inputs(rng, scale=1):
    side = 16 * scale       # the image grows; the layer (4 filters of 3x3x3) stays
    return (rng.standard_normal((3, side, side)), rng.standard_normal((4, 3, 3, 3)) * 0.3,
            rng.standard_normal(4) * 0.1)


LARGE = 67
FUNCTION = "conv2d_relu"
