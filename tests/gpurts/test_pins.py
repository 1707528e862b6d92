"""Pinned NumPy memory (gpurts.pins) on the tested device: when a root is pinned and unpinned,
and copies straight between pinned memory and the device, mixed with staged ones."""
import gc

import numpy as np
import pytest

from gpurts import Box, box_view, pins, transfer
from gpurts.pins import PINS, pinning_on
from gpurts.transfer import write_back
from gpurts_strategies import same_box_in


@pytest.fixture
def pin_large(monkeypatch):
    """Pinning on, every box of at least 4 KiB large."""
    monkeypatch.setenv("UNPY_PIN", "1")
    monkeypatch.setattr(pins, "PIN_MIN_BYTES", 4096)
    monkeypatch.setattr(transfer, "STAGE_BYTES", 4095)


def test_unpy_pin_switch(device, monkeypatch):
    monkeypatch.setenv("UNPY_PIN", "0")
    assert not pinning_on(device)
    monkeypatch.setenv("UNPY_PIN", "1")
    assert pinning_on(device)
    monkeypatch.delenv("UNPY_PIN")
    assert pinning_on(device) == (not device.cl_device.host_unified_memory)


def test_a_root_stays_pinned_while_it_lives(device, pin_large):
    before = PINS.pinned_bytes
    a = np.zeros(4096)
    assert PINS.ensure(device, a, a.nbytes) and PINS.is_pinned(a)
    assert PINS.pinned_bytes == before + a.nbytes
    assert PINS.ensure(device, a, 8)           # already pinned: any copy uses it
    del a
    gc.collect()
    assert PINS.pinned_bytes == before


def test_what_is_not_pinned(device, pin_large, monkeypatch):
    small, big = np.zeros(256), np.zeros(8192)
    assert not PINS.ensure(device, small, small.nbytes)          # under PIN_MIN_BYTES
    assert not PINS.ensure(device, big, big.nbytes // 8)          # a small part of it moves
    monkeypatch.setattr(PINS, "budget", PINS.pinned_bytes)       # no room left
    assert not PINS.ensure(device, big, big.nbytes)
    assert device.transfers._copy_path(big, Box.of_array(big)) == "staged"
    monkeypatch.setenv("UNPY_PIN", "0")
    monkeypatch.setattr(PINS, "budget", 1 << 40)
    assert not PINS.ensure(device, big, big.nbytes)


def test_gather_mixes_straight_and_staged_sources(device, pin_large):
    """Large boxes of pinned memory go straight, small ones are gathered: the staged chunks
    never cover (and so never overwrite) what went straight."""
    rng = np.random.default_rng(3)
    big, other = rng.random((64, 96)), rng.random(300)
    sources = [(0, Box.of_array(big[:, 8:80])),        # 4608 elements, rectangular
               (4608, Box.of_array(big[5, ::7])),      # small: gathered
               (4700, other),                              # small whole array: gathered
               (5000, Box.of_array(big[10:40]))]       # 2880 elements, one run
    packed = device.transfers.staging(7880 * 8, np.float64)
    buffer = device.pool.allocate(packed.nbytes)
    h2d = device.transfers.h2d_calls
    for e in device.transfers.gather_to_device(big, sources, packed, buffer):
        e.wait()
    assert device.transfers.h2d_calls - h2d == 3               # 2 straight, 1 staged chunk
    out = np.zeros(7880)
    device.transfers.from_device(buffer, out)
    np.testing.assert_array_equal(out[:4608], big[:, 8:80].ravel())
    np.testing.assert_array_equal(out[4608:4622], big[5, ::7])
    np.testing.assert_array_equal(out[4700:5000], other)
    np.testing.assert_array_equal(out[5000:], big[10:40].ravel())


def test_copy_back_goes_straight_into_pinned_memory(device, pin_large):
    rng = np.random.default_rng(4)
    data = rng.random(4608 + 14)
    buffer = device.pool.allocate(data.nbytes)
    device.transfers.to_device(data, buffer).wait()
    target = np.zeros((64, 96))
    sources = [(0, Box.of_array(target[:, 8:80])), (4608, Box.of_array(target[5, ::7]))]
    staging = device.transfers.staging(data.nbytes, np.float64)
    writes = device.transfers.copy_back_writes(buffer, target, sources, staging)
    assert [type(source).__name__ for source, _ in writes] == ["DeviceRange", "ndarray"]
    device.queue.finish()
    undo = []
    write_back(writes, undo)
    expected = np.zeros((64, 96))
    expected[:, 8:80] = data[:4608].reshape(64, 72)
    expected[5, ::7] = data[4608:]
    np.testing.assert_array_equal(target, expected)
    for saved, dst in reversed(undo):
        dst[...] = saved
    assert not target.any()
    read_only = np.zeros((64, 96))
    read_only.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        device.transfers.copy_back_writes(buffer, read_only, sources, staging)


def test_box_round_trip_through_pinned_memory(device, pin_large):
    a = np.arange(64 * 96, dtype=np.float64).reshape(64, 96)
    for view in (a, a[:, 8:80], a[3:50, :90]):
        box = Box.of_array(view)
        assert device.transfers._copy_path(a, box) in ("plain", "rect")
        buffer = device.pool.allocate(view.nbytes)
        device.transfers.box_to_device(a, box, buffer).wait()
        target = np.zeros_like(a)
        into = same_box_in(target, box, a)
        device.transfers.box_from_device(buffer, target, into)
        np.testing.assert_array_equal(box_view(target, into), view)
