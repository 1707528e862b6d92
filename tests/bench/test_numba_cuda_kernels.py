"""bench/numba_cuda_kernels.py computes what the examples compute: each kernel, launched as
bench/gpu.py launches it, through Numba's CUDA simulator at tiny sizes (n <= 16; the simulator
runs every thread in Python), checked against NumPy."""
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

pytest.importorskip("numba")

CHECK = """
    import sys
    sys.path[:0] = [{examples!r}, {bench!r}]
    import _harness
    import numba_cuda_kernels
    assert numba_cuda_kernels.cuda.is_available()          # the simulator
    for kernel in ["mmult", "nbody", "cp", "syrk", "syr2k", "stencil"]:
        module = _harness.interpreted(kernel)
        for case in module.CASES:
            n = min(module.SIZES["tiny"], 16)
            args = case.args(n)
            got = _harness.measure(case, numba_cuda_kernels.kernel(case), args,
                                   case.expected(args), repeat=0)
            print(case.label, n, got.verdict)
    """


def test_kernels_match_numpy_in_the_cuda_simulator():
    code = textwrap.dedent(CHECK).format(examples=str(REPO / "examples"),
                                         bench=str(REPO / "bench"))
    env = dict(os.environ, NUMBA_ENABLE_CUDASIM="1",
               PYTHONPATH=os.pathsep.join(filter(None, [str(REPO),
                                                        os.environ.get("PYTHONPATH")])))
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.strip().splitlines()
    assert len(lines) == 10 and all(line.endswith(" ok") for line in lines), done.stdout


def test_kernels_compile_for_hopper_in_their_precision(monkeypatch):
    """Each kernel, typed as bench/gpu.py calls it, compiles to PTX for sm_90 (no GPU needed,
    only NVVM); the float32 kernels do no float64 arithmetic."""
    monkeypatch.syspath_prepend(str(REPO / "examples"))
    monkeypatch.syspath_prepend(str(REPO / "bench"))
    import numpy as np
    import numba
    import _harness
    import numba_cuda_kernels
    from numba import cuda
    try:
        cuda.compile_ptx(lambda: None, (), cc=(9, 0))
    except Exception as error:  # no NVVM here: CUDA toolkit not installed
        pytest.skip(f"no NVVM to compile with: {error}")
    for kernel in ["mmult", "nbody", "cp", "syrk", "syr2k", "stencil"]:
        for case in _harness.interpreted(kernel).CASES:
            types = tuple(numba.typeof(a) for a in case.args(8))
            function = numba_cuda_kernels.cuda_kernels(case.dtype)[case.kernel].py_func
            ptx, _ = cuda.compile_ptx(function, types, cc=(9, 0))
            assert (".f64" in ptx) == (case.dtype == np.float64), case.label
