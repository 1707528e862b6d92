"""Does an OpenCL build in another process hold up this process's launches (NVIDIA's OpenCL
holds them while this process builds)? And how long does loading a program's binary take?
(issue 20 item 6; gpurts/build_aside.py). Prints a JSON of call times while nothing, a thread
of this process, or a child process builds programs; writes it to $OUT/build_probe.json.

    python bench/build_aside_probe.py"""
import os, sys, time, subprocess, threading, statistics, json
import numpy as np
from gpurts.device import select_device

dev = select_device("gpu")
import pyopencl as cl
ctx, queue = dev.context, dev.queue
print(dev.label, flush=True)

WORK = """
__kernel void work(__global float* x, int n) {
    int i = get_global_id(0);
    float a = x[i];
    for (int k = 0; k < n; ++k) a = a * 1.0000001f + 0.5f;
    x[i] = a;
}"""
HEAVY = """
__kernel void heavy%d(__global const float* p, __global float* out, int n) {
    int i = get_global_id(0);
    float ax = 0, ay = 0, az = 0, xi = p[3*i], yi = p[3*i+1], zi = p[3*i+2];
    #pragma unroll %d
    for (int j = 0; j < n; ++j) {
        float dx = p[3*j] - xi, dy = p[3*j+1] - yi, dz = p[3*j+2] - zi;
        float r = rsqrt(dx*dx + dy*dy + dz*dz + 0.01f);
        float s = r * r * r * %d.0f;
        ax += dx * s; ay += dy * s; az += dz * s;
    }
    out[3*i] = ax; out[3*i+1] = ay; out[3*i+2] = az;
}"""

prog = cl.Program(ctx, WORK).build()
kern = prog.work
buf = cl.Buffer(ctx, cl.mem_flags.READ_WRITE, 4 << 20)
kern.set_args(buf, np.int32(3000))

def call():
    t = time.perf_counter()
    cl.enqueue_nd_range_kernel(queue, kern, (1 << 20,), (256,))
    queue.finish()
    return time.perf_counter() - t

for _ in range(20): call()
print('call ms', call()*1e3, flush=True)
def loop(seconds):
    out, end = [], time.perf_counter() + seconds
    while time.perf_counter() < end:
        out.append(call())
    return out

def summary(ts):
    ts = sorted(ts)
    return dict(n=len(ts), median_ms=round(statistics.median(ts)*1e3, 3), max_ms=round(ts[-1]*1e3, 2),
                p99_ms=round(ts[int(0.99*(len(ts)-1))]*1e3, 2), over_1_5x=sum(t > 1.5*statistics.median(ts) for t in ts))

results = {}
results["quiet"] = summary(loop(2.0))
print("quiet", results["quiet"], flush=True)

# builds in a thread of this process
def thread_builds(tag, k):
    times = []
    for n in range(k):
        t = time.perf_counter()
        cl.Program(ctx, HEAVY % (n, 8, hash((tag, n)) % 1000 + 1)).build()
        times.append(time.perf_counter() - t)
    results[tag + "_build_s"] = [round(x, 3) for x in times]
th = threading.Thread(target=thread_builds, args=("thread", 3)); th.start()
ts = []
while th.is_alive(): ts.append(call())
results["during_thread_builds"] = summary(ts)
print("thread", results["during_thread_builds"], results["thread_build_s"], flush=True)

# builds in another process (its own context on the same GPU), binaries written for this one
child = r'''
import sys, time, pyopencl as cl, json
from gpurts.device import select_device
dev = select_device("gpu")
t0 = time.perf_counter()
out = []
src = sys.stdin.read().split("\n//SPLIT\n")
for s in src:
    t = time.perf_counter()
    p = cl.Program(dev.context, s).build()
    out.append((time.perf_counter() - t, p.get_info(cl.program_info.BINARIES)[0].hex()))
print(json.dumps({"startup_s": t0, "builds": out}))
'''
sources = [HEAVY % (n, 8, 2000 + n) for n in range(3)]
t = time.perf_counter()
proc = subprocess.Popen([sys.executable, "-c", child], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
proc.stdin.write("\n//SPLIT\n".join(sources)); proc.stdin.close()
ts = []
while proc.poll() is None: ts.append(call())
res = json.loads(proc.stdout.read())
results["process_total_s"] = round(time.perf_counter() - t, 3)
results["during_process_builds"] = summary(ts)
results["process_build_s"] = [round(x, 3) for x, _ in res["builds"]]
print("process", results["during_process_builds"], results["process_build_s"], results["process_total_s"], flush=True)
# this process loads the binaries: what a disk hit costs, and does it hold a call up?
loads = []
for (x, hexbin), s in zip(res["builds"], sources):
    b = bytes.fromhex(hexbin)
    t = time.perf_counter()
    p = cl.Program(ctx, [dev.cl_device], [b]).build()
    loads.append(time.perf_counter() - t)
results["binary_load_s"] = [round(x, 4) for x in loads]
print("loads", loads, flush=True)
# the same sources again from source in this process (the driver's own cache?)
again = []
for s in sources:
    t = time.perf_counter(); cl.Program(ctx, s).build(); again.append(time.perf_counter() - t)
results["source_again_s"] = [round(x, 4) for x in again]
results["quiet_after"] = summary(loop(1.0))
print(json.dumps(results, indent=1))
json.dump(results, open(os.path.join(os.environ.get("OUT", "/tmp"), "build_probe.json"), "w"), indent=1)
