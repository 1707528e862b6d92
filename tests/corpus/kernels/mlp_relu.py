"""A two-layer perceptron's forward pass in float32: matrix products, bias rows broadcast,
ReLU as np.maximum with a weak literal (the result stays float32)."""
import numpy as np

import unpython


@unpython.gpu
@unpython.type('ndarray[float32, 2]', 'ndarray[float32, 2]', 'ndarray[float32, 1]',
               'ndarray[float32, 2]', 'ndarray[float32, 1]', 'ndarray[float32, 2]')
def mlp_relu(x, w1, b1, w2, b2):
    h = np.maximum(x @ w1 + b1, 0.0)
    return h @ w2 + b2


def inputs(rng, scale=1):
    batch, n_in, n_hidden, n_out = 32 * scale, 20 * scale, 64 * scale, 10 * scale
    f32 = np.float32
    return ((rng.standard_normal((batch, n_in))).astype(f32),
            (rng.standard_normal((n_in, n_hidden)) * 0.2).astype(f32),
            (rng.standard_normal(n_hidden) * 0.1).astype(f32),
            (rng.standard_normal((n_hidden, n_out)) * 0.2).astype(f32),
            (rng.standard_normal(n_out) * 0.1).astype(f32))


LARGE = 53
FUNCTION = "mlp_relu"
