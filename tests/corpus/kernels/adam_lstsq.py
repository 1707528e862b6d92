"""Adam steps on a least-squares loss: the gradient X.T @ (X @ w - y) / n, the first and second
moment estimates, their bias corrections with beta ** t, the update; the weights and the final
mean squared error returned."""
import numpy as np

import unpython


@unpython.gpu
@unpython.type('ndarray[float64, 2]', 'ndarray[float64, 1]', 'float64', 'int64',
               ('ndarray[float64, 1]', 'float64'))
def adam_least_squares(X, y, lr, steps):
    n, d = X.shape
    w = np.zeros(d)
    m = np.zeros(d)
    v = np.zeros(d)
    beta1, beta2, eps = 0.9, 0.999, 1e-8
    for t in range(1, steps + 1):
        grad = X.T @ (X @ w - y) / n
        m = beta1 * m + (1 - beta1) * grad
        v = beta2 * v + (1 - beta2) * grad ** 2
        m_hat = m / (1 - beta1 ** t)
        v_hat = v / (1 - beta2 ** t)
        w -= lr * m_hat / (np.sqrt(v_hat) + eps)
    loss = 0.5 * np.mean((X @ w - y) ** 2)
    return w, loss


def inputs(rng, scale=1):
    n, d = 400 * scale, 8 * scale
    X = rng.standard_normal((n, d))
    y = X @ rng.standard_normal(d) + 0.1 * rng.standard_normal(n)
    return X, y, 0.05, 50


LARGE = 20
FUNCTION = "adam_least_squares"
