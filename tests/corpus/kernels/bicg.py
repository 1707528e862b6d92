"""PolyBench bicg (npbench), a kernel of BiCGStab: s = r @ A and q = A @ p, returned as a tuple.
(The return type spelling 'tuple[...]' is this corpus's guess; SPEC section 3 allows several
return values without naming the type string.)"""
import numpy as np

import unpython


@unpython.gpu
@unpython.type('ndarray[float64, 2]', 'ndarray[float64, 1]', 'ndarray[float64, 1]',
               'tuple[ndarray[float64, 1], ndarray[float64, 1]]')
def bicg(a, p, r):
    return r @ a, a @ p


def inputs(rng, scale=1):
    m, n = 70 * scale, 60 * scale
    return rng.random((m, n)), rng.random(n), rng.random(m)


LARGE = 79
FUNCTION = "bicg"
