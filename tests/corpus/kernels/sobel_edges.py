"""Sobel edge detection: the horizontal and vertical gradients from slices of the image, the
magnitude by np.hypot, and an edge mask by a threshold relative to the largest magnitude,
returned as a uint8 image."""
import numpy as np

import unpython


@unpython.gpu
@unpython.type('ndarray[float64, 2]', 'float64', 'ndarray[uint8, 2]')
def sobel_edges(img, rel_threshold):
    gx = ((img[:-2, 2:] + 2 * img[1:-1, 2:] + img[2:, 2:])
          - (img[:-2, :-2] + 2 * img[1:-1, :-2] + img[2:, :-2]))
    gy = ((img[2:, :-2] + 2 * img[2:, 1:-1] + img[2:, 2:])
          - (img[:-2, :-2] + 2 * img[:-2, 1:-1] + img[:-2, 2:]))
    mag = np.hypot(gx, gy)
    edges = np.zeros(img.shape, dtype=np.uint8)
    edges[1:-1, 1:-1] = (mag > rel_threshold * mag.max()).astype(np.uint8) * 255
    return edges


def inputs(rng, scale=1):
    h, w = 40 * scale, 50 * scale
    y, x = np.mgrid[0:h, 0:w]
    disc = (x - 25 * scale) ** 2 + (y - 20 * scale) ** 2 < 150 * scale ** 2
    img = disc.astype(np.float64) + 0.05 * rng.random((h, w))
    return img, 0.3


LARGE = 66
FUNCTION = "sobel_edges"
