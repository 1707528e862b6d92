"""Otsu's threshold of a grey image: the normalised histogram by np.histogram, class
probabilities and means by np.cumsum, the between-class variance maximised by np.argmax, and
the image binarised with a boolean mask."""
import numpy as np

import unpython


@unpython.gpu
@unpython.type('ndarray[float64, 2]', 'int64', ('float64', 'ndarray[bool, 2]'))
def otsu_threshold(img, nbins=64):
    counts, edges = np.histogram(img, nbins, range=(0.0, 1.0))
    p = counts / counts.sum()
    centers = 0.5 * (edges[:-1] + edges[1:])
    w0 = np.cumsum(p)
    mu = np.cumsum(p * centers)
    mu_t = mu[-1]
    w1 = 1.0 - w0
    valid = (w0 > 0) & (w1 > 0)
    between = np.zeros(nbins)
    between[valid] = (mu_t * w0[valid] - mu[valid]) ** 2 / (w0[valid] * w1[valid])
    k = np.argmax(between)
    t = edges[k + 1]
    return t, img > t


def inputs(rng, scale=1):
    shape = (40 * scale, 40 * scale)
    img = np.where(rng.random(shape) < 0.4, rng.normal(0.25, 0.05, shape),
                   rng.normal(0.7, 0.08, shape))
    return np.clip(img, 0.0, 1.0), 64


LARGE = 79
FUNCTION = "otsu_threshold"
