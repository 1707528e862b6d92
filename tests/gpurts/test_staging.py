"""Pinned staging memory: size classes, reuse, and that a block is never handed out twice."""
import gc

import numpy as np
import pytest
from hypothesis import given, strategies as st

from gpurts.staging import size_class


@given(st.integers(0, 1 << 40))
def test_size_class_covers_request_with_bounded_waste(nbytes):
    size = size_class(nbytes)
    assert size >= max(nbytes, 4096)
    assert size <= max(4096, nbytes * 5 // 4 + 1)
    assert size_class(size) == size


def test_staging_array_is_on_pinned_memory_and_reused(device):
    pinned = device.pinned
    a = device.transfers.staging(8000, np.float64)
    assert a.shape == (1000,) and a.dtype == np.float64 and a.flags.writeable
    a[:] = np.arange(1000)
    address = a.ctypes.data
    view = a[10:20]
    del a
    gc.collect()
    other = device.transfers.staging(8000, np.float64)
    assert other.ctypes.data != address   # the view still holds the first block
    del view
    gc.collect()
    held = pinned.held_blocks
    b = device.transfers.staging(8100, np.uint8)   # the same size class (8 KiB)
    assert b.ctypes.data == address and pinned.held_blocks == held - 1
    assert np.array_equal(b[:8000].view(np.float64), np.arange(1000))


def test_staging_rejects_partial_elements_and_allows_empty(device):
    with pytest.raises(ValueError):
        device.transfers.staging(7, np.float64)
    assert device.transfers.staging(0, np.float32).shape == (0,)


def test_free_held_releases_blocks(device):
    a = device.transfers.staging(1 << 16)
    del a
    gc.collect()
    assert device.pinned.held_blocks >= 1
    device.pinned.free_held()
    assert device.pinned.held_blocks == 0
