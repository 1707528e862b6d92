"""The maximum drawdown of each equity curve: the running peak in a loop, the drawdown relative
to it, its largest value and where it happened, returned as two arrays."""
import numpy as np

import unpython
from unpython import prange


@unpython.gpu
@unpython.type('ndarray[float64, 2]', ('ndarray[float64, 1]', 'ndarray[int64, 1]'))
def max_drawdown(equity):
    n_series, n_steps = equity.shape
    worst = np.zeros(n_series)
    at = np.zeros(n_series, dtype=np.int64)
    for s in prange(n_series):
        peak = equity[s, 0]
        for t in range(n_steps):
            v = equity[s, t]
            if v > peak:
                peak = v
            dd = (peak - v) / peak
            if dd > worst[s]:
                worst[s] = dd
                at[s] = t
    return worst, at


def inputs(rng, scale=1):
    returns = 0.0005 + 0.01 * rng.standard_normal((10 * scale, 250 * scale))
    return (100.0 * np.exp(np.cumsum(returns, axis=1)),)


LARGE = 190
FUNCTION = "max_drawdown"
