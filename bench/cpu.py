"""The CPU benchmark of BENCHMARKS.md: the six example kernels under the interpreter, unpy's OpenMP
build, Numba, Pythran and NumPy/BLAS, written to bench/results/cpu-<machine>.md and .png.

    .venv/bin/python bench/cpu.py [--machine dev-2core] [--sizes dev|accel]
        [--kernels mmult,nbody] [--columns "unpy OpenMP,NumPy/BLAS"] [--fastmath] [--quick]

Every column is checked against NumPy on its first call (for Numba, compile and run: reported as
its "first call"); after a short warm-up, times are medians of calls interleaved round-robin
between unpy, Numba and Pythran, so that a busy spell of a shared machine hits them alike (see
_harness.measure_all); NumPy/BLAS is timed on its own. The interpreter runs once, at the example's
small size, since it is slow. Threads are left at their defaults. The examples are @unpython.gpu
functions: UNPY_DEVICE=none keeps the unpy column on OpenMP on a machine with a GPU too.
"""
import argparse
import datetime
import importlib
import importlib.util
import os
import platform
import subprocess
import sys
import sysconfig
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES_DIR = ROOT / "examples"
BUILD_DIR = ROOT / "bench" / "build"
RESULTS_DIR = ROOT / "bench" / "results"
EXT_SUFFIX = sysconfig.get_config_var("EXT_SUFFIX")
sys.path[:0] = [str(EXAMPLES_DIR), str(ROOT)]

import _harness  # noqa: E402  (needs the examples directory on sys.path)

KERNELS = ["mmult", "nbody", "cp", "syrk", "syr2k", "stencil"]
COLUMNS = ["unpy OpenMP", "Numba", "Pythran", "NumPy/BLAS"]  # timed at the benchmark size
# Timed with their calls interleaved; these three share libgomp's thread pool. NumPy/BLAS is timed
# on its own: OpenBLAS's threads spin for ~0.1 s after each call and would slow the others down.
INTERLEAVED = COLUMNS[:3]


# NumPy/BLAS where a library call does the kernel's work; same signature as the kernels.
def numpy_mmult(a, b, c):
    np.matmul(a, b, out=c)


def numpy_syrk(alpha, a, beta, c):
    np.copyto(c, beta * c + alpha * (a @ a.T), where=np.tri(len(c), dtype=bool))


def numpy_syr2k(alpha, a, b, beta, c):
    np.copyto(c, beta * c + alpha * (a @ b.T + b @ a.T), where=np.tri(len(c), dtype=bool))


NUMPY_KERNELS = {"mmult": numpy_mmult, "syrk": numpy_syrk, "syr2k": numpy_syr2k}


