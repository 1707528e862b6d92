"""Batch normalisation, training-mode forward pass: per-feature mean and variance over the batch
(axis=0), normalised, scaled by gamma and shifted by beta; the running statistics updated in
place with a momentum; returns the output and the cache a backward pass needs."""
import numpy as np

import unpython


@unpython.gpu
@unpython.type('ndarray[float32, 2]', 'ndarray[float32, 1]', 'ndarray[float32, 1]',
               'ndarray[float32, 1]', 'ndarray[float32, 1]', 'float64', 'float64',
               ('ndarray[float32, 2]', 'ndarray[float32, 2]', 'ndarray[float32, 1]'))
def batch_norm_forward(x, gamma, beta, running_mean, running_var, momentum=0.9, eps=1e-5):
    mu = x.mean(axis=0)
    var = x.var(axis=0)
    inv_std = 1.0 / np.sqrt(var + eps)
    x_hat = (x - mu) * inv_std
    out = gamma * x_hat + beta
    running_mean[:] = momentum * running_mean + (1 - momentum) * mu
    running_var[:] = momentum * running_var + (1 - momentum) * var
    return out, x_hat, inv_std


def inputs(rng, scale=1):
    batch, f = 64 * scale, 16 * scale
    return (rng.standard_normal((batch, f)).astype(np.float32) * 3 + 1,
            rng.random(f).astype(np.float32) + 0.5, rng.standard_normal(f).astype(np.float32),
            np.zeros(f, np.float32), np.ones(f, np.float32), 0.9, 1e-5)


LARGE = 110
FUNCTION = "batch_norm_forward"
