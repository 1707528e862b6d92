"""Mini-batch logistic regression trained by RMSprop: a sigmoid helper, batches as row slices
X[start:start + batch], the gradient of the mean log-loss, running averages of squared gradients
for the weights and the bias (a Python float)."""
import numpy as np

import unpython


@unpython.type('ndarray[float64, 1]', 'ndarray[float64, 1]')
def sigmoid_vec(z):
    return 1.0 / (1.0 + np.exp(-z))


@unpython.gpu
@unpython.type('ndarray[float64, 2]', 'ndarray[float64, 1]', 'float64', 'int64', 'int64',
               ('ndarray[float64, 1]', 'float64'))
def rmsprop_logistic(X, y, lr, epochs, batch):
    n, d = X.shape
    w = np.zeros(d)
    b = 0.0
    cache_w = np.zeros(d)
    cache_b = 0.0
    decay, eps = 0.9, 1e-8
    for epoch in range(epochs):
        for start in range(0, n, batch):
            xb = X[start:start + batch]
            yb = y[start:start + batch]
            err = sigmoid_vec(xb @ w + b) - yb
            gw = xb.T @ err / len(yb)
            gb = err.mean()
            cache_w = decay * cache_w + (1 - decay) * gw * gw
            cache_b = decay * cache_b + (1 - decay) * gb * gb
            w -= lr * gw / (np.sqrt(cache_w) + eps)
            b -= lr * gb / (np.sqrt(cache_b) + eps)
    return w, b


def inputs(rng, scale=1):
    n, d = 500 * scale, 6
    X = rng.standard_normal((n, d))
    y = (X @ rng.standard_normal(d) + 0.3 * rng.standard_normal(n) > 0).astype(np.float64)
    return X, y, 0.01, 5, 32


LARGE = 60
FUNCTION = "rmsprop_logistic"
