"""Host-device copies on PoCL: plain, rectangular, and strided boxes by every path, with byte
counters and timings."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from gpurts import Box, Timings, box_view, transfer
from gpurts.boxes import split_box
from gpurts_strategies import arrays_and_views, same_box_in


def test_plain_round_trip_counts_bytes(device):
    t = device.transfers
    data = np.arange(1000, dtype=np.float64)
    buffer = device.pool.allocate(data.nbytes + 800)
    h2d, d2h = t.h2d_bytes, t.d2h_bytes
    timings = Timings()
    t.to_device(data, buffer, 800, timings=timings)
    back = np.zeros(900)
    t.from_device(buffer, back, 800 + 100 * 8, timings=timings)
    assert np.array_equal(back, data[100:])
    assert (t.h2d_bytes - h2d, t.d2h_bytes - d2h) == (8000, 7200)
    assert (timings.h2d_bytes, timings.d2h_bytes) == (8000, 7200)
    assert timings.h2d_seconds > 0 and timings.d2h_seconds > 0 and timings.kernel_seconds == 0
    assert "h2d 8000 B" in str(timings)


def test_plain_copies_refuse_strided_or_oversized(device):
    buffer = device.pool.allocate(64)
    with pytest.raises(ValueError, match="contiguous"):
        device.transfers.to_device(np.zeros(16)[::2], buffer)
    with pytest.raises(ValueError, match="do not fit"):
        device.transfers.to_device(np.zeros(9), buffer, 8)
    with pytest.raises(ValueError, match="do not fit"):
        device.transfers.from_device(buffer, np.zeros(8), -8)


def _device_contents(device, buffer, count, dtype):
    out = np.zeros(count, dtype)
    device.transfers.from_device(buffer, out)
    return out


def test_rect_copies_2d_and_3d(device):
    a = np.arange(8 * 9 * 10, dtype=np.float32).reshape(8, 9, 10)
    for view in [a[2, 1:7, 3:9], a[1:5, 2:8:3, 0:10], a[:, 4, :]]:
        box = Box.of_array(view)
        buffer = device.pool.allocate(view.nbytes)
        device.transfers.copy_rect_to_device(a, box, buffer)
        assert np.array_equal(_device_contents(device, buffer, view.size, a.dtype), view.ravel())
        target = np.zeros_like(a)
        into = same_box_in(target, box, a)
        device.transfers.copy_rect_from_device(buffer, target, into)
        assert np.array_equal(box_view(target, into), view)
        assert np.count_nonzero(target) == np.count_nonzero(view)   # nothing else written


def test_rect_copy_refuses_a_non_rectangle(device):
    a = np.zeros((4, 6))
    buffer = device.pool.allocate(a.nbytes)
    with pytest.raises(ValueError, match="not a rectangle"):
        device.transfers.copy_rect_to_device(a, Box.of_array(a[:, ::2]), buffer)


@settings(max_examples=60, deadline=None)
@given(pair=arrays_and_views(max_side=12))
def test_box_round_trip_by_any_path(device, pair):
    base, view = pair
    box = Box.of_array(view)
    buffer = device.pool.allocate(max(view.nbytes, 1))
    device.transfers.box_to_device(base, box, buffer)
    assert np.array_equal(_device_contents(device, buffer, view.size, base.dtype), view.ravel())
    target = np.zeros_like(base)
    device.transfers.box_from_device(buffer, target, same_box_in(target, box, base))
    expected = np.zeros_like(base)
    box_view(expected, same_box_in(expected, box, base))[...] = view
    assert np.array_equal(target, expected)


def test_each_path_is_taken(device, monkeypatch):
    monkeypatch.setenv("UNPY_PIN", "0")      # large boxes of unpinned memory are staged
    a = np.arange(64 * 64, dtype=np.float64).reshape(64, 64)
    paths = [device.transfers._copy_path(a, Box.of_array(v)) for v in
             [a[3:9], a[3:9, 8:40], a[::-1, ::3], a[3:9, ::4]]]
    assert paths == ["plain", "rect", "staged", "staged"]
    big = np.zeros(transfer.STAGE_BYTES // 8 + 1)
    assert device.transfers._copy_path(big, Box.of_array(big)) == "staged"


@settings(max_examples=40, deadline=None)
@given(pair=arrays_and_views(max_side=12), chunk=st.sampled_from([1, 24, 100, 512]))
def test_staged_round_trip_in_many_chunks(device, pair, chunk):
    base, view = pair
    box = Box.of_array(view)
    buffer = device.pool.allocate(max(view.nbytes, 1))
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(transfer, "STAGE_BYTES", 0)
        patch.setattr(transfer, "CHUNK_BYTES", chunk)
        calls = device.transfers.h2d_calls
        device.transfers.box_to_device(base, box, buffer)
        pieces = split_box(box, base.itemsize, chunk)
        assert device.transfers.h2d_calls - calls == max(1, len(pieces))
        assert np.array_equal(_device_contents(device, buffer, view.size, base.dtype), view.ravel())
        target = np.zeros_like(base)
        device.transfers.box_from_device(buffer, target, same_box_in(target, box, base))
    expected = np.zeros_like(base)
    box_view(expected, same_box_in(expected, box, base))[...] = view
    assert np.array_equal(target, expected)


def test_box_from_device_into_read_only_array(device):
    a = np.zeros((4, 4))
    buffer = device.pool.allocate(a.nbytes)
    a.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        device.transfers.box_from_device(buffer, a, Box.of_array(a[:, 1]))


def test_gather_to_device_chunks_and_gaps(device, monkeypatch):
    """Boxes land at their offsets of packed staging; chunks of CHUNK_BYTES are sent as soon as
    they are gathered, so there is more than one DMA."""
    monkeypatch.setattr(transfer, "CHUNK_BYTES", 256)
    owner = np.arange(400, dtype=np.float64).reshape(20, 20)
    boxes = [(0, Box.of_array(owner[::2, 1])), (12, Box.of_array(owner[3:9, 4:10]))]
    packed = device.pinned.take(48 * 8, np.float64)
    buffer = device.pool.allocate(48 * 8)
    timings = Timings()
    events = device.transfers.gather_to_device(owner, boxes, packed, buffer, timings=timings)
    assert len(events) > 1
    got = _device_contents(device, buffer, 48, np.float64)
    assert np.array_equal(got[:10], owner[::2, 1])
    assert np.array_equal(got[12:48], owner[3:9, 4:10].ravel())
