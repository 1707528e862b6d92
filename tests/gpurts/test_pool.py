"""The device buffer pool: reuse by size class, and out-of-memory as DeviceError."""
import pytest

from gpurts import DeviceError


def test_released_buffer_is_reused(device):
    pool = device.pool
    first = pool.allocate(100_000)
    address = first.int_ptr
    active = pool.active_blocks
    first.release()
    assert pool.active_blocks == active - 1 and pool.held_blocks >= 1
    second = pool.allocate(99_000)   # same size class
    assert second.int_ptr == address and second.size >= 99_000
    second.release()
    pool.free_held()
    assert pool.held_blocks == 0


def test_buffer_larger_than_max_alloc_is_a_device_error(device):
    with pytest.raises(DeviceError, match="out of device memory"):
        device.pool.allocate(device.max_alloc + 1)


def test_negative_size_is_a_value_error(device):
    with pytest.raises(ValueError):
        device.pool.allocate(-1)
