"""The result types handed to the emitter and the runtime."""
import pytest

from jitgpu.lmad import DeviceMap, Refusal, TransferGroup
from jitgpu.lmad.transfer import format_bytes
from unpy.host_memory import Box


def test_a_device_map_is_either_loop_coefficients_or_dimension_strides():
    DeviceMap(0, 5, loop_coeffs=(("i", 1),))
    DeviceMap(0, 5, dim_strides=(4, 1))
    with pytest.raises(AssertionError):
        DeviceMap(0, 5)
    with pytest.raises(AssertionError):
        DeviceMap(0, 5, loop_coeffs=(), dim_strides=())


def test_group_describes_itself_and_rejects_unknown_cases():
    group = TransferGroup(("a", "b"), "span", 4, 2_500_000, 1_000_000, False, True, True,
                          [Box(0, (2_500_000,), (4,), 0)], note="why")
    assert group.device_bytes == 10_000_000
    assert group.describe() == ("a, b: span, 10.0 MB (2500000 elements for ~1000000 touched), "
                                "1 box(es), copy in+out; why")
    with pytest.raises(AssertionError):
        TransferGroup(("a",), "2d", 4, 1, 1, True, True, True, [])


def test_refusal_prints_its_reason_and_sizes_read_well():
    assert str(Refusal("a[i + 1]: index out of range")) == "a[i + 1]: index out of range"
    assert [format_bytes(n) for n in (12, 1500, 3_200_000_000)] == ["12 B", "1.5 kB", "3.2 GB"]
