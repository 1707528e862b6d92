"""The zero-crossing rate of a signal in frames, as speech code computes it: np.sign, np.diff,
np.abs and a sum per frame, the frames as a reshape."""
import numpy as np

import unpython


@unpython.gpu
@unpython.type('ndarray[float64, 1]', 'int64', 'ndarray[float64, 1]')
def zero_crossing_rate(signal, frame_len):
    n_frames = signal.shape[0] // frame_len
    frames = signal[:n_frames * frame_len].reshape(n_frames, frame_len)
    rates = np.zeros(n_frames)
    for f in range(n_frames):
        s = np.sign(frames[f])
        rates[f] = np.sum(np.abs(np.diff(s))) / (2.0 * frame_len)
    return rates


def inputs(rng, scale=1):
    return rng.standard_normal(1000 * scale), 50


LARGE = 3600
FUNCTION = "zero_crossing_rate"
