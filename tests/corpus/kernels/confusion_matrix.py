"""A confusion matrix of predicted against true class labels counted with np.add.at over the
pair of label arrays, the accuracy from np.trace, and per-class precision, recall and F1 from
np.diag and the row and column sums (guarded against empty classes with np.maximum)."""
import numpy as np

import unpython


@unpython.gpu
@unpython.type('ndarray[int64, 1]', 'ndarray[int64, 1]', 'int64',
               ('ndarray[int64, 2]', 'float64', 'ndarray[float64, 1]'))
def confusion_f1(y_true, y_pred, k):
    cm = np.zeros((k, k), dtype=np.int64)
    np.add.at(cm, (y_true, y_pred), 1)
    accuracy = np.trace(cm) / y_true.shape[0]
    tp = np.diag(cm)
    precision = tp / np.maximum(cm.sum(axis=0), 1)
    recall = tp / np.maximum(cm.sum(axis=1), 1)
    f1 = 2 * precision * recall / np.maximum(precision + recall, 1e-12)
    return cm, accuracy, f1


def inputs(rng, scale=1):
    n, k = 1000 * scale, 6
    y_true = rng.integers(0, k, n)
    y_pred = np.where(rng.random(n) < 0.7, y_true, rng.integers(0, k, n))
    return y_true, y_pred, k


LARGE = 100
FUNCTION = "confusion_f1"
