"""Monte Carlo pricing of an Asian call under geometric Brownian motion with the normal draws
given: log-increments as a whole array, the paths by np.cumsum along axis 1, np.exp, the
average along each path, the discounted mean payoff and its standard error."""
import numpy as np

import unpython


@unpython.type('float64', 'float64', 'float64', 'float64', 'float64', 'ndarray[float64, 2]',
               ('float64', 'float64'))
@unpython.gpu
def asian_call_mc(s0, strike, rate, sigma, horizon, normals):
    n_paths, n_steps = normals.shape
    dt = horizon / n_steps
    incr = (rate - 0.5 * sigma ** 2) * dt + sigma * np.sqrt(dt) * normals
    paths = s0 * np.exp(np.cumsum(incr, axis=1))
    avg = paths.mean(axis=1)
    payoff = np.exp(-rate * horizon) * np.maximum(avg - strike, 0.0)
    return payoff.mean(), payoff.std() / np.sqrt(n_paths)


def inputs(rng, scale=1):
    return 100.0, 100.0, 0.03, 0.2, 1.0, rng.standard_normal((400 * scale, 24))


LARGE = 2200
FUNCTION = "asian_call_mc"
