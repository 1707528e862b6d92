"""The nests whose register blocks changed when the C++ path's middle level came from
typeinfer/independent_loops (issue 22 item 1, step 8): tests/kernels/contractions.py's
scaled_from_output (its sums start from the element the nest writes: blocked since) and
row_maxima (its columns update the row's maximum: blocked before, as written by step 8 alone,
blocked again since its sums read nothing the nest writes, register_blocks' `_sums_apart`), with
matmul beside them, built by the unpy found on PYTHONPATH (run it once with the tree before
the change and once with the tree after):

    PYTHONPATH=/path/to/tree .venv/bin/python bench/cpu_middle_levels.py --label after \
        [--sizes 512,1024] [--repeats 7] [--rounds 3]

Each cell: the median of `repeats` timed calls after one warm-up call, in each of `rounds`
rounds; the median of the rounds' medians is printed with all of them, and whether the nest
has a register-blocked form in that tree (`unpy show`'s IR). Each function is first checked
against the interpreter, bit for bit, at n = CHECKED. Threads at their defaults (OMP_WAIT_POLICY=passive
recommended on a shared machine)."""
import argparse
import importlib.util
import json
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
KERNELS = ROOT / "tests" / "kernels" / "contractions.py"
FUNCTIONS = ("matmul", "scaled_from_output", "row_maxima")
CHECKED = 61            # the size checked against the interpreter, bit for bit


def arguments(name: str, n: int):
    rng = np.random.default_rng(n)
    a, b, c = (rng.uniform(-1, 1, (n, n)) for _ in range(3))
    if name == "scaled_from_output":
        return (1.5, a, b, 0.5, c)
    if name == "row_maxima":
        return (a, b, np.full(n, -np.inf))
    return (a, b, c)


def load(path: Path, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--label", required=True)
    parser.add_argument("--sizes", default="512,1024")
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--rounds", type=int, default=3)
    options = parser.parse_args(argv)
    import unpy
    from unpy import ir
    from unpy.cpp_emit.build import build
    from unpy.loopopt import optimise_for_cpu
    from unpy.pipeline import compile_to_ir
    folder = Path(tempfile.mkdtemp(prefix="cpu-middle-levels-"))
    source = folder / "contractions_middle.py"
    source.write_text(KERNELS.read_text())
    compiled = load(build(str(source), str(folder)).output, "contractions_middle")
    interpreted = load(KERNELS, "interpreted_contractions")
    module = compile_to_ir(str(source), source.read_text())
    blocked = {}
    for fn in module.functions:
        if fn.name in FUNCTIONS:
            nest = next(s for s in optimise_for_cpu(fn).body if isinstance(s, ir.For))
            blocked[fn.name] = bool(nest.blocked or nest.proof and nest.proof.nest.blocked)
    for name in FUNCTIONS:
        # (the interpreter at a small size: a 512 x 512 product takes it minutes)
        args = arguments(name, CHECKED)
        expected = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
        getattr(interpreted, name)(*expected)
        got = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
        getattr(compiled, name)(*got)
        assert all(np.array_equal(x, y) for x, y in zip(got, expected)
                   if isinstance(x, np.ndarray)), name
    rows = []
    for n in [int(x) for x in options.sizes.split(",")]:
        for name in FUNCTIONS:
            args = arguments(name, n)
            medians = []
            for _ in range(options.rounds):
                times = []
                for k in range(options.repeats + 1):
                    fresh = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
                    started = time.perf_counter()
                    getattr(compiled, name)(*fresh)
                    if k:
                        times.append(time.perf_counter() - started)
                medians.append(statistics.median(times))
            row = {"label": options.label, "unpy": str(Path(unpy.__file__).parent.parent),
                   "function": name, "n": n, "blocked": blocked[name],
                   "ms": statistics.median(medians) * 1e3,
                   "rounds_ms": [m * 1e3 for m in medians]}
            rows.append(row)
            print(json.dumps(row), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
