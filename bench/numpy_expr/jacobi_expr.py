"""PolyBench jacobi-2d with slices: each time step is two 5-point sweeps, A -> B -> A."""
import unpython


@unpython.gpu
@unpython.type('int64', 'ndarray[float64, 2]', 'ndarray[float64, 2]', None)
def jacobi(steps, a, b):
    for t in range(steps):
        b[1:-1, 1:-1] = 0.2 * (a[1:-1, 1:-1] + a[1:-1, :-2] + a[1:-1, 2:] + a[2:, 1:-1]
                               + a[:-2, 1:-1])
        a[1:-1, 1:-1] = 0.2 * (b[1:-1, 1:-1] + b[1:-1, :-2] + b[1:-1, 2:] + b[2:, 1:-1]
                               + b[:-2, 1:-1])
