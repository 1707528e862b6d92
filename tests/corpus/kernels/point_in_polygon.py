"""Point-in-polygon by ray casting for many points: a prange over the points, a loop over the
polygon's edges with the previous vertex index j, and a bool result array."""
import numpy as np

import unpython
from unpython import prange


@unpython.gpu
@unpython.type('ndarray[float64, 2]', 'ndarray[float64, 2]', 'ndarray[bool, 1]')
def points_in_polygon(points, poly):
    n = poly.shape[0]
    inside = np.zeros(points.shape[0], dtype=np.bool_)
    for p in prange(points.shape[0]):
        px, py = points[p, 0], points[p, 1]
        c = False
        j = n - 1
        for i in range(n):
            xi, yi = poly[i, 0], poly[i, 1]
            xj, yj = poly[j, 0], poly[j, 1]
            if (yi > py) != (yj > py):
                x_cross = (xj - xi) * (py - yi) / (yj - yi) + xi
                if px < x_cross:
                    c = not c
            j = i
        inside[p] = c
    return inside


def inputs(rng, scale=1):
    t = np.linspace(0.0, 2 * np.pi, 13)[:-1]
    r = np.where(np.arange(12) % 2 == 0, 1.0, 0.45)
    poly = np.stack([r * np.cos(t), r * np.sin(t)], axis=1)
    return rng.uniform(-1.1, 1.1, (400 * scale, 2)), poly


LARGE = 18000
FUNCTION = "points_in_polygon"
