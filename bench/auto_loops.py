"""The automatic choice for the loop kernels of bench/numpy_expr (`<kernel>_loops.py`, the
order users write) at a size set, each in a fresh process per UNPY_DEVICE of $DEVICES
(default gpu,none): the ms of its first 8 whole calls from NumPy arrays, then the first line of
explain's report of each nest. Opt-in (not a test); run from the repository root:

    PYTHONPATH=.:tests python bench/auto_loops.py [large|small]
"""
import importlib, os, subprocess, sys, time
import numpy as np

if len(sys.argv) > 2:        # child: one kernel, one setting
    name, size = sys.argv[1], sys.argv[2]
    sys.path.insert(0, "bench")
    import numpy_expr as nx
    import unpython
    kernel = nx.BY_NAME[name]
    mod = importlib.import_module(f"nx_kernels_loops")
    f = getattr(mod, name)
    args = kernel.make(kernel.sizes[size], np.random.default_rng(1))
    times = []
    for _ in range(8):
        t = time.perf_counter(); f(*args); times.append((time.perf_counter() - t) * 1e3)
    print(name, os.environ.get("UNPY_DEVICE"), os.environ.get("UNPY_FORCE_GPU", ""), " ".join(f"{x:.1f}" for x in times))
    for n in unpython.explain(f).nests:
        print("   ", str(n).splitlines()[0][:220])
    sys.exit(0)

NAMES = ["matmul_dot", "textbook_gemm", "two_mm", "covariance", "syrk_tri"]
sys.path.insert(0, "bench")
import numpy_expr as nx
nx.build_modules([f"{n}_loops" for n in NAMES])
size = sys.argv[1] if len(sys.argv) > 1 else "large"
devices = os.environ.get("DEVICES", "gpu,none").split(",")
for name in NAMES:
    for device in devices:
        subprocess.run([sys.executable, __file__, name, size],
                       env=dict(os.environ, UNPY_DEVICE=device,
                                PYTHONPATH=os.environ.get("PYTHONPATH", "") + ":bench/numpy_expr/build"),
                       timeout=150)
