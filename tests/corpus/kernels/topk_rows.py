"""The k best-scoring items of each row (a recommender's top-k): a descending order by
np.argsort(...)[::-1] per row in a prange, its first k indices kept, and the scores gathered
with np.take_along_axis."""
import numpy as np

import unpython
from unpython import prange


@unpython.gpu
@unpython.type('ndarray[float64, 2]', 'int64', ('ndarray[int64, 2]', 'ndarray[float64, 2]'))
def topk_rows(scores, k):
    n = scores.shape[0]
    top_idx = np.empty((n, k), dtype=np.int64)
    for i in prange(n):
        order = np.argsort(scores[i])[::-1]
        top_idx[i] = order[:k]
    top_scores = np.take_along_axis(scores, top_idx, axis=1)
    return top_idx, top_scores


def inputs(rng, scale=1):
    return rng.random((100 * scale, 120)), 5


LARGE = 300
FUNCTION = "topk_rows"
