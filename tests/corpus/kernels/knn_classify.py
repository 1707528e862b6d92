"""k-nearest-neighbour classification: the squared distances of each query to all training
points by the ||a||^2 - 2 a.b + ||b||^2 expansion with @, np.argsort of each row, the k nearest
labels counted by a vote array and np.argmax."""
import numpy as np

import unpython
from unpython import prange


@unpython.type('ndarray[float64, 2]', 'ndarray[int64, 1]', 'ndarray[float64, 2]', 'int64',
               'int64', 'ndarray[int64, 1]')
@unpython.gpu
def knn_classify(train, labels, queries, n_classes, k=5):
    d2 = (np.sum(queries ** 2, axis=1)[:, None] - 2.0 * queries @ train.T
          + np.sum(train ** 2, axis=1)[None, :])
    pred = np.empty(queries.shape[0], dtype=np.int64)
    for q in prange(queries.shape[0]):
        nearest = np.argsort(d2[q])[:k]
        votes = np.zeros(n_classes, dtype=np.int64)
        for j in nearest:
            votes[labels[j]] += 1
        pred[q] = np.argmax(votes)
    return pred


def inputs(rng, scale=1):
    n_train, n_queries = 150 * scale, 60 * scale
    centers = np.array([[0.0, 0.0], [3.0, 0.0], [0.0, 3.0]])
    labels = rng.integers(0, 3, n_train)
    train = centers[labels] + rng.standard_normal((n_train, 2))
    return train, labels, rng.uniform(-1.0, 4.0, (n_queries, 2)), 3, 5


LARGE = 16
FUNCTION = "knn_classify"
