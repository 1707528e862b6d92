"""Robust-regression bookkeeping for residuals: the Huber loss and weights by np.where, its
influence function by np.sign times np.minimum of np.abs, a nested np.where grading the
residuals into four classes counted by np.bincount, and np.clip; a tuple of five results."""
import numpy as np

import unpython


@unpython.gpu
@unpython.type('ndarray[float64, 1]', 'float64',
               ('float64', 'ndarray[float64, 1]', 'ndarray[float64, 1]', 'ndarray[int64, 1]',
                'ndarray[float64, 1]'))
def huber_stats(residuals, delta):
    a = np.abs(residuals)
    loss = np.where(a <= delta, 0.5 * residuals**2, delta * (a - 0.5 * delta))
    psi = np.sign(residuals) * np.minimum(a, delta)
    weights = np.where(a <= delta, 1.0, delta / a)
    grade = np.where(a < 0.5 * delta, 0,
                     np.where(a < delta, 1, np.where(a < 2 * delta, 2, 3)))
    clipped = np.clip(residuals, -delta, delta)
    return loss.mean(), psi, weights, np.bincount(grade, minlength=4), clipped


def inputs(rng, scale=1):
    return rng.standard_t(3.0, 3000 * scale), 1.345


LARGE = 3000
FUNCTION = "huber_stats"
