"""OpenMP on a busy machine: examples/mmult.py compiled, ms a call, with the cores quiet or
shared with a competing busy process, under the default environment, OMP_NUM_THREADS=1 and
OMP_WAIT_POLICY=passive. Opt-in (not part of the tests); prints a markdown table.

    .venv/bin/python bench/busy_cpu.py [--sizes 128,256,512] [--seconds 1] [--rounds 3]
        [--pin] [--env NAME=VALUE,...] [--baseline /path/to/other/checkout]
        [--out bench/results/busy-cpu-2core.md]

Each condition runs in a fresh Python process (OpenMP reads its environment once, when libgomp
is loaded) with every OMP_* and GOMP_* variable of this process removed, then the condition's
own set. `busy`: a `python -c 'while True: pass'` runs meanwhile (with --pin, on the first CPU
of the affinity mask). A cell is the median over --rounds rounds (every condition once a round,
so that a busy spell of a shared machine hits them alike) of the median ms of the calls made in
--seconds after a 0.2 s warm-up. --baseline: the same kernel built by another checkout's unpy
(e.g. `git archive HEAD unpy unpython.py jitgpu gpurts examples | tar -x -C /tmp/head`),
measured in the same rounds. UNPY_DEVICE=none keeps the @gpu kernel on OpenMP.
"""
import argparse
import datetime
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BUILD_DIR = ROOT / "bench" / "build" / "busy_cpu"
ENVIRONMENTS = {"default": {}, "OMP_NUM_THREADS=1": {"OMP_NUM_THREADS": "1"},
                "OMP_WAIT_POLICY=passive": {"OMP_WAIT_POLICY": "passive"}}
LOADS = ("quiet", "busy")
FUNCTION = "mmult_f32"


def child(build_dir, sizes, seconds):
    """In the measuring process: {n: median seconds a call} of the compiled mmult."""
    sys.path[:0] = [build_dir, str(ROOT / "examples"), str(ROOT)]
    import numpy as np
    import mmult
    assert mmult.__file__.endswith(".so"), mmult.__file__
    func = getattr(mmult, FUNCTION)
    found = {}
    for n in sizes:
        a, b, c = mmult.make_args(n, np.float32, np.random.default_rng(0))
        for limit in (0.2, seconds):
            times, end = [], time.perf_counter() + limit
            while time.perf_counter() < end:
                start = time.perf_counter()
                func(a, b, c)
                times.append(time.perf_counter() - start)
        assert np.allclose(c, a.astype(np.float64) @ b, rtol=1e-3), "wrong product"
        found[n] = statistics.median(times)
    print(json.dumps(found))


def build(unpy_root, build_dir):
    """examples/mmult.py built by the unpy of `unpy_root` into `build_dir` (a process of its
    own: one checkout's unpy per process)."""
    code = ("import sys; sys.path.insert(0, sys.argv[1]); "
            "from unpy.cpp_emit.build import build; build(*sys.argv[2:])")
    subprocess.run([sys.executable, "-c", code, str(unpy_root),
                    str(ROOT / "examples" / "mmult.py"), str(build_dir)], check=True)


def measure(build_dir, env_extra, busy, pin, sizes, seconds):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OMP_", "GOMP_"))}
    env.update(env_extra, UNPY_DEVICE="none")
    hog = None
    if busy:
        hog = subprocess.Popen([sys.executable, "-c", "while True: pass"])
        if pin:
            os.sched_setaffinity(hog.pid, {min(os.sched_getaffinity(0))})
        time.sleep(0.3)
    try:
        out = subprocess.run([sys.executable, __file__, "--child", str(build_dir), "--sizes",
                              ",".join(map(str, sizes)), "--seconds", str(seconds)],
                             env=env, check=True, capture_output=True, text=True).stdout
    finally:
        if hog:
            hog.kill()
            hog.wait()
    return {int(n): t for n, t in json.loads(out.strip().splitlines()[-1]).items()}


def table(results, sizes, builds):
    columns = [(env, b) for env in ENVIRONMENTS for b in builds]
    head = [f"{env} ({b})" if len(builds) > 1 else env for env, b in columns]
    lines = [f"| n | load | {' | '.join(head)} |", "|---" * (len(head) + 2) + "|"]
    for n in sizes:
        for load in LOADS:
            cells = [f"{results[(b, load, env)][n] * 1e3:.3f}" for env, b in columns]
            lines.append(f"| {n} | {load} | {' | '.join(cells)} |")
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="128,256,512")
    parser.add_argument("--seconds", type=float, default=1.0)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--pin", action="store_true")
    parser.add_argument("--env", action="append", default=[], metavar="NAME=VALUE,...",
                        help="another environment to measure (a column)")
    parser.add_argument("--baseline", help="another checkout whose unpy builds the kernel too")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--out")
    args = parser.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",")]
    if args.child:
        return child(args.child, sizes, args.seconds)
    for extra in args.env:
        ENVIRONMENTS[extra] = dict(item.split("=", 1) for item in extra.split(","))
    builds = {"now": (ROOT, BUILD_DIR)}
    if args.baseline:
        builds = {"baseline": (Path(args.baseline), BUILD_DIR / "baseline"), **builds}
    for unpy_root, build_dir in builds.values():
        build(unpy_root, build_dir)
    loadavg = open("/proc/loadavg").read().split()
    rounds = [{(b, load, env): measure(build_dir, extra, load == "busy", args.pin, sizes,
                                       args.seconds)
               for load in LOADS for env, extra in ENVIRONMENTS.items()
               for b, (_, build_dir) in builds.items()}
              for _ in range(args.rounds)]
    results = {key: {n: statistics.median(r[key][n] for r in rounds) for n in sizes}
               for key in rounds[0]}
    hog = "pinned to one CPU" if args.pin else "not pinned"
    text = (f"# OpenMP on a busy machine\n\n{len(os.sched_getaffinity(0))} CPUs "
            f"({platform.machine()}), {datetime.date.today().isoformat()}, load average before: "
            f"{' '.join(loadavg[:4])}. `{FUNCTION}` of examples/mmult.py, ms a call: the median "
            f"of {args.rounds} rounds' medians. busy: one `python -c 'while True: pass'` beside "
            f"it, {hog}." + (f" baseline: built by {args.baseline}." if args.baseline else "")
            + f"\n\n{table(results, sizes, list(builds))}\n")
    print(text)
    if args.out:
        Path(args.out).write_text(text)


if __name__ == "__main__":
    sys.exit(main())
