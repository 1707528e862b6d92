"""Needleman-Wunsch global alignment of two sequences (int codes 0-3) with a substitution
matrix looked up by the two residues and a linear gap penalty: the first row and column as
np.arange times the gap, then the score table by max() of the three moves; the table and the
score."""
import numpy as np

import unpython


@unpython.type('ndarray[int64, 1]', 'ndarray[int64, 1]', 'ndarray[float64, 2]', 'float64',
               ('ndarray[float64, 2]', 'float64'))
def needleman_wunsch(a, b, subst, gap):
    n, m = a.shape[0], b.shape[0]
    score = np.zeros((n + 1, m + 1))
    score[:, 0] = -gap * np.arange(n + 1)
    score[0, :] = -gap * np.arange(m + 1)
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            match = score[i - 1, j - 1] + subst[a[i - 1], b[j - 1]]
            delete = score[i - 1, j] - gap
            insert = score[i, j - 1] - gap
            score[i, j] = max(match, delete, insert)
    return score, score[n, m]


def inputs(rng, scale=1):
    subst = np.full((4, 4), -1.0) + 3.0 * np.eye(4)
    return rng.integers(0, 4, 120 * scale), rng.integers(0, 4, 100 * scale), subst, 2.0


LARGE = 20
FUNCTION = "needleman_wunsch"
