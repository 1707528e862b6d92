"""Softmax cross-entropy for a batch of logits with integer class labels: the row maxima with
keepdims for stability, log-sum-exp, the label's log-probability gathered with
np.arange(n) and the label array, and the gradient with the one-hot subtracted by an index
array assignment."""
import numpy as np

import unpython


@unpython.gpu
@unpython.type('ndarray[float64, 2]', 'ndarray[int64, 1]', ('float64', 'ndarray[float64, 2]'))
def softmax_cross_entropy(logits, labels):
    n = logits.shape[0]
    shifted = logits - logits.max(axis=1, keepdims=True)
    log_z = np.log(np.exp(shifted).sum(axis=1, keepdims=True))
    log_p = shifted - log_z
    loss = -log_p[np.arange(n), labels].mean()
    grad = np.exp(log_p)
    grad[np.arange(n), labels] -= 1.0
    return loss, grad / n


def inputs(rng, scale=1):
    n, classes = 64 * scale, 10 * scale
    return rng.standard_normal((n, classes)) * 2.0, rng.integers(0, classes, n)


LARGE = 140
FUNCTION = "softmax_cross_entropy"
