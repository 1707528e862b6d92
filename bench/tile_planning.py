"""Host time of planning the overlapped tiles of mmult f32 split over two devices (modelled:
no OpenCL call), `jitgpu.overlap.tile_devices`, median of 5: the analysis a split's first call
of new shares pays. Run with a tree's unpy, to compare trees in one run:

    PYTHONPATH=<tree> python bench/tile_planning.py <tree> 4096
"""
import sys, time, statistics, numpy as np
root = sys.argv[1]; n = int(sys.argv[2])
sys.path[:0] = [root, root + '/examples', root + '/tests/jitgpu', root + '/tests']
from unpy.cpp_emit.build import build
from gpucheck import load_module
so = build(root + '/examples/mmult.py', '/tmp/plan_time_build_' + root.replace('/', '_')).output
load_module('mmult', so)
from jitgpu.nest import instantiate, load_nest
from jitgpu.plan import DeviceFacts
from jitgpu.split import Participant, split_plan
from jitgpu import overlap
a = np.random.random((n, n)).astype(np.float32); b = a.copy(); c = np.zeros_like(a)
values = {"a": a, "b": b, "c": c, "m": n, "n": n, "p": n}
inst = instantiate(load_nest('mmult', 'mmult_f32', 0), values)
who = [Participant(f"gpu{k}", DeviceFacts(f"gpu{k}", True, 100 << 30, 100 << 30, 50e9, 50e9))
       for k in range(2)]
split = split_plan(inst, values, who, (1, 1))
times = []
for _ in range(5):
    t = time.perf_counter()
    tiled, labels = overlap.tile_devices(split, inst, values, who, (1, 1))
    times.append(time.perf_counter() - t)
print(f"{root}: n={n} tiles per device {len(tiled.plan.parts) // 2}, "
      f"tile_devices median {statistics.median(times) * 1e3:.1f} ms (of 5)")
