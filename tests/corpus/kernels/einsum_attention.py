"""Scaled dot-product attention over a batch, written with np.einsum as ML tutorials do:
'bqd,bkd->bqk' scores, a softmax along the last axis with keepdims, then 'bqk,bkd->bqd'."""
import numpy as np

import unpython


@unpython.gpu
@unpython.type('ndarray[float64, 3]', 'ndarray[float64, 3]', 'ndarray[float64, 3]',
               'ndarray[float64, 3]')
def einsum_attention(q, k, v):
    d = q.shape[-1]
    scores = np.einsum('bqd,bkd->bqk', q, k) / np.sqrt(d)
    scores = scores - scores.max(axis=-1, keepdims=True)
    w = np.exp(scores)
    w /= w.sum(axis=-1, keepdims=True)
    return np.einsum('bqk,bkd->bqd', w, v)


def inputs(rng, scale=1):
    b, n, d = 4 * scale, 24, 16
    return (rng.standard_normal((b, n, d)), rng.standard_normal((b, n, d)),
            rng.standard_normal((b, n, d)))


LARGE = 200
FUNCTION = "einsum_attention"
