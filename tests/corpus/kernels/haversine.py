"""Great-circle distances (haversine) from one point to arrays of points given in degrees, with
np.radians and a module-level Earth radius; also the index and distance of the nearest."""
import numpy as np

import unpython

EARTH_RADIUS_KM = 6371.0


@unpython.gpu
@unpython.type('float64', 'float64', 'ndarray[float64, 1]', 'ndarray[float64, 1]',
               ('ndarray[float64, 1]', 'int64', 'float64'))
def haversine_nearest(lat0, lon0, lats, lons):
    phi0, lam0 = np.radians(lat0), np.radians(lon0)
    phi, lam = np.radians(lats), np.radians(lons)
    a = np.sin((phi - phi0) / 2) ** 2 + np.cos(phi0) * np.cos(phi) * np.sin((lam - lam0) / 2) ** 2
    d = 2 * EARTH_RADIUS_KM * np.arcsin(np.sqrt(a))
    k = np.argmin(d)
    return d, k, d[k]


def inputs(rng, scale=1):
    n = 500 * scale
    return 51.5, -0.12, rng.uniform(-60.0, 70.0, n), rng.uniform(-180.0, 180.0, n)


LARGE = 4500
FUNCTION = "haversine_nearest"
