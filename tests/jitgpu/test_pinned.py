"""Copies straight between pinned NumPy memory and the device (gpurts.pins): with every array
pinned and every box counted as large, the residency and flag cases of test_residency run again
on the tested device, compared with the interpreter, so the direct copy-in, the direct copy-back
after the flag check and the residency flush all run."""
import numpy as np
import pytest

from gpurts import pins, transfer
from gpurts.pins import PINS
from gpurts.residency import TABLE

RNG = np.random.default_rng(21)


@pytest.fixture(autouse=True)
def pin_everything(monkeypatch):
    monkeypatch.setenv("UNPY_PIN", "1")
    monkeypatch.setattr(pins, "PIN_MIN_BYTES", 0)
    monkeypatch.setattr(transfer, "STAGE_BYTES", 0)
    yield
    assert not TABLE.entries, "device copies outlived their call"


def test_time_stepping_on_pinned_memory(res, monkeypatch):
    pinned = []
    pin = PINS._pin
    monkeypatch.setattr(PINS, "_pin", lambda device, key: pinned.append(key) or pin(device, key))
    a, b = RNG.random((40, 40)), np.zeros((40, 40))
    res.check("jacobi", 6, a, b, rtol=1e-12)
    assert res.explain("jacobi").transfers == {"a": (1, 1), "b": (1, 1)}
    assert {hi - lo for lo, hi in pinned} == {a.nbytes}, pinned     # (the call's copies)


def test_host_use_between_nests_flushes_pinned_memory(res):
    res.check("host_between", RNG.random(50), np.zeros(50), np.zeros(50), rtol=1e-12)
    res.check("openmp_between", RNG.random(33), np.zeros(33), np.zeros(33), rtol=1e-12,
              ran_on=None)


def test_view_of_pinned_memory(res):
    a = RNG.random(40)
    got, _ = res.check("through_view", a, a[3:], rtol=1e-12)
    assert got == a[3] * 2.0


def test_flagged_kernel_writes_nothing_into_pinned_memory(res):
    a = np.arange(20, dtype=np.int64)
    res.check("flag_between", a, np.zeros(20, np.int64), np.zeros(20, np.int64), 3)
    b, c = np.zeros(20, np.int64), np.full(20, 5, np.int64)
    with pytest.raises(ZeroDivisionError):
        res.compiled.flag_between(a, b, c, 0)
    np.testing.assert_array_equal(b, np.arange(1, 21))


def test_strided_views_mix_straight_and_staged_copies(gpu, device):
    """Boxes of pinned arrays: long rows go straight (a rectangular copy), short or strided
    rows through staging; all land where the interpreter puts them."""
    big, out = RNG.random((64, 96)), np.zeros((64, 96))
    long_rows, short_rows = out[::2, 8:80], out[1::2, ::3]
    paths = [device.transfers._copy_path(out, transfer.Box.of_array(v))
             for v in (out, long_rows, short_rows)]
    assert paths == ["plain", "rect", "staged"]
    gpu.check("add2", big[::2, 8:80], big[1::2, 8:80], long_rows, rtol=1e-12)
    gpu.check("add2", big[::2, ::3], big[1::2, 1::3], short_rows, rtol=1e-12)
    gpu.check("matmul", big[:48, :40], big[:40, 40:80].T.copy().T, out[:48, :40], rtol=1e-12)
