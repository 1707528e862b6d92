"""The Pearson correlation matrix of the columns of a data matrix: z-scores with keepdims=True
means and standard deviations, then z.T @ z / n."""
import numpy as np

import unpython


@unpython.gpu
@unpython.type('ndarray[float64, 2]', 'ndarray[float64, 2]')
def pearson_matrix(data):
    n = data.shape[0]
    mu = data.mean(axis=0, keepdims=True)
    sd = data.std(axis=0, keepdims=True)
    z = (data - mu) / sd
    return z.T @ z / n


def inputs(rng, scale=1):
    base = rng.standard_normal((250 * scale, 8 * scale))
    base[:, 1] += 0.8 * base[:, 0]
    return (base,)


LARGE = 55
FUNCTION = "pearson_matrix"
