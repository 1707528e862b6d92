"""Logistic regression by batch gradient descent: the sigmoid of X @ w, the gradient X.T @ (p - y)
/ n, w updated in place each iteration."""
import numpy as np

import unpython


@unpython.gpu
@unpython.type('ndarray[float64, 2]', 'ndarray[float64, 1]', 'float64', 'int64',
               'ndarray[float64, 1]')
def logistic_regression(x, y, lr, iters):
    n, p = x.shape
    w = np.zeros(p)
    for it in range(iters):
        pred = 1.0 / (1.0 + np.exp(-(x @ w)))
        w -= lr * (x.T @ (pred - y)) / n
    return w


def inputs(rng, scale=1):
    x = rng.standard_normal((200 * scale, 5))
    y = (x @ np.array([1.0, -2.0, 0.5, 0.0, 1.5]) > 0).astype(np.float64)
    return x, y, 0.5, 15


LARGE = 2700
FUNCTION = "logistic_regression"
