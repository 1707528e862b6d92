"""Great-circle distances by the haversine formula (npbench's arc_distance): trigonometric
ufuncs, squares and np.arctan2 on whole arrays."""
import numpy as np

import unpython


@unpython.gpu
@unpython.type('ndarray[float64, 1]', 'ndarray[float64, 1]', 'ndarray[float64, 1]',
               'ndarray[float64, 1]', 'ndarray[float64, 1]')
def arc_distance(theta_1, phi_1, theta_2, phi_2):
    temp = (np.sin((theta_2 - theta_1) / 2) ** 2
            + np.cos(theta_1) * np.cos(theta_2) * np.sin((phi_2 - phi_1) / 2) ** 2)
    return 2 * np.arctan2(np.sqrt(temp), np.sqrt(1 - temp))


def inputs(rng, scale=1):
    n = 4000 * scale
    return (rng.uniform(-1.5, 1.5, n), rng.uniform(-3.0, 3.0, n), rng.uniform(-1.5, 1.5, n),
            rng.uniform(-3.0, 3.0, n))


LARGE = 480
FUNCTION = "arc_distance"
