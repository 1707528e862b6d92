"""Julian day numbers of calendar dates (the integer formula from the Explanatory Supplement,
written with Python's floor division), weekdays by %, and whole weeks and days since the
first date by np.divmod (negative for earlier dates); a tuple of integer arrays."""
import numpy as np

import unpython


@unpython.gpu
@unpython.type('ndarray[int64, 1]', 'ndarray[int64, 1]', 'ndarray[int64, 1]',
               ('ndarray[int64, 1]', 'ndarray[int64, 1]', 'ndarray[int64, 1]',
                'ndarray[int64, 1]'))
def julian_day(year, month, day):
    a = (14 - month) // 12
    y = year + 4800 - a
    m = month + 12 * a - 3
    jdn = day + (153 * m + 2) // 5 + 365 * y + y // 4 - y // 100 + y // 400 - 32045
    weekday = (jdn + 1) % 7         # 0 = Sunday
    weeks, days = np.divmod(jdn - jdn[0], 7)
    return jdn, weekday, weeks, days


def inputs(rng, scale=1):
    n = 2000 * scale
    return (rng.integers(1600, 2400, n), rng.integers(1, 13, n), rng.integers(1, 29, n))


LARGE = 3000
FUNCTION = "julian_day"