def run_quietly(command):
    """Run `command` from the repository root; (ok, the last line it printed)."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [str(ROOT)] + [p for p in [os.environ.get("PYTHONPATH")] if p]))
    result = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True)
    output = result.stderr if result.returncode else result.stdout
    lines = output.strip().splitlines() or [f"exit status {result.returncode}"]
    return result.returncode == 0, lines[-1]


def unpy_module(kernel, fastmath=False):
    """The compiled example module, after `unpy build` (which does nothing when the build is up to
    date); (module or None, note). `fastmath`: built with --fastmath."""
    source = EXAMPLES_DIR / f"{kernel}.py"
    ok, message = run_quietly([sys.executable, "-m", "unpy.cli", "build", str(source)]
                              + ["--fastmath"] * fastmath)
    if not ok:
        return None, f"not built: `unpy build` failed: {message}"
    module = importlib.import_module(kernel)
    if not _harness.is_compiled(module):
        return None, f"not built: `unpy build` said {message!r} but {kernel} imports the .py"
    return module, "built" + (f" ({message.rsplit('(', 1)[-1]}" if "(" in message else "")


def built_examples(kernels: str, fastmath: bool = False):
    """The built example module of each of `kernels` (comma-separated); an example that is not
    built is said and skipped."""
    for kernel in kernels.split(","):
        module, note = unpy_module(kernel, fastmath)
        if module is None:
            print(f"{kernel}: {note}", flush=True)
            continue
        yield module


def example_sizes(kernels: str, sizes: str):
    """(module, case, n) of each built example of `kernels` at each of its named `sizes`
    (comma-separated: tiny, small, dev, accel; of a tuple, its first)."""
    for module in built_examples(kernels):
        for case in module.CASES:
            for size in sizes.split(","):
                n = module.SIZES[size]
                yield module, case, n[0] if isinstance(n, tuple) else n


def pythran_module():
    """bench/pythran_kernels.py compiled with OpenMP into bench/build; (module or None, note)."""
    try:
        import pythran  # noqa: F401
    except ImportError as error:
        return None, f"skipped: {error}"
    source = ROOT / "bench" / "pythran_kernels.py"
    built = BUILD_DIR / f"pythran_kernels{EXT_SUFFIX}"
    note = "built earlier"
    if not built.exists() or built.stat().st_mtime < source.stat().st_mtime:
        BUILD_DIR.mkdir(parents=True, exist_ok=True)
        start = time.perf_counter()
        ok, message = run_quietly([sys.executable, "-m", "pythran.run", "-fopenmp", "-O3",
                                   "-march=native", str(source), "-o", str(built)])
        if not ok:
            return None, f"skipped: pythran failed: {message}"
        note = f"compiled in {time.perf_counter() - start:.0f} s"
    spec = importlib.util.spec_from_file_location("pythran_kernels", built)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module, note


def numba_status():
    try:
        import numba_kernels
        return numba_kernels, "ok"
    except ImportError as error:
        return None, f"skipped: {error}"


def bench_case(case, sizes, implementations, repeat, min_seconds, notes):
    """One result row per size of `case`: {column: Measurement or None}, plus the interpreter's
    single call at the small size. A column that raises gets a line in `notes`."""
    module = _harness.interpreted(case.kernel)
    small = module.SIZES["small"]
    args = case.args(small)
    interp = _harness.measure(case, getattr(module, case.func), args, case.expected(args), 0)
    rows = []
    for n in sizes:
        args = case.args(n)
        funcs = {column: make(case) for column, make in implementations.items()}
        funcs = {column: func for column, func in funcs.items() if func}
        row = {"case": case, "n": n, "interpreter": (small, interp), **dict.fromkeys(COLUMNS)}
        want = case.expected(args)
        for group in [INTERLEAVED, [c for c in COLUMNS if c not in INTERLEAVED]]:
            row.update(_harness.measure_all(case, {c: funcs[c] for c in group if c in funcs},
                                            args, want, repeat, min_seconds))
        notes += [f"{column} {case.label} n={n}: {row[column].error}" for column in COLUMNS
                  if row[column] is not None and row[column].error]
        print(format_progress(row), flush=True)
        rows.append(row)
    return rows


def format_progress(row):
    cells = [f"{column} {ms(row[column])}" for column in COLUMNS if row[column] is not None]
    return f"{row['case'].label} n={row['n']}: " + ", ".join(cells)


def ms(measurement, first=False):
    """A timed call (or the first call) in milliseconds for the table, or why there is no time."""
    if measurement is None:
        return "—"
    if not measurement.ok:
        return "error" if measurement.error else "WRONG"
    value = (measurement.first if first else measurement.best) * 1e3
    return f"{value:.0f}" if value >= 100 else f"{value:.3g}"


def ratio(numerator, denominator):
    if numerator is None or denominator is None or not (numerator.ok and denominator.ok):
        return "—"
    return f"{numerator.best / denominator.best:.2f}"


def cpu_model():
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("model name"):
            return line.split(":", 1)[1].strip()
    return platform.processor() or "unknown"


def versions():
    found = {"python": platform.python_version(), "numpy": np.__version__}
    for name in ["numba", "pythran"]:
        try:
            found[name] = importlib.import_module(name).__version__
        except ImportError:
            found[name] = "not installed"
    blas = np.__config__.CONFIG.get("Build Dependencies", {}).get("blas", {})
    found["BLAS"] = f"{blas.get('name', '?')} {blas.get('version', '')}".strip()
    return found


def write_markdown(path, rows, machine, options, notes):
    threads = {k: os.environ[k] for k in ["OMP_NUM_THREADS", "NUMBA_NUM_THREADS"]
               if k in os.environ}
    lines = [
        f"# CPU benchmark: {machine}",
        "",
        f"- date: {datetime.date.today().isoformat()}",
        f"- CPU: {cpu_model()}, os.cpu_count() = {os.cpu_count()}; threads: "
        + (", ".join(f"{k}={v}" for k, v in threads.items()) or "defaults (all cores)"),
        "- versions: " + ", ".join(f"{k} {v}" for k, v in versions().items()),
        f"- sizes: {options.sizes}; median of at least {options.repeat} timed calls (and at least "
        f"{options.min_seconds} s of them) after one warm-up call, every result checked against "
        "NumPy first",
        "- unpy OpenMP: UNPY_DEVICE=none (the examples' @unpython.gpu nests stay on OpenMP)"
        + ("; built with `unpy build --fastmath` (FMA contraction)" if options.fastmath else ""),
        "- times in ms; interpreter: one call at the small size given beside it; "
        "Numba first call: compile and run; Numba/unpy > 1 means unpy is faster",
        "",
        "| kernel | n | interpreter | " + " | ".join(COLUMNS)
        + " | Numba first call | Numba/unpy |",
        "|---|---:|---:|" + "---:|" * len(COLUMNS) + "---:|---:|",
    ]
    for row in rows:
        small, interp = row["interpreter"]
        numba = row["Numba"]
        cells = [row["case"].label, str(row["n"]), f"{ms(interp)} (n={small})"]
        cells += [ms(row[column]) for column in COLUMNS]
        cells.append(ms(numba, first=True))
        cells.append(ratio(numba, row["unpy OpenMP"]))
        lines.append("| " + " | ".join(cells) + " |")
    lines += ["", "## Notes", ""] + [f"- {note}" for note in notes]
    path.write_text("\n".join(lines) + "\n")


def write_chart(path, rows, machine):
    """Bars of each column's time divided by unpy's (by Numba's while unpy is not built)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    have_unpy = any(row["unpy OpenMP"] is not None for row in rows)
    reference = "unpy OpenMP" if have_unpy else "Numba"
    columns = [c for c in COLUMNS if any(row[c] is not None for row in rows)]
    fig, ax = plt.subplots(figsize=(max(6, 1.2 * len(rows) + 2), 4.5))
    width = 0.8 / len(columns)
    for k, column in enumerate(columns):
        heights = []
        for row in rows:
            value, base = row[column], row[reference]
            usable = value is not None and base is not None and value.ok and base.ok
            heights.append(value.best / base.best if usable else np.nan)
        ax.bar(np.arange(len(rows)) + (k - (len(columns) - 1) / 2) * width, heights, width,
               label=column)
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.set_yscale("log")
    ax.set_xticks(np.arange(len(rows)),
                  [f"{row['case'].label}\nn={row['n']}" for row in rows], fontsize=8)
    ax.set_ylabel(f"time / {reference} time (lower is faster)")
    ax.set_title(f"CPU: {machine}" + ("" if have_unpy else " (unpy not built: normalised to Numba)"))
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--machine", help="short machine description for the file names "
                        "(default: <sizes>-<cores>core, e.g. dev-2core)")
    parser.add_argument("--sizes", choices=["dev", "accel"], default="dev")
    parser.add_argument("--kernels", default=",".join(KERNELS),
                        help="comma-separated subset of " + ",".join(KERNELS))
    parser.add_argument("--columns", default=",".join(COLUMNS),
                        help="comma-separated subset of the timed columns: " + ",".join(COLUMNS))
    parser.add_argument("--fastmath", action="store_true",
                        help="build the examples with `unpy build --fastmath` (FMA contraction)")
    parser.add_argument("--quick", action="store_true",
                        help="at least 3 timed calls and 0.05 s instead of 7 calls and 0.5 s")
    options = parser.parse_args(argv)
    options.repeat, options.min_seconds = (3, 0.05) if options.quick else (7, 0.5)
    os.environ["UNPY_DEVICE"] = "none"  # the OpenMP path, also where an OpenCL device exists
    machine = options.machine or f"{options.sizes}-{os.cpu_count()}core"
    kernels = [k for k in options.kernels.split(",") if k]
    unknown = set(kernels) - set(KERNELS)
    if unknown:
        parser.error(f"unknown kernels: {', '.join(sorted(unknown))}")
    columns = [c for c in options.columns.split(",") if c]
    if set(columns) - set(COLUMNS):
        parser.error(f"unknown columns: {', '.join(sorted(set(columns) - set(COLUMNS)))}")

    numba_kernels, numba_note = numba_status()
    pythran_kernels, pythran_note = pythran_module()
    notes = [f"Numba: {numba_note}; parallel=True, the example's own loops with "
             "prange = numba.prange",
             f"Pythran: {pythran_note}; bench/pythran_kernels.py with `pythran -fopenmp -O3 "
             "-march=native`, outer loop `#omp parallel for`"]
    unpy_notes = {}  # note -> kernels it applies to
    rows = []
    for kernel in kernels:
        compiled, unpy_note = unpy_module(kernel, options.fastmath)
        unpy_notes.setdefault(unpy_note, []).append(kernel)
        implementations = {
            "unpy OpenMP": lambda case: getattr(compiled, case.func, None),
            "Numba": lambda case: numba_kernels and numba_kernels.kernel(case),
            "Pythran": lambda case: getattr(pythran_kernels, case.func, None),
            "NumPy/BLAS": lambda case: NUMPY_KERNELS.get(case.kernel),
        }
        implementations = {c: make for c, make in implementations.items() if c in columns}
        module = _harness.interpreted(kernel)
        for case in module.CASES:
            rows += bench_case(case, module.SIZES[options.sizes], implementations,
                               options.repeat, options.min_seconds, notes)

    notes += [f"unpy {', '.join(names)}: {note}" for note, names in unpy_notes.items()]
    RESULTS_DIR.mkdir(parents=True, exist_ok=True)
    table = RESULTS_DIR / f"cpu-{machine}.md"
    chart = RESULTS_DIR / f"cpu-{machine}.png"
    write_markdown(table, rows, machine, options, notes)
    write_chart(chart, rows, machine)
    print(f"wrote {table} and {chart}")
    wrong = [row["case"].label for row in rows
             if any(row[c] is not None and not row[c].ok for c in COLUMNS)]
    if wrong:
        print("WRONG results in: " + ", ".join(wrong))
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
