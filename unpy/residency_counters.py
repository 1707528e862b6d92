"""The counters that compiled modules read without the GIL, for the residency table of
gpurts.residency, which owns them: [0] the number of entries (a compiled flush point skips
everything while it is 0), [1] the last call scope id handed out (compiled callers take the next
one atomically), [2] the table's version (a nest relaunched from C++ checks it,
jitgpu/relaunch.py).

They live here, outside gpurts, so that a compiled module can find them without importing the
GPU stack: with `UNPY_DEVICE=none`, or without the extra `gpu`, nothing is ever on a device and
the counters stay 0.
"""
import numpy as np

COUNTERS = np.zeros(3, np.int64)
COUNTERS_ADDRESS = COUNTERS.ctypes.data
