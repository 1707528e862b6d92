"""One-hot encoding of integer labels by indexing the identity matrix with the label array
(np.eye(k)[labels], the StackOverflow idiom), the class frequencies as its column sums, and the
labels recovered by argmax along axis 1."""
import numpy as np

import unpython


@unpython.gpu
@unpython.type('ndarray[int64, 1]', 'int64',
               ('ndarray[float64, 2]', 'ndarray[float64, 1]', 'ndarray[int64, 1]'))
def one_hot(labels, k):
    onehot = np.eye(k)[labels]
    freq = onehot.sum(axis=0) / labels.shape[0]
    back = onehot.argmax(axis=1)
    return onehot, freq, back


def inputs(rng, scale=1):
    return rng.integers(0, 10, 800 * scale), 10


LARGE = 100
FUNCTION = "one_hot"
