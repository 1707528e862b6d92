"""Many tridiagonal systems at once, one per column (the Thomas algorithm as in the vertical
solvers of weather codes, npbench's vadv): work arrays made with np.ndarray, a forward
elimination and a back substitution over whole rows, the last row by negative indices."""
import numpy as np

import unpython


@unpython.gpu
@unpython.type('ndarray[float64, 2]', 'ndarray[float64, 2]', 'ndarray[float64, 2]',
               'ndarray[float64, 2]', 'ndarray[float64, 2]')
def thomas_columns(a, b, c, d):
    n, m = d.shape
    cp = np.ndarray((n, m), dtype=d.dtype)
    dp = np.ndarray((n, m), dtype=d.dtype)
    x = np.ndarray((n, m), dtype=d.dtype)
    cp[0] = c[0] / b[0]
    dp[0] = d[0] / b[0]
    for i in range(1, n):
        denom = b[i] - a[i] * cp[i - 1]
        cp[i] = c[i] / denom
        dp[i] = (d[i] - a[i] * dp[i - 1]) / denom
    x[-1] = dp[-1]
    for i in range(n - 2, -1, -1):
        x[i] = dp[i] - cp[i] * x[i + 1]
    return x


def inputs(rng, scale=1):
    n, m = 40, 60 * scale
    a, c = -rng.random((n, m)), -rng.random((n, m))
    return a, 2.5 + rng.random((n, m)), c, rng.standard_normal((n, m))


LARGE = 300
FUNCTION = "thomas_columns"
