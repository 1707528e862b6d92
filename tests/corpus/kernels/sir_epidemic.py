"""An SIR epidemic integrated by forward Euler for a batch of parameter sets at once (beta and
gamma arrays): whole-array updates rebinding s, i, r each step, the infected fraction kept in a
(steps + 1, n) history, the peak and its day by max and argmax along axis 0."""
import numpy as np

import unpython


@unpython.gpu
@unpython.type('ndarray[float64, 1]', 'ndarray[float64, 1]', 'float64', 'float64', 'int64',
               ('ndarray[float64, 1]', 'ndarray[float64, 1]', 'ndarray[float64, 1]',
                'ndarray[float64, 1]'))
def sir_euler(beta, gamma, i0, dt, steps):
    n = beta.shape[0]
    s = np.full(n, 1.0 - i0)
    i = np.full(n, i0)
    r = np.zeros(n)
    infected = np.empty((steps + 1, n))
    infected[0] = i
    for t in range(steps):
        new_inf = beta * s * i * dt
        new_rec = gamma * i * dt
        s = s - new_inf
        i = i + new_inf - new_rec
        r = r + new_rec
        infected[t + 1] = i
    peak = infected.max(axis=0)
    peak_day = infected.argmax(axis=0) * dt
    return s, r, peak, peak_day


def inputs(rng, scale=1):
    n = 200 * scale
    return rng.uniform(0.2, 0.6, n), rng.uniform(0.05, 0.2, n), 1e-3, 0.5, 160


LARGE = 500
FUNCTION = "sir_euler"
