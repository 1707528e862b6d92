"""Drawdown of an equity curve the vectorised way: the running peak by np.maximum.accumulate,
the drawdown relative to it, its maximum and the index where it happened; and the returns
by np.diff over the lagged prices."""
import numpy as np

import unpython


@unpython.gpu
@unpython.type('ndarray[float64, 1]', ('float64', 'int64', 'ndarray[float64, 1]'))
def drawdown_accumulate(prices):
    running_max = np.maximum.accumulate(prices)
    drawdown = (running_max - prices) / running_max
    worst = np.argmax(drawdown)
    returns = np.diff(prices) / prices[:-1]
    return drawdown[worst], worst, returns


def inputs(rng, scale=1):
    return (100.0 * np.exp(np.cumsum(0.01 * rng.standard_normal(500 * scale))),)


LARGE = 31000
FUNCTION = "drawdown_accumulate"
