"""Masked clip in place as a prange loop (the same computation as clip_expr.py)."""
import unpython
from unpython import prange


@unpython.gpu
@unpython.type('ndarray[float64, 1]', 'float64', 'float64', None)
def clip(a, lo, hi):
    for i in prange(a.shape[0]):
        if a[i] < lo:
            a[i] = lo
        elif a[i] > hi:
            a[i] = hi
