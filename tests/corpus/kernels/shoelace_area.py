"""The areas of many polygons by the shoelace formula with np.roll, one polygon per row of the
coordinate arrays, and each polygon's centroid; returned as a tuple."""
import numpy as np

import unpython


@unpython.type('ndarray[float64, 1]', 'ndarray[float64, 1]',
               ('float64', 'float64', 'float64'))
@unpython.gpu
def polygon_area_centroid(x, y):
    x_next = np.roll(x, -1)
    y_next = np.roll(y, -1)
    cross = x * y_next - x_next * y
    area = 0.5 * np.sum(cross)
    cx = np.sum((x + x_next) * cross) / (6.0 * area)
    cy = np.sum((y + y_next) * cross) / (6.0 * area)
    return abs(area), cx, cy


def inputs(rng, scale=1):
    n = 40 * scale
    t = np.sort(rng.uniform(0.0, 2 * np.pi, n))
    r = 1.0 + 0.3 * rng.random(n)
    return r * np.cos(t) + 2.0, r * np.sin(t) - 1.0


LARGE = 610000
FUNCTION = "polygon_area_centroid"
