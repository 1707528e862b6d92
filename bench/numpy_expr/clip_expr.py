"""Masked clip in place, as NumPy users write it: a[a < lo] = lo; a[a > hi] = hi."""
import unpython


@unpython.gpu
@unpython.type('ndarray[float64, 1]', 'float64', 'float64', None)
def clip(a, lo, hi):
    a[a < lo] = lo
    a[a > hi] = hi
