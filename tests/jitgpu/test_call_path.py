"""Issue 20 items 1 and 6: the call path counted, as bench/call_path.py counts it (its docstring
defines modules, returns and cycles): a first call of a split analyses each range of the outer
loop once (the shares' costs and the parts share the analyses), and a repeated call through
Python (UNPY_REPLAY=0) crosses no more modules, and comes back into no more modules it had left,
than the bounds below, which are the counts of this tree: a change that adds a step or a call
back to an earlier one fails here. A split's participants are made alike and timed by the
synthetic seam `jitgpu.multi.slowdown` where the count must not depend on the host's timing.
Results are compared with the interpreter's."""
import sys
from pathlib import Path

import numpy as np
import pytest

import testdevice

sys.path.append(str(Path(__file__).resolve().parents[2] / "bench"))
import call_path  # noqa: E402

SPECS = {"one device": testdevice.SPEC,
         "two contexts": f"{testdevice.SPEC},{testdevice.SPEC}",
         "device+openmp": f"{testdevice.SPEC},openmp"}
# (modules, returns) of a repeated call at the steps' level (bench/call_path.py), at most.
REPEATED = {"one device": (11, 2), "two contexts": (12, 7), "device+openmp": (11, 8)}


def _matmul(gpu, n=24):
    """A closure calling the compiled `matmul` on fixed arrays (one layout), and a check of its
    last result against the interpreter's."""
    rng = np.random.default_rng(3)
    a, b = rng.standard_normal((n, n)), rng.standard_normal((n, n))
    c = np.zeros((n, n))
    expected = np.zeros((n, n))
    gpu.interpreted.matmul(a, b, expected)

    def check():
        np.testing.assert_allclose(c, expected, rtol=1e-12)
    return (lambda: gpu.compiled.matmul(a, b, c)), check


@pytest.mark.parametrize("limit", [None, 12000])
@pytest.mark.parametrize("spec", SPECS)
def test_a_first_call_analyses_each_range_once(gpu, device_env, spec, limit):
    """`limit`: UNPY_GPU_MEM_LIMIT under the whole loop's 13824 bytes, over a half's 9216: the
    whole is analysed in tiles (for the costs, or the one device), the halves are not."""
    from jitgpu import session
    device_env.setenv("UNPY_DEVICE", SPECS[spec])
    device_env.setenv("UNPY_REPLAY", "0")
    if limit is not None:
        device_env.setenv("UNPY_GPU_MEM_LIMIT", str(limit))
    session.forget()
    call, check = _matmul(gpu)
    analysed = call_path.analyses(call)
    check()
    ran_on = gpu.explain("matmul").nests[0].ran_on
    assert ran_on.startswith("opencl:")
    assert len(ran_on.split(" + ")) == (1 if spec == "one device" else 2), ran_on
    # The whole loop (its costs, or the one device), and each part's range.
    assert ((0, 24), (0, 24)) in analysed, analysed
    assert all(n == 1 for n in analysed.values()), analysed
    if spec != "one device":
        assert len(analysed) >= 3, analysed       # the parts' ranges besides the whole
    if limit is not None and spec == "one device":
        assert gpu.explain("matmul").nests[0].timings["tiles"] > 1


def _alike(monkeypatch, spec):
    """The participants of `spec` given the same facts but their labels (so that the first
    shares of two contexts are even), and timed alike (`jitgpu.multi.slowdown`: synthetic
    times in place of measured ones), so that the shares, and the path with them, do not move
    with the host's timing."""
    import dataclasses
    from gpurts.device import devices_selection
    from jitgpu import multi
    from jitgpu.split import OPENMP
    real = multi.device_facts
    first = {}

    def alike(device, *args):
        facts = real(device, *args)
        return dataclasses.replace(first.setdefault("facts", facts), label=facts.label)
    monkeypatch.setattr(multi, "device_facts", alike)
    labels = [d.label for d in devices_selection(SPECS[spec]).devices] + [OPENMP]
    monkeypatch.setattr(multi, "slowdown", {label: 1.0 for label in labels})


def test_an_even_first_split_analyses_its_first_half_once(gpu, device_env, monkeypatch):
    """Two contexts alike, so that the first shares are even: the shares' costs analyse the
    whole loop and the first half, and the first part runs that half, whose analysis it finds
    (it was analysed twice: issue 20 item 6)."""
    from jitgpu import session
    device_env.setenv("UNPY_DEVICE", SPECS["two contexts"])
    device_env.setenv("UNPY_REPLAY", "0")
    session.forget()
    _alike(monkeypatch, "two contexts")
    call, check = _matmul(gpu)
    analysed = call_path.analyses(call)
    check()
    assert analysed == {((0, 24), (0, 24)): 1, ((0, 12), (0, 24)): 1, ((12, 24), (0, 24)): 1}, \
        analysed


@pytest.mark.parametrize("spec", REPEATED)
def test_a_repeated_call_crosses_few_modules(gpu, device_env, monkeypatch, spec):
    from jitgpu import session
    device_env.setenv("UNPY_DEVICE", SPECS[spec])
    device_env.setenv("UNPY_REPLAY", "0")
    session.forget()
    if spec != "one device":
        _alike(monkeypatch, spec)
    call, check = _matmul(gpu)
    for _ in range(6):          # (a split's shares settle within three calls)
        call()
    counted = [call_path.trace(call) for _ in range(2)]
    check()
    modules, returns = REPEATED[spec]
    for found in counted:
        steps = found["steps"]
        assert steps.cycles == 0, steps.crossings        # no step calls a running one back
        assert len(steps.modules) <= modules, steps.modules
        assert steps.returns <= returns, steps.crossings
        assert steps.modules[:2] == ("unpython", "jitgpu.hook"), steps.modules
    assert counted[0]["steps"] == counted[1]["steps"]    # a repeated call: the same path
