"""QR by Householder reflections: for each column the reflector v from the column below the
diagonal (np.copysign for the stable sign), applied to the trailing block as
a -= 2 v (v^T a), and accumulated into Q; returns (Q, R)."""
import numpy as np

import unpython


@unpython.gpu
@unpython.type('ndarray[float64, 2]', ('ndarray[float64, 2]', 'ndarray[float64, 2]'))
def householder_qr(a):
    m, n = a.shape
    r = a.copy()
    q = np.eye(m)
    for k in range(n):
        x = r[k:, k]
        v = x.copy()
        v[0] += np.copysign(np.linalg.norm(x), x[0])
        v /= np.linalg.norm(v)
        r[k:, k:] -= 2.0 * np.outer(v, v @ r[k:, k:])
        q[:, k:] -= 2.0 * np.outer(q[:, k:] @ v, v)
    return q, np.triu(r)


def inputs(rng, scale=1):
    return (rng.standard_normal((18 * scale, 12 * scale)),)


LARGE = 31
FUNCTION = "householder_qr"
