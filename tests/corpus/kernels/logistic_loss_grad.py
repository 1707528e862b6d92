"""The L2-regularised logistic loss and its gradient, as an optimiser's callback returns them:
a numerically safe sigmoid through np.clip, the mean binary cross-entropy, and the gradient,
returned as a (loss, grad) tuple; a second function takes gradient steps calling it."""
import numpy as np

import unpython


@unpython.type('ndarray[float64, 1]', 'ndarray[float64, 2]', 'ndarray[float64, 1]', 'float64',
               ('float64', 'ndarray[float64, 1]'))
def logistic_loss_grad(w, x, y, l2=0.01):
    n = x.shape[0]
    z = np.clip(x @ w, -30.0, 30.0)
    p = 1.0 / (1.0 + np.exp(-z))
    loss = -np.mean(y * np.log(p) + (1 - y) * np.log(1 - p)) + 0.5 * l2 * np.dot(w, w)
    grad = x.T @ (p - y) / n + l2 * w
    return loss, grad


@unpython.type('ndarray[float64, 2]', 'ndarray[float64, 1]', 'int64', 'float64',
               ('ndarray[float64, 1]', 'ndarray[float64, 1]'))
@unpython.gpu
def fit_logistic(x, y, steps, lr=0.5):
    w = np.zeros(x.shape[1])
    history = np.empty(steps)
    for s in range(steps):
        loss, grad = logistic_loss_grad(w, x, y)
        history[s] = loss
        w -= lr * grad
    return w, history


def inputs(rng, scale=1):
    n = 150 * scale
    x = rng.standard_normal((n, 4))
    y = (x @ np.array([1.5, -1.0, 0.0, 0.5]) + 0.3 * rng.standard_normal(n) > 0).astype(float)
    return x, y, 20, 0.5


LARGE = 2000
FUNCTION = "fit_logistic"
