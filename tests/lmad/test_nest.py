"""The nest description: affine forms, live arrays, well-formedness."""
import numpy as np
import pytest

from jitgpu.lmad import Access, AffineForm, LoopDim
from jitgpu.lmad.nest import check_nest

from .oracle import live

F = AffineForm


def test_affine_form_is_normalised():
    form = F(3, (("j", 2), ("i", 1), ("k", 0), ("i", -1), ("i", 4)))
    assert form == F(3, {"i": 4, "j": 2})
    assert form.coeffs == (("i", 4), ("j", 2))
    assert hash(form) == hash(F(3, {"j": 2, "i": 4}))


@pytest.mark.parametrize("form, text", [
    (F(0), "0"), (F(-2), "-2"), (F(1, {"i": 1}), "i + 1"), (F(-1, {"i": -1}), "-i - 1"),
    (F(0, {"i": 2, "j": -3}), "2*i - 3*j"), (F(5, {"i": -1, "j": 1}), "-i + j + 5"),
])
def test_affine_form_prints_as_python(form, text):
    assert str(form) == text


def test_affine_form_range_evaluate_and_shift():
    form = F(1, {"i": 2, "j": -1})
    assert form.value_range({"i": 5, "j": 3}) == (-1, 9)
    assert form.evaluate({"i": 2, "j": 1}) == 4
    shifted = form.shifted({"i": 10, "j": 3})
    assert shifted == F(1 + 20 - 3, {"i": 2, "j": -1})
    assert shifted.evaluate({"i": 2, "j": 1}) == form.evaluate({"i": 12, "j": 4})


def test_live_array_interval_follows_negative_strides():
    buf = np.zeros((4, 6))
    view = buf[::-1, 1::2]
    arr = live("v", view)
    base = buf.__array_interface__["data"][0]
    assert arr.byte_interval() == (base + 8, base + 3 * 48 + 5 * 8 + 8)
    assert (arr.buffer_lo, arr.buffer_hi) == (base, base + buf.nbytes)
    assert live("e", buf[:0]).byte_interval() is None


def test_malformed_nests_are_caller_bugs():
    a = live("a", np.zeros((2, 2)))
    loops = [LoopDim("i", 2, True)]
    with pytest.raises(ValueError, match="unknown array"):
        check_nest(loops, [a], [Access(0, "b", [F(0), F(0)], True, False)])
    with pytest.raises(ValueError, match="1 indices for 2-d"):
        check_nest(loops, [a], [Access(0, "a", [F(0)], True, False)])
    with pytest.raises(ValueError, match="no loop"):
        check_nest(loops, [a], [Access(0, "a", [F(0, {"k": 1}), F(0)], True, False)])
    with pytest.raises(ValueError, match="share a ref_id"):
        check_nest(loops, [a], [Access(0, "a", [F(0), F(0)], True, False)] * 2)
