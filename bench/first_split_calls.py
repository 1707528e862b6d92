"""Issue 25 item 5: the first call of a layout in a fresh process, one device against the split
(UNPY_FORCE_GPU=1; kernels in the disk cache from an earlier process): one line per process,
the device probe's time, then three calls.

    UNPY_FORCE_GPU=1 UNPY_DEVICE=gpu0,gpu1 python bench/first_split_calls.py mmult f32 4096
"""
import os, sys, time
sys.path[:0] = ["bench", "examples"]
import numpy as np
kernel, dtype, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
import importlib
m = importlib.import_module(kernel)
dt = np.float32 if dtype == "f32" else np.float64
rng = np.random.default_rng(0)
if kernel == "mmult":
    args = [rng.random((n, n)).astype(dt), rng.random((n, n)).astype(dt), np.zeros((n, n), dt)]
    f = getattr(m, f"mmult_{dtype}")
else:
    args = m.make_args(n, dt, rng)
    f = getattr(m, f"nbody_{dtype}")
t = time.perf_counter()
from gpurts.device import devices_selection, is_list_spec
from gpurts import device_selection
spec = os.environ["UNPY_DEVICE"]
sel = devices_selection(spec) if is_list_spec(spec) else device_selection(spec)
probe = time.perf_counter() - t
times = []
for _ in range(3):
    t = time.perf_counter(); f(*args); times.append(time.perf_counter() - t)
import unpython  # noqa: E402
calls = " / ".join(f"{x * 1e3:.1f}" for x in times)
print(f"{kernel} {dtype} {n} {spec}: probe {probe * 1e3:.0f} ms, calls {calls} ms; "
      f"{unpython.explain(f).nests[0].ran_on}", flush=True)
