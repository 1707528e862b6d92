"""Column standardisation: (a - mean) / std along axis 0."""
import unpython


@unpython.gpu
@unpython.type('ndarray[float64, 2]', 'ndarray[float64, 2]', None)
def standardise(a, out):
    mu = a.mean(axis=0)
    sd = a.std(axis=0)
    out[:] = (a - mu) / sd
