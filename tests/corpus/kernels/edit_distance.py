"""Levenshtein edit distances from one query word to a list of words (as int codes, rows of a
2-D array padded with -1): a helper filling the dynamic-programming table with min() of the
three moves, called for each word in a prange; the words' lengths by np.sum of a mask."""
import numpy as np

import unpython
from unpython import prange


@unpython.type('ndarray[int64, 1]', 'ndarray[int64, 1]', 'int64')
def levenshtein(a, b):
    n, m = len(a), len(b)
    d = np.zeros((n + 1, m + 1), dtype=np.int64)
    d[:, 0] = np.arange(n + 1)
    d[0, :] = np.arange(m + 1)
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            cost = 0 if a[i - 1] == b[j - 1] else 1
            d[i, j] = min(d[i - 1, j] + 1, d[i, j - 1] + 1, d[i - 1, j - 1] + cost)
    return d[n, m]


@unpython.gpu
@unpython.type('ndarray[int64, 1]', 'ndarray[int64, 2]', 'ndarray[int64, 1]')
def edit_distances(query, words):
    out = np.empty(words.shape[0], dtype=np.int64)
    for k in prange(words.shape[0]):
        length = np.sum(words[k] >= 0)
        out[k] = levenshtein(query, words[k, :length])
    return out


def inputs(rng, scale=1):
    count, longest = 200 * scale, 12
    words = rng.integers(0, 4, (count, longest))
    lengths = rng.integers(3, longest + 1, count)
    words[np.arange(longest)[None, :] >= lengths[:, None]] = -1
    return rng.integers(0, 4, 9), words


LARGE = 200
FUNCTION = "edit_distances"
