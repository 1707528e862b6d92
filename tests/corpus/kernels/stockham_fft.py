"""A radix-2 Stockham FFT (the self-sorting variant: no bit reversal), each stage writing its
butterflies' sums and twiddled differences into the other buffer by contiguous slices, the
two buffers swapped by tuple assignment, in a while loop over stages."""
import numpy as np

import unpython


@unpython.gpu
@unpython.type('ndarray[complex128, 1]', 'ndarray[complex128, 1]')
def stockham_fft(x):
    big_n = x.shape[0]
    a = x.astype(np.complex128)
    b = np.empty_like(a)
    n = big_n
    s = 1
    while n > 1:
        m = n // 2
        for p in range(m):
            wp = np.exp(-2j * np.pi * p / n)
            u = a[s * p:s * p + s]
            v = a[s * (p + m):s * (p + m) + s]
            b[s * 2 * p:s * 2 * p + s] = u + v
            b[s * (2 * p + 1):s * (2 * p + 1) + s] = (u - v) * wp
        a, b = b, a
        n = m
        s *= 2
    return a


def inputs(rng, scale=1):
    n = 256 * scale
    return (rng.standard_normal(n) + 1j * rng.standard_normal(n),)


LARGE = 64
FUNCTION = "stockham_fft"
