"""PolyBench Nussinov RNA folding (npbench's NumPy version): a dynamic-programming table filled
from the bottom row up with the builtin max of int32 elements, a pairing score from a small
helper function, and an inner split loop."""
import numpy as np

import unpython


@unpython.type('int32', 'int32', 'int64')
def base_pair_match(b1, b2):
    if b1 + b2 == 3:
        return 1
    else:
        return 0


@unpython.gpu
@unpython.type('int64', 'ndarray[int32, 1]', 'ndarray[int32, 2]')
def nussinov(N, seq):
    table = np.zeros((N, N), np.int32)

    for i in range(N - 1, -1, -1):
        for j in range(i + 1, N):
            if j - 1 >= 0:
                table[i, j] = max(table[i, j], table[i, j - 1])
            if i + 1 < N:
                table[i, j] = max(table[i, j], table[i + 1, j])
            if j - 1 >= 0 and i + 1 < N:
                if i < j - 1:
                    table[i, j] = max(table[i, j],
                                      table[i + 1, j - 1] + base_pair_match(seq[i], seq[j]))
                else:
                    table[i, j] = max(table[i, j], table[i + 1, j - 1])
            for k in range(i + 1, j):
                table[i, j] = max(table[i, j], table[i, k] + table[k + 1, j])

    return table


def inputs(rng, scale=1):
    n = 28 * scale
    return n, rng.integers(0, 4, n).astype(np.int32)


LARGE = 6
FUNCTION = "nussinov"
